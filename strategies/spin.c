/* Spin detection (spin.h): per-thread streaks of re-reads and yields,
 * checked against the backend's hash of the thread's own state, and a map of
 * the last known contents of every granule visible accesses touched. */
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "strategies/spin.h"

/* Reads in a row that count as a spin when the backend cannot hash thread state. */
#define SPIN_LIMIT 3
/* Locations one spin may cycle through (while (a == b)...). */
#define NLOC 4
/* After this many state hashes in a row that showed progress, only every
 * CHECK_EVERY-th candidate re-read is hashed: a long loop that re-reads a
 * constant does not pay for a hash on every read, and a spin that starts
 * later is still seen within CHECK_EVERY iterations. */
#define MISS_LIMIT 16
#define CHECK_EVERY 64
/* Locks one yield loop may take and release between two yields. */
#define NSYNC 4

struct thr {
	struct cts_spin_loc loc[NLOC];
	uint64_t loc_fp[NLOC];      /* state before the location's last read */
	bool loc_fp_ok[NLOC];
	int nloc;
	uint32_t rereads;           /* re-reads in the current streak */
	uint32_t yields;            /* yields since its last step that changed something */
	uint64_t yield_fp;
	bool yield_fp_ok;
	bool others_moved;          /* another thread changed something since its last yield */
	/* Its own locks and unlocks since its last yield, net per object: a
	 * poll that takes and releases a mutex between yields leaves it as it
	 * was (sync_over: too many objects to tell). */
	uint64_t sync_obj[NSYNC];
	int sync_net[NSYNC];
	int nsync;
	bool sync_over;
	uint32_t misses, skipped;
	/* the state hash of the pending operation, computed at most once;
	 * cur_proof: equal hashes prove a stutter (else a hint only) */
	bool cur_known, cur_ok, cur_proof;
	uint64_t cur_fp;
	struct cts_event cur_ev;
	bool stuck, proven;         /* last cts_spin_stuck answer */
	bool listed;                /* in cts_spin's streak list */
};

/* Last known bytes of an 8-byte granule and who last changed it. */
struct gran {
	uint64_t key;
	uint32_t gen;
	uint8_t mask;               /* bytes whose value is known */
	uint8_t bytes[8];
	bool spun;                  /* a thread was held re-reading it this run */
	int wtid;                   /* -1: nobody changed it visibly */
	int reader;                 /* the one thread that read it, -1 none, -2 several */
	uint64_t wpc, wstep;
};

struct cts_spin {
	int (*state)(void *be, int tid, uint64_t *hash);
	void *be;
	/* Per thread number, grown on demand; a block exists from a thread's
	 * first event to its exit (a dead thread costs a pointer). */
	struct thr **th;
	size_t thcap;
	/* Threads in a streak (locations or yields): the only ones another
	 * thread's step has to tell; not every thread the run created. */
	int *streak, nstreak;
	struct gran *g;
	uint32_t cap, n, gen;
};

struct cts_spin *cts_spin_new(int (*state)(void *be, int tid, uint64_t *hash), void *be)
{
	struct cts_spin *sp = cts_xcalloc(1, sizeof(*sp));
	sp->state = state;
	sp->be = be;
	sp->cap = 1024;
	sp->g = cts_xcalloc(sp->cap, sizeof(*sp->g));
	sp->gen = 1;
	return sp;
}

void cts_spin_free(struct cts_spin *sp)
{
	if (!sp)
		return;
	for (size_t t = 0; t < sp->thcap; t++)
		free(sp->th[t]);
	free(sp->th);
	free(sp->streak);
	free(sp->g);
	free(sp);
}

void cts_spin_reset(struct cts_spin *sp)
{
	for (size_t t = 0; t < sp->thcap; t++) {
		free(sp->th[t]);
		sp->th[t] = NULL;
	}
	sp->nstreak = 0;
	sp->n = 0;
	if (++sp->gen == 0) {
		memset(sp->g, 0, sp->cap * sizeof(*sp->g));
		sp->gen = 1;
	}
}

/* ---- granules ---- */

static uint32_t gslot(const struct cts_spin *sp, uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	uint32_t i = (uint32_t)(h >> 32) & (sp->cap - 1);
	while (sp->g[i].gen == sp->gen && sp->g[i].key != key)
		i = (i + 1) & (sp->cap - 1);
	return i;
}

static const struct gran *gfind(const struct cts_spin *sp, uint64_t key)
{
	const struct gran *g = &sp->g[gslot(sp, key)];
	return g->gen == sp->gen ? g : NULL;
}

static struct gran *gget(struct cts_spin *sp, uint64_t key)
{
	if ((sp->n + 1) * 2 > sp->cap) {
		struct gran *old = sp->g;
		uint32_t oldcap = sp->cap;
		sp->cap *= 2;
		sp->g = cts_xcalloc(sp->cap, sizeof(*sp->g));
		for (uint32_t i = 0; i < oldcap; i++)
			if (old[i].gen == sp->gen)
				sp->g[gslot(sp, old[i].key)] = old[i];
		free(old);
	}
	struct gran *g = &sp->g[gslot(sp, key)];
	if (g->gen != sp->gen) {
		memset(g, 0, sizeof(*g));
		g->key = key;
		g->gen = sp->gen;
		g->wtid = -1;
		g->reader = -1;
		sp->n++;
	}
	return g;
}

static void note_reader(struct gran *g, int tid)
{
	if (g->reader == -1)
		g->reader = tid;
	else if (g->reader != tid)
		g->reader = -2;
}

/* Has no thread but tid read [addr, addr+size) visibly this run? Others
 * may have written it (a block filled by one thread and handed over). */
static bool private_to(const struct cts_spin *sp, uint64_t addr, uint32_t size, int tid)
{
	for (uint64_t k = addr >> 3; k <= (addr + (size ? size : 1) - 1) >> 3; k++) {
		const struct gran *g = gfind(sp, k);
		if (g && g->reader != -1 && g->reader != tid)
			return false;
	}
	return true;
}

/* Does memory hold these size bytes (little endian) at addr, as far as the
 * visible accesses so far tell? */
static bool known_equal(const struct cts_spin *sp, uint64_t addr, uint32_t size, uint64_t value)
{
	for (uint32_t i = 0; i < size; i++) {
		uint64_t a = addr + i;
		const struct gran *g = gfind(sp, a >> 3);
		unsigned b = (unsigned)(a & 7);
		if (!g || !(g->mask >> b & 1) || g->bytes[b] != (uint8_t)(value >> (8 * i)))
			return false;
	}
	return true;
}

static void remember(struct cts_spin *sp, const struct cts_event *ev, bool changed, uint64_t step)
{
	struct gran *g = NULL;
	for (uint32_t i = 0; i < ev->size; i++) {
		uint64_t a = ev->obj + i;
		if (!g || g->key != a >> 3) {
			g = gget(sp, a >> 3);
			if (ev->op != CTS_OP_WRITE)
				note_reader(g, ev->tid);
		}
		unsigned b = (unsigned)(a & 7);
		g->mask |= (uint8_t)(1u << b);
		g->bytes[b] = (uint8_t)(ev->value >> (8 * i));
		if (changed) {
			g->wtid = ev->tid;
			g->wpc = ev->pc;
			g->wstep = step;
		}
	}
}

static void forget_gran(struct gran *g, const struct cts_event *ev, uint64_t step)
{
	g->mask = 0;
	g->wtid = ev->tid;
	g->wpc = ev->pc;
	g->wstep = step;
}

/* Past this many granules a write forgets by one pass over the table: a
 * library call's range can be megabytes (pixz's malloc of its block
 * buffers, a read() into a big buffer, the free of a big block), and one
 * lookup per granule grew the table to millions of entries while the run's
 * clock ran out. A granule not in the table is unknown already; only its
 * last writer (for a livelock report) is not recorded then. */
#define FORGET_LOOKUPS 4096

/* A write whose value cannot be tracked: its bytes become unknown. */
static void forget(struct cts_spin *sp, const struct cts_event *ev, uint64_t step)
{
	uint64_t size = ev->size ? ev->size : 1;
	uint64_t lo = ev->obj >> 3, hi = (ev->obj + size - 1) >> 3;
	if (ev->obj + size - 1 < ev->obj)
		hi = UINT64_MAX >> 3;
	if (hi - lo < FORGET_LOOKUPS) {
		for (uint64_t k = lo;; k++) {
			forget_gran(gget(sp, k), ev, step);
			if (k == hi)
				break;
		}
		return;
	}
	for (uint32_t i = 0; i < sp->cap; i++)
		if (sp->g[i].gen == sp->gen && sp->g[i].key >= lo && sp->g[i].key <= hi)
			forget_gran(&sp->g[i], ev, step);
}

bool cts_spin_last_change(const struct cts_spin *sp, uint64_t addr, int *tid, uint64_t *pc,
			  uint64_t *step)
{
	const struct gran *g = gfind(sp, addr >> 3);
	if (!g || g->wtid < 0)
		return false;
	*tid = g->wtid;
	*pc = g->wpc;
	*step = g->wstep;
	return true;
}

/* ---- threads ---- */

/* A library call that only reads (strcmp, strlen) carries a hash of all it
 * read in value (tracer/sync.c): re-running it on unchanged memory is a
 * re-read like a load's. */
static bool read_like(const struct cts_event *ev)
{
	if (ev->op == CTS_OP_LIB_READ)
		return ev->size != 0;
	return (ev->op == CTS_OP_READ || ev->op == CTS_OP_ATOMIC || ev->op == CTS_OP_RMW) &&
	       ev->size && ev->size <= 8;
}

static bool yield_like(cts_op op)
{
	return op == CTS_OP_YIELD || op == CTS_OP_SLEEP;
}

static int find_loc(const struct thr *h, const struct cts_event *ev)
{
	for (int i = 0; i < h->nloc; i++)
		if (h->loc[i].addr == ev->obj && h->loc[i].size == ev->size && h->loc[i].pc == ev->pc)
			return i;
	return -1;
}

static bool same_pending(const struct cts_event *a, const struct cts_event *b)
{
	return a->op == b->op && a->obj == b->obj && a->pc == b->pc && a->size == b->size;
}

/* Is ev a lock operation, and what does it do to its object's hold count
 * (*delta: +1, -1, or 0 for a failed try)? */
static bool lock_op(const struct cts_event *ev, int *delta)
{
	switch (ev->op) {
	case CTS_OP_LOCK: case CTS_OP_RDLOCK: case CTS_OP_WRLOCK:
		*delta = 1;
		return true;
	case CTS_OP_TRYLOCK: case CTS_OP_TRYRDLOCK: case CTS_OP_TRYWRLOCK:
		*delta = ev->result == 0;
		return true;
	case CTS_OP_UNLOCK: case CTS_OP_RWUNLOCK:
		*delta = -1;
		return true;
	default:
		return false;
	}
}

/* Record the thread's own lock operation on obj (delta d) for its yield
 * streak. */
static void note_sync(struct thr *h, uint64_t obj, int d)
{
	if (!d)
		return;
	for (int i = 0; i < h->nsync; i++)
		if (h->sync_obj[i] == obj) {
			h->sync_net[i] += d;
			return;
		}
	if (h->nsync == NSYNC) {
		h->sync_over = true;
		return;
	}
	h->sync_obj[h->nsync] = obj;
	h->sync_net[h->nsync++] = d;
}

/* Did the thread's own lock operations since its last yield leave a lock
 * taken or released? */
static bool sync_moved(const struct thr *h)
{
	if (h->sync_over)
		return true;
	for (int i = 0; i < h->nsync; i++)
		if (h->sync_net[i])
			return true;
	return false;
}

/* The state hash of t's pending operation, computed once per operation. */
static bool state_of(struct cts_spin *sp, struct thr *h, const struct cts_event *p)
{
	if (!h->cur_known || !same_pending(&h->cur_ev, p)) {
		h->cur_known = true;
		h->cur_ev = *p;
		int r = sp->state(sp->be, p->tid, &h->cur_fp);
		h->cur_ok = r >= 0;
		h->cur_proof = r == 0;
	}
	return h->cur_ok;
}

/* Without a state hash (no backend op, or it cannot tell, as in sync
 * mode), repetition alone: a heuristic for scheduling, never a proof. */
static bool by_count(const struct thr *h, bool yield)
{
	return yield ? h->yields >= 2 : h->rereads + 1 >= SPIN_LIMIT;
}

/* Has a thread been held re-reading [addr, addr+size) this run? */
static bool spun_on(const struct cts_spin *sp, uint64_t addr, uint32_t size)
{
	for (uint64_t k = addr >> 3; k <= (addr + (size ? size : 1) - 1) >> 3; k++) {
		const struct gran *g = gfind(sp, k);
		if (g && g->spun)
			return true;
	}
	return false;
}

static void mark_spun(struct cts_spin *sp, uint64_t addr, uint32_t size)
{
	for (uint64_t k = addr >> 3; k <= (addr + (size ? size : 1) - 1) >> 3; k++)
		gget(sp, k)->spun = true;
}

static bool stuck(struct cts_spin *sp, struct thr *h, const struct cts_event *p,
		  struct cts_spin_loc **loc)
{
	if (yield_like(p->op)) {
		/* Hash every yield: the next one compares with it. */
		bool ok = sp->state && state_of(sp, h, p) && h->cur_proof;
		if (!h->yields || h->others_moved || sync_moved(h))
			return false;
		if (!ok)
			return by_count(h, true);
		bool same = h->yield_fp_ok && h->cur_fp == h->yield_fp;
		h->proven = same && h->cur_proof;
		return same;
	}
	if (!read_like(p))
		return false;
	int i = find_loc(h, p);
	if (i < 0 && sp->state && p->op != CTS_OP_LIB_READ && spun_on(sp, p->obj, p->size))
		/* The first read of a location threads spin on: hashed, so that
		 * a second one that leads back to the same state is held. */
		state_of(sp, h, p);
	if (i < 0 || h->loc[i].written)
		return false;
	*loc = &h->loc[i];
	if (!sp->state)
		return by_count(h, false);
	bool first = !h->cur_known || !same_pending(&h->cur_ev, p);
	if (first && h->misses >= MISS_LIMIT && ++h->skipped % CHECK_EVERY != 0) {
		h->cur_known = true;    /* not hashed: this read proves nothing */
		h->cur_ok = false;
		h->cur_ev = *p;
		return false;
	}
	if (first)
		state_of(sp, h, p);
	/* A hint (no proof) tells progress only on a location no other thread
	 * has read: a loop re-reading a field of its own block waits for
	 * nobody, and holding it back by count starved it for good (ripgrep's
	 * searchers). On memory others read, counting goes on as without a
	 * hash: a loop that keeps re-reading what others use (an interpreter's
	 * tables while other threads wait for its lock) is still held back,
	 * which is what lets their timed waits give up. */
	if (!h->cur_ok || (!h->cur_proof && !private_to(sp, p->obj, p->size, p->tid)))
		return h->misses < MISS_LIMIT && by_count(h, false);
	if (!h->loc_fp_ok[i])
		return false;
	bool same = h->cur_fp == h->loc_fp[i];
	h->proven = same && h->cur_proof;
	if (first)
		h->misses = same ? 0 : h->misses + 1;
	return same;
}

/* Thread t's streaks, the table grown to hold it. */
static struct thr *thr_of(struct cts_spin *sp, int t)
{
	if (t < 0)
		return NULL;
	if ((size_t)t >= sp->thcap) {
		size_t cap = cts_grow_cap(sp->thcap, (size_t)t + 1);
		sp->th = cts_xgrow(sp->th, sp->thcap, cap, sizeof(*sp->th));
		sp->streak = cts_xgrow(sp->streak, sp->thcap, cap, sizeof(*sp->streak));
		sp->thcap = cap;
	}
	if (!sp->th[t])
		sp->th[t] = cts_xcalloc(1, sizeof(*sp->th[t]));
	return sp->th[t];
}

bool cts_spin_stuck(struct cts_spin *sp, const struct cts_event *pending, struct cts_spin_loc **loc)
{
	*loc = NULL;
	struct thr *h = thr_of(sp, pending->tid);
	if (!h)
		return false;
	h->proven = false;
	h->stuck = stuck(sp, h, pending, loc);
	if (!h->stuck)
		*loc = NULL;
	else if (*loc)
		mark_spun(sp, (*loc)->addr, (*loc)->size);
	return h->stuck;
}

bool cts_spin_proven(const struct cts_spin *sp, int t)
{
	const struct thr *h = t < 0 || (size_t)t >= sp->thcap ? NULL : sp->th[t];
	if (!h)
		return false;
	if (!h->stuck || !h->proven)
		return false;
	/* One read is enough where the hold came at the second: equal hashes
	 * before both reads, the location unchanged (spun_on). */
	for (int i = 0; i < h->nloc; i++)
		if (h->loc[i].reads >= 1 && !h->loc[i].written)
			return true;
	return false;
}

void cts_spin_release(struct cts_spin *sp, int t)
{
	struct thr *h = t < 0 || (size_t)t >= sp->thcap ? NULL : sp->th[t];
	if (!h)
		return;
	h->nloc = 0;
	h->rereads = h->yields = 0;
	h->stuck = h->proven = false;
}

const struct cts_spin_loc *cts_spin_locs(const struct cts_spin *sp, int t, int *n)
{
	const struct thr *h = t < 0 || (size_t)t >= sp->thcap ? NULL : sp->th[t];
	if (!h) {
		*n = 0;
		return NULL;
	}
	*n = h->nloc;
	return h->loc;
}

static void start_loc(struct thr *h, int i, const struct cts_event *ev, bool fp_ok, uint64_t fp)
{
	h->loc[i] = (struct cts_spin_loc){ .addr = ev->obj, .pc = ev->pc, .value = ev->value,
					   .size = ev->size, .reads = 1 };
	h->loc_fp[i] = fp;
	h->loc_fp_ok[i] = fp_ok;
}

/* The executing thread's own streaks. */
static void own_step(struct thr *h, const struct cts_event *ev, bool silent, bool fp_ok,
		     uint64_t fp, struct cts_spin_step *out)
{
	if (read_like(ev)) {
		int i = find_loc(h, ev);
		if (i >= 0 && silent && !h->loc[i].written && h->loc[i].value == ev->value) {
			h->loc[i].reads++;
			h->loc_fp[i] = fp;
			h->loc_fp_ok[i] = fp_ok;
			h->rereads++;
		} else if (i >= 0 || !silent || h->nloc == NLOC) {
			if (i >= 0 && h->loc[i].reads >= 2 && h->loc[i].value != ev->value) {
				out->spin_exit = true;
				out->exit_addr = ev->obj;
				out->exit_size = ev->size;
			}
			h->nloc = 1;
			h->rereads = 0;
			start_loc(h, 0, ev, fp_ok, fp);
		} else {
			start_loc(h, h->nloc++, ev, fp_ok, fp);
		}
	} else if (yield_like(ev->op)) {
		if (sync_moved(h))
			h->yields = 0;
		h->yields++;
		h->yield_fp = fp;
		h->yield_fp_ok = fp_ok;
		h->others_moved = false;
		h->nsync = 0;
		h->sync_over = false;
	} else {
		h->nloc = 0;
		h->rereads = 0;
	}
	/* Its own lock and unlock of a mutex between two yields (a flag polled
	 * under the lock) end the streak only if they leave the lock changed,
	 * which the next yield checks: counted as a change, they kept such a
	 * poller from ever being held, and PCT starved the thread it waits
	 * for (issue 8, tests/programs/yield_poll_ok). */
	int d;
	if (lock_op(ev, &d))
		note_sync(h, ev->obj, d);
	else if (!silent)
		h->yields = 0;
}

void cts_spin_executed(struct cts_spin *sp, const struct cts_event *ev, uint64_t step,
		       struct cts_spin_step *out)
{
	int t = ev->tid;
	memset(out, 0, sizeof(*out));
	struct thr *h = thr_of(sp, t);
	if (!h)
		return;

	/* Silent: a load, a yield, or a store of what the location already held. */
	bool silent;
	if (ev->op == CTS_OP_READ || ev->op == CTS_OP_LIB_READ) {
		silent = true;
		if (ev->op == CTS_OP_READ && ev->size && ev->size <= 8)
			remember(sp, ev, false, step);
	} else if (cts_op_is_write(ev->op) && ev->size && ev->size <= 8) {
		silent = known_equal(sp, ev->obj, ev->size, ev->value);
		remember(sp, ev, !silent, step);
	} else if (cts_op_is_write(ev->op)) {
		silent = false;
		forget(sp, ev, step);
	} else {
		silent = yield_like(ev->op);
	}
	out->silent = silent;

	bool fp_ok = h->cur_known && h->cur_ok && same_pending(&h->cur_ev, ev);
	own_step(h, ev, silent, fp_ok, h->cur_fp, out);
	h->cur_known = false;
	h->stuck = false;
	if ((h->nloc || h->yields) && !h->listed) {
		h->listed = true;
		sp->streak[sp->nstreak++] = t;
	}
	if (silent)
		return;
	/* Everyone else in a streak may have something new to see (a thread
	 * out of any streak resets others_moved at its next yield). */
	uint64_t lo = ev->obj, hi = ev->obj + (ev->size ? ev->size : 8);
	int k = 0;
	for (int j = 0; j < sp->nstreak; j++) {
		int u = sp->streak[j];
		struct thr *o = sp->th[u];
		if (!o || (!o->nloc && !o->yields)) {
			if (o)
				o->listed = false;
			continue;   /* out of any streak, or exited */
		}
		sp->streak[k++] = u;
		if (u == t)
			continue;
		o->others_moved = true;
		for (int i = 0; i < o->nloc && ev->obj; i++)
			if (o->loc[i].addr < hi && lo < o->loc[i].addr + o->loc[i].size)
				o->loc[i].written = true;
	}
	sp->nstreak = k;
	if (ev->op == CTS_OP_THREAD_EXIT) {
		/* Memory follows live threads: an exited thread spins no more. */
		free(sp->th[t]);
		sp->th[t] = NULL;
	}
}
