/* Happens-before race detection over the executed events of a run.
 *
 * Every thread has a vector clock; synchronization objects (keyed by address:
 * mutexes, rwlocks, conds, sems, barriers, futex words, atomically updated
 * words) hold the clock of their last releases. A release joins the thread's
 * clock into the object's and ticks the thread, an acquire joins the object's
 * clock into the thread's.
 *
 * Shadow memory is FastTrack-style: per 8-byte granule a short list of
 * access records (epoch = clock@tid, pc, step, and a mask of the granule's
 * bytes it still stands for). A write replaces every record of its bytes;
 * a read replaces the reads it is ordered after (its own thread's included),
 * so only the last write and the mutually concurrent reads stay. Mixed sizes
 * work byte-exactly through the masks. Library calls arrive as range
 * accesses (lib_read, lib_write, free = a write of the block); an allocation
 * forgets the shadow of its block.
 *
 * Synchronization variables (a set of bytes that lives across runs, since
 * addresses repeat with ASLR off): every byte a locked RMW (lock-prefixed,
 * xchg, cmpxchg) touched, and every location the explorer saw a thread
 * busy-wait on. On x86-64 a C11 atomic load of any order, and a store up to
 * release (gcc: seq_cst too, as mov + mfence), is a plain mov: a binary
 * cannot tell it from a racy access. So a plain load of a synchronization
 * variable is taken as an acquire and a plain store as a release, and races
 * between such accesses (plain or locked) are dropped; a non-atomic RMW is
 * never a C11 atomic operation and still races. Races are therefore pending
 * until cts_race_flush, when the run has shown which variables synchronize;
 * a plain store racing with a plain load of a variable never seen as atomic
 * is reported with `plain` set: it may be such an atomic all the same. */
#include "models/race.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "models/error.h"
#include "models/vclock.h"

#define NIL UINT32_MAX
#define GRANULE 8u
#define RACE_CHUNK 256
#define SHADOW_MIN_CAP 1024u
#define SYNC_MIN_CAP 64u
#define POOL_MIN_CAP 4096u

/* ---- open-addressing map uint64 -> uint32 --------------------------------
 * A slot is live only when its gen equals the map's, so a new run empties
 * the map in O(1) however large the previous run made it. */

struct map_slot {
	uint64_t key;
	uint32_t val;
	uint32_t gen;
};

struct map {
	struct map_slot *s;
	uint32_t cap; /* power of two */
	uint32_t n;
	uint32_t gen;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static bool map_init(struct map *m, uint32_t cap)
{
	m->s = calloc(cap, sizeof(*m->s));
	m->cap = cap;
	m->n = 0;
	m->gen = 1;
	return m->s != NULL;
}

static uint32_t *map_find(const struct map *m, uint64_t key)
{
	uint32_t mask = m->cap - 1;

	for (uint32_t i = (uint32_t)hash64(key) & mask;; i = (i + 1) & mask) {
		struct map_slot *s = &m->s[i];

		if (s->gen != m->gen)
			return NULL;
		if (s->key == key)
			return &s->val;
	}
}

static bool map_rehash(struct map *m, uint32_t ncap)
{
	struct map_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return false;
	for (uint32_t i = 0; i < m->cap; i++) {
		if (m->s[i].gen != m->gen)
			continue;
		uint32_t j = (uint32_t)hash64(m->s[i].key) & (ncap - 1);
		while (ns[j].gen)
			j = (j + 1) & (ncap - 1);
		ns[j] = m->s[i];
		ns[j].gen = 1;
	}
	free(m->s);
	m->s = ns;
	m->cap = ncap;
	m->gen = 1;
	return true;
}

/* The value slot for key, inserted as `fresh` when absent; NULL when out of
 * memory. The pointer is valid until the next map_get on this map. */
static uint32_t *map_get(struct map *m, uint64_t key, uint32_t fresh)
{
	if ((m->n + 1) * 2 > m->cap && !map_rehash(m, m->cap * 2))
		return NULL;
	uint32_t mask = m->cap - 1;
	for (uint32_t i = (uint32_t)hash64(key) & mask;; i = (i + 1) & mask) {
		struct map_slot *s = &m->s[i];

		if (s->gen != m->gen) {
			s->key = key;
			s->val = fresh;
			s->gen = m->gen;
			m->n++;
			return &s->val;
		}
		if (s->key == key)
			return &s->val;
	}
}

static void map_clear(struct map *m, uint32_t min_cap)
{
	/* Give back a table a huge run left behind when runs got small again. */
	if (m->cap > min_cap && m->n * 16 < m->cap) {
		struct map_slot *ns = calloc(min_cap, sizeof(*ns));

		if (ns) {
			free(m->s);
			m->s = ns;
			m->cap = min_cap;
			m->n = 0;
			m->gen = 1;
			return;
		}
	}
	m->n = 0;
	if (++m->gen == 0) {
		memset(m->s, 0, (size_t)m->cap * sizeof(*m->s));
		m->gen = 1;
	}
}

/* ---- shadow records ------------------------------------------------------ */

struct rec {
	uint64_t pc;
	uint64_t step;
	uint32_t clock;
	uint32_t next; /* next record of the same granule, NIL ends */
	int32_t tid;
	uint8_t mask;  /* bytes of the granule this access still stands for */
	uint8_t op;
};

struct pool {
	struct rec *r;
	uint32_t n, cap;
	uint32_t free; /* free list through rec.next */
};

static uint32_t pool_alloc(struct pool *p)
{
	if (p->free != NIL) {
		uint32_t i = p->free;

		p->free = p->r[i].next;
		return i;
	}
	if (p->n == p->cap) {
		uint32_t ncap = p->cap ? p->cap * 2 : POOL_MIN_CAP;
		struct rec *nr = ncap > p->cap ? realloc(p->r, (size_t)ncap * sizeof(*nr)) : NULL;

		if (!nr)
			return NIL;
		p->r = nr;
		p->cap = ncap;
	}
	return p->n++;
}

static void pool_release(struct pool *p, uint32_t i)
{
	p->r[i].next = p->free;
	p->free = i;
}

static void pool_clear(struct pool *p)
{
	if (p->cap > POOL_MIN_CAP && p->n * 16 < p->cap) {
		struct rec *nr = realloc(p->r, (size_t)POOL_MIN_CAP * sizeof(*nr));

		if (nr) {
			p->r = nr;
			p->cap = POOL_MIN_CAP;
		}
	}
	p->n = 0;
	p->free = NIL;
}

/* ---- synchronization objects and threads -------------------------------- */

struct sync_obj {
	struct cts_vc vc;
	/* rwlock: readers' releases (only writers acquire them);
	 * barrier: clock of the last completed round. Allocated on demand. */
	struct cts_vc *aux;
	uint64_t round;    /* barrier: rounds completed */
	uint32_t arrived;  /* barrier: arrivals in the current round */
	uint32_t count;    /* barrier: parties, 0 when its init was not seen */
	int writer;        /* rwlock: thread holding it for writing, -1 none */
};

struct thread {
	struct cts_vc vc;
	struct cts_vc exit_vc;
	bool live, exited;
	/* Acquires owed at the thread's next event: it passed a barrier, or
	 * came back from a cond wait holding the mutex. */
	bool pend_barrier, pend_mutex;
	uint64_t barrier, barrier_round, mutex;
};

/* An unordered pc pair already reported (pending pairs: used == gen). */
struct pair {
	uint64_t lo, hi;
	uint32_t used;
	int race;          /* confirmed pairs: its report, for the count of runs */
	uint64_t last_run; /* last run that counted */
};

struct cts_race_detector {
	uint64_t run;
	bool oom;

	struct thread *th; /* per thread number, grown by fit_thread */
	size_t thcap;
	int nthreads; /* 1 + highest thread touched this run */
	/* Parent clocks of creates that did not name their child: the next new
	 * thread (numbered in creation order) takes the oldest. */
#define ORPHAN_MAX 128
	struct cts_vc orphan[ORPHAN_MAX];
	int orphan_head, orphan_n;

	struct map shadow; /* granule -> first record */
	struct pool recs;

	struct map syncs;  /* address -> index in objs */
	struct sync_obj *objs;
	uint32_t nobj, capobj;

	struct pair *pairs;
	uint32_t pcap, pn;

	struct map syncloc; /* granule -> mask of synchronization bytes; kept across runs */

	/* Races found since the last flush, and their pc pairs. */
	struct cts_race *pend;
	int npend, cappend;
	struct pair *ppairs;
	uint32_t ppcap, ppn, pgen;

	struct cts_race **chunks;
	int nchunks, nraces;
	int call_start; /* first pending race found by the current observe call */
	/* Per thread, its clock at its plain writes (a new entry only when the
	 * other components changed), so a load reading from one acquires what
	 * the writer knew then: snaps[t][i] covers t's epochs from .clock on. */
	struct snap {
		uint32_t clock, n;
		size_t off;          /* into pool */
	} **snaps;   /* per thread number [thcap], like nsnap and capsnap */
	uint32_t *nsnap, *capsnap;
	uint32_t *pool;
	size_t npool, cappool;

	/* The current read takes its bytes from these unordered plain writes. */
	int nrf;
	int rf_tid[16];
	uint32_t rf_clock[16];
};

static struct sync_obj *sync_find(struct cts_race_detector *d, uint64_t addr)
{
	uint32_t *i = map_find(&d->syncs, addr);

	return i ? &d->objs[*i] : NULL;
}

/* The object at addr, created when new. The pointer is valid until the next
 * sync_get. */
static struct sync_obj *sync_get(struct cts_race_detector *d, uint64_t addr)
{
	/* Room first, so a failed allocation leaves no key without an object. */
	if (d->nobj == d->capobj) {
		uint32_t ncap = d->capobj ? d->capobj * 2 : SYNC_MIN_CAP;
		struct sync_obj *no = realloc(d->objs, (size_t)ncap * sizeof(*no));

		if (!no) {
			d->oom = true;
			return NULL;
		}
		d->objs = no;
		d->capobj = ncap;
	}
	uint32_t *i = map_get(&d->syncs, addr, NIL);

	if (!i) {
		d->oom = true;
		return NULL;
	}
	if (*i == NIL) {
		struct sync_obj *o = &d->objs[d->nobj];

		memset(o, 0, sizeof(*o));
		o->writer = -1;
		*i = d->nobj++;
	}
	return &d->objs[*i];
}

static void sync_obj_free(struct sync_obj *o)
{
	cts_vc_free(&o->vc);
	if (o->aux)
		cts_vc_free(o->aux);
	free(o->aux);
	o->aux = NULL;
}

static struct cts_vc *sync_aux(struct cts_race_detector *d, struct sync_obj *o)
{
	if (!o->aux) {
		o->aux = calloc(1, sizeof(*o->aux));
		if (!o->aux)
			d->oom = true;
	}
	return o->aux;
}

static void acquire(struct cts_race_detector *d, int t, uint64_t addr)
{
	struct sync_obj *o = sync_find(d, addr);

	if (o)
		cts_vc_join(&d->th[t].vc, &o->vc);
}

static void release(struct cts_race_detector *d, int t, uint64_t addr)
{
	struct sync_obj *o = sync_get(d, addr);

	if (o)
		cts_vc_join(&o->vc, &d->th[t].vc);
	cts_vc_tick(&d->th[t].vc, t);
}

static void thread_start(struct cts_race_detector *d, int t, const struct cts_vc *parent)
{
	struct thread *th = &d->th[t];
	struct cts_vc vc = th->vc, exit_vc = th->exit_vc;

	memset(th, 0, sizeof(*th));
	th->vc = vc;              /* reuse the storage */
	th->exit_vc = exit_vc;
	cts_vc_zero(&th->vc);
	cts_vc_zero(&th->exit_vc);
	th->live = true;
	if (parent) {
		cts_vc_copy(&th->vc, parent);
	} else if (d->orphan_n) {
		cts_vc_copy(&th->vc, &d->orphan[d->orphan_head]);
		d->orphan_head = (d->orphan_head + 1) % ORPHAN_MAX;
		d->orphan_n--;
	}
	/* Own component >= 1: epoch 0@t would look ordered before everyone. */
	cts_vc_tick(&th->vc, t);
	if (t + 1 > d->nthreads)
		d->nthreads = t + 1;
}

/* The barrier's current round is over: freeze its clock for the leavers. */
static void barrier_complete(struct cts_race_detector *d, struct sync_obj *o)
{
	struct cts_vc *done = sync_aux(d, o);

	if (done)
		cts_vc_copy(done, &o->vc);
	cts_vc_zero(&o->vc);
	o->arrived = 0;
	o->round++;
}

/* Settle what the thread owes before its next event runs. */
static void thread_enter(struct cts_race_detector *d, int t)
{
	struct thread *th = &d->th[t];

	if (!th->live)
		thread_start(d, t, NULL);
	if (th->pend_mutex) {
		th->pend_mutex = false;
		acquire(d, t, th->mutex);
	}
	if (th->pend_barrier) {
		struct sync_obj *o = sync_find(d, th->barrier);

		th->pend_barrier = false;
		if (o) {
			/* In a serialized run a waiter moves again only once its
			 * round has completed, whether or not we knew the count. */
			if (o->round == th->barrier_round)
				barrier_complete(d, o);
			if (o->aux)
				cts_vc_join(&th->vc, o->aux);
		}
	}
}

/* ---- reports ------------------------------------------------------------- */

static struct cts_race *race_at(const struct cts_race_detector *d, int i)
{
	return &d->chunks[i / RACE_CHUNK][i % RACE_CHUNK];
}

static struct pair *pair_slot(struct pair *tab, uint32_t cap, uint32_t gen, uint64_t lo,
			      uint64_t hi)
{
	uint32_t i = (uint32_t)hash64(lo * 31 + hash64(hi)) & (cap - 1);

	while (tab[i].used == gen && (tab[i].lo != lo || tab[i].hi != hi))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Add (lo, hi) to a pair table whose live entries carry `gen`. */
static bool pair_add(struct pair **tab, uint32_t *cap, uint32_t *n, uint32_t gen, uint64_t lo,
		     uint64_t hi)
{
	if ((*n + 1) * 2 > *cap) {
		uint32_t ncap = *cap * 2;
		struct pair *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return false;
		for (uint32_t i = 0; i < *cap; i++)
			if ((*tab)[i].used == gen)
				*pair_slot(nt, ncap, gen, (*tab)[i].lo, (*tab)[i].hi) = (*tab)[i];
		free(*tab);
		*tab = nt;
		*cap = ncap;
	}
	struct pair *p = pair_slot(*tab, *cap, gen, lo, hi);

	p->lo = lo;
	p->hi = hi;
	p->used = gen;
	(*n)++;
	return true;
}

/* Room for race number d->nraces; NULL when out of memory. */
static struct cts_race *race_slot(struct cts_race_detector *d)
{
	int c = d->nraces / RACE_CHUNK;

	if (c == d->nchunks) {
		struct cts_race **nc = realloc(d->chunks, (size_t)(c + 1) * sizeof(*nc));

		if (!nc)
			return NULL;
		d->chunks = nc;
		nc[c] = calloc(RACE_CHUNK, sizeof(**nc));
		if (!nc[c])
			return NULL;
		d->nchunks++;
	}
	return race_at(d, d->nraces);
}

/* Record r and the current access overlap on bytes ov of granule gbase and
 * are unordered: a pending race until the next flush. */
static void report(struct cts_race_detector *d, const struct rec *r, const struct cts_event *ev,
		   uint64_t step, uint64_t gbase, uint8_t ov)
{
	unsigned first = (unsigned)__builtin_ctz(ov);
	uint32_t len = (uint32_t)__builtin_ctz(~((unsigned)ov >> first));
	uint64_t addr = gbase + first;
	uint64_t lo = r->pc < ev->pc ? r->pc : ev->pc;
	uint64_t hi = r->pc < ev->pc ? ev->pc : r->pc;

	struct pair *seen = pair_slot(d->pairs, d->pcap, 1, lo, hi);
	if (seen->used == 1) {
		if (seen->last_run != d->run) {
			seen->last_run = d->run;
			race_at(d, seen->race)->runs++;
		}
		return;
	}
	if (pair_slot(d->ppairs, d->ppcap, d->pgen, lo, hi)->used == d->pgen) {
		/* The same pair again in the next granule of one wide access:
		 * grow the report instead of dropping the bytes. */
		for (int i = d->call_start; i < d->npend; i++) {
			struct cts_race *x = &d->pend[i];

			if (x->pc1 == r->pc && x->pc2 == ev->pc && x->tid1 == r->tid &&
			    x->addr + x->size == addr) {
				x->size += len;
				break;
			}
		}
		return;
	}
	if (d->npend == d->cappend) {
		int ncap = d->cappend ? d->cappend * 2 : 16;
		struct cts_race *np = realloc(d->pend, (size_t)ncap * sizeof(*np));

		if (!np) {
			d->oom = true;
			return;
		}
		d->pend = np;
		d->cappend = ncap;
	}
	if (!pair_add(&d->ppairs, &d->ppcap, &d->ppn, d->pgen, lo, hi)) {
		d->oom = true;
		return;
	}
	cts_op op1 = (cts_op)r->op, op2 = ev->op;
	d->pend[d->npend++] = (struct cts_race){
		.addr = addr, .size = len,
		.tid1 = r->tid, .tid2 = ev->tid,
		.op1 = op1, .op2 = op2,
		.pc1 = r->pc, .pc2 = ev->pc,
		.step1 = r->step, .step2 = step,
		.run = d->run, .runs = 1,
		.plain = (op1 == CTS_OP_READ || op1 == CTS_OP_WRITE) &&
			 (op2 == CTS_OP_READ || op2 == CTS_OP_WRITE),
	};
}

/* ---- synchronization variables ------------------------------------------- */

static bool sync_bytes(const struct cts_race_detector *d, uint64_t addr, uint64_t size)
{
	for (uint64_t g = addr / GRANULE; g <= (addr + size - 1) / GRANULE; g++) {
		uint32_t *m = map_find(&d->syncloc, g);
		if (!m)
			continue;
		for (uint64_t a = g * GRANULE; a < g * GRANULE + GRANULE; a++)
			if (a >= addr && a < addr + size && (*m >> (a % GRANULE) & 1))
				return true;
	}
	return false;
}

static void mark_sync(struct cts_race_detector *d, uint64_t addr, uint64_t size)
{
	for (uint64_t a = addr; a < addr + size; a++) {
		uint32_t *m = map_get(&d->syncloc, a / GRANULE, 0);
		if (!m) {
			d->oom = true;
			return;
		}
		*m |= 1u << (a % GRANULE);
	}
}

void cts_race_sync_location(struct cts_race_detector *d, uint64_t addr, uint32_t size)
{
	if (!d || !size)
		return;
	mark_sync(d, addr, size);
	/* The writes already made to it were releases after all. */
	struct sync_obj *o = sync_get(d, addr);
	if (!o)
		return;
	for (uint64_t g = addr / GRANULE; g <= (addr + size - 1) / GRANULE; g++) {
		uint32_t *head = map_find(&d->shadow, g);
		for (uint32_t i = head ? *head : NIL; i != NIL; i = d->recs.r[i].next) {
			const struct rec *r = &d->recs.r[i];
			if (cts_op_is_write((cts_op)r->op))
				cts_vc_raise(&o->vc, r->tid, r->clock);
		}
	}
}

int cts_race_add(struct cts_race_detector *d, const struct cts_race *r)
{
	uint64_t lo = r->pc1 < r->pc2 ? r->pc1 : r->pc2;
	uint64_t hi = r->pc1 < r->pc2 ? r->pc2 : r->pc1;
	struct pair *seen = pair_slot(d->pairs, d->pcap, 1, lo, hi);

	if (seen->used == 1) {
		if (seen->last_run != d->run) {
			seen->last_run = d->run;
			race_at(d, seen->race)->runs++;
		}
		return 0;
	}
	if (pair_slot(d->ppairs, d->ppcap, d->pgen, lo, hi)->used == d->pgen)
		return 0;
	if (d->npend == d->cappend) {
		int ncap = d->cappend ? d->cappend * 2 : 16;
		struct cts_race *np = realloc(d->pend, (size_t)ncap * sizeof(*np));
		if (!np)
			return -1;
		d->pend = np;
		d->cappend = ncap;
	}
	if (!pair_add(&d->ppairs, &d->ppcap, &d->ppn, d->pgen, lo, hi))
		return -1;
	d->pend[d->npend] = *r;
	d->pend[d->npend].run = d->run;
	d->pend[d->npend].runs = 1;
	d->npend++;
	return 1;
}

int cts_race_flush(struct cts_race_detector *d)
{
	if (!d)
		return 0;
	int before = d->nraces;
	for (int i = 0; i < d->npend; i++) {
		struct cts_race *x = &d->pend[i];
		if (x->op1 != CTS_OP_RMW && x->op2 != CTS_OP_RMW && sync_bytes(d, x->addr, x->size))
			continue;   /* accesses to a synchronization variable */
		uint64_t lo = x->pc1 < x->pc2 ? x->pc1 : x->pc2;
		uint64_t hi = x->pc1 < x->pc2 ? x->pc2 : x->pc1;
		struct cts_race *slot = race_slot(d);
		if (!slot || !pair_add(&d->pairs, &d->pcap, &d->pn, 1, lo, hi)) {
			d->oom = true;
			break;
		}
		struct pair *p = pair_slot(d->pairs, d->pcap, 1, lo, hi);
		p->race = d->nraces;
		p->last_run = d->run;
		*slot = *x;
		d->nraces++;
	}
	d->npend = 0;
	d->ppn = 0;
	if (++d->pgen == 0) {
		memset(d->ppairs, 0, (size_t)d->ppcap * sizeof(*d->ppairs));
		d->pgen = 1;
	}
	return d->nraces - before;
}

/* ---- accesses ------------------------------------------------------------ */

static void on_granules(struct cts_race_detector *d, const struct cts_event *ev, uint64_t step);

/* Remember t's clock for its plain write at the current epoch. */
static void snapshot(struct cts_race_detector *d, int t)
{
	const struct cts_vc *v = &d->th[t].vc;
	uint32_t n = v->n;   /* the clock's own width: the threads it heard of */

	if (d->nsnap[t]) {
		const struct snap *l = &d->snaps[t][d->nsnap[t] - 1];
		bool same = l->n == n;
		for (uint32_t u = 0; same && u < n; u++)
			same = (int)u == t || d->pool[l->off + u] == v->c[u];
		if (same)
			return;
	}
	if (d->nsnap[t] == d->capsnap[t]) {
		uint32_t ncap = d->capsnap[t] ? d->capsnap[t] * 2 : 64;
		struct snap *ns = realloc(d->snaps[t], (size_t)ncap * sizeof(*ns));
		if (!ns) {
			d->oom = true;
			return;
		}
		d->snaps[t] = ns;
		d->capsnap[t] = ncap;
	}
	if (d->npool + n > d->cappool) {
		size_t ncap = d->cappool ? d->cappool * 2 : 4096;
		while (ncap < d->npool + n)
			ncap *= 2;
		uint32_t *np = realloc(d->pool, ncap * sizeof(*np));
		if (!np) {
			d->oom = true;
			return;
		}
		d->pool = np;
		d->cappool = ncap;
	}
	d->snaps[t][d->nsnap[t]++] = (struct snap){ .clock = cts_vc_get(v, t), .n = n,
						     .off = d->npool };
	if (n)
		memcpy(d->pool + d->npool, v->c, n * sizeof(uint32_t));
	d->npool += n;
}

/* Join into v what thread u knew at its epoch c (a plain write of it). */
static void acquire_epoch(struct cts_race_detector *d, struct cts_vc *v, int u, uint32_t c)
{
	uint32_t lo = 0, hi = d->nsnap[u];
	while (lo < hi) {   /* the last snapshot with clock <= c */
		uint32_t mid = (lo + hi) / 2;
		if (d->snaps[u][mid].clock <= c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		const struct snap *sn = &d->snaps[u][lo - 1];
		cts_vc_join_array(v, d->pool + sn->off, sn->n);
	}
	cts_vc_raise(v, u, c);
}

static void granule_access(struct cts_race_detector *d, const struct cts_event *ev, uint64_t step,
			   uint64_t g, uint8_t mask)
{
	int t = ev->tid;
	const struct cts_vc *cv = &d->th[t].vc;
	bool w = cts_op_is_write(ev->op);
	bool atomic = ev->op == CTS_OP_ATOMIC;
	uint32_t *head = map_get(&d->shadow, g, NIL);

	if (!head) {
		d->oom = true;
		return;
	}
	uint32_t *link = head;
	while (*link != NIL) {
		struct rec *r = &d->recs.r[*link];
		uint8_t ov = r->mask & mask;

		if (ov) {
			bool rw = cts_op_is_write((cts_op)r->op);
			bool ordered = r->tid == t || cts_vc_epoch_leq(r->clock, r->tid, cv);

			if (!ordered && r->op == CTS_OP_FREE) {
				/* The block may have been allocated again since, by a
				 * call no event shows (malloc through a function
				 * pointer, inside a library, or while one thread ran
				 * alone), ordered by the allocator's own lock: no proof
				 * of a race. Its free is history, as after an alloc. */
				r->mask &= (uint8_t)~ov;
			} else if (!ordered && (rw || w) && !(atomic && r->op == CTS_OP_ATOMIC)) {
				report(d, r, ev, step, g * GRANULE, ov);
			}
			/* One thread runs at a time, so a load reads from the last
			 * store of its bytes: this one. */
			if (!ordered && ev->op == CTS_OP_READ && r->op == CTS_OP_WRITE && d->nrf < 16) {
				d->rf_tid[d->nrf] = r->tid;
				d->rf_clock[d->nrf++] = r->clock;
			}
			/* A write stands for all earlier accesses of its bytes; a
			 * read only for the reads it is ordered after. */
			if (w || (!rw && ordered))
				r->mask &= (uint8_t)~mask;
		}
		if (!r->mask) {
			uint32_t dead = *link;

			*link = r->next;
			pool_release(&d->recs, dead);
		} else {
			link = &r->next;
		}
	}
	uint32_t i = pool_alloc(&d->recs);

	if (i == NIL) {
		d->oom = true;
		return;
	}
	d->recs.r[i] = (struct rec){
		.pc = ev->pc, .step = step, .clock = cts_vc_get(cv, t), .next = *head,
		.tid = t, .mask = mask, .op = (uint8_t)ev->op,
	};
	*head = i;
}

/* The bytes of granule g inside [first, last]. */
static uint8_t granule_mask(uint64_t first, uint64_t last, uint64_t g)
{
	unsigned lo = g == first / GRANULE ? first % GRANULE : 0;
	unsigned hi = g == last / GRANULE ? last % GRANULE : GRANULE - 1;

	return (uint8_t)(((1u << (hi + 1)) - 1) & ~((1u << lo) - 1));
}

static void on_access(struct cts_race_detector *d, const struct cts_event *ev, uint64_t step)
{
	struct cts_vc *cv = &d->th[ev->tid].vc;

	d->nrf = 0;
	on_granules(d, ev, step);
	/* A load that reads from an unordered plain store is reported (above)
	 * and then taken as an acquire of that store: if the pair was a hand-off
	 * (a C11 release/acquire pair compiles to these plain moves), what it
	 * published is ordered, so one hand-off is one report, not one per
	 * variable it carried. */
	for (int i = 0; i < d->nrf; i++)
		if (d->rf_clock[i] > cts_vc_get(cv, d->rf_tid[i]))
			acquire_epoch(d, cv, d->rf_tid[i], d->rf_clock[i]);
}

/* Past this many granules (8 MiB) a range (a library call's buffer, the
 * free or malloc of a big block) only meets the granules the shadow already
 * holds, found by one pass over the map: one lookup per granule of a 1 GiB
 * block took minutes and gigabytes. The granules nobody touched before keep
 * no record of it, so a later access there is not checked against it: a
 * race may be missed, none is invented. */
#define RANGE_GRANULES (1u << 20)

/* The keys in [lo, hi] the map holds, in *out (malloc'd); their count. */
static size_t keys_in(const struct map *m, uint64_t lo, uint64_t hi, uint64_t **out)
{
	size_t n = 0;
	*out = NULL;
	for (uint32_t i = 0; i < m->cap; i++)
		n += m->s[i].gen == m->gen && m->s[i].key >= lo && m->s[i].key <= hi;
	if (!n || !(*out = malloc(n * sizeof(**out))))
		return 0;
	n = 0;
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->s[i].gen == m->gen && m->s[i].key >= lo && m->s[i].key <= hi)
			(*out)[n++] = m->s[i].key;
	return n;
}

/* The last byte of ev's range. */
static uint64_t range_last(const struct cts_event *ev)
{
	uint64_t last = ev->obj + (ev->size ? ev->size : 1) - 1;
	return last < ev->obj ? UINT64_MAX : last;
}

static void on_granules(struct cts_race_detector *d, const struct cts_event *ev, uint64_t step)
{
	uint64_t first = ev->obj, last = range_last(ev);

	if (last / GRANULE - first / GRANULE >= RANGE_GRANULES) {
		uint64_t *keys;
		size_t n = keys_in(&d->shadow, first / GRANULE, last / GRANULE, &keys);
		for (size_t i = 0; i < n; i++)
			granule_access(d, ev, step, keys[i], granule_mask(first, last, keys[i]));
		free(keys);
		return;
	}
	for (uint64_t g = first / GRANULE;; g++) {
		granule_access(d, ev, step, g, granule_mask(first, last, g));
		if (g == last / GRANULE)
			break;
	}
}

/* Drop the bytes of mask from granule g's records. */
static void forget_granule(struct cts_race_detector *d, uint64_t g, uint8_t mask)
{
	uint32_t *link = map_find(&d->shadow, g);

	while (link && *link != NIL) {
		struct rec *r = &d->recs.r[*link];

		r->mask &= (uint8_t)~mask;
		if (r->mask) {
			link = &r->next;
			continue;
		}
		uint32_t dead = *link;

		*link = r->next;
		pool_release(&d->recs, dead);
	}
}

/* A block starts its life (malloc): what was done to a freed block at the
 * same address is history, ordered by the allocator's own locking. */
static void forget(struct cts_race_detector *d, const struct cts_event *ev)
{
	if (!ev->obj || !ev->size)
		return;
	uint64_t first = ev->obj, last = range_last(ev);

	if (last / GRANULE - first / GRANULE >= RANGE_GRANULES) {
		uint64_t *keys;
		size_t n = keys_in(&d->shadow, first / GRANULE, last / GRANULE, &keys);
		for (size_t i = 0; i < n; i++)
			forget_granule(d, keys[i], granule_mask(first, last, keys[i]));
		free(keys);
		return;
	}
	for (uint64_t g = first / GRANULE;; g++) {
		forget_granule(d, g, granule_mask(first, last, g));
		if (g == last / GRANULE)
			break;
	}
}

/* ---- events -------------------------------------------------------------- */

/* Did a lock/wait operation take the object? Try-ops and timed ops say so in
 * result; the others always do once executed. */
static bool acquired(const struct cts_event *ev)
{
	switch (ev->op) {
	case CTS_OP_TRYLOCK:
	case CTS_OP_TRYRDLOCK:
	case CTS_OP_TRYWRLOCK:
	case CTS_OP_SEM_TRYWAIT:
		return ev->result == 0;
	case CTS_OP_LOCK:
	case CTS_OP_RDLOCK:
	case CTS_OP_WRLOCK:
	case CTS_OP_SEM_WAIT:
		return !ev->timed || ev->result == 0;
	default:
		return true;
	}
}

static bool valid_tid(int t)
{
	return t >= 0 && t < CTS_THREADS_CEILING;
}

/* Room for thread t in the per-thread tables. */
static void fit_thread(struct cts_race_detector *d, int t)
{
	if ((size_t)t < d->thcap)
		return;
	size_t cap = cts_grow_cap(d->thcap, (size_t)t + 1);
	d->th = cts_xgrow(d->th, d->thcap, cap, sizeof(*d->th));
	d->snaps = cts_xgrow(d->snaps, d->thcap, cap, sizeof(*d->snaps));
	d->nsnap = cts_xgrow(d->nsnap, d->thcap, cap, sizeof(*d->nsnap));
	d->capsnap = cts_xgrow(d->capsnap, d->thcap, cap, sizeof(*d->capsnap));
	d->thcap = cap;
}

static void on_create(struct cts_race_detector *d, int t, int child)
{
	struct thread *th = &d->th[t];

	if (valid_tid(child) && child != t) {
		if (d->th[child].live)
			cts_vc_join(&d->th[child].vc, &th->vc);
		else
			thread_start(d, child, &th->vc);
	} else if (d->orphan_n < ORPHAN_MAX) {
		int slot = (d->orphan_head + d->orphan_n) % ORPHAN_MAX;

		cts_vc_copy(&d->orphan[slot], &th->vc);
		d->orphan_n++;
	}
	cts_vc_tick(&th->vc, t);
}

static void on_join(struct cts_race_detector *d, int t, int joined)
{
	if (!valid_tid(joined))
		return;
	if (d->th[joined].exited) {
		cts_vc_join(&d->th[t].vc, &d->th[joined].exit_vc);
		/* A thread is joined once: its clock has served (memory
		 * follows live threads, docs/design.md). */
		if (t != joined)
			cts_vc_free(&d->th[joined].exit_vc);
	} else if (d->th[joined].live)
		cts_vc_join(&d->th[t].vc, &d->th[joined].vc);
}

static void on_wrlock(struct cts_race_detector *d, int t, uint64_t addr)
{
	struct sync_obj *o = sync_get(d, addr);

	if (!o)
		return;
	cts_vc_join(&d->th[t].vc, &o->vc);
	if (o->aux)
		cts_vc_join(&d->th[t].vc, o->aux);
	o->writer = t;
}

static void on_rwunlock(struct cts_race_detector *d, int t, uint64_t addr)
{
	struct sync_obj *o = sync_get(d, addr);

	if (o) {
		if (o->writer == t) {
			cts_vc_join(&o->vc, &d->th[t].vc);
			o->writer = -1;
		} else {
			/* Readers accumulate; only the next writer sees them. */
			struct cts_vc *readers = sync_aux(d, o);

			if (readers)
				cts_vc_join(readers, &d->th[t].vc);
		}
	}
	cts_vc_tick(&d->th[t].vc, t);
}

static void on_barrier_wait(struct cts_race_detector *d, int t, uint64_t addr)
{
	struct thread *th = &d->th[t];
	struct sync_obj *o = sync_get(d, addr);

	if (!o) {
		cts_vc_tick(&th->vc, t);
		return;
	}
	cts_vc_join(&o->vc, &th->vc);
	cts_vc_tick(&th->vc, t);
	o->arrived++;
	th->pend_barrier = true;
	th->barrier = addr;
	th->barrier_round = o->round;
	if (o->count && o->arrived >= o->count)
		barrier_complete(d, o);
}

bool cts_race_ordered(const struct cts_race_detector *d, int earlier, uint32_t epoch, int tid)
{
	if (!d || !valid_tid(tid) || (size_t)tid >= d->thcap || tid >= d->nthreads)
		return false;
	return cts_vc_epoch_leq(epoch, earlier, &d->th[tid].vc);
}

uint32_t cts_race_epoch(const struct cts_race_detector *d, int tid)
{
	if (!d || !valid_tid(tid) || (size_t)tid >= d->thcap || tid >= d->nthreads)
		return 0;
	return cts_vc_get(&d->th[tid].vc, tid);
}

bool cts_race_is_sync(const struct cts_race_detector *d, uint64_t addr, uint32_t size)
{
	return d && sync_bytes(d, addr, size ? size : 1);
}

int cts_race_observe(struct cts_race_detector *d, const struct cts_event *ev, uint64_t step)
{
	if (!d || !ev || !valid_tid(ev->tid))
		return 0;
	int t = ev->tid;
	struct sync_obj *o;

	fit_thread(d, t);
	if (valid_tid(ev->target))
		fit_thread(d, ev->target);
	d->call_start = d->npend;
	d->oom = false;
	thread_enter(d, t);

	switch (ev->op) {
	case CTS_OP_CREATE:
		on_create(d, t, ev->target);
		break;
	case CTS_OP_JOIN:
		on_join(d, t, ev->target);
		break;
	case CTS_OP_THREAD_EXIT:
	{
		/* The clock moves to exit_vc: the thread makes no more events,
		 * and a dead thread keeps one clock, until it is joined. */
		struct cts_vc tmp = d->th[t].exit_vc;
		d->th[t].exit_vc = d->th[t].vc;
		d->th[t].vc = tmp;
		cts_vc_free(&d->th[t].vc);
		d->th[t].exited = true;
	}
		break;
	case CTS_OP_LOCK:
	case CTS_OP_TRYLOCK:
	case CTS_OP_RDLOCK:
	case CTS_OP_TRYRDLOCK:
	case CTS_OP_SEM_WAIT:
	case CTS_OP_SEM_TRYWAIT:
		if (acquired(ev))
			acquire(d, t, ev->obj);
		break;
	case CTS_OP_WRLOCK:
	case CTS_OP_TRYWRLOCK:
		if (acquired(ev))
			on_wrlock(d, t, ev->obj);
		break;
	case CTS_OP_UNLOCK:
	case CTS_OP_SEM_POST:
	case CTS_OP_COND_SIGNAL:
	case CTS_OP_COND_BROADCAST:
	case CTS_OP_FUTEX_WAKE:
		release(d, t, ev->obj);
		break;
	case CTS_OP_RWUNLOCK:
		on_rwunlock(d, t, ev->obj);
		break;
	case CTS_OP_COND_WAIT:
		release(d, t, ev->obj2);
		/* Whatever comes next runs with the mutex held again. */
		d->th[t].pend_mutex = true;
		d->th[t].mutex = ev->obj2;
		break;
	case CTS_OP_COND_REACQUIRE:
		acquire(d, t, ev->obj2);
		acquire(d, t, ev->obj);
		break;
	case CTS_OP_BARRIER_INIT:
		o = sync_get(d, ev->obj);
		if (o) {
			o->count = (uint32_t)ev->value;
			o->arrived = 0;
		}
		break;
	case CTS_OP_BARRIER_WAIT:
		on_barrier_wait(d, t, ev->obj);
		break;
	case CTS_OP_FUTEX_WAIT:
		/* Returns after a wake or a changed word: both came after the
		 * last wake or atomic update of the word (same key). */
		acquire(d, t, ev->obj);
		break;
	case CTS_OP_ATOMIC:
		/* Like ThreadSanitizer: a locked RMW acquires and releases its address. */
		mark_sync(d, ev->obj, ev->size ? ev->size : 1);
		acquire(d, t, ev->obj);
		on_access(d, ev, step);
		release(d, t, ev->obj);
		break;
	case CTS_OP_SIGNAL:
	case CTS_OP_SIGWAIT:
	case CTS_OP_SIGSUSPEND:
	case CTS_OP_IO:
	case CTS_OP_IO_RETURN:
		/* A pipe write and the read that gets it, a signal and its
		 * waiter: ordered through one object for the whole kernel, so
		 * no channel is missed (at the cost of some ordering). */
		acquire(d, t, CTS_KERNEL_OBJ);
		release(d, t, CTS_KERNEL_OBJ);
		break;
	case CTS_OP_READ:
	case CTS_OP_WRITE:
		if (sync_bytes(d, ev->obj, ev->size ? ev->size : 1)) {
			/* A C11 atomic load or store, as far as a binary can tell. */
			if (ev->op == CTS_OP_READ)
				acquire(d, t, ev->obj);
			else
				release(d, t, ev->obj);
			break;
		}
		on_access(d, ev, step);
		/* A new epoch after every plain store: a load that reads from it
		 * acquires exactly up to it (see on_access). */
		if (ev->op == CTS_OP_WRITE) {
			snapshot(d, t);
			cts_vc_tick(&d->th[t].vc, t);
		}
		break;
	case CTS_OP_RMW:
	case CTS_OP_LIB_READ:
	case CTS_OP_LIB_WRITE:
	case CTS_OP_FREE:
		on_access(d, ev, step);
		break;
	case CTS_OP_ALLOC:
		forget(d, ev);
		break;
	default:
		break;
	}
	if (d->oom)
		return -1;
	return d->npend - d->call_start;
}

/* ---- lifetime ------------------------------------------------------------ */

void cts_race_begin_run(struct cts_race_detector *d, uint64_t run)
{
	if (!d)
		return;
	d->run = run;
	for (int t = 0; t < d->nthreads; t++) {
		cts_vc_free(&d->th[t].vc);
		cts_vc_free(&d->th[t].exit_vc);
	}
	if (d->thcap)
		memset(d->th, 0, d->thcap * sizeof(d->th[0]));
	d->nthreads = 0;
	d->orphan_head = d->orphan_n = 0;
	map_clear(&d->shadow, SHADOW_MIN_CAP);
	pool_clear(&d->recs);
	for (uint32_t i = 0; i < d->nobj; i++)
		sync_obj_free(&d->objs[i]);
	d->nobj = 0;
	map_clear(&d->syncs, SYNC_MIN_CAP);
	d->npend = 0;
	d->ppn = 0;
	if (++d->pgen == 0) {
		memset(d->ppairs, 0, (size_t)d->ppcap * sizeof(*d->ppairs));
		d->pgen = 1;
	}
	if (d->thcap)
		memset(d->nsnap, 0, d->thcap * sizeof(*d->nsnap));
	d->npool = 0;
}

struct cts_race_detector *cts_race_new(void)
{
	struct cts_race_detector *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->recs.free = NIL;
	d->pcap = 64;
	d->pairs = calloc(d->pcap, sizeof(*d->pairs));
	d->ppcap = 64;
	d->ppairs = calloc(d->ppcap, sizeof(*d->ppairs));
	d->pgen = 1;
	if (!d->pairs || !d->ppairs || !map_init(&d->shadow, SHADOW_MIN_CAP) ||
	    !map_init(&d->syncs, SYNC_MIN_CAP) || !map_init(&d->syncloc, SYNC_MIN_CAP)) {
		cts_race_free(d);
		return NULL;
	}
	return d;
}

void cts_race_free(struct cts_race_detector *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->nobj; i++)
		sync_obj_free(&d->objs[i]);
	free(d->objs);
	for (size_t t = 0; t < d->thcap; t++) {
		cts_vc_free(&d->th[t].vc);
		cts_vc_free(&d->th[t].exit_vc);
		free(d->snaps[t]);
	}
	for (int i = 0; i < ORPHAN_MAX; i++)
		cts_vc_free(&d->orphan[i]);
	free(d->th);
	free(d->snaps);
	free(d->nsnap);
	free(d->capsnap);
	free(d->shadow.s);
	free(d->syncs.s);
	free(d->syncloc.s);
	free(d->recs.r);
	free(d->pairs);
	free(d->ppairs);
	free(d->pend);
	free(d->pool);
	for (int i = 0; i < d->nchunks; i++)
		free(d->chunks[i]);
	free(d->chunks);
	free(d);
}

int cts_race_count(const struct cts_race_detector *d)
{
	return d ? d->nraces : 0;
}

const struct cts_race *cts_race_get(const struct cts_race_detector *d, int i)
{
	if (!d || i < 0 || i >= d->nraces)
		return NULL;
	return race_at(d, i);
}

void cts_race_set_detail(struct cts_race_detector *d, int i, const struct cts_race_detail *det)
{
	if (d && i >= 0 && i < d->nraces)
		race_at(d, i)->detail = *det;
}

int cts_race_each(const struct cts_race_detector *d,
		  int (*fn)(const struct cts_race *r, void *arg), void *arg)
{
	for (int i = 0; i < cts_race_count(d); i++) {
		int rc = fn(race_at(d, i), arg);

		if (rc)
			return rc;
	}
	return 0;
}
