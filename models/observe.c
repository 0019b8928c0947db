#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/observe.h"
#include "models/vclock.h"

#define OBS_MAX_HELD 8
#define OBS_BLOCK_READS 8     /* reads remembered per lock block */
#define OBS_RELOCK_WINDOW 64  /* own events between release and re-acquire */
#define OBS_RECS_PER_WORD 16  /* distinct (thread, pc, kind) accesses kept per word */
#define OBS_MAX_DEPS 4096
#define OBS_FIRST_LOCKS 64    /* distinct locks whose first acquire a thread remembers */

struct block {
	uint64_t lock, lock_pc;
	uint64_t lock_ctx[CTS_SUSPECT_CTX];
	int nreads;
	uint64_t raddr[OBS_BLOCK_READS], rpc[OBS_BLOCK_READS];
};

struct othread {
	bool known;
	uint64_t site;                  /* creation site */
	int nheld;
	uint64_t held[OBS_MAX_HELD];
	struct cts_vc vc;
	struct block cur, last;         /* the open outermost block, the last closed one */
	bool open, last_valid, second;  /* second: cur re-took last's lock */
	uint32_t since_release;
	int nfresh;
	uint64_t fresh[OBS_BLOCK_READS];/* addresses of last's reads read again in cur */
	int nfirst;                     /* each lock it took: how many times so far */
	struct { uint64_t lock; uint32_t count; } first[OBS_FIRST_LOCKS];
};

struct rec {
	int tid;
	bool write;
	uint8_t nlocks;
	uint32_t clock;
	uint32_t size;
	uint64_t pc, addr;
	uint64_t ctx[CTS_SUSPECT_CTX];
	uint64_t locks[OBS_MAX_HELD];
};

struct word {
	uint64_t key;                   /* (addr >> 3) + 1; 0 = empty slot */
	int n;
	struct rec r[OBS_RECS_PER_WORD];
};

struct heapblk {
	uint64_t base, size, site;
};

struct dep {
	int tid;
	int nheld;
	uint64_t held[OBS_MAX_HELD];
	uint64_t lock, pc;
	uint64_t ctx[CTS_SUSPECT_CTX];
};

/* A condition variable's or semaphore's clock: what its signals and posts released. */
struct objclock {
	uint64_t obj;
	struct cts_vc vc;
};

struct cts_observer {
	struct othread *th;
	int nth;
	struct objclock *objs;
	int nobjs, objcap;
	struct word *words;             /* open addressing, power-of-two size */
	size_t nwords, cap;
	struct heapblk *heap;
	int nheap, heapcap;
	struct dep *deps;
	/* [ndeps][OBS_FIRST_LOCKS]: the thread's counts of first[] at the dep's
	 * first occurrence (not part of its identity) */
	uint32_t (*dep_count)[OBS_FIRST_LOCKS];
	int ndeps;
	struct cts_suspects *found;     /* this run's races and atomicity suspects */
	uint64_t *pairs;                /* race pairs in found, hashed: a racy loop
	                                 * must not scan the list at every access */
	size_t npairs, paircap;
};

struct cts_observer *cts_observer_new(void)
{
	struct cts_observer *o = cts_xcalloc(1, sizeof(*o));
	o->found = cts_suspects_new();
	o->deps = cts_xcalloc(OBS_MAX_DEPS, sizeof(*o->deps));
	o->dep_count = cts_xcalloc(OBS_MAX_DEPS, sizeof(*o->dep_count));
	cts_observer_begin_run(o);
	return o;
}

void cts_observer_free(struct cts_observer *o)
{
	if (!o)
		return;
	for (int t = 0; t < o->nth; t++)
		cts_vc_free(&o->th[t].vc);
	for (int i = 0; i < o->objcap; i++)
		cts_vc_free(&o->objs[i].vc);
	free(o->th);
	free(o->objs);
	free(o->words);
	free(o->heap);
	free(o->deps);
	free(o->dep_count);
	free(o->pairs);
	cts_suspects_free(o->found);
	free(o);
}

void cts_observer_begin_run(struct cts_observer *o)
{
	for (int t = 0; t < o->nth; t++)
		o->th[t].known = false;
	if (o->words)
		memset(o->words, 0, o->cap * sizeof(*o->words));
	o->nwords = 0;
	o->nheap = 0;
	o->nobjs = 0;
	o->ndeps = 0;
	cts_suspects_free(o->found);
	o->found = cts_suspects_new();
	if (o->pairs)
		memset(o->pairs, 0, o->paircap * sizeof(*o->pairs));
	o->npairs = 0;
}

/* True the first time the unordered pair (a, b) is seen this run. */
static bool new_pair(struct cts_observer *o, uint64_t a, uint64_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
	uint64_t key = (lo * 0x9E3779B97F4A7C15ull) ^ (hi + 0x632BE59BD9B4E019ull + (lo << 7));
	key |= 1; /* 0 marks an empty slot */
	if (2 * (o->npairs + 1) > o->paircap) {
		size_t ncap = o->paircap ? 2 * o->paircap : 256;
		uint64_t *old = o->pairs;
		o->pairs = cts_xcalloc(ncap, sizeof(*o->pairs));
		for (size_t i = 0; i < o->paircap; i++) {
			if (!old[i])
				continue;
			size_t j = old[i] & (ncap - 1);
			while (o->pairs[j])
				j = (j + 1) & (ncap - 1);
			o->pairs[j] = old[i];
		}
		free(old);
		o->paircap = ncap;
	}
	size_t j = key & (o->paircap - 1);
	while (o->pairs[j] && o->pairs[j] != key)
		j = (j + 1) & (o->paircap - 1);
	if (o->pairs[j])
		return false;   /* seen (or a 64-bit hash collision: one pair lost) */
	o->pairs[j] = key;
	o->npairs++;
	return true;
}

static struct othread *thread(struct cts_observer *o, int tid)
{
	if (tid < 0)
		return NULL;
	if (tid >= o->nth) {
		int n = o->nth ? o->nth : 8;
		while (n <= tid)
			n *= 2;
		o->th = cts_xrealloc(o->th, (size_t)n * sizeof(*o->th));
		memset(o->th + o->nth, 0, (size_t)(n - o->nth) * sizeof(*o->th));
		o->nth = n;
	}
	struct othread *t = &o->th[tid];
	if (!t->known) {
		struct cts_vc vc = t->vc;   /* keep the clock's storage for reuse */
		memset(t, 0, sizeof(*t));
		t->vc = vc;
		cts_vc_zero(&t->vc);
		t->known = true;
		cts_vc_tick(&t->vc, tid);
	}
	return t;
}

/* ---- abstractions ---- */

struct cts_lock_abs cts_observer_lock_abs(const struct cts_observer *o, uint64_t lock)
{
	for (int i = o->nheap - 1; i >= 0; i--) {
		const struct heapblk *b = &o->heap[i];
		if (lock >= b->base && lock < b->base + b->size)
			return (struct cts_lock_abs){ .site = b->site, .off = lock - b->base, .heap = true };
	}
	return (struct cts_lock_abs){ .site = lock };
}

uint64_t cts_observer_thread_abs(const struct cts_observer *o, int tid)
{
	return tid >= 0 && tid < o->nth && o->th[tid].known ? o->th[tid].site : 0;
}

int cts_observer_held(const struct cts_observer *o, int tid, const uint64_t **locks)
{
	if (tid < 0 || tid >= o->nth || !o->th[tid].known)
		return 0;
	*locks = o->th[tid].held;
	return o->th[tid].nheld;
}

static void heap_event(struct cts_observer *o, const struct cts_event *ev)
{
	if (ev->op == CTS_OP_FREE) {
		for (int i = o->nheap - 1; i >= 0; i--) {
			if (o->heap[i].base == ev->obj) {
				o->heap[i] = o->heap[--o->nheap];
				break;
			}
		}
		return;
	}
	if (!ev->obj || !ev->size)
		return;
	if (o->nheap == o->heapcap) {
		o->heapcap = o->heapcap ? 2 * o->heapcap : 64;
		o->heap = cts_xrealloc(o->heap, (size_t)o->heapcap * sizeof(*o->heap));
	}
	o->heap[o->nheap++] = (struct heapblk){ ev->obj, ev->size, ev->pc };
}

/* ---- locks and blocks ---- */

static const uint64_t no_ctx[CTS_SUSPECT_CTX];

static void acquire(struct cts_observer *o, struct othread *t, const struct cts_event *ev,
		    const uint64_t *ctx, uint64_t lock, bool analyze)
{
	if (analyze && t->nheld > 0 && o->ndeps < OBS_MAX_DEPS) {
		struct dep d = { .tid = ev->tid, .nheld = t->nheld, .lock = lock, .pc = ev->pc };
		memcpy(d.held, t->held, sizeof(d.held));
		memcpy(d.ctx, ctx, sizeof(d.ctx));
		int i = 0;
		while (i < o->ndeps && memcmp(&o->deps[i], &d, sizeof(d)) != 0)
			i++;
		if (i == o->ndeps) {
			uint32_t *c = o->dep_count[o->ndeps];
			memset(c, 0, sizeof(o->dep_count[0]));
			for (int k = 0; k < t->nfirst; k++)
				c[k] = t->first[k].count;
			o->deps[o->ndeps++] = d;
		}
	}
	if (analyze) {
		int k = 0;
		while (k < t->nfirst && t->first[k].lock != lock)
			k++;
		if (k == t->nfirst && k < OBS_FIRST_LOCKS) {
			t->first[k].lock = lock;
			t->first[k].count = 0;
			t->nfirst++;
		}
		if (k < t->nfirst && t->first[k].count < UINT32_MAX)
			t->first[k].count++;
	}
	if (t->nheld == 0) {
		/* An outermost block opens; it is a "second" block when it re-takes
		 * the lock of the last one soon, with no other lock in between. */
		t->second = t->last_valid && t->last.lock == lock &&
			    t->since_release <= OBS_RELOCK_WINDOW;
		t->open = true;
		t->nfresh = 0;
		t->cur = (struct block){ .lock = lock, .lock_pc = ev->pc };
		memcpy(t->cur.lock_ctx, ctx, sizeof(t->cur.lock_ctx));
	}
	if (t->nheld < OBS_MAX_HELD)
		t->held[t->nheld] = lock;
	t->nheld++;
}

static void release(struct othread *t, uint64_t lock)
{
	int n = t->nheld < OBS_MAX_HELD ? t->nheld : OBS_MAX_HELD;
	for (int i = n - 1; i >= 0; i--) {
		if (t->held[i] != lock)
			continue;
		memmove(&t->held[i], &t->held[i + 1], (size_t)(n - 1 - i) * sizeof(t->held[0]));
		t->nheld--;
		break;
	}
	if (t->nheld == 0 && t->open) {
		t->open = t->second = false;
		t->last = t->cur;
		t->last_valid = true;
		t->since_release = 0;
	}
}

bool cts_observer_block_read(const struct cts_observer *o, int tid, uint64_t lock, uint64_t pc,
			     uint64_t *addr)
{
	if (tid < 0 || tid >= o->nth || !o->th[tid].known)
		return false;
	const struct othread *t = &o->th[tid];
	if (!t->last_valid || t->last.lock != lock)
		return false;
	for (int i = 0; i < t->last.nreads; i++) {
		if (t->last.rpc[i] == pc) {
			*addr = t->last.raddr[i];
			return true;
		}
	}
	return false;
}

static int read_index(const struct block *b, uint64_t addr)
{
	for (int i = 0; i < b->nreads; i++)
		if (b->raddr[i] == addr)
			return i;
	return -1;
}

bool cts_observer_stale_write(const struct cts_observer *o, const struct cts_event *ev,
			      uint64_t *read_pc)
{
	if (ev->op != CTS_OP_WRITE || ev->tid < 0 || ev->tid >= o->nth || !o->th[ev->tid].known)
		return false;
	const struct othread *t = &o->th[ev->tid];
	if (!t->open || !t->second)
		return false;
	int i = read_index(&t->last, ev->obj);
	if (i < 0)
		return false;
	for (int k = 0; k < t->nfresh; k++)
		if (t->fresh[k] == ev->obj)
			return false;
	*read_pc = t->last.rpc[i];
	return true;
}

/* Reads and writes inside blocks, for the atomicity pattern. */
static void block_access(struct cts_observer *o, struct othread *t, const struct cts_event *ev,
			 const uint64_t *ctx, bool analyze)
{
	if (!t->open)
		return;
	bool reads = ev->op == CTS_OP_READ || ev->op == CTS_OP_RMW;
	if (reads && read_index(&t->cur, ev->obj) < 0 && t->cur.nreads < OBS_BLOCK_READS) {
		t->cur.raddr[t->cur.nreads] = ev->obj;
		t->cur.rpc[t->cur.nreads++] = ev->pc;
	}
	if (reads && t->second && read_index(&t->last, ev->obj) >= 0 &&
	    t->nfresh < OBS_BLOCK_READS)
		t->fresh[t->nfresh++] = ev->obj;
	uint64_t rpc;
	if (analyze && cts_observer_stale_write(o, ev, &rpc)) {
		struct cts_suspect s = {
			.kind = CTS_SUSPECT_ATOMICITY, .npcs = 4,
			.pc = { t->last.lock_pc, rpc, t->cur.lock_pc, ev->pc },
			.lock = cts_observer_lock_abs(o, t->cur.lock),
		};
		memcpy(s.ctx[2], t->cur.lock_ctx, sizeof(s.ctx[2]));
		memcpy(s.ctx[3], ctx, sizeof(s.ctx[3]));
		cts_suspects_add(o->found, &s);
	}
}

/* ---- wait/notify ordering for the hybrid detector ---- */

static struct cts_vc *obj_clock(struct cts_observer *o, uint64_t obj)
{
	for (int i = 0; i < o->nobjs; i++)
		if (o->objs[i].obj == obj)
			return &o->objs[i].vc;
	if (o->nobjs == o->objcap) {
		int ncap = o->objcap ? 2 * o->objcap : 16;
		o->objs = cts_xgrow(o->objs, (size_t)o->objcap, (size_t)ncap, sizeof(*o->objs));
		o->objcap = ncap;
	}
	o->objs[o->nobjs].obj = obj;
	cts_vc_zero(&o->objs[o->nobjs].vc);
	return &o->objs[o->nobjs++].vc;
}

/* A signal or post orders what came before it in its thread before what the
 * woken waiter does next (O'Callahan and Choi's wait/notify edges). */
static void notify(struct cts_observer *o, struct othread *t, const struct cts_event *ev)
{
	cts_vc_join(obj_clock(o, ev->obj), &t->vc);
	cts_vc_tick(&t->vc, ev->tid);
}

static void woken(struct cts_observer *o, struct othread *t, uint64_t obj)
{
	cts_vc_join(&t->vc, obj_clock(o, obj));
}

/* ---- hybrid race detection ---- */

static struct word *word_slot(struct cts_observer *o, uint64_t addr, bool create)
{
	uint64_t key = (addr >> 3) + 1;
	if (create && 2 * (o->nwords + 1) > o->cap) {
		size_t ncap = o->cap ? 2 * o->cap : 1024;
		struct word *old = o->words;
		size_t ocap = o->cap;
		o->words = cts_xcalloc(ncap, sizeof(*o->words));
		o->cap = ncap;
		for (size_t i = 0; i < ocap; i++) {
			if (!old[i].key)
				continue;
			size_t j = (old[i].key * 0x9E3779B97F4A7C15ull) & (ncap - 1);
			while (o->words[j].key)
				j = (j + 1) & (ncap - 1);
			o->words[j] = old[i];
		}
		free(old);
	}
	if (!o->cap)
		return NULL;
	size_t j = (key * 0x9E3779B97F4A7C15ull) & (o->cap - 1);
	while (o->words[j].key && o->words[j].key != key)
		j = (j + 1) & (o->cap - 1);
	if (o->words[j].key)
		return &o->words[j];
	if (!create)
		return NULL;
	o->words[j].key = key;
	o->words[j].n = 0;
	o->nwords++;
	return &o->words[j];
}

static bool locksets_meet(const struct rec *r, const struct othread *t)
{
	int n = t->nheld < OBS_MAX_HELD ? t->nheld : OBS_MAX_HELD;
	for (int i = 0; i < r->nlocks; i++)
		for (int k = 0; k < n; k++)
			if (r->locks[i] == t->held[k])
				return true;
	return false;
}

static void hybrid_access(struct cts_observer *o, struct othread *t, const struct cts_event *ev,
			  const uint64_t *ctx)
{
	struct word *w = word_slot(o, ev->obj, true);
	bool write = cts_op_is_write(ev->op);
	int mine = -1;
	for (int i = 0; i < w->n; i++) {
		struct rec *r = &w->r[i];
		if (r->tid == ev->tid) {
			if (r->pc == ev->pc && r->write == write &&
			    memcmp(r->ctx, ctx, sizeof(r->ctx)) == 0)
				mine = i;
			continue;
		}
		bool overlap = r->addr < ev->obj + ev->size && ev->obj < r->addr + r->size;
		if (!overlap || (!write && !r->write) || locksets_meet(r, t))
			continue;
		if (cts_vc_epoch_leq(r->clock, r->tid, &t->vc))
			continue;  /* ordered by fork/join */
		if (!new_pair(o, r->pc ^ r->ctx[0] * 31, ev->pc ^ ctx[0] * 31))
			continue;
		struct cts_suspect s = { .kind = CTS_SUSPECT_RACE, .npcs = 2, .pc = { r->pc, ev->pc } };
		memcpy(s.ctx[0], r->ctx, sizeof(s.ctx[0]));
		memcpy(s.ctx[1], ctx, sizeof(s.ctx[1]));
		cts_suspects_add(o->found, &s);
	}
	if (mine < 0) {
		if (w->n < OBS_RECS_PER_WORD)
			mine = w->n++;
		else
			mine = (int)(ev->pc % OBS_RECS_PER_WORD); /* a full word forgets one */
	}
	struct rec *r = &w->r[mine];
	r->tid = ev->tid;
	r->pc = ev->pc;
	memcpy(r->ctx, ctx, sizeof(r->ctx));
	r->write = write;
	r->addr = ev->obj;
	r->size = ev->size ? ev->size : 1;
	r->clock = cts_vc_get(&t->vc, ev->tid);
	r->nlocks = (uint8_t)(t->nheld < OBS_MAX_HELD ? t->nheld : OBS_MAX_HELD);
	memcpy(r->locks, t->held, sizeof(r->locks));
}

void cts_observer_event(struct cts_observer *o, const struct cts_event *ev, const uint64_t *ctx,
			bool analyze)
{
	struct othread *t = thread(o, ev->tid);
	if (!ctx)
		ctx = no_ctx;
	if (!t)
		return;
	t->since_release++;
	switch (ev->op) {
	case CTS_OP_CREATE:
		if (ev->target >= 0) {
			struct othread *c = thread(o, ev->target);
			if (!c)
				break;
			t = &o->th[ev->tid]; /* thread() may have moved the array */
			c->site = ev->pc;
			cts_vc_join(&c->vc, &t->vc);
			cts_vc_tick(&c->vc, ev->target);
			cts_vc_tick(&t->vc, ev->tid);
		}
		break;
	case CTS_OP_JOIN:
		if (ev->target >= 0 && ev->target < o->nth && o->th[ev->target].known)
			cts_vc_join(&t->vc, &o->th[ev->target].vc);
		break;
	case CTS_OP_LOCK: case CTS_OP_WRLOCK: case CTS_OP_RDLOCK:
		if (!ev->timed || ev->result == 0)
			acquire(o, t, ev, ctx, ev->obj, analyze);
		break;
	case CTS_OP_TRYLOCK: case CTS_OP_TRYRDLOCK: case CTS_OP_TRYWRLOCK:
		if (ev->result == 0)
			acquire(o, t, ev, ctx, ev->obj, false);
		break;
	case CTS_OP_COND_REACQUIRE:
		if (analyze)
			woken(o, t, ev->obj);
		acquire(o, t, ev, ctx, ev->obj2, false);
		break;
	case CTS_OP_COND_SIGNAL: case CTS_OP_COND_BROADCAST: case CTS_OP_SEM_POST:
		if (analyze)
			notify(o, t, ev);
		break;
	case CTS_OP_SEM_WAIT: case CTS_OP_SEM_TRYWAIT:
		if (analyze && ev->result == 0)
			woken(o, t, ev->obj);
		break;
	case CTS_OP_UNLOCK: case CTS_OP_RWUNLOCK:
		release(t, ev->obj);
		break;
	case CTS_OP_COND_WAIT:
		release(t, ev->obj2);
		break;
	case CTS_OP_ALLOC: case CTS_OP_FREE:
		heap_event(o, ev);
		break;
	case CTS_OP_READ: case CTS_OP_WRITE: case CTS_OP_RMW:
		block_access(o, t, ev, ctx, analyze);
		if (analyze)
			hybrid_access(o, t, ev, ctx);
		break;
	default:
		break;
	}
}

/* ---- iGoodlock ---- */

static bool holds(const struct dep *d, uint64_t lock)
{
	int n = d->nheld < OBS_MAX_HELD ? d->nheld : OBS_MAX_HELD;
	for (int i = 0; i < n; i++)
		if (d->held[i] == lock)
			return true;
	return false;
}

static bool disjoint(const struct dep *a, const struct dep *b)
{
	int n = a->nheld < OBS_MAX_HELD ? a->nheld : OBS_MAX_HELD;
	for (int i = 0; i < n; i++)
		if (holds(b, a->held[i]))
			return false;
	return true;
}

/* How many times dep's thread took lock before dep (its first occurrence).
 * Locks past the first OBS_FIRST_LOCKS a thread takes are not known: 0. */
static uint32_t took_before(const struct cts_observer *o, int dep, uint64_t lock)
{
	const struct othread *t = &o->th[o->deps[dep].tid];
	for (int k = 0; k < t->nfirst; k++)
		if (t->first[k].lock == lock)
			return o->dep_count[dep][k];
	return 0;
}

static void emit_cycle(struct cts_observer *o, struct cts_suspects *l, const int *chain, int k)
{
	struct cts_suspect s = { .kind = CTS_SUSPECT_DEADLOCK, .ncomp = k };
	for (int i = 0; i < k; i++) {
		const struct dep *d = &o->deps[chain[i]], *prev = &o->deps[chain[(i + k - 1) % k]];
		s.comp[i] = (struct cts_cycle_comp){
			.thread = cts_observer_thread_abs(o, d->tid),
			.held = cts_observer_lock_abs(o, prev->lock),
			.want = cts_observer_lock_abs(o, d->lock),
			.at = d->pc,
		};
		memcpy(s.comp[i].ctx, d->ctx, sizeof(s.comp[i].ctx));
		/* Which other links' held locks this thread took on its way here
		 * (link m holds what link m - 1 acquires). */
		for (int dd = 1; dd < k; dd++) {
			uint32_t n = took_before(o, chain[i], o->deps[chain[(i + dd - 1) % k]].lock);
			if (!n)
				continue;
			s.comp[i].needs |= (uint8_t)(1u << dd);
			s.comp[i].times[dd] = n > UINT16_MAX ? 0 : (uint16_t)n;
		}
	}
	cts_suspects_add(l, &s);
}

/* Extend chain[0..k-1] (each link holds the lock the one before acquires). */
static void chains(struct cts_observer *o, struct cts_suspects *l, int *chain, int k)
{
	const struct dep *first = &o->deps[chain[0]], *lastd = &o->deps[chain[k - 1]];
	if (k >= 2 && holds(first, lastd->lock)) {
		emit_cycle(o, l, chain, k);
		return;
	}
	if (k == CTS_SUSPECT_MAX_CYCLE)
		return;
	/* Only chains starting at their smallest index: each cycle once. */
	for (int j = chain[0] + 1; j < o->ndeps; j++) {
		const struct dep *d = &o->deps[j];
		if (!holds(d, lastd->lock))
			continue;
		bool ok = true;
		for (int i = 0; i < k && ok; i++) {
			const struct dep *c = &o->deps[chain[i]];
			ok = c->tid != d->tid && c->lock != d->lock && disjoint(c, d);
		}
		if (!ok)
			continue;
		chain[k] = j;
		chains(o, l, chain, k + 1);
	}
}

void cts_observer_end_run(struct cts_observer *o, struct cts_suspects *l, unsigned mask)
{
	for (int i = 0; i < cts_suspects_count(o->found); i++) {
		const struct cts_suspect *s = cts_suspects_at(o->found, i);
		if (mask & (1u << s->kind))
			cts_suspects_add(l, s);
	}
	if (mask & (1u << CTS_SUSPECT_DEADLOCK)) {
		int chain[CTS_SUSPECT_MAX_CYCLE];
		for (int i = 0; i < o->ndeps; i++) {
			chain[0] = i;
			chains(o, l, chain, 1);
		}
	}
}
