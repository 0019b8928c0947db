/* Systematic exploration: the search stack shared by dfs, dpor, pcb and idb
 * (systematic.h), after Wang, Said, Gupta (ICSE 2011) Algorithm 2, with DPOR
 * after Flanagan & Godefroid (POPL 2005, Fig. 3 and 4, sleep sets) and
 * source-DPOR's rule for executed events (Abdulla et al., POPL 2014).
 *
 * The recursion of the paper becomes a loop over runs: a run replays
 * stack[0..replay) exactly, takes the stored new choice at stack[replay]
 * (the branch state), and pushes fresh states after it. When the run ends,
 * the deepest state with an enabled backtrack thread that is neither done nor
 * asleep is the next branch state; when there is none the space is done. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/htab.h"
#include "models/objmodel.h"
#include "models/vclock.h"
#include "strategies/split.h"
#include "strategies/systematic.h"
#include "strategies/wakeup.h"

/* ---- thread sets ---- */

/* A set of thread numbers as its non-zero 64-bit words, each with its word
 * index, ascending. Two words fit in the set itself (threads 0..127 as
 * before, or any two ranges); more go to the heap. A state's sets hold
 * threads alive there, so a run that creates 10,000 threads one after
 * another costs a word or two per set, not 10,000 bits. Sets own their
 * storage: copy with ts_copy, release with ts_free. */
#define TS_INLINE 2

struct tsw {
	uint32_t idx;
	uint64_t w;
};

struct tset {
	uint32_t n, cap;              /* words used; cap > TS_INLINE: in ext */
	struct tsw inl[TS_INLINE];
	struct tsw *ext;
};

static struct tsw *ts_words(struct tset *s)
{
	return s->cap > TS_INLINE ? s->ext : s->inl;
}

static const struct tsw *ts_cwords(const struct tset *s)
{
	return s->cap > TS_INLINE ? s->ext : s->inl;
}

static void ts_reserve(struct tset *s, uint32_t n)
{
	if (n <= TS_INLINE || n <= s->cap)
		return;
	size_t cap = cts_grow_cap(s->cap > TS_INLINE ? s->cap : 0, n);
	if (s->cap > TS_INLINE) {
		s->ext = cts_xrealloc(s->ext, cap * sizeof(*s->ext));
	} else {
		s->ext = cts_xmalloc(cap * sizeof(*s->ext));
		memcpy(s->ext, s->inl, s->n * sizeof(*s->ext));
	}
	s->cap = (uint32_t)cap;
}

static void ts_clear(struct tset *s)
{
	s->n = 0;
}

static void ts_free(struct tset *s)
{
	if (s->cap > TS_INLINE)
		free(s->ext);
	memset(s, 0, sizeof(*s));
}

static void ts_copy(struct tset *dst, const struct tset *src)
{
	if (dst == src)
		return;
	ts_reserve(dst, src->n);
	memcpy(ts_words(dst), ts_cwords(src), src->n * sizeof(struct tsw));
	dst->n = src->n;
}

/* Slot of word wi, or where it would go (-1-pos). */
static int ts_find(const struct tset *s, uint32_t wi)
{
	const struct tsw *w = ts_cwords(s);
	int lo = 0, hi = (int)s->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (w[mid].idx < wi)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (int)s->n && w[lo].idx == wi ? lo : -1 - lo;
}

static void ts_add(struct tset *s, int t)
{
	if (t < 0)
		return;
	int i = ts_find(s, (uint32_t)t >> 6);
	if (i < 0) {
		i = -1 - i;
		ts_reserve(s, s->n + 1);
		struct tsw *w = ts_words(s);
		memmove(w + i + 1, w + i, (s->n - (uint32_t)i) * sizeof(*w));
		w[i] = (struct tsw){ (uint32_t)t >> 6, 0 };
		s->n++;
	}
	ts_words(s)[i].w |= 1ull << (t & 63);
}

/* Drop empty words. */
static void ts_pack(struct tset *s)
{
	struct tsw *w = ts_words(s);
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n; i++)
		if (w[i].w)
			w[k++] = w[i];
	s->n = k;
}

static void ts_del(struct tset *s, int t)
{
	int i = t < 0 ? -1 : ts_find(s, (uint32_t)t >> 6);
	if (i >= 0) {
		ts_words(s)[i].w &= ~(1ull << (t & 63));
		ts_pack(s);
	}
}

static bool ts_has(const struct tset *s, int t)
{
	int i = t < 0 ? -1 : ts_find(s, (uint32_t)t >> 6);
	return i >= 0 && (ts_cwords(s)[i].w >> (t & 63)) & 1;
}

static bool ts_empty(const struct tset *s)
{
	return s->n == 0;   /* packed: no empty words */
}

static bool ts_equal(const struct tset *a, const struct tset *b)
{
	if (a->n != b->n)
		return false;
	const struct tsw *x = ts_cwords(a), *y = ts_cwords(b);
	for (uint32_t i = 0; i < a->n; i++)
		if (x[i].idx != y[i].idx || x[i].w != y[i].w)
			return false;
	return true;
}

static void ts_or(struct tset *dst, const struct tset *src)
{
	const struct tsw *x = ts_cwords(src);
	for (uint32_t i = 0; i < src->n; i++)
		for (uint64_t w = x[i].w; w; w &= w - 1)
			ts_add(dst, (int)(x[i].idx * 64 + (uint32_t)__builtin_ctzll(w)));
}

/* dst &= ~src */
static void ts_minus(struct tset *dst, const struct tset *src)
{
	struct tsw *x = ts_words(dst);
	for (uint32_t i = 0; i < dst->n; i++) {
		int j = ts_find(src, x[i].idx);
		if (j >= 0)
			x[i].w &= ~ts_cwords(src)[j].w;
	}
	ts_pack(dst);
}

/* dst &= src */
static void ts_and(struct tset *dst, const struct tset *src)
{
	struct tsw *x = ts_words(dst);
	for (uint32_t i = 0; i < dst->n; i++) {
		int j = ts_find(src, x[i].idx);
		x[i].w = j >= 0 ? x[i].w & ts_cwords(src)[j].w : 0;
	}
	ts_pack(dst);
}

/* Lowest member at or after `from`, -1 if none. */
static int ts_next_at(const struct tset *s, int from)
{
	const struct tsw *x = ts_cwords(s);
	if (from < 0)
		from = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (x[i].idx < (uint32_t)from >> 6)
			continue;
		uint64_t w = x[i].w;
		if (x[i].idx == (uint32_t)from >> 6)
			w &= ~0ull << (from & 63);
		if (w)
			return (int)(x[i].idx * 64 + (uint32_t)__builtin_ctzll(w));
	}
	return -1;
}

/* Next member at or after `from`, cyclically; -1 if empty. */
static int ts_next_cyclic(const struct tset *s, int from)
{
	int t = ts_next_at(s, from);
	return t >= 0 ? t : ts_next_at(s, 0);
}

/* Members in [lo, hi). */
static uint32_t ts_count_range(const struct tset *s, int lo, int hi)
{
	uint32_t n = 0;
	for (int t = ts_next_at(s, lo); t >= 0 && t < hi; t = ts_next_at(s, t + 1))
		n++;
	return n;
}

/* ---- the search stack ---- */

/* The abstract state before step d of the current run. */
struct state {
	struct tset enabled;
	struct tset backtrack;  /* choices to try here, some run */
	struct tset deferred;   /* hooks.defer: choices to try once nothing else is left */
	size_t saved_from;      /* hooks.defer: saved prefixes from here on go through it */
	struct tset done;       /* choices tried here */
	struct tset sleep;      /* dpor: asleep on arrival */
	struct tset spinning;   /* held back: their next step would change nothing */
	struct cts_event ev;    /* what ran here (ev.tid = the choice) */
	uint32_t used;          /* pcb/idb: preemptions/delays spent before this state */
	bool restricted;        /* an instance held enabled threads back here */
	bool constrained;       /* --break acted here (hooks.constrain) */
	/* --jobs/--shard (strategies/split.h): branching states up to here, and
	 * whether this state is above the subtrees the work is split into */
	uint32_t nbr;
	bool top;
	int32_t wnode;          /* odpor: the wakeup-tree node taken here */
};

/* DPOR's per-run index of the trace, rebuilt while a run replays its prefix:
 * per event its thread-local number and clock, and per (word, thread) two
 * chains through that thread's events on the word (all events / all but
 * reads), so the latest dependent event of each thread is found by walking
 * back only until an event that already happens before. */
struct evinfo {
	uint32_t lidx;    /* 1-based position in its thread */
	uint32_t nclk;    /* clock width (threads known then) */
	uint64_t clk;     /* offset into clocks */
	uint32_t link;    /* first chain record */
	uint32_t nlinks;
};

struct link {
	uint32_t step;
	int32_t prev_a, prev_w;
};

struct hent {
	uint64_t key;     /* ((word << 7) | tid) + 1, 0 = empty */
	int32_t head_a, head_w;
};

#define MAX_KEYS 4096  /* words one event is indexed under (32 KiB access) */

struct dpor {
	struct evinfo *ev;
	size_t evcap;
	uint32_t *clocks;
	size_t nclocks, clkcap;
	struct link *links;
	size_t nlinks, linkcap;
	struct hent *tab;
	size_t tabcap, tabused;
	int nthreads;
	/* Per thread number [tcap], grown by dpor_add_thread. */
	size_t tcap;
	struct cts_vc *clk;       /* clock of each thread's last event */
	uint32_t **evl;           /* steps of each thread's events */
	uint32_t *nevl, *capevl;
	uint32_t *birth;          /* step that created each thread, UINT32_MAX: none */
	struct cts_event *qpend;  /* pending event last analysed */
	bool *qvalid;
	uint32_t nbig;                           /* big ranges in the trace */
	uint32_t ncancel;                        /* cancels in the trace */
	uint32_t *cand;                          /* dpor_record: events to join */
	size_t ncand, candcap;
	uint64_t keys[MAX_KEYS + 2];
};

struct search {
	struct cts_strategy base;
	struct cts_strategy_ops ops;
	enum cts_search_kind kind;
	struct cts_search_hooks hooks;
	struct state *stack;
	uint64_t depth, cap;     /* states of this run so far */
	uint64_t replay;         /* steps replayed before the branch state */
	bool branching;          /* stack[replay] holds a new choice to take */
	bool fresh_seen;         /* a fresh state was pushed this run */
	bool exhausted, incomplete;
	bool restricted;         /* dpor: an instance restricted some state (not complete) */
	bool stopped;            /* this run was cut by our CTS_CHOOSE_STOP */
	uint64_t executed;       /* steps executed this run */
	/* carried from executed() to the next fresh state */
	struct tset next_sleep;
	uint32_t next_used;
	uint64_t inited;         /* stack slots whose sets own storage */
	struct tset en_now, allowed, cur, cand;   /* scratch */
	struct dpor *dp;
	bool *allow;             /* hooks.constrain's answer [nallow] */
	int nallow;
	bool constrained_now;
	struct cts_search_stats stats;
	char why[512];
	/* --jobs/--shard: subtrees met so far, and whether the current one is ours */
	struct cts_split *split;
	uint64_t nkeys;
	bool owned;
	/* hooks.defer: prefixes whose last state still has deferred choices,
	 * kept when the search backed out of them for a choice further up */
	struct saved { uint64_t depth; struct state *st; } *saved;
	size_t nsaved, savedcap;
	bool bt_deferred;        /* add_backtrack adds to the deferred sets */
	/* dpor: the races Flanagan & Godefroid's rule found for pending
	 * events this run, applied at its end to the events that did not run
	 * (fg_flush), or to all of them (fg_every) */
	struct fgrace { uint64_t i; struct cts_event pend; uint32_t nev; bool deferred; } *fgq;
	size_t nfgq, fgqcap;
	bool fg_every;
	bool no_accept;          /* accept() asks no hook: plain DPOR's race */
	/* dpor: the words threads busy-wait on, learnt in any run (a thread
	 * held spinning on it, or polling it between yields): races on them,
	 * and between arrivals at a barrier that spins on them, are deferred.
	 * NULL with a hook that drops what it turns down. */
	struct cts_htab *spinw;
	uint64_t deferrals;      /* choices deferred, not dropped */
	/* odpor: the wakeup trees, per state the sleeping threads' events
	 * (inherited and explored there), the pending events the run ended
	 * with, and scratch for the race analysis */
	struct cts_wut *wut;
	int32_t wroot;
	struct slp { struct cts_event *ev; uint32_t n, cap; } *slp;
	size_t slpcap;
	struct cts_event *fin;
	bool *finv;
	size_t fincap;
	struct cts_event *vbuf;
	size_t vcap;
	int64_t *rc, *rd, *fv;   /* find_races, sdpor_add: per thread */
	size_t rcap;
	int odpor_pick;          /* the choice odpor_choice made at the fresh state */
	struct odefer { uint32_t i; struct cts_event e2; uint64_t j; } *defer;
	size_t ndefer, defercap; /* odpor: races hooks.accept_race turned down this run */
	struct cts_objmodel *om; /* odpor_model_enabled's scratch model */
};

static struct state *push_state(struct search *s)
{
	if (s->depth >= s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->stack = cts_xrealloc(s->stack, s->cap * sizeof(*s->stack));
	}
	struct state *st = &s->stack[s->depth++];
	if (s->depth > s->inited) {
		memset(st, 0, sizeof(*st));
		s->inited = s->depth;
	} else {
		/* reuse the sets' storage */
		struct tset *sets[] = { &st->enabled, &st->backtrack, &st->done, &st->sleep,
					&st->spinning, &st->deferred };
		for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
			ts_clear(sets[i]);
		memset(&st->ev, 0, sizeof(st->ev));
		st->used = 0;
		st->constrained = false;
	}
	st->wnode = CTS_WUT_NONE;
	st->saved_from = s->nsaved;
	if (s->depth > s->stats.max_depth)
		s->stats.max_depth = s->depth;
	return st;
}

/* The thread that ran before state k and whether it just yielded. */
static int last_thread(const struct search *s, uint64_t k, bool *yielded)
{
	*yielded = k > 0 && s->stack[k - 1].ev.op == CTS_OP_YIELD;
	return k > 0 ? s->stack[k - 1].ev.tid : -1;
}

/* Where a non-preemptive round-robin scheduler looks first: the thread that
 * ran last, or the one after it if it yielded. */
static int rr_start(const struct search *s, uint64_t k)
{
	bool yielded;
	int last = last_thread(s, k, &yielded);
	if (last < 0)
		return 0;
	return yielded ? last + 1 : last;   /* ts_next_cyclic wraps */
}

/* Preemptions (pcb) or delays (idb) that choosing q at state k costs. */
static uint32_t choice_cost(const struct search *s, uint64_t k, int q)
{
	const struct state *st = &s->stack[k];
	bool yielded;
	int last = last_thread(s, k, &yielded);

	if (s->kind == CTS_SEARCH_PCB)
		return last >= 0 && q != last && !yielded && ts_has(&st->enabled, last);
	if (s->kind == CTS_SEARCH_IDB) {
		/* each enabled thread the round-robin order passes over is one delay */
		int start = rr_start(s, k);
		if (q >= start)
			return ts_count_range(&st->enabled, start, q);
		return ts_count_range(&st->enabled, start, INT32_MAX) +
		       ts_count_range(&st->enabled, 0, q);
	}
	return 0;
}

/* ---- DPOR: happens-before and races ---- */

static struct dpor *dpor_new(void)
{
	struct dpor *d = cts_xcalloc(1, sizeof(*d));
	d->tabcap = 1024;
	d->tab = cts_xcalloc(d->tabcap, sizeof(*d->tab));
	return d;
}

static void dpor_free(struct dpor *d)
{
	if (!d)
		return;
	for (size_t t = 0; t < d->tcap; t++) {
		free(d->evl[t]);
		cts_vc_free(&d->clk[t]);
	}
	free(d->clk);
	free(d->cand);
	free(d->evl);
	free(d->birth);
	free(d->nevl);
	free(d->capevl);
	free(d->qpend);
	free(d->qvalid);
	free(d->ev);
	free(d->clocks);
	free(d->links);
	free(d->tab);
	free(d);
}

static void dpor_add_thread(struct dpor *d, int t);

static void dpor_reset(struct dpor *d)
{
	d->nclocks = 0;
	d->nlinks = 0;
	memset(d->tab, 0, d->tabcap * sizeof(*d->tab));
	d->tabused = 0;
	d->nbig = 0;
	d->ncancel = 0;
	for (int t = 0; t < d->nthreads; t++) {
		cts_vc_zero(&d->clk[t]);
		d->nevl[t] = 0;
		d->qvalid[t] = false;
	}
	d->nthreads = 0;
	dpor_add_thread(d, 0);
}

static void dpor_add_thread(struct dpor *d, int t)
{
	if ((size_t)t >= d->tcap) {
		size_t cap = cts_grow_cap(d->tcap, (size_t)t + 1);
		d->clk = cts_xgrow(d->clk, d->tcap, cap, sizeof(*d->clk));
		d->evl = cts_xgrow(d->evl, d->tcap, cap, sizeof(*d->evl));
		d->birth = cts_xgrow(d->birth, d->tcap, cap, sizeof(*d->birth));
		d->nevl = cts_xgrow(d->nevl, d->tcap, cap, sizeof(*d->nevl));
		d->capevl = cts_xgrow(d->capevl, d->tcap, cap, sizeof(*d->capevl));
		d->qpend = cts_xgrow(d->qpend, d->tcap, cap, sizeof(*d->qpend));
		d->qvalid = cts_xgrow(d->qvalid, d->tcap, cap, sizeof(*d->qvalid));
		d->tcap = cap;
	}
	while (d->nthreads <= t) {
		int n = d->nthreads++;
		cts_vc_zero(&d->clk[n]);
		d->nevl[n] = 0;
		d->birth[n] = UINT32_MAX;
		d->qvalid[n] = false;
	}
}

static struct hent *hslot(struct dpor *d, uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & (d->tabcap - 1);
	while (d->tab[i].key && d->tab[i].key != key)
		i = (i + 1) & (d->tabcap - 1);
	return &d->tab[i];
}

static struct hent *hget(struct dpor *d, uint64_t word, int tid, bool create)
{
	uint64_t key = ((word << 7) | (uint64_t)tid) + 1;
	struct hent *e = hslot(d, key);
	if (e->key || !create)
		return e->key ? e : NULL;
	if ((d->tabused + 1) * 2 > d->tabcap) {
		struct hent *old = d->tab;
		size_t oldcap = d->tabcap;
		d->tabcap *= 2;
		d->tab = cts_xcalloc(d->tabcap, sizeof(*d->tab));
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key)
				*hslot(d, old[i].key) = old[i];
		free(old);
		e = hslot(d, key);
	}
	d->tabused++;
	e->key = key;
	e->head_a = e->head_w = -1;
	return e;
}

/* Ranges wider than MAX_KEYS words (a library call's memset of a big buffer)
 * are all indexed under one key that every event with a memory word also
 * visits (when the run has any), and look for their own conflicts by walking
 * each thread's events back (dependent_before). */
#define BIG_KEY (UINT64_MAX >> 7)

static bool big_range(const struct cts_event *e)
{
	return e->size > (uint64_t)(MAX_KEYS - 1) * 8;
}

/* A cancel of thread t is indexed under t's key, which every event of t
 * also looks up: the cancel changes what t does next, whatever t's event
 * touches. Below BIG_KEY and CTS_KERNEL_OBJ's key once shifted into a
 * hent key, far above any address's word. */
#define THREAD_KEY(t) ((UINT64_MAX >> 8) - (uint64_t)(t))

static bool valid_target(const struct cts_event *e)
{
	return e->target >= 0 && e->target < CTS_THREADS_CEILING;
}

/* Words an event is indexed under: every dependent pair shares one (accesses
 * overlap, sync objects meet, a futex word is memory); dependence through
 * threads (same thread, create, join, exit) is handled by clocks instead. */
static size_t event_keys(struct dpor *d, const struct cts_event *e)
{
	size_t n = 0;
	if (cts_op_is_range(e->op) && big_range(e)) {
		d->keys[n++] = BIG_KEY;
	} else if (cts_op_is_range(e->op)) {
		uint64_t lo = e->obj >> 3, hi = (e->obj + (e->size ? e->size : 1) - 1) >> 3;
		for (uint64_t w = lo; w <= hi && n < MAX_KEYS; w++)
			d->keys[n++] = w;
	} else if (cts_op_is_sync(e->op) && e->obj) {
		d->keys[n++] = e->obj >> 3;
		if ((e->op == CTS_OP_COND_WAIT || e->op == CTS_OP_COND_REACQUIRE) && e->obj2 &&
		    e->obj2 >> 3 != e->obj >> 3)
			d->keys[n++] = e->obj2 >> 3;
	} else if (cts_op_is_kernel(e->op)) {
		d->keys[n++] = CTS_KERNEL_OBJ >> 3;  /* signals and system calls meet there */
	} else if (e->op == CTS_OP_CANCEL && valid_target(e)) {
		d->keys[n++] = THREAD_KEY(e->target);
	}
	return n;
}

static void join_event_clock(struct dpor *d, struct cts_vc *c, uint32_t step)
{
	const struct evinfo *ei = &d->ev[step];
	cts_vc_join_array(c, &d->clocks[ei->clk], ei->nclk);
}

static void join_last_of(struct dpor *d, struct cts_vc *c, int u)
{
	if (u >= 0 && u < d->nthreads && d->nevl[u])
		join_event_clock(d, c, d->evl[u][d->nevl[u] - 1]);
}

/* Reads conflict only with writes: they walk the write chains. */
static bool reads_only(const struct cts_event *e)
{
	return cts_op_is_range(e->op) && !cts_op_is_write(e->op);
}

/* The keys event e with nk linking keys looks up: those, the big ranges'
 * key when the trace has any, and e's thread's key when it has cancels. */
static size_t lookup_keys(struct dpor *d, size_t nk, const struct cts_event *e)
{
	if (nk && d->nbig && d->keys[0] != BIG_KEY)
		d->keys[nk++] = BIG_KEY;
	if (d->ncancel && e->tid >= 0)
		d->keys[nk++] = THREAD_KEY(e->tid);
	return nk;
}

static bool may_coenable(const struct cts_event *past, const struct cts_event *pend);
static bool accept(struct search *s, uint64_t step, const struct cts_event *pend);

/* A big range's latest dependent event of thread u after `floor` that it
 * has not seen (local index above `seen`), walking u's events back; with
 * race: also may be co-enabled and accepted. -1 if none. */
static int64_t dependent_before(struct search *s, int u, uint32_t seen, const struct cts_event *e,
				int64_t floor, bool race)
{
	struct dpor *d = s->dp;
	for (uint32_t k = d->nevl[u]; k > seen; k--) {
		uint32_t i = d->evl[u][k - 1];
		const struct cts_event *past = &s->stack[i].ev;
		if ((int64_t)i <= floor)
			return -1;
		if (cts_event_dependent(past, e) &&
		    (!race || (may_coenable(past, e) && accept(s, i, e))))
			return i;
	}
	return -1;
}

static int step_newest_first(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* Event `step` (executed by ev->tid) joins the trace: its clock is its
 * thread's joined with the latest dependent event of every other thread. */
static void dpor_record(struct search *s, uint64_t step, const struct cts_event *ev)
{
	struct dpor *d = s->dp;
	int p = ev->tid;
	if (p < 0 || p >= CTS_THREADS_CEILING)
		return;
	dpor_add_thread(d, p);
	struct cts_vc *c = &d->clk[p];
	bool rd = reads_only(ev);
	bool big = cts_op_is_range(ev->op) && big_range(ev);
	size_t nk = event_keys(d, ev);
	size_t nlook = lookup_keys(d, nk, ev);

	for (int u = 0; big && u < d->nthreads; u++) {
		int64_t i = u == p ? -1 : dependent_before(s, u, cts_vc_get(c, u), ev, -1, false);
		if (i >= 0)
			join_event_clock(d, c, (uint32_t)i);
	}
	/* The latest dependent event of each thread, joined newest first: one
	 * that an earlier join already covers is skipped, so a chain of many
	 * threads' operations on one object costs one join, not one per thread. */
	d->ncand = 0;
	for (size_t k = 0; !big && k < nlook; k++) {
		for (int u = 0; u < d->nthreads; u++) {
			if (u == p)
				continue;
			struct hent *h = hget(d, d->keys[k], u, false);
			for (int32_t l = h ? (rd ? h->head_w : h->head_a) : -1; l >= 0;) {
				const struct link *lk = &d->links[l];
				if (d->ev[lk->step].lidx <= cts_vc_get(c, u))
					break;   /* this and all earlier ones of u happen before */
				if (cts_event_dependent(&s->stack[lk->step].ev, ev)) {
					if (d->ncand >= d->candcap) {
						size_t cap = cts_grow_cap(d->candcap, d->ncand + 1);
						d->cand = cts_xgrow(d->cand, d->candcap, cap,
								    sizeof(*d->cand));
						d->candcap = cap;
					}
					d->cand[d->ncand++] = lk->step;
					break;
				}
				l = rd ? lk->prev_w : lk->prev_a;
			}
		}
	}
	if (d->ncand > 1)
		qsort(d->cand, d->ncand, sizeof(*d->cand), step_newest_first);
	for (size_t j = 0; j < d->ncand; j++) {
		uint32_t st = d->cand[j];
		if (d->ev[st].lidx > cts_vc_get(c, s->stack[st].ev.tid))
			join_event_clock(d, c, st);
	}
	/* A join follows its target's end; a cancel is dependent with every
	 * event of its target (cts_event_dependent), those before it too. */
	if (ev->op == CTS_OP_JOIN || ev->op == CTS_OP_CANCEL)
		join_last_of(d, c, ev->target);
	if (ev->op == CTS_OP_PROC_EXIT)
		for (int u = 0; u < d->nthreads; u++)
			join_last_of(d, c, u);

	uint32_t lidx = d->nevl[p] + 1;
	cts_vc_raise(c, p, lidx);
	if (step >= d->evcap) {
		d->evcap = d->evcap ? d->evcap * 2 : 1024;
		while (d->evcap <= step)
			d->evcap *= 2;
		d->ev = cts_xrealloc(d->ev, d->evcap * sizeof(*d->ev));
	}
	struct evinfo *ei = &d->ev[step];
	ei->lidx = lidx;
	ei->nclk = c->n;   /* the clock's width: missing components are 0 */
	if (d->nclocks + ei->nclk > d->clkcap) {
		d->clkcap = d->clkcap ? d->clkcap * 2 : 4096;
		while (d->nclocks + ei->nclk > d->clkcap)
			d->clkcap *= 2;
		d->clocks = cts_xrealloc(d->clocks, d->clkcap * sizeof(*d->clocks));
	}
	ei->clk = d->nclocks;
	if (ei->nclk)
		memcpy(&d->clocks[d->nclocks], c->c, ei->nclk * sizeof(uint32_t));
	d->nclocks += ei->nclk;

	if (d->nlinks + nk > d->linkcap) {
		d->linkcap = d->linkcap ? d->linkcap * 2 : 4096;
		while (d->nlinks + nk > d->linkcap)
			d->linkcap *= 2;
		d->links = cts_xrealloc(d->links, d->linkcap * sizeof(*d->links));
	}
	ei->link = (uint32_t)d->nlinks;
	ei->nlinks = (uint32_t)nk;
	for (size_t k = 0; k < nk; k++) {
		struct hent *h = hget(d, d->keys[k], p, true);
		int32_t l = (int32_t)d->nlinks++;
		d->links[l] = (struct link){ .step = (uint32_t)step, .prev_a = h->head_a,
					     .prev_w = h->head_w };
		h->head_a = l;
		if (!rd)
			h->head_w = l;
	}
	d->nbig += big;
	d->ncancel += ev->op == CTS_OP_CANCEL;

	if (d->nevl[p] >= d->capevl[p]) {
		d->capevl[p] = d->capevl[p] ? d->capevl[p] * 2 : 256;
		d->evl[p] = cts_xrealloc(d->evl[p], d->capevl[p] * sizeof(uint32_t));
	}
	d->evl[p][d->nevl[p]++] = (uint32_t)step;

	if (ev->op == CTS_OP_CREATE && ev->target > 0 && ev->target < CTS_THREADS_CEILING) {
		int w = ev->target;
		dpor_add_thread(d, w);       /* may move d->clk: c is stale */
		cts_vc_copy(&d->clk[w], &d->clk[p]);  /* everything before the create happens before w */
		d->nevl[w] = 0;
		d->birth[w] = (uint32_t)step;
		d->qvalid[w] = false;
	}
}

/* Could `past` (executed) and `pend` (another thread's) ever be enabled in
 * the same state? No when past needs a mutex held that pend needs free. */
static bool may_coenable(const struct cts_event *past, const struct cts_event *pend)
{
	uint64_t held = 0;
	if (pend->op == CTS_OP_JOIN && pend->target == past->tid)
		return false;   /* a join waits for every event of its thread */
	if (past->op == CTS_OP_UNLOCK && past->result == 0)
		held = past->obj;
	else if (past->op == CTS_OP_COND_WAIT && past->result == 0)
		held = past->obj2;
	if (!held)
		return true;
	return !((pend->op == CTS_OP_LOCK && pend->obj == held) ||
		 (pend->op == CTS_OP_COND_REACQUIRE && pend->obj2 == held));
}

/* Do two dependent accesses meet on a word some thread was held spinning
 * on? Such a race only changes how often a waiter polls before it is
 * released, or which release it sees first; the rest of a barrier program
 * (its arrival orders, the accesses between barriers) is tried first. */
static bool spin_race(const struct search *s, const struct cts_event *a,
		      const struct cts_event *b)
{
	if (!cts_htab_count(s->spinw) || !cts_op_is_range(a->op) || !cts_op_is_range(b->op) ||
	    big_range(a) || big_range(b))
		return false;
	uint64_t lo = (a->obj > b->obj ? a->obj : b->obj) >> 3;
	uint64_t ea = a->obj + (a->size ? a->size : 1), eb = b->obj + (b->size ? b->size : 1);
	uint64_t hi = ((ea < eb ? ea : eb) - 1) >> 3;
	for (uint64_t w = lo; w <= hi; w++)
		if (cts_htab_get(s->spinw, &w))
			return true;
	return false;
}

/* An arrival at a barrier: a lock acquisition or an atomic update. */
static bool arrival_op(cts_op op)
{
	return op == CTS_OP_LOCK || op == CTS_OP_TRYLOCK || op == CTS_OP_ATOMIC;
}

/* Is the race of the event at step with pend one between two arrivals at a
 * spin barrier: does the first one's thread, a few events of its own later
 * (the counter's update, the unlock), poll a location threads spin on,
 * before it arrives anywhere else? Which of two waiters arrived first only
 * changes what they counted. The race of the last arriver with a waiter
 * is not one of these: the waiter arrived first. */
#define ARRIVAL_EVENTS 6
static bool arrival_race(const struct search *s, uint64_t step, const struct cts_event *pend)
{
	const struct cts_event *e = &s->stack[step].ev;
	const struct dpor *d = s->dp;
	if (!cts_htab_count(s->spinw) || !arrival_op(e->op) || !arrival_op(pend->op) ||
	    e->tid < 0 || e->tid >= d->nthreads)
		return false;
	int u = e->tid;
	for (uint32_t k = d->ev[step].lidx; k < d->nevl[u] && k < d->ev[step].lidx + ARRIVAL_EVENTS;
	     k++) {
		const struct cts_event *f = &s->stack[d->evl[u][k]].ev;
		if (arrival_op(f->op))
			return false;
		if (reads_only(f) && spin_race(s, f, f))
			return true;
	}
	return false;
}

/* A race of the event at step with pend: taken now (RACE_TAKE), put off
 * until nothing else is left in the search (RACE_DEFER), or dropped
 * (RACE_DROP: a hook that prunes). */
enum race_verdict { RACE_TAKE, RACE_DEFER, RACE_DROP };

static enum race_verdict judge(struct search *s, uint64_t step, const struct cts_event *pend)
{
	if (s->no_accept)
		return RACE_TAKE;
	if (s->hooks.accept_race &&
	    !s->hooks.accept_race(s->hooks.ctx, step, &s->stack[step].ev, pend))
		return s->hooks.defer ? RACE_DEFER : RACE_DROP;
	return spin_race(s, &s->stack[step].ev, pend) || arrival_race(s, step, pend) ?
	       RACE_DEFER : RACE_TAKE;
}

static bool accept(struct search *s, uint64_t step, const struct cts_event *pend)
{
	return judge(s, step, pend) == RACE_TAKE;
}

/* A backtrack choice t at st: a deferred one (s->bt_deferred) only where
 * it is not a choice already. */
static void bt_add(struct search *s, struct state *st, int t)
{
	if (!s->bt_deferred)
		ts_add(&st->backtrack, t);
	else if (!ts_has(&st->backtrack, t))
		ts_add(&st->deferred, t);
}

/* Flanagan & Godefroid: event i races with p's next event; make sure the
 * state before i will try p, or a thread whose later event leads to p. */
static void add_backtrack(struct search *s, uint64_t i, int p)
{
	struct dpor *d = s->dp;
	struct state *st = &s->stack[i];

	/* p spun at pre(i) and has not moved since: its pending event there was
	 * a re-read that changes nothing, so running it before i reaches the
	 * states this run reaches anyway (docs/systematic.md). */
	if (ts_has(&st->spinning, p) && p < d->nthreads &&
	    (!d->nevl[p] || d->evl[p][d->nevl[p] - 1] < i)) {
		s->stats.spin_skips++;
		return;
	}
	s->stats.races++;
	if (st->restricted && !ts_has(&st->enabled, p)) {
		/* An instance (strategies/tiles.h) keeps the thread that runs here
		 * from being preempted, so p can only come first where that thread
		 * got the processor: the latest state the instance left free. */
		while (i > 0 && s->stack[i].restricted)
			i--;
		if (i != (uint64_t)(st - s->stack)) {
			add_backtrack(s, i, p);
			return;
		}
	}
	if (ts_has(&st->enabled, p)) {
		bt_add(s, st, p);
		return;
	}
	for (int q = ts_next_at(&st->enabled, 0); q >= 0; q = ts_next_at(&st->enabled, q + 1)) {
		if (q == p || q >= d->nthreads)
			continue;
		uint32_t k = p < d->nthreads ? cts_vc_get(&d->clk[p], q) : 0;
		if (k > 0 && d->evl[q][k - 1] > i) {
			bt_add(s, st, q);
			return;
		}
	}
	for (int q = ts_next_at(&st->enabled, 0); q >= 0; q = ts_next_at(&st->enabled, q + 1))
		bt_add(s, st, q);
}

/* The race DPOR would branch on when the hook turned it down: a deferred
 * choice, tried after every accepted one (hooks.defer). */
static void add_deferred(struct search *s, uint64_t i, int p)
{
	s->deferrals++;
	s->bt_deferred = true;
	add_backtrack(s, i, p);
	s->bt_deferred = false;
}

/* Event i races with pend, pending now (FG's rule): kept until the run
 * ends. If pend runs, sdpor_races treats its races then, against all the
 * run before it, and FG's choice (pend's thread at i) would only add runs.
 * They all stay (fg_every) with a hook that vetoes races (HaPSet: defined
 * on FG's races, the search looks further back) and inside an instance,
 * whose restricted runs source sets do not cover (tests/e2e/tiles.t: relay
 * searched by dpor inside the instance that has its bug). */
static void fg_race(struct search *s, uint64_t i, const struct cts_event *pend, bool deferred)
{
	int p = pend->tid;
	if (p < 0 || p >= s->dp->nthreads)
		return;
	if (s->nfgq == s->fgqcap) {
		size_t cap = cts_grow_cap(s->fgqcap, s->nfgq + 1);
		s->fgq = cts_xgrow(s->fgq, s->fgqcap, cap, sizeof(*s->fgq));
		s->fgqcap = cap;
	}
	s->fgq[s->nfgq++] = (struct fgrace){ .i = i, .pend = *pend, .nev = s->dp->nevl[p],
					     .deferred = deferred };
}

static bool same_pending(const struct cts_event *a, const struct cts_event *b);

/* The run is over: FG's rule for the pending events that never ran (a
 * deadlock's, the threads' left at exit or where the run was cut). */
static void fg_flush(struct search *s)
{
	struct dpor *d = s->dp;
	for (size_t k = 0; k < s->nfgq; k++) {
		const struct fgrace *r = &s->fgq[k];
		int p = r->pend.tid;
		if (r->i >= s->depth)
			continue;
		if (!s->fg_every && d->nevl[p] > r->nev &&
		    same_pending(&s->stack[d->evl[p][r->nev]].ev, &r->pend))
			continue;
		if (r->deferred)
			add_deferred(s, r->i, p);
		else
			add_backtrack(s, r->i, p);
	}
	s->nfgq = 0;
}

/* The latest event of thread u on `word`, after `floor`, that races with
 * p's pending event: dependent, may be co-enabled, not happening before it,
 * accepted by the hook; -1 if none. Walks u's chain back from the newest
 * and stops at the first event p has already seen. */
static int64_t latest_race_of(struct search *s, uint64_t word, int u, const struct cts_event *pend,
			      int64_t floor)
{
	struct dpor *d = s->dp;
	int p = pend->tid;
	bool rd = reads_only(pend);
	struct hent *h = hget(d, word, u, false);

	for (int32_t l = h ? (rd ? h->head_w : h->head_a) : -1; l >= 0;) {
		const struct link *lk = &d->links[l];
		if ((int64_t)lk->step <= floor || d->ev[lk->step].lidx <= cts_vc_get(&d->clk[p], u))
			return -1;
		const struct cts_event *e = &s->stack[lk->step].ev;
		if (cts_event_dependent(e, pend) && may_coenable(e, pend) && accept(s, lk->step, pend))
			return lk->step;
		l = rd ? lk->prev_w : lk->prev_a;
	}
	return -1;
}

/* FG's loop body for one process p: the latest event in the trace that is
 * dependent and may be co-enabled with p's next event and does not happen
 * before it gets a backtrack choice. */
static int64_t latest_race(struct search *s, const struct cts_event *pend)
{
	struct dpor *d = s->dp;
	int p = pend->tid;
	int64_t best = -1;

	if (pend->op == CTS_OP_PROC_EXIT) {
		/* exit is dependent with everything */
		for (int u = 0; u < d->nthreads; u++) {
			for (uint32_t k = d->nevl[u]; u != p && k > cts_vc_get(&d->clk[p], u); k--) {
				uint32_t step = d->evl[u][k - 1];
				if ((int64_t)step <= best)
					break;
				if (accept(s, step, pend)) {
					best = step;
					break;
				}
			}
		}
	} else if (cts_op_is_range(pend->op) && big_range(pend)) {
		for (int u = 0; u < d->nthreads; u++) {
			int64_t i = u == p ? -1 : dependent_before(s, u, cts_vc_get(&d->clk[p], u), pend, best, true);
			if (i > best)
				best = i;
		}
	} else {
		/* a cancel's target: every event of it is dependent */
		if (pend->op == CTS_OP_CANCEL && valid_target(pend) && pend->target != p &&
		    pend->target < d->nthreads)
			best = dependent_before(s, pend->target,
						cts_vc_get(&d->clk[p], pend->target), pend, best, true);
		size_t nk = lookup_keys(d, event_keys(d, pend), pend);
		for (size_t k = 0; k < nk; k++)
			for (int u = 0; u < d->nthreads; u++) {
				if (u == p)
					continue;
				int64_t i = latest_race_of(s, d->keys[k], u, pend, best);
				if (i > best)
					best = i;
			}
	}
	return best;
}

static void race_query(struct search *s, const struct cts_event *pend)
{
	int p = pend->tid;

	if (p < 0 || p >= s->dp->nthreads)
		return;
	int64_t best = latest_race(s, pend);
	if ((s->hooks.defer && s->hooks.accept_race) || cts_htab_count(s->spinw)) {
		/* plain DPOR's race, when the hook or a spin sent the search past it */
		s->no_accept = true;
		int64_t plain = latest_race(s, pend);
		s->no_accept = false;
		if (plain >= 0 && plain != best)
			fg_race(s, (uint64_t)plain, pend, true);
	}
	if (best >= 0)
		fg_race(s, (uint64_t)best, pend, false);
}

static bool same_pending(const struct cts_event *a, const struct cts_event *b)
{
	return a->tid == b->tid && a->op == b->op && a->obj == b->obj && a->obj2 == b->obj2 &&
	       a->size == b->size && a->target == b->target;
}

/* updatebacktrack for DPOR at fresh state k: every live thread's pending
 * event against the trace. A thread whose pending event was analysed at an
 * earlier state and that has not run since can only race with the events
 * executed after that, and dpor_newest checked each of those as it ran. */
static void dpor_update(struct search *s, const struct cts_sched_point *pt, uint64_t k)
{
	struct dpor *d = s->dp;
	const struct cts_event *last = k > 0 ? &s->stack[k - 1].ev : NULL;

	for (int p = 0; p < pt->nthreads; p++) {
		if (!pt->alive[p])
			continue;
		const struct cts_event *pend = &pt->pending[p];
		if (!s->fresh_seen || !d->qvalid[p] || !same_pending(&d->qpend[p], pend) ||
		    (last && last->tid == p))
			race_query(s, pend);
		d->qpend[p] = *pend;
		d->qvalid[p] = true;
	}
}

/* Event k just ran: the other threads' pending events (unchanged by it)
 * against it. Done here rather than at the next state because a run may end
 * with this step (exit, assert, deadlock) and the explorer shows no final state. */
static void dpor_newest(struct search *s, const struct cts_sched_point *pt, uint64_t k)
{
	const struct cts_event *ev = &s->stack[k].ev;
	for (int p = 0; p < pt->nthreads; p++) {
		const struct cts_event *pend = &pt->pending[p];
		if (p == ev->tid || !pt->alive[p])
			continue;
		if (!cts_event_dependent(ev, pend) || !may_coenable(ev, pend))
			continue;
		enum race_verdict v = judge(s, k, pend);
		if (v != RACE_DROP)
			fg_race(s, k, pend, v == RACE_DEFER);
	}
}

/* The explorer does not show us the state a run ends in (a deadlock), so the
 * pending event of the thread that ran last is unknown. It is blocked, so a
 * synchronization (or futex) operation, or anything after a barrier wait:
 * back-track at every such event it has not seen, a superset of what FG
 * would add for it. */
static void dpor_final(struct search *s)
{
	struct dpor *d = s->dp;
	const struct cts_event *last = &s->stack[s->depth - 1].ev;
	int who[2] = { last->tid, last->op == CTS_OP_CREATE ? last->target : -1 };
	bool any = last->op == CTS_OP_BARRIER_WAIT;

	if (last->op == CTS_OP_THREAD_EXIT || last->op == CTS_OP_PROC_EXIT)
		who[0] = -1;
	for (int w = 0; w < 2; w++) {
		int p = who[w];
		if (p < 0 || p >= d->nthreads)
			continue;
		for (int u = 0; u < d->nthreads; u++)
			for (uint32_t k = d->nevl[u]; u != p && k > cts_vc_get(&d->clk[p], u); k--) {
				uint32_t i = d->evl[u][k - 1];
				cts_op op = s->stack[i].ev.op;
				if (any || cts_op_is_sync(op) || cts_op_is_range(op))
					add_backtrack(s, i, p);
			}
	}
}

/* ---- optimal DPOR (Abdulla et al., POPL 2014, Algorithm 2) ----
 *
 * The same stack, replay and clocks as dpor; what differs is what a state
 * tries. Each state has a wakeup tree (wakeup.h): the sequences still to be
 * explored from it, the leftmost one being the branch the run takes. A
 * fresh state with an empty tree takes the round-robin choice among the
 * threads not asleep, as dpor does. After a run, every race e < e' of it
 * (dpor's relation: dependent, may be co-enabled, e not happening before
 * e''s thread, and no dependent event of a third thread in between) puts
 * v = notdep(e).e' into the tree of the state before e, unless a sleeping
 * thread or a sequence already there is a weak initial of v. Sleep sets
 * carry each sleeping thread's event, since that is what the check needs. */

static int32_t wut_of(const struct search *s, uint64_t k)
{
	return k == 0 ? s->wroot : s->stack[k - 1].wnode;
}

static struct slp *slp_at(struct search *s, uint64_t k)
{
	if (k >= s->slpcap) {
		size_t cap = cts_grow_cap(s->slpcap, k + 1);
		s->slp = cts_xgrow(s->slp, s->slpcap, cap, sizeof(*s->slp));
		s->slpcap = cap;
	}
	return &s->slp[k];
}

static void slp_add(struct slp *l, const struct cts_event *ev)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->ev[i].tid == ev->tid) {
			l->ev[i] = *ev;
			return;
		}
	if (l->n == l->cap) {
		size_t cap = cts_grow_cap(l->cap, l->n + 1);
		l->ev = cts_xgrow(l->ev, l->cap, cap, sizeof(*l->ev));
		l->cap = (uint32_t)cap;
	}
	l->ev[l->n++] = *ev;
}

static bool slp_has(const struct slp *l, int tid)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->ev[i].tid == tid)
			return true;
	return false;
}

/* The state after step k (run by ev) sleeps on what sleeps at k, other
 * threads than ev's whose events commute with ev (the paper's
 * Sleep' = {q in sleep(E) | E |= p <> q}). A sleeper's event is what the
 * backend shows it pending now: a thread held in a blocking call can show
 * another one without a step of its own (woken by a futex, back from the
 * kernel), as dpor's sleep sets see it. */
static void odpor_next_sleep(struct search *s, const struct cts_sched_point *pt, uint64_t k,
			     const struct cts_event *ev)
{
	struct slp *to = slp_at(s, k + 1);
	const struct slp *from = slp_at(s, k);   /* after the growth above */
	to->n = 0;
	for (uint32_t i = 0; i < from->n; i++) {
		int r = from->ev[i].tid;
		const struct cts_event *now = r >= 0 && r < pt->nthreads && pt->alive[r] ?
					      &pt->pending[r] : &from->ev[i];
		if (r != ev->tid && !cts_event_dependent(now, ev))
			slp_add(to, now);
	}
}

static bool odpor_hb(const struct search *s, uint32_t i, uint32_t k);

/* The mutex an event takes (a try only if it succeeded), 0 if none. */
static uint64_t takes_mutex(const struct cts_event *e, bool done)
{
	switch (e->op) {
	case CTS_OP_LOCK:
	case CTS_OP_RDLOCK:
	case CTS_OP_WRLOCK:
		return e->obj;
	case CTS_OP_TRYLOCK:
	case CTS_OP_TRYRDLOCK:
	case CTS_OP_TRYWRLOCK:
		return done && e->result == 0 ? e->obj : 0;
	case CTS_OP_COND_REACQUIRE:
		return e->obj2;
	default:
		return 0;
	}
}

/* Can thread p's event e2 (step j, or pending at the run's end; p's step
 * before it, or its creation: since) run right after the events of
 * notdep(i) from the state before step i? 1 yes, 0 no, -1 ask the object
 * model. The acquisition of the mutex i took can: without i it is free
 * (the paper's treatment of locks; not a cond waiter's re-acquisition). A thread spinning there on a re-read
 * is not reversed (dpor's spin rule). A plain access whose thread was
 * enabled from the moment it was pending can. Anything else (a semaphore
 * wait, a woken waiter's re-acquisition, a join, a step after a barrier)
 * may have been let run by i or a step after it: the object model
 * replays the prefix and notdep(i) and says (odpor_model_enabled); a
 * thread woken by a futex or the kernel (resume, futex wait, I/O, signal
 * waits), and every blocking event under the live tracer, whose object
 * model learns wake-ups from futexes, is judged by the step that let it
 * run in this run instead. */
static int odpor_reversible(struct search *s, uint32_t i, const struct cts_event *e2, uint64_t j,
			    int64_t since)
{
	int p = e2->tid;
	uint64_t m = takes_mutex(e2, false);
	if (m && e2->op != CTS_OP_COND_REACQUIRE && takes_mutex(&s->stack[i].ev, true) == m)
		return 1;   /* a woken waiter's re-acquisition needs its wake-up too */
	uint64_t k0 = since + 1 > (int64_t)i ? (uint64_t)(since + 1) : i;
	uint64_t end = j < s->executed ? j : s->executed - 1;
	if (since < (int64_t)i && ts_has(&s->stack[i].spinning, p) &&
	    !ts_has(&s->stack[i].enabled, p)) {
		s->stats.spin_skips++;
		return 0;
	}
	if (e2->op == CTS_OP_RESUME || e2->op == CTS_OP_FUTEX_WAIT || e2->op == CTS_OP_IO ||
	    e2->op == CTS_OP_SIGWAIT || e2->op == CTS_OP_SIGSUSPEND || s->base.cfg.futex_model) {
		/* Woken by what the live tracer sees of futexes and the kernel,
		 * which the object model does not replay: the step just before
		 * the thread could run is what woke it, and must be in notdep(i).
		 * If the model cannot tell either and the branch cannot run,
		 * odpor_drop falls back. */
		for (uint64_t k = k0; k <= end; k++) {
			if (!ts_has(&s->stack[k].enabled, p))
				continue;
			if (k > k0)
				return k - 1 != i && !odpor_hb(s, i, (uint32_t)(k - 1));
			/* pending only after i and enabled at once: i may be what let
			 * it run (a post, a rwunlock); the model judges those it
			 * replays exactly (not a cond waiter's) */
			bool cond = e2->op == CTS_OP_COND_REACQUIRE || e2->op == CTS_OP_RESUME;
			return k0 > i && cts_op_is_sync(e2->op) && !cond ? -1 : 1;
		}
		return 0;
	}
	if (!cts_op_is_range(e2->op) || k0 > end)
		return -1;
	for (uint64_t k = k0; k <= end; k++)
		if (!ts_has(&s->stack[k].enabled, p))
			return -1;
	return 1;
}

/* The object model after the run's steps before i and then v[0..nv-1):
 * may v[nv-1] run? */
static bool odpor_model_enabled(struct search *s, uint32_t i, size_t nv)
{
	struct cts_event tmp;
	if (!s->om)
		s->om = cts_objmodel_new(false);
	cts_objmodel_reset(s->om);
	for (uint32_t k = 0; k < i; k++) {
		tmp = s->stack[k].ev;
		cts_objmodel_apply(s->om, &tmp);
	}
	for (size_t m = 0; m + 1 < nv; m++) {
		tmp = s->vbuf[m];
		cts_objmodel_apply(s->om, &tmp);
	}
	const struct cts_event *e2 = &s->vbuf[nv - 1];
	return cts_objmodel_enabled(s->om, e2) && !cts_objmodel_waiting(s->om, e2->tid);
}

static const uint32_t *clock_at(const struct dpor *d, uint32_t step, uint32_t *n)
{
	*n = d->ev[step].nclk;
	return &d->clocks[d->ev[step].clk];
}

/* Does step i happen before step k? */
static bool odpor_hb(const struct search *s, uint32_t i, uint32_t k)
{
	uint32_t n;
	const uint32_t *c = clock_at(s->dp, k, &n);
	int u = s->stack[i].ev.tid;
	return u >= 0 && (uint32_t)u < n && s->dp->ev[i].lidx <= c[u];
}

/* Thread u's events before step j: how many. */
static uint32_t events_before(const struct dpor *d, int u, uint64_t j)
{
	uint32_t lo = 0, hi = d->nevl[u];
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (d->evl[u][mid] < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Reverse the race of step i with e2 (step j, or the end of the run for a
 * pending event; its thread's previous step, or its creation, is `since`):
 * v = the events after i that do not happen after it, then e2, into the
 * wakeup tree of the state before i. A race is reversible only if e2 can
 * run there (odpor_reversible). */
static size_t odpor_notdep(struct search *s, uint32_t i, const struct cts_event *e2, uint64_t j)
{
	uint64_t n = s->executed;
	size_t nv = 0;
	if (n - i + 1 > s->vcap) {
		size_t cap = cts_grow_cap(s->vcap, n - i + 1);
		s->vbuf = cts_xgrow(s->vbuf, s->vcap, cap, sizeof(*s->vbuf));
		s->vcap = cap;
	}
	for (uint64_t k = i + 1; k < n; k++)
		if (k != j && !odpor_hb(s, i, (uint32_t)k))
			s->vbuf[nv++] = s->stack[k].ev;
	s->vbuf[nv++] = *e2;
	return nv;
}

/* May the race of step i with e2 be reversed (odpor_reversible, the model
 * where that cannot tell)? */
static bool odpor_race(struct search *s, uint32_t i, const struct cts_event *e2, uint64_t j,
		       int64_t since)
{
	int rev = odpor_reversible(s, i, e2, j, since);
	if (rev < 0 && !odpor_model_enabled(s, i, odpor_notdep(s, i, e2, j)))
		rev = 0;
	s->stats.blocked_races += !rev;
	return rev != 0;
}

/* A race the hook turned down: reversed after the others (odpor_analyse). */
static void odpor_defer(struct search *s, uint32_t i, const struct cts_event *e2, uint64_t j)
{
	if (s->ndefer == s->defercap) {
		size_t cap = cts_grow_cap(s->defercap, s->ndefer + 1);
		s->defer = cts_xgrow(s->defer, s->defercap, cap, sizeof(*s->defer));
		s->defercap = cap;
	}
	s->defer[s->ndefer++] = (struct odefer){ .i = i, .e2 = *e2, .j = j };
	s->deferrals++;
}

/* Put the reversal of a race into the tree of the state before i. */
static void odpor_reverse(struct search *s, uint32_t i, const struct cts_event *e2, uint64_t j)
{
	size_t nv = odpor_notdep(s, i, e2, j);
	const struct slp *sl = slp_at(s, i);
	if (!cts_wut_clears_sleep(sl->ev, sl->n, s->vbuf, nv) ||
	    !cts_wut_insert(s->wut, wut_of(s, i), s->vbuf, nv)) {
		s->stats.wut_covered++;
		return;
	}
	s->stats.wut_inserted++;
	s->stats.races++;
}

/* The races whose second event is e2, run by p at step j (the run's end
 * for a pending event) after the events of the clock pc[0..pn) (those of
 * its thread before it, or of its creator). Per other thread u, the latest
 * event dependent with e2 that e2's thread has not seen (rd), and the
 * latest that may also be co-enabled with it and whose race with e2 can
 * be reversed (rc): rc races with e2 unless it happens before another
 * thread's rd (then that one stands in between: race_immediate). The
 * events of u after rc that could not be reversed (a lock's release, a
 * post or signal that let e2 run) do not count: the race is between the
 * two acquisitions, as the paper has it for locks. */
static void find_races(struct search *s, const struct cts_event *e2, uint64_t j,
		       const uint32_t *pc, uint32_t pn, int64_t since)
{
	struct dpor *d = s->dp;
	int p = e2->tid;
	if ((size_t)d->nthreads > s->rcap) {
		size_t cap = cts_grow_cap(s->rcap, (size_t)d->nthreads);
		s->rc = cts_xgrow(s->rc, s->rcap, cap, sizeof(*s->rc));
		s->rd = cts_xgrow(s->rd, s->rcap, cap, sizeof(*s->rd));
		s->fv = cts_xgrow(s->fv, s->rcap, cap, sizeof(*s->fv));
		s->rcap = cap;
	}
	/* Events dependent through a word or object share a key with e2 (as
	 * dpor_record indexes them): walk u's chains on those keys, so a long
	 * run of reads costs nothing per read. Dependence through threads
	 * (join, create, cancel, exit), keyless events and big ranges: walk
	 * u's events. */
	bool big = cts_op_is_range(e2->op) && big_range(e2);
	size_t nk = big ? 0 : event_keys(d, e2);
	bool chains = nk > 0 && e2->op != CTS_OP_JOIN && e2->op != CTS_OP_CREATE &&
		      e2->op != CTS_OP_CANCEL && e2->op != CTS_OP_PROC_EXIT;
	size_t nlook = chains ? lookup_keys(d, nk, e2) : 0;
	bool rd_only = reads_only(e2);
	/* The process exit depends on everything but is on no chain. It ends
	 * the run, so only the events the threads were left pending at come
	 * after it: it is its thread's latest event dependent with them. */
	int64_t xit = -1;
	if (chains && j >= s->executed && s->executed > 0 &&
	    s->stack[s->executed - 1].ev.op == CTS_OP_PROC_EXIT)
		xit = (int64_t)s->executed - 1;
	for (int u = 0; u < d->nthreads; u++) {
		s->rc[u] = s->rd[u] = -1;
		uint32_t seen = (uint32_t)u < pn ? pc[u] : 0;
		if (u == p)
			continue;
		for (size_t k = 0; chains && k < nlook; k++) {
			struct hent *h = hget(d, d->keys[k], u, false);
			for (int32_t l = h ? (rd_only ? h->head_w : h->head_a) : -1; l >= 0;) {
				const struct link *lk = &d->links[l];
				uint32_t i = lk->step;
				l = rd_only ? lk->prev_w : lk->prev_a;
				if (i >= j)
					continue;   /* after e2 */
				if (d->ev[i].lidx <= seen || (int64_t)i <= s->rc[u])
					break;      /* happens before e2's thread, or found already */
				const struct cts_event *e = &s->stack[i].ev;
				if (!cts_event_dependent(e, e2))
					continue;
				if ((int64_t)i > s->rd[u])
					s->rd[u] = i;
				if (may_coenable(e, e2) && odpor_race(s, i, e2, j, since)) {
					s->rc[u] = i;
					break;
				}
			}
		}
		if (xit >= 0 && s->stack[xit].ev.tid == u && d->ev[xit].lidx > seen) {
			s->rd[u] = xit;
			if (may_coenable(&s->stack[xit].ev, e2) &&
			    odpor_race(s, (uint32_t)xit, e2, j, since))
				s->rc[u] = xit;
		}
		for (uint32_t k = chains ? 0 : events_before(d, u, j); k > seen; k--) {
			uint32_t i = d->evl[u][k - 1];
			const struct cts_event *e = &s->stack[i].ev;
			if (!cts_event_dependent(e, e2))
				continue;
			if (s->rd[u] < 0)
				s->rd[u] = i;
			if (may_coenable(e, e2) && odpor_race(s, i, e2, j, since)) {
				s->rc[u] = i;
				break;
			}
		}
	}
}

/* After find_races: thread u's rc races with e2 and no other thread's
 * dependent event stands in between. */
static bool race_immediate(const struct search *s, int u)
{
	if (s->rc[u] < 0)
		return false;
	for (int w = 0; w < s->dp->nthreads; w++)
		if (w != u && s->rd[w] >= 0 && odpor_hb(s, (uint32_t)s->rc[u], (uint32_t)s->rd[w]))
			return false;
	return true;
}

/* odpor: every race of e2 (find_races) is reversed in a wakeup tree. */
static void odpor_second(struct search *s, const struct cts_event *e2, uint64_t j,
			 const uint32_t *pc, uint32_t pn, int64_t since)
{
	find_races(s, e2, j, pc, pn, since);
	for (int u = 0; u < s->dp->nthreads; u++) {
		if (!race_immediate(s, u))
			continue;
		bool ok = !s->hooks.accept_steps || j >= s->executed ||
			  s->hooks.accept_steps(s->hooks.ctx, (uint64_t)s->rc[u], j);
		if (ok)
			odpor_reverse(s, (uint32_t)s->rc[u], e2, j);
		else if (s->hooks.defer)
			odpor_defer(s, (uint32_t)s->rc[u], e2, j);
	}
}

/* The step before step j in its thread, or the create that started the
 * thread (-1: none), and that step's clock (pc[0..pn), NULL if none). */
static int64_t step_since(const struct search *s, uint64_t j, const uint32_t **pc, uint32_t *pn)
{
	const struct dpor *d = s->dp;
	int p = s->stack[j].ev.tid;
	uint32_t l = d->ev[j].lidx;
	int64_t since = -1;
	if (l > 1)
		since = d->evl[p][l - 2];
	else if (d->birth[p] != UINT32_MAX)
		since = d->birth[p];
	*pc = NULL;
	*pn = 0;
	if (since >= 0)
		*pc = clock_at(d, (uint32_t)since, pn);
	return since;
}

/* After a run that ended on its own: every race of it, and of the events
 * its live threads were left pending at; the races a hook turned down
 * (--guide hapset) after all the others, so each state's wakeup tree tries
 * their reversals last. */
static void odpor_analyse(struct search *s)
{
	struct dpor *d = s->dp;
	s->ndefer = 0;
	for (uint64_t j = 0; j < s->executed; j++) {
		const struct cts_event *e2 = &s->stack[j].ev;
		int p = e2->tid;
		if (p < 0 || p >= d->nthreads)
			continue;
		uint32_t pn = 0;
		const uint32_t *pc = NULL;
		int64_t since = step_since(s, j, &pc, &pn);
		odpor_second(s, e2, j, pc, pn, since);
	}
	for (int t = 0; (size_t)t < s->fincap && t < d->nthreads; t++) {
		if (!s->finv[t])
			continue;
		int64_t since = -1;
		if (d->nevl[t])
			since = d->evl[t][d->nevl[t] - 1];
		else if (d->birth[t] != UINT32_MAX)
			since = d->birth[t];
		odpor_second(s, &s->fin[t], s->executed, d->clk[t].c, d->clk[t].n, since);
	}
	for (size_t k = 0; k < s->ndefer; k++)
		odpor_reverse(s, s->defer[k].i, &s->defer[k].e2, s->defer[k].j);
}

/* ---- dpor: every race of an executed event (source sets) ----
 *
 * Why not FG's rule alone: it branches on the latest race of a pending
 * event only, putting that event's thread there, and counts on the run
 * that branch starts to reach the races further back. With sleep sets the
 * thread can be asleep there. Writer w, readers r1 and r2 of x: after
 * r1 R1 r2 R2 W (r1 taken before W) reverses R2/W, the run r1 R1 W R2
 * meets R1/W as the latest race, but w sleeps before R1 (W was explored
 * first there); nothing runs r2 before W under r1, and r2's branch before
 * W ends sleep-set blocked on r1's start. R2 < W < R1 was never run, and
 * the search said complete. So each executed event gets source-DPOR's rule
 * (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014, Algorithm 1): for every
 * race e < e' (find_races and race_immediate: each thread's, not only the
 * latest), the state before e must explore an initial of v = notdep(e).e'
 * (a thread whose first event in v no event of v happens before); if none
 * is in its backtrack, done or sleep set, one is added, e''s thread if it
 * is one. Races are found as odpor finds them, past those e' could not
 * come first in (odpor_race): a cond waiter's re-acquisition races with
 * the lock before the broadcast that woke it, not with the broadcast. FG's
 * rule met that lock while the re-acquisition was pending; without the
 * look past, live pool_shutdown_ok lost 92 of its 2,680 traces. FG's rule
 * stays for the events a run leaves pending (fg_flush): a deadlock's, the
 * threads' still alive at the exit. */

/* Is thread q an initial of v: its first event in v (s->fv) has no other
 * event of v happening before it? */
static bool sdpor_initial(const struct search *s, int q)
{
	const struct dpor *d = s->dp;
	uint32_t n;
	const uint32_t *c = clock_at(d, (uint32_t)s->fv[q], &n);
	for (int u = 0; u < d->nthreads && (uint32_t)u < n; u++)
		if (u != q && s->fv[u] >= 0 && s->fv[u] < s->fv[q] && d->ev[s->fv[u]].lidx <= c[u])
			return false;
	return true;
}

/* The race of step i with step j (the latest): the state before i gets an
 * initial of v = notdep(i).ev(j) unless it explores one already, or one
 * sleeps there (explored where it was put to sleep). None enabled there:
 * Flanagan & Godefroid's fallback for j's thread (add_backtrack). */
static void sdpor_add(struct search *s, uint32_t i, uint64_t j)
{
	struct dpor *d = s->dp;
	struct state *st = &s->stack[i];
	int p = s->stack[j].ev.tid, e = st->ev.tid, pick = -1;

	/* a thread's events in v are its first ones after i, up to the first
	 * that happens after i; e2's thread's end with e2 */
	for (int u = 0; u < d->nthreads; u++) {
		s->fv[u] = -1;
		if (u == e || !d->nevl[u] || d->evl[u][d->nevl[u] - 1] <= i)
			continue;
		uint32_t f = d->evl[u][events_before(d, u, (uint64_t)i + 1)];
		if (f < j && !odpor_hb(s, i, f))
			s->fv[u] = f;
	}
	if (s->fv[p] < 0)
		s->fv[p] = (int64_t)j;
	/* p spun at pre(i) and has not moved since (add_backtrack's rule) */
	if (s->fv[p] == (int64_t)j && ts_has(&st->spinning, p)) {
		s->stats.spin_skips++;
		return;
	}
	for (int q = 0; q < d->nthreads; q++) {
		if (s->fv[q] < 0 || !sdpor_initial(s, q))
			continue;
		if (ts_has(&st->backtrack, q) || ts_has(&st->done, q) || ts_has(&st->sleep, q) ||
		    (s->bt_deferred && ts_has(&st->deferred, q)))
			return;
		if (ts_has(&st->enabled, q) && (pick < 0 || q == p))
			pick = q;
	}
	if (pick < 0) {
		add_backtrack(s, i, p);
		return;
	}
	s->stats.races++;
	bt_add(s, st, pick);
}

/* Step k (fresh: its races were not looked at in an earlier run) just ran:
 * source-DPOR's rule for each of its races; a race the hook turns down is
 * deferred (hooks.defer) or dropped, as in race_query. */
static void sdpor_races(struct search *s, uint64_t k)
{
	struct dpor *d = s->dp;
	const struct cts_event *e2 = &s->stack[k].ev;
	const uint32_t *pc;
	uint32_t pn;

	if (e2->tid < 0 || e2->tid >= d->nthreads || e2->tid >= CTS_THREADS_CEILING)
		return;
	int64_t since = step_since(s, k, &pc, &pn);
	find_races(s, e2, k, pc, pn, since);
	for (int u = 0; u < d->nthreads; u++) {
		if (!race_immediate(s, u))
			continue;
		uint32_t i = (uint32_t)s->rc[u];
		enum race_verdict v = judge(s, i, e2);
		if (v == RACE_TAKE) {
			sdpor_add(s, i, k);
		} else if (v == RACE_DEFER) {
			s->deferrals++;
			s->bt_deferred = true;
			sdpor_add(s, i, k);
			s->bt_deferred = false;
		}
	}
}

/* Remember the live threads' pending events: the last ones seen are those
 * the run ends with (but the thread that ran last, unless the explorer
 * shows the final state: stuck). */
static void odpor_pending(struct search *s, const struct cts_sched_point *pt, int ran)
{
	if ((size_t)pt->nthreads > s->fincap) {
		size_t cap = cts_grow_cap(s->fincap, (size_t)pt->nthreads);
		s->fin = cts_xgrow(s->fin, s->fincap, cap, sizeof(*s->fin));
		s->finv = cts_xgrow(s->finv, s->fincap, cap, sizeof(*s->finv));
		s->fincap = cap;
	}
	for (size_t t = 0; t < s->fincap; t++)
		s->finv[t] = false;
	CTS_SCHED_FOR_EACH(pt, i, t)
		if (pt->alive[t] && t != ran && pt->pending[t].op != CTS_OP_NONE) {
			s->fin[t] = pt->pending[t];
			s->finv[t] = true;
		}
}

/* Wakeup-tree branch c of state st cannot run (its thread is not enabled
 * there): a spinning thread's re-read changes nothing (as dpor's spin
 * rule); inside an instance the restriction did it (not complete anyway).
 * Anything else is a race judged reversible that was not (the live
 * tracer's wake-ups are not replayed: odpor_race): every enabled thread
 * not asleep there becomes a branch instead, as Flanagan & Godefroid fall
 * back to when the racing thread is not enabled; their events are known
 * at a fresh state (pending), else stand in as dependent with everything
 * until the branch is taken (branch_choice). */
static void odpor_drop(struct search *s, const struct state *st, int32_t c,
		       const struct cts_event *pending)
{
	int32_t root = wut_of(s, (uint64_t)(st - s->stack));
	const struct slp *sl = slp_at(s, (uint64_t)(st - s->stack));
	int t = cts_wut_event(s->wut, c)->tid;

	cts_wut_remove(s->wut, c);
	if (ts_has(&st->spinning, t)) {
		s->stats.spin_skips++;
		return;
	}
	if (st->restricted)
		return;
	s->stats.wut_blocked++;
	cts_debug_msg("odpor: step %td: thread %d cannot run its wakeup-tree branch there: "
		      "every thread not asleep becomes a branch", st - s->stack, t);
	for (int q = ts_next_at(&st->enabled, 0); q >= 0; q = ts_next_at(&st->enabled, q + 1)) {
		if (slp_has(sl, q) || cts_wut_child(s->wut, root, q) != CTS_WUT_NONE)
			continue;
		struct cts_event e;
		if (pending)
			e = pending[q];
		else
			cts_event_init(&e, q, CTS_OP_PROC_EXIT);
		cts_wut_add(s->wut, root, &e);
	}
}

/* Fresh state k: the leftmost branch of its wakeup tree, or, with none,
 * the round-robin choice among the threads not asleep (a new branch).
 * A branch whose thread cannot run here is dropped (odpor_drop). -1:
 * every enabled thread sleeps. */
static int odpor_choice(struct search *s, const struct cts_sched_point *pt, uint64_t k,
			struct tset *allowed)
{
	struct state *st = &s->stack[k];
	int32_t root = wut_of(s, k);
	const struct slp *sl = slp_at(s, k);

	for (int32_t c = cts_wut_first(s->wut, root); c != CTS_WUT_NONE;
	     c = cts_wut_first(s->wut, root)) {
		int t = cts_wut_event(s->wut, c)->tid;
		if (ts_has(allowed, t) && !slp_has(sl, t)) {
			st->wnode = c;
			return t;
		}
		odpor_drop(s, st, c, pt->pending);
	}
	ts_copy(&s->cand, allowed);
	for (uint32_t i = 0; i < sl->n; i++)
		ts_del(&s->cand, sl->ev[i].tid);
	int q = ts_next_cyclic(&s->cand, rr_start(s, k));
	if (q < 0)
		return -1;
	st->wnode = cts_wut_add(s->wut, root, &pt->pending[q]);
	return q;
}

/* Where the search cannot reduce (a --break constraint acts, or above the
 * subtrees of --jobs/--shard): every allowed thread is a branch. */
static void odpor_expand(struct search *s, const struct cts_sched_point *pt, uint64_t k,
			 const struct tset *allowed)
{
	int32_t root = wut_of(s, k);
	for (int t = ts_next_at(allowed, 0); t >= 0; t = ts_next_at(allowed, t + 1))
		if (t < pt->nthreads && cts_wut_child(s->wut, root, t) == CTS_WUT_NONE &&
		    !slp_has(slp_at(s, k), t))
			cts_wut_add(s->wut, root, &pt->pending[t]);
}

/* The run is over: back out of the states whose trees are exhausted; the
 * branch each state finished goes to sleep there. */
static void odpor_next_branch(struct search *s)
{
	while (s->depth > 0) {
		uint64_t d = s->depth - 1;
		struct state *st = &s->stack[d];
		if (st->wnode != CTS_WUT_NONE) {
			slp_add(slp_at(s, d), cts_wut_event(s->wut, st->wnode));
			cts_wut_remove(s->wut, st->wnode);
			st->wnode = CTS_WUT_NONE;
		}
		int32_t root = wut_of(s, d);
		for (int32_t c = cts_wut_first(s->wut, root); c != CTS_WUT_NONE;
		     c = cts_wut_first(s->wut, root)) {
			int t = cts_wut_event(s->wut, c)->tid;
			if (ts_has(&st->enabled, t) && !slp_has(slp_at(s, d), t)) {
				st->wnode = c;
				ts_add(&st->done, t);
				cts_event_init(&st->ev, t, CTS_OP_NONE);
				s->replay = d;
				s->branching = true;
				return;
			}
			odpor_drop(s, st, c, NULL);
		}
		s->depth--;
	}
	s->exhausted = true;
	s->branching = false;
	s->replay = 0;
}

/* ---- the work split into subtrees (--jobs, --shard) ---- */

/* A run that branches above the subtrees (or the first run) starts the next
 * subtree: claim it or walk past it. Every worker walks the states above in
 * the single-process order, so the numbering is the same in all of them. */
static void split_begin(struct search *s)
{
	if (!s->split)
		return;
	if (!s->branching || s->stack[s->replay].top)
		s->owned = cts_split_claim(s->split, s->nkeys++);
	cts_split_set_foreign(s->split, !s->owned);
}

/* A fresh state: above the subtrees or not. Another's subtree ends the run
 * where it starts (false). */
static bool split_state(struct search *s, uint64_t k, struct state *st)
{
	if (!s->split) {
		st->top = false;
		return true;
	}
	uint32_t before = k > 0 ? s->stack[k - 1].nbr : 0;
	st->top = before < cts_split_depth(s->split);
	st->nbr = before;
	return st->top || s->owned;
}

/* After updatebacktrack: above the subtrees every allowed choice is a branch
 * (dpor's own choices there would depend on runs in other workers'
 * subtrees), and a state with two or more is a branching state. */
static void split_choices(struct search *s, struct state *st, const struct tset *allowed)
{
	if (!s->split || !st->top)
		return;
	if (s->kind == CTS_SEARCH_DPOR)
		ts_or(&st->backtrack, allowed);
	if (ts_count_range(allowed, 0, INT32_MAX) >= 2)
		st->nbr++;
}

/* ---- the strategy ---- */

static bool s_begin(struct cts_strategy *base, uint64_t run)
{
	struct search *s = (struct search *)base;
	(void)run;
	if (s->exhausted)
		return false;
	s->stopped = false;
	s->fresh_seen = false;
	s->nfgq = 0;
	s->executed = 0;
	s->next_used = 0;
	ts_clear(&s->next_sleep);
	if (s->dp)
		dpor_reset(s->dp);
	split_begin(s);
	return true;
}

static int diverge(struct search *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int diverge(struct search *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return CTS_CHOOSE_DIVERGED;
}

static void set_of_enabled(const struct cts_sched_point *pt, struct tset *out)
{
	ts_clear(out);
	CTS_SCHED_FOR_EACH(pt, i, t)
		if (pt->enabled[t])
			ts_add(out, t);
}

/* Are the recorded enabled threads missing now only ones still in the kernel? */
static bool outside_missing(const struct cts_sched_point *pt, const struct tset *now,
			    const struct tset *recorded)
{
	if (!pt->outside)
		return false;
	CTS_SCHED_FOR_EACH(pt, i, t) {
		if (ts_has(now, t) && !ts_has(recorded, t))
			return false;
		if (ts_has(recorded, t) && !ts_has(now, t) && !pt->outside[t])
			return false;
	}
	return true;
}

/* Follow the stored prefix: thread and operation must be what they were. */
static int replay_choice(struct search *s, const struct cts_sched_point *pt)
{
	uint64_t k = pt->step;
	const struct cts_event *want = &s->stack[k].ev;
	int t = want->tid;
	char w[96], g[96];

	cts_event_str(want, w, sizeof(w));
	if (t < 0 || t >= pt->nthreads || !pt->alive[t])
		return diverge(s, "step %" PRIu64 ": thread %d (recorded doing '%s') does not exist",
			       k, t, w);
	const struct cts_event *got = &pt->pending[t];
	/* An allocation learns its block only once it ran. */
	bool same_obj = got->obj == want->obj || (got->op == CTS_OP_ALLOC && !got->obj);
	if (got->op != want->op || !same_obj || got->tid != t)
		return diverge(s, "step %" PRIu64 ": thread %d was recorded doing '%s' but now does '%s'",
			       k, t, w, cts_event_str(got, g, sizeof(g)));
	if (!pt->enabled[t] && pt->outside && pt->outside[t])
		return CTS_CHOOSE_WAIT; /* still in the kernel: the explorer waits for it */
	if (!pt->enabled[t])
		return diverge(s, "step %" PRIu64 ": thread %d ('%s') is not enabled", k, t, w);
	return t;
}

/* The branch state: same state as before, a new choice. */
static int branch_choice(struct search *s, const struct cts_sched_point *pt)
{
	uint64_t k = pt->step;
	struct state *st = &s->stack[k];
	struct tset *en = &s->en_now;
	int q = st->ev.tid;

	set_of_enabled(pt, en);
	if (!ts_equal(en, &st->enabled) && outside_missing(pt, en, &st->enabled))
		return CTS_CHOOSE_WAIT; /* recorded as back from the kernel already: wait */
	if (!ts_equal(en, &st->enabled))
		return diverge(s, "step %" PRIu64 ": the enabled threads differ from the recorded run",
			       k);
	if (q < 0 || q >= pt->nthreads || !pt->enabled[q])
		return diverge(s, "step %" PRIu64 ": thread %d cannot run", k, q);
	st->ev = pt->pending[q];
	if (st->wnode != CTS_WUT_NONE)   /* odpor: a stand-in event becomes the real one */
		cts_wut_set_event(s->wut, st->wnode, &st->ev);
	return q;
}

/* The one place the strategies differ (the paper's updatebacktrack): fill
 * the fresh state k's backtrack set (dpor: earlier states' too) and say which
 * threads the run may take here. False: none, the run stops (sleep set). */
static bool updatebacktrack(struct search *s, const struct cts_sched_point *pt, uint64_t k,
			    struct tset *allowed)
{
	struct state *st = &s->stack[k];

	ts_copy(allowed, &st->enabled);
	switch (s->kind) {
	case CTS_SEARCH_DFS:
		ts_copy(&st->backtrack, &st->enabled);
		return true;
	case CTS_SEARCH_PCB:
	case CTS_SEARCH_IDB:
		ts_clear(allowed);
		for (int t = ts_next_at(&st->enabled, 0); t >= 0; t = ts_next_at(&st->enabled, t + 1))
			if (
			    (int64_t)st->used + choice_cost(s, k, t) <= (int64_t)s->base.cfg.bound)
				ts_add(allowed, t);
		ts_copy(&st->backtrack, allowed);
		return true;
	case CTS_SEARCH_ODPOR: {
		const struct slp *sl = slp_at(s, k);
		s->odpor_pick = odpor_choice(s, pt, k, allowed);
		if (s->odpor_pick < 0) {
			s->stats.sleep_blocked++;
			return false;
		}
		for (uint32_t i = 0; i < sl->n; i++)
			ts_del(allowed, sl->ev[i].tid);
		if (st->constrained || (s->split && st->top))
			odpor_expand(s, pt, k, allowed);
		return true;
	}
	case CTS_SEARCH_DPOR:
		dpor_update(s, pt, k);
		ts_minus(allowed, &st->sleep);
		if (ts_empty(allowed)) {
			s->stats.sleep_blocked++;
			return false;  /* every enabled thread sleeps: only explored orders ahead */
		}
		return true;
	}
	return false;
}

/* A thread busy-waits on pend's location: remember its words. */
static void learn_spin(struct search *s, const struct cts_event *pend)
{
	if (!s->spinw || !cts_op_is_range(pend->op) || big_range(pend))
		return;
	uint64_t lo = pend->obj >> 3, hi = (pend->obj + (pend->size ? pend->size : 1) - 1) >> 3;
	for (uint64_t w = lo; w <= hi; w++)
		cts_htab_put(s->spinw, &w, NULL);
}

/* A busy-wait that yields the processor: pend reads what its thread read
 * right before its latest yields (poll, yield, poll again). */
static bool repoll(const struct search *s, const struct cts_event *pend)
{
	const struct dpor *d = s->dp;
	int t = pend->tid;
	if (!reads_only(pend) || big_range(pend) || t < 0 || t >= d->nthreads)
		return false;
	uint32_t k = d->nevl[t], yields = 0;
	while (k > 0 && s->stack[d->evl[t][k - 1]].ev.op == CTS_OP_YIELD) {
		k--;
		yields++;
	}
	if (!yields || !k)
		return false;
	const struct cts_event *e = &s->stack[d->evl[t][k - 1]].ev;
	return reads_only(e) && e->obj < pend->obj + (pend->size ? pend->size : 1) &&
	       pend->obj < e->obj + (e->size ? e->size : 1);
}

static int fresh_choice(struct search *s, const struct cts_sched_point *pt)
{
	uint64_t k = pt->step;
	struct tset *allowed = &s->allowed;

	if (k != s->depth)
		return diverge(s, "step %" PRIu64 ": search stack holds %" PRIu64 " states", k,
			       s->depth);
	struct state *st = push_state(s);
	set_of_enabled(pt, &st->enabled);
	CTS_SCHED_FOR_EACH(pt, i, t)
		if (pt->spinning && pt->spinning[t]) {
			ts_add(&st->spinning, t);
			learn_spin(s, &pt->pending[t]);
		}
	ts_copy(&st->sleep, &s->next_sleep);
	st->used = s->next_used;
	st->restricted = pt->restricted;
	s->restricted |= pt->restricted &&
			 (s->kind == CTS_SEARCH_DPOR || s->kind == CTS_SEARCH_ODPOR);
	s->fg_every |= pt->instance || s->hooks.accept_race;
	/* Where --break acts, holding a thread depends on where the others
	 * stand, which dpor's independence does not see: no reduction here. */
	st->constrained = s->constrained_now;
	if (st->constrained)
		ts_clear(&st->sleep);
	if (s->kind == CTS_SEARCH_ODPOR && (k == 0 || st->constrained || pt->instance))
		slp_at(s, k)->n = 0;   /* no sleep sets where dpor has none */
	if (s->dp)
		for (int t = s->dp->nthreads; t < pt->nthreads; t++)
			dpor_add_thread(s->dp, t);
	if (s->spinw)
		CTS_SCHED_FOR_EACH(pt, i, t)
			if (pt->alive[t] && repoll(s, &pt->pending[t]))
				learn_spin(s, &pt->pending[t]);
	bool go = split_state(s, k, st) && updatebacktrack(s, pt, k, allowed);
	if (go && st->constrained)
		ts_or(&st->backtrack, allowed);
	if (go)
		split_choices(s, st, allowed);
	s->fresh_seen = true;
	if (go && s->hooks.prune && s->hooks.prune(s->hooks.ctx, pt)) {
		s->stats.pruned++;
		go = false;
	}
	if (!go) {
		s->depth--;
		s->stopped = true;
		return CTS_CHOOSE_STOP;
	}
	/* The round-robin choice: costs no preemption or delay. */
	int q = s->kind == CTS_SEARCH_ODPOR ? s->odpor_pick : ts_next_cyclic(allowed, rr_start(s, k));
	if (q < 0)
		return diverge(s, "step %" PRIu64 ": no thread within the bound", k);
	if (s->hooks.accept_alt && s->kind != CTS_SEARCH_DPOR && s->kind != CTS_SEARCH_ODPOR) {
		ts_copy(&s->cand, &st->backtrack);
		for (int t = ts_next_at(&s->cand, 0); t >= 0; t = ts_next_at(&s->cand, t + 1))
			if (t != q && !s->hooks.accept_alt(s->hooks.ctx, k, &pt->pending[q],
							   &pt->pending[t])) {
				ts_del(&st->backtrack, t);
				if (s->hooks.defer) {
					ts_add(&st->deferred, t);
					s->deferrals++;
				}
			}
	}
	ts_add(&st->backtrack, q);
	ts_add(&st->done, q);
	st->ev = pt->pending[q];
	return q;
}

static int s_choose(struct cts_strategy *base, const struct cts_sched_point *pt)
{
	struct search *s = (struct search *)base;
	struct cts_sched_point sub;
	s->constrained_now = false;
	if (s->hooks.constrain) {
		/* --break: the search sees the paused threads as not enabled. */
		if (pt->nthreads > s->nallow) {
			s->allow = cts_xgrow(s->allow, (size_t)s->nallow, (size_t)pt->nthreads,
					     sizeof(*s->allow));
			s->nallow = pt->nthreads;
		}
		s->constrained_now = s->hooks.constrain(s->hooks.ctx, pt, s->allow);
		sub = *pt;
		sub.enabled = s->allow;
		pt = &sub;
	}
	if (pt->step < s->replay)
		return replay_choice(s, pt);
	if (s->branching && pt->step == s->replay)
		return branch_choice(s, pt);
	return fresh_choice(s, pt);
}

static void s_executed(struct cts_strategy *base, const struct cts_sched_point *pt,
		       const struct cts_event *ev)
{
	struct search *s = (struct search *)base;
	uint64_t k = pt->step;

	if (k >= s->depth || ev->tid != s->stack[k].ev.tid)
		return;   /* not a step we chose; end_run notices the short run */
	struct state *st = &s->stack[k];
	st->ev = *ev;
	s->executed = k + 1;
	if (s->dp)
		dpor_record(s, k, ev);
	if (k >= s->replay) {
		/* the next fresh state inherits these */
		s->next_used = st->used + choice_cost(s, k, ev->tid);
		if (s->kind == CTS_SEARCH_DPOR) {
			dpor_newest(s, pt, k);
			sdpor_races(s, k);
			struct tset *cur = &s->cur;
			ts_copy(cur, &st->sleep);
			ts_or(cur, &st->done);
			ts_del(cur, ev->tid);
			ts_clear(&s->next_sleep);
			/* No sleep sets inside an instance: the runs that put a thread
			 * to sleep were restricted, so the reorderings it stands for
			 * may not have been explored. */
			for (int r = ts_next_at(cur, 0); r >= 0 && !pt->instance && !st->constrained;
			     r = ts_next_at(cur, r + 1))
				if (r < pt->nthreads && pt->alive[r] &&
				    !cts_event_dependent(&pt->pending[r], ev))
					ts_add(&s->next_sleep, r);
		}
		if (s->kind == CTS_SEARCH_ODPOR) {
			if (pt->instance || st->constrained)
				slp_at(s, k + 1)->n = 0;
			else
				odpor_next_sleep(s, pt, k, ev);
		}
	} else {
		s->next_used = s->stack[k + 1].used;
		ts_copy(&s->next_sleep, &s->stack[k + 1].sleep);
	}
	if (s->kind == CTS_SEARCH_ODPOR)
		odpor_pending(s, pt, ev->tid);
	if (s->hooks.observe)
		s->hooks.observe(s->hooks.ctx, k, ev);
}

/* The run ends stuck: the final pending events, the last thread's too. */
static void s_stuck(struct cts_strategy *base, const struct cts_sched_point *pt)
{
	struct search *s = (struct search *)base;
	if (s->kind == CTS_SEARCH_ODPOR)
		odpor_pending(s, pt, -1);
}

/* The choices of set `from` at st not tried yet, into s->cand. */
static int untried(struct search *s, const struct state *st, const struct tset *from)
{
	struct tset *cand = &s->cand;
	ts_copy(cand, from);
	ts_and(cand, &st->enabled);
	ts_minus(cand, &st->done);
	if (s->kind == CTS_SEARCH_DPOR)
		ts_minus(cand, &st->sleep);
	return ts_next_cyclic(cand, 0);
}

static void copy_state(struct state *dst, const struct state *src)
{
	struct state keep = *dst;   /* dst's sets' storage */
	*dst = *src;
	struct tset *d[] = { &dst->enabled, &dst->backtrack, &dst->done, &dst->sleep,
			     &dst->spinning, &dst->deferred };
	struct tset *k[] = { &keep.enabled, &keep.backtrack, &keep.done, &keep.sleep,
			     &keep.spinning, &keep.deferred };
	const struct tset *f[] = { &src->enabled, &src->backtrack, &src->done, &src->sleep,
				   &src->spinning, &src->deferred };
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		*d[i] = *k[i];
		ts_clear(d[i]);
		ts_copy(d[i], f[i]);
	}
}

static void free_state_sets(struct state *st)
{
	ts_free(&st->enabled);
	ts_free(&st->backtrack);
	ts_free(&st->done);
	ts_free(&st->sleep);
	ts_free(&st->spinning);
	ts_free(&st->deferred);
}

/* The search backs out of state d, which still has deferred choices: keep
 * the prefix up to it for later. */
static void save_prefix(struct search *s, uint64_t d)
{
	if (s->nsaved == s->savedcap) {
		size_t n = s->savedcap ? s->savedcap * 2 : 16;
		s->saved = cts_xgrow(s->saved, s->savedcap, n, sizeof(*s->saved));
		s->savedcap = n;
	}
	struct saved *sv = &s->saved[s->nsaved++];
	sv->depth = d + 1;
	sv->st = cts_xcalloc(d + 1, sizeof(*sv->st));
	for (uint64_t i = 0; i <= d; i++)
		copy_state(&sv->st[i], &s->stack[i]);
}

/* The last prefix kept becomes the stack. Its states above the last were
 * backed out of already: every choice they had was tried there or is kept
 * in a prefix of its own, so they count as done. */
static void restore_prefix(struct search *s)
{
	struct saved *sv = &s->saved[--s->nsaved];
	while (s->cap < sv->depth) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->stack = cts_xrealloc(s->stack, s->cap * sizeof(*s->stack));
	}
	for (uint64_t i = 0; i < sv->depth; i++) {
		if (i >= s->inited) {
			memset(&s->stack[i], 0, sizeof(s->stack[i]));
			s->inited = i + 1;
		}
		copy_state(&s->stack[i], &sv->st[i]);
		s->stack[i].saved_from = s->nsaved;
		if (i + 1 < sv->depth) {
			ts_or(&s->stack[i].done, &s->stack[i].backtrack);
			ts_or(&s->stack[i].done, &s->stack[i].deferred);
		}
		free_state_sets(&sv->st[i]);
	}
	free(sv->st);
	s->depth = sv->depth;
}

/* State d is done with: the prefixes saved through it learn every choice
 * it tried, which their subtrees then need not try again. */
static void finish_state(struct search *s, uint64_t d)
{
	const struct state *st = &s->stack[d];
	for (size_t r = st->saved_from; r < s->nsaved; r++)
		if (s->saved[r].depth > d + 1)
			ts_or(&s->saved[r].st[d].done, &st->done);
}

/* The deepest state with a choice left to try becomes the next branch
 * state. With hooks.defer a deferred choice waits until no accepted choice
 * is left anywhere: the states backed out of keep theirs in saved prefixes,
 * taken last kept first. Under --jobs/--shard the subtrees must be the same
 * in every worker, so there deferred choices are plain ones. */
static void next_branch(struct search *s)
{
	for (;;) {
		while (s->depth > 0) {
			uint64_t d = s->depth - 1;
			struct state *st = &s->stack[d];
			int q = untried(s, st, &st->backtrack);
			if (q < 0 && s->split)
				q = untried(s, st, &st->deferred);
			if (q >= 0) {
				ts_add(&st->done, q);
				cts_event_init(&st->ev, q, CTS_OP_NONE);
				s->replay = d;
				s->branching = true;
				return;
			}
			if (!s->split && untried(s, st, &st->deferred) >= 0)
				save_prefix(s, d);
			finish_state(s, d);
			s->depth--;
		}
		if (!s->nsaved)
			break;
		restore_prefix(s);
		struct state *st = &s->stack[s->depth - 1];
		ts_or(&st->backtrack, &st->deferred);   /* their turn */
		ts_clear(&st->deferred);
	}
	s->exhausted = true;
	s->branching = false;
	s->replay = 0;
}

static void s_end_run(struct cts_strategy *base, const struct cts_run_summary *sum)
{
	struct search *s = (struct search *)base;

	/* a run walked past another worker's subtree: that worker judges it */
	bool mine = !s->split || s->owned;

	s->stats.runs++;
	bool whole = s->executed == s->depth;
	if (s->executed < s->depth) {
		/* the run ended inside the replayed prefix or cut a choice: keep what ran */
		s->incomplete |= mine;
		s->depth = s->executed;
	}
	if (sum->aborted && !s->stopped && mine) {
		s->incomplete = true;   /* step budget, divergence, timeout */
		s->stats.truncated++;
	}
	if (s->kind == CTS_SEARCH_DPOR)
		fg_flush(s);
	if (s->kind == CTS_SEARCH_DPOR && sum->bug && !sum->aborted && s->depth > 0 && mine)
		dpor_final(s);
	if (s->kind == CTS_SEARCH_ODPOR && whole && !sum->aborted && !s->stopped && mine)
		odpor_analyse(s);
	if (s->hooks.end_run)
		s->hooks.end_run(s->hooks.ctx, sum);
	if (s->kind == CTS_SEARCH_ODPOR)
		odpor_next_branch(s);
	else
		next_branch(s);
}

static void drop_saved(struct search *s)
{
	for (size_t i = 0; i < s->nsaved; i++) {
		for (uint64_t j = 0; j < s->saved[i].depth; j++)
			free_state_sets(&s->saved[i].st[j]);
		free(s->saved[i].st);
	}
	s->nsaved = 0;
}

/* The search starts over: its stack was built from runs that hid events. */
static void s_restart(struct cts_strategy *base)
{
	struct search *s = (struct search *)base;
	s->depth = 0;
	s->replay = 0;
	s->branching = false;
	s->exhausted = false;
	s->incomplete = false;
	s->restricted = false;
	s->nkeys = 0;     /* the subtrees are numbered again (cts_split_restart) */
	s->owned = false;
	drop_saved(s);
	if (s->wut) {
		cts_wut_clear(s->wut);
		s->wroot = cts_wut_root(s->wut);
	}
}

static bool s_complete(const struct cts_strategy *base)
{
	const struct search *s = (const struct search *)base;
	/* DPOR's reduction is not proven under an instance's restriction:
	 * searched, never claimed complete (dfs, pcb and idb are). */
	return s->exhausted && !s->incomplete && !s->restricted;
}

static const char *s_diverged(const struct cts_strategy *base)
{
	return ((const struct search *)base)->why;
}

static void s_destroy(struct cts_strategy *base)
{
	struct search *s = (struct search *)base;
	if (s->hooks.destroy)
		s->hooks.destroy(s->hooks.ctx);
	dpor_free(s->dp);
	cts_wut_free(s->wut);
	cts_htab_free(s->spinw);
	cts_objmodel_free(s->om);
	for (size_t i = 0; i < s->slpcap; i++)
		free(s->slp[i].ev);
	free(s->slp);
	free(s->fin);
	free(s->finv);
	free(s->vbuf);
	free(s->rc);
	free(s->rd);
	free(s->fv);
	free(s->defer);
	free(s->fgq);
	for (uint64_t i = 0; i < s->inited; i++)
		free_state_sets(&s->stack[i]);
	drop_saved(s);
	free(s->saved);
	ts_free(&s->next_sleep);
	ts_free(&s->en_now);
	ts_free(&s->allowed);
	ts_free(&s->cur);
	ts_free(&s->cand);
	free(s->allow);
	free(s->stack);
	free(s);
}

static const char *const kind_names[] = {
	[CTS_SEARCH_DFS] = "dfs", [CTS_SEARCH_DPOR] = "dpor",
	[CTS_SEARCH_PCB] = "pcb", [CTS_SEARCH_IDB] = "idb",
	[CTS_SEARCH_ODPOR] = "odpor",
};

struct cts_strategy *cts_search_create(enum cts_search_kind kind,
				       const struct cts_strategy_config *cfg,
				       const struct cts_search_hooks *hooks)
{
	if ((unsigned)kind > CTS_SEARCH_ODPOR)
		return NULL;
	struct search *s = cts_xcalloc(1, sizeof(*s));
	s->ops = (struct cts_strategy_ops){
		.name = kind_names[kind],
		.begin_run = s_begin,
		.choose = s_choose,
		.executed = s_executed,
		.end_run = s_end_run,
		.complete = s_complete,
		.diverged = s_diverged,
		.restart = s_restart,
		.stuck = s_stuck,
		.destroy = s_destroy,
	};
	s->base.ops = &s->ops;
	s->base.cfg = *cfg;
	if (s->base.cfg.bound < 0)
		s->base.cfg.bound = 0;
	s->kind = kind;
	if (hooks)
		s->hooks = *hooks;
	if (kind == CTS_SEARCH_DPOR || kind == CTS_SEARCH_ODPOR)
		s->dp = dpor_new();
	/* a hook that drops races: plain DPOR's race is not kept beside it */
	if (kind == CTS_SEARCH_DPOR && (!s->hooks.accept_race || s->hooks.defer))
		s->spinw = cts_htab_new(sizeof(uint64_t), 0);
	if (kind == CTS_SEARCH_ODPOR) {
		s->wut = cts_wut_new();
		s->wroot = cts_wut_root(s->wut);
	}
	s->split = cfg->split;
	return &s->base;
}

struct cts_strategy *cts_dfs_create(const struct cts_strategy_config *cfg)
{
	return cts_search_create(CTS_SEARCH_DFS, cfg, NULL);
}

struct cts_strategy *cts_dpor_create(const struct cts_strategy_config *cfg)
{
	return cts_search_create(CTS_SEARCH_DPOR, cfg, NULL);
}

struct cts_strategy *cts_pcb_create(const struct cts_strategy_config *cfg)
{
	return cts_search_create(CTS_SEARCH_PCB, cfg, NULL);
}

struct cts_strategy *cts_idb_create(const struct cts_strategy_config *cfg)
{
	return cts_search_create(CTS_SEARCH_IDB, cfg, NULL);
}

struct cts_strategy *cts_odpor_create(const struct cts_strategy_config *cfg)
{
	return cts_search_create(CTS_SEARCH_ODPOR, cfg, NULL);
}

bool cts_search_get_stats(const struct cts_strategy *base, struct cts_search_stats *out)
{
	if (!base || base->ops->destroy != s_destroy)
		return false;
	const struct search *s = (const struct search *)base;
	*out = s->stats;
	out->deferred = s->deferrals;
	return true;
}
