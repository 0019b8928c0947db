/* Active testing: Algorithm 1 of seeds/003 over any picking strategy, with
 * the checks of RaceFuzzer, DeadlockFuzzer, AtomFuzzer and breakpoints. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/observe.h"
#include "strategies/active.h"
#include "strategies/hapset.h"
#include "strategies/systematic.h"

#define DEFAULT_TRIES 10
#define DEFAULT_PHASE1 3
#define DEFAULT_PAUSE_BOUND 20000
#define MAX_FINDINGS 64

enum fuzzer { F_NONE, F_RACE, F_DEADLOCK, F_ATOM };

/* Per-thread state, growable (threads are numbered as the explorer sees them). */
struct athread {
	bool paused;
	bool pass;         /* released: run its pending op without a check */
	bool ahead;        /* deadlockfuzzer: paused before taking a cycle link's held lock */
	int8_t link;       /* deadlockfuzzer: the link it is paused at (or ahead of) */
	uint8_t reached;   /* deadlockfuzzer: the links it stood at this run (bit i) */
	uint16_t took[CTS_SUSPECT_MAX_CYCLE]; /* ...times it took link i's held lock */
	uint64_t since;    /* step it was paused at */
	uint64_t watch;    /* atomfuzzer: waits for another thread's write here */
	int writer;        /* ...which came from this thread (-1: not yet) */
	uint64_t wpc, wstep;
	uint64_t ctx_at;   /* step + 1 at which ctx was captured, 0 never */
	uint64_t ctx[CTS_SUSPECT_CTX];
};

/* A cached verdict of a pc against the break items. */
struct pcmatch {
	uint64_t pc;
	uint64_t mask;     /* bit g: the pc is in break group g (first 64 groups) */
};

struct active {
	struct cts_strategy base;
	enum fuzzer fuzzer;
	bool sys;                      /* breakpoints as a constraint of dfs/dpor/odpor/pcb/idb */
	struct cts_active_options opt;
	struct cts_strategy *inner;
	struct cts_rng rng;
	struct cts_observer *obs;
	struct cts_suspects *own;      /* when the caller gave no list */
	struct cts_suspects *list;
	bool phase1;
	uint64_t run;
	int target;                    /* suspect of this run, -1 none */
	int next;                      /* round-robin start */
	struct athread *th;
	int nth;
	bool *en;                      /* [nth] scratch: enabled and not paused */
	bool matched[CTS_SUSPECT_MAX_CYCLE];
	uint64_t break_hit;            /* break groups hit this run */
	bool confirmed_now;            /* this run confirmed target already */
	bool ahead_paused;             /* deadlockfuzzer: this run paused a thread ahead of a link */
	struct cts_active_finding found[MAX_FINDINGS];
	int nfound;
	struct pcmatch *cache;
	int ncache, cachecap;
	int k;                         /* context depth of statements (--context) */
	int ctx_tid;                   /* whose context the step being executed has, -1 */
};

_Static_assert(CTS_SUSPECT_CTX == CTS_CTX_MAX, "suspect contexts hold --context's maximum");

/* Held thread t's calling context at this decision, captured once per step
 * and only when asked (a statement of a suspect, or phase 1's analysis);
 * NULL without contexts. */
static const uint64_t *ctx_of(struct active *a, const struct cts_sched_point *pt, int t)
{
	struct athread *th = &a->th[t];
	if (!a->k || !a->base.cfg.context)
		return NULL;
	if (th->ctx_at != pt->step + 1) {
		memset(th->ctx, 0, sizeof(th->ctx));
		if (a->base.cfg.context(a->base.cfg.context_ctx, t, a->k, th->ctx) < 0)
			memset(th->ctx, 0, sizeof(th->ctx));
		th->ctx_at = pt->step + 1;
	}
	return th->ctx;
}

/* Statement i of s: pc in its range, context admitted. */
static bool at_stmt(struct active *a, const struct cts_sched_point *pt, const struct cts_suspect *s,
		    int i, int t)
{
	uint64_t pc = pt->pending[t].pc;
	return pc >= s->pc[i] && pc < s->pc_end[i] &&
	       cts_suspect_ctx_match(s->ctx[i], ctx_of(a, pt, t));
}

static const struct cts_strategy_ops active_ops;

bool cts_strategy_is_active(const struct cts_strategy *s)
{
	return s && s->ops == &active_ops;
}

const struct cts_suspects *cts_active_suspects(const struct cts_strategy *s)
{
	return cts_strategy_is_active(s) ? ((const struct active *)s)->list : NULL;
}

static void grow(struct active *a, int n)
{
	if (n <= a->nth)
		return;
	int cap = a->nth ? a->nth : 8;
	while (cap < n)
		cap *= 2;
	a->th = cts_xrealloc(a->th, (size_t)cap * sizeof(*a->th));
	memset(a->th + a->nth, 0, (size_t)(cap - a->nth) * sizeof(*a->th));
	for (int t = a->nth; t < cap; t++)
		a->th[t] = (struct athread){ .writer = -1, .link = -1 };
	a->en = cts_xrealloc(a->en, (size_t)cap * sizeof(*a->en));
	a->nth = cap;
}

static unsigned phase1_mask(enum fuzzer f)
{
	return f == F_RACE ? 1u << CTS_SUSPECT_RACE : f == F_DEADLOCK ? 1u << CTS_SUSPECT_DEADLOCK :
	       f == F_ATOM ? 1u << CTS_SUSPECT_ATOMICITY : 0;
}

static bool active_begin(struct cts_strategy *s, uint64_t run)
{
	struct active *a = (struct active *)s;
	cts_rng_seed(&a->rng, s->cfg.seed * 0x100000001B3ull + run + 0x5eed);
	for (int t = 0; t < a->nth; t++)
		a->th[t] = (struct athread){ .writer = -1, .link = -1 };
	memset(a->matched, 0, sizeof(a->matched));
	a->nfound = 0;
	a->confirmed_now = false;
	a->ahead_paused = false;
	a->break_hit = 0;
	a->target = -1;
	a->run = run;
	cts_observer_begin_run(a->obs);
	a->phase1 = a->fuzzer != F_NONE && !a->opt.preloaded && run < (uint64_t)a->opt.phase1_runs;
	if (a->fuzzer != F_NONE && !a->phase1) {
		/* Phase 2: the next suspect neither confirmed nor tried out. */
		int n = cts_suspects_count(a->list);
		for (int k = 0; k < n && a->target < 0; k++) {
			int i = (a->next + k) % n;
			struct cts_suspect *c = cts_suspects_get(a->list, i);
			if (c->kind != CTS_SUSPECT_BREAK && !c->confirmed && c->tries < a->opt.tries)
				a->target = i;
		}
		if (a->target < 0)
			return false;  /* every suspect confirmed or tried out */
		a->next = a->target + 1;
		cts_suspects_get(a->list, a->target)->tries++;
	}
	return a->inner->ops->begin_run(a->inner, run);
}

/* ---- breakpoints ---- */

/* Does describe's text for a pc match one break item? */
static bool item_matches(const char *item, size_t len, uint64_t pc, const char *where)
{
	char it[256];
	if (len >= sizeof(it))
		return false;
	memcpy(it, item, len);
	it[len] = 0;
	if (strncmp(it, "0x", 2) == 0)
		return strtoull(it, NULL, 16) == pc;
	char *colon = strrchr(it, ':');
	if (colon && colon[1] && isdigit((unsigned char)colon[1])) {
		/* FILE:LINE: describe shows the file by its base name. */
		*colon = 0;
		const char *base = strrchr(it, '/') ? strrchr(it, '/') + 1 : it;
		char want[300];
		snprintf(want, sizeof(want), "(%s:%s)", base, colon + 1);
		return strstr(where, want) != NULL;
	}
	/* SYMBOL or SYMBOL+OFF: "func+0x12 (" or "func (" */
	char *plus = strchr(it, '+');
	uint64_t off = 0;
	if (plus) {
		*plus = 0;
		/* decimal or 0x hex, as tracer/cli.c checked it: no octal */
		off = strtoull(plus + 1, NULL, strncmp(plus + 1, "0x", 2) ? 10 : 16);
	}
	size_t n = strlen(it);
	if (strncmp(where, it, n) != 0)
		return false;
	if (off == 0 && !plus)
		return where[n] == ' ' || where[n] == '+';
	if (off == 0)
		return where[n] == ' ';
	char o[40];
	snprintf(o, sizeof(o), "+0x%" PRIx64 " ", off);
	return strncmp(where + n, o, strlen(o)) == 0;
}

/* Open-addressing slot of pc in the cache (pc 0 is never cached). */
static struct pcmatch *cache_slot(struct active *a, uint64_t pc)
{
	size_t mask = (size_t)a->cachecap - 1, j = (size_t)(pc * 0x9E3779B97F4A7C15ull) & mask;
	while (a->cache[j].pc && a->cache[j].pc != pc)
		j = (j + 1) & mask;
	return &a->cache[j];
}

static uint64_t break_mask(struct active *a, uint64_t pc)
{
	int ng = cts_suspects_count(a->opt.breaks);
	if (!ng || !a->opt.describe_pc || !pc)
		return 0;
	if (2 * (a->ncache + 1) > a->cachecap) {
		struct pcmatch *old = a->cache;
		int ocap = a->cachecap;
		a->cachecap = ocap ? 2 * ocap : 256;
		a->cache = cts_xcalloc((size_t)a->cachecap, sizeof(*a->cache));
		for (int i = 0; i < ocap; i++)
			if (old[i].pc)
				*cache_slot(a, old[i].pc) = old[i];
		free(old);
	}
	struct pcmatch *slot = cache_slot(a, pc);
	if (slot->pc)
		return slot->mask;
	char where[512] = "";
	a->opt.describe_pc(a->opt.describe_ctx, pc, where, sizeof(where));
	uint64_t mask = 0;
	for (int g = 0; g < ng && g < 64; g++) {
		const char *spec = cts_suspects_at(a->opt.breaks, g)->spec;
		for (const char *p = spec; *p;) {
			size_t len = strcspn(p, ",");
			if (len && item_matches(p, len, pc, where))
				mask |= 1ull << g;
			p += len + (p[len] == ',');
		}
	}
	*slot = (struct pcmatch){ pc, mask };
	a->ncache++;
	return mask;
}

/* ---- checks ---- */

static void add_finding(struct active *a, const struct cts_active_finding *f)
{
	if (a->nfound < MAX_FINDINGS)
		a->found[a->nfound++] = *f;
}


static bool is_acquire(cts_op op)
{
	return op == CTS_OP_LOCK || op == CTS_OP_WRLOCK || op == CTS_OP_RDLOCK;
}

static bool in_pcs(const struct cts_suspect *s, int i, uint64_t pc)
{
	return pc >= s->pc[i] && pc < s->pc_end[i];
}

static bool lock_eq(struct cts_lock_abs x, struct cts_lock_abs y)
{
	return x.site == y.site && x.off == y.off && x.heap == y.heap;
}

/* Deadlock: which component of the target thread t's pending acquire matches, -1 none. */
static int cycle_match(struct active *a, const struct cts_sched_point *pt,
		       const struct cts_suspect *s, const struct cts_event *p)
{
	if (!is_acquire(p->op))
		return -1;
	const uint64_t *held;
	int nheld = cts_observer_held(a->obs, p->tid, &held);
	for (int i = 0; i < s->ncomp; i++) {
		const struct cts_cycle_comp *c = &s->comp[i];
		if (c->at != p->pc || c->thread != cts_observer_thread_abs(a->obs, p->tid) ||
		    !lock_eq(c->want, cts_observer_lock_abs(a->obs, p->obj)) ||
		    !cts_suspect_ctx_match(c->ctx, ctx_of(a, pt, p->tid)))
			continue;
		for (int k = 0; k < nheld && k < 8; k++)
			if (lock_eq(c->held, cts_observer_lock_abs(a->obs, held[k])))
				return i;
	}
	return -1;
}

/* Past the paper (issue 29; ConLock's constraint, Cai, Wu, Chan, ICSE
 * 2014): pausing the thread of link j while it holds link j's lock is
 * useless while another thread that plays a link k still has to take that
 * lock on its way to its own place in the cycle: it blocks there, the
 * stall monitor releases the paused thread, and the cycle never forms
 * (the paper's DeadlockFuzzer thrashes). True while some thread other
 * than self, of link k's creation site, alive and not yet at link k,
 * takes link j's lock first (comp[k].needs), fewer times so far than
 * phase 1 saw (comp[k].times; unknown: until it reaches link k), and is
 * not paused ahead of link k itself; or while no thread of that site has
 * been created yet in this run (it is still to come). */
static bool lock_needed(struct active *a, const struct cts_sched_point *pt,
			const struct cts_suspect *s, int self, int j)
{
	int n = s->ncomp;
	for (int k = 0; k < n; k++) {
		int d = (j - k + n) % n;
		if (k == j || !(s->comp[k].needs & (1u << d)))
			continue;
		bool seen = false;
		for (int u = 0; u < pt->nthreads; u++) {
			if (u == self || cts_observer_thread_abs(a->obs, u) != s->comp[k].thread)
				continue;
			seen = true;
			/* One paused ahead of link k's outer acquisition is past
			 * the acquires that come before it. */
			const struct athread *th = &a->th[u];
			if (pt->alive[u] && !(th->reached & (1u << k)) &&
			    !(th->paused && th->ahead && th->link == k) &&
			    (!s->comp[k].times[d] || th->took[j] < s->comp[k].times[d]))
				return true;
		}
		if (!seen)
			return true;
	}
	return false;
}

/* Thread c's pending acquire takes the held lock of a link it plays and
 * has not reached yet this run (its outer acquisition): that link, -1. */
static int outer_match(struct active *a, const struct cts_suspect *s, const struct cts_event *p)
{
	if (!is_acquire(p->op))
		return -1;
	const uint64_t *held;
	int nheld = cts_observer_held(a->obs, p->tid, &held);
	for (int k = 0; k < nheld && k < 8; k++)
		if (held[k] == p->obj)
			return -1;  /* a recursive re-take */
	uint64_t me = cts_observer_thread_abs(a->obs, p->tid);
	struct cts_lock_abs l = cts_observer_lock_abs(a->obs, p->obj);
	for (int j = 0; j < s->ncomp; j++)
		if (s->comp[j].thread == me && lock_eq(s->comp[j].held, l) &&
		    !(a->th[p->tid].reached & (1u << j)))
			return j;
	return -1;
}

/* A pause at link i of the target ends without the deadlock (the stall or
 * the livelock monitor releases thread t): a thread blocked on a lock t
 * holds, of a link k it has not reached, takes that lock before link k.
 * Learn it (for the next tries: pause ahead of the outer acquisition). */
static void learn_thrash(struct active *a, const struct cts_sched_point *pt, int t)
{
	struct cts_suspect *s = cts_suspects_get(a->list, a->target);
	int i = a->th[t].link;
	if (a->opt.dlf_paper || !s || s->kind != CTS_SUSPECT_DEADLOCK || a->th[t].ahead || i < 0 ||
	    cycle_match(a, pt, s, &pt->pending[t]) != i)
		return;  /* not paused at link i (a breakpoint's pause, say) */
	const uint64_t *held;
	int nheld = cts_observer_held(a->obs, t, &held), n = s->ncomp;
	for (int u = 0; u < pt->nthreads; u++) {
		const struct cts_event *q = &pt->pending[u];
		if (u == t || !pt->alive[u] || pt->enabled[u] || !is_acquire(q->op))
			continue;
		bool blocked = false;
		for (int h = 0; h < nheld && h < 8; h++)
			blocked = blocked || held[h] == q->obj;
		uint64_t ua = cts_observer_thread_abs(a->obs, u);
		for (int k = 0; blocked && k < n; k++) {
			if (k == i || s->comp[k].thread != ua || (a->th[u].reached & (1u << k)))
				continue;
			int d = (i - k + n) % n;
			cts_debug_msg("deadlockfuzzer: thread %d blocked on the lock thread %d holds "
				      "at link %d: pause ahead of it until thread %d's link", u, t, i, u);
			/* New, or taken more often than the count said: until
			 * it gets to its link. */
			s->comp[k].needs |= (uint8_t)(1u << d);
			s->comp[k].times[d] = 0;
		}
	}
}

static bool racing(const struct cts_event *x, const struct cts_event *y)
{
	return cts_op_is_access(x->op) && cts_op_is_access(y->op) &&
	       !(x->op == CTS_OP_ATOMIC && y->op == CTS_OP_ATOMIC) &&
	       (cts_op_is_write(x->op) || cts_op_is_write(y->op)) &&
	       x->obj < y->obj + (y->size ? y->size : 1) && y->obj < x->obj + (x->size ? x->size : 1);
}

enum { PAUSE = -100, RUN = -101 };

/* A suspect confirmed between thread c, picked to run, and the paused
 * thread t: resolved either way at random (Algorithm 2): c runs on (RUN),
 * or t goes first and c waits. */
static int either_way(struct active *a, const struct cts_sched_point *pt, int t, int c)
{
	if (cts_rng_below(&a->rng, 2))
		return RUN;
	a->th[t].paused = false;
	a->th[t].pass = true;
	a->th[c].paused = true;
	a->th[c].since = pt->step;
	return t;
}

/* Thread c, picked to run, stands at pending p. RUN: let it run; PAUSE:
 * pause it; or the paused thread to run instead (the race's other order). */
static int check(struct active *a, const struct cts_sched_point *pt, int c)
{
	const struct cts_event *p = &pt->pending[c];
	uint64_t bm = break_mask(a, p->pc);
	if (bm) {
		for (int t = 0; t < pt->nthreads; t++) {
			if (t == c || !a->th[t].paused || !pt->enabled[t] ||
			    !(break_mask(a, pt->pending[t].pc) & bm))
				continue;
			struct cts_active_finding f = {
				.kind = CTS_SUSPECT_BREAK, .suspect = __builtin_ctzll(break_mask(a,
				pt->pending[t].pc) & bm), .tid1 = t, .tid2 = c, .pc1 = pt->pending[t].pc,
				.pc2 = p->pc, .addr = p->obj, .step = pt->step,
			};
			add_finding(a, &f);
			struct cts_suspect *b = cts_suspects_get(a->opt.breaks, f.suspect);
			if (b && !(a->break_hit & (1ull << f.suspect))) {
				a->break_hit |= 1ull << f.suspect;  /* runs that hit it */
				if (!b->confirmed++)
					b->first_run = a->run;
			}
			return either_way(a, pt, t, c);
		}
		return PAUSE;
	}
	if (a->target < 0)
		return RUN;
	const struct cts_suspect *s = cts_suspects_at(a->list, a->target);
	switch (s->kind) {
	case CTS_SUSPECT_RACE: {
		if (!cts_op_is_access(p->op))
			return RUN;
		bool at0 = at_stmt(a, pt, s, 0, c), at1 = at_stmt(a, pt, s, 1, c);
		if (!at0 && !at1)
			return RUN;
		for (int t = 0; t < pt->nthreads; t++) {
			const struct cts_event *q = &pt->pending[t];
			if (t == c || !a->th[t].paused || !pt->enabled[t] || !racing(p, q))
				continue;
			if (!((at0 && at_stmt(a, pt, s, 1, t)) || (at1 && at_stmt(a, pt, s, 0, t))))
				continue;
			struct cts_active_finding f = {
				.kind = CTS_SUSPECT_RACE, .suspect = a->target, .tid1 = t, .tid2 = c,
				.pc1 = q->pc, .pc2 = p->pc, .addr = p->obj > q->obj ? p->obj : q->obj,
				.step = pt->step,
				.plain = (p->op == CTS_OP_READ || p->op == CTS_OP_WRITE) &&
					 (q->op == CTS_OP_READ || q->op == CTS_OP_WRITE),
			};
			if (!a->confirmed_now)
				add_finding(a, &f);
			a->confirmed_now = true;
			return either_way(a, pt, t, c);
		}
		return PAUSE;
	}
	case CTS_SUSPECT_DEADLOCK: {
		int i = cycle_match(a, pt, s, p);
		if (i >= 0) {
			a->th[c].reached |= (uint8_t)(1u << i);
			/* Holding link i's lock, paused, it would block a thread
			 * still on its way: do not pause it (past the paper). */
			if (!a->opt.dlf_paper && lock_needed(a, pt, s, c, i))
				return RUN;
			a->matched[i] = true;
			a->th[c].link = (int8_t)i;
			a->th[c].ahead = false;
			return PAUSE;
		}
		if (a->opt.dlf_paper || (i = outer_match(a, s, p)) < 0 || !lock_needed(a, pt, s, c, i))
			return RUN;
		/* Pause it before it takes the lock (past the paper), until the
		 * threads that need the lock first took it as often as they do,
		 * or stand at their links (end_ahead). */
		a->th[c].link = (int8_t)i;
		a->th[c].ahead = true;
		a->ahead_paused = true;
		return PAUSE;
	}
	case CTS_SUSPECT_ATOMICITY: {
		uint64_t x;
		if (!is_acquire(p->op) || !at_stmt(a, pt, s, 2, c) ||
		    !lock_eq(s->lock, cts_observer_lock_abs(a->obs, p->obj)) ||
		    !cts_observer_block_read(a->obs, c, p->obj, s->pc[1], &x))
			return RUN;
		a->th[c].watch = x;
		a->th[c].writer = -1;
		return PAUSE;
	}
	default:
		return RUN;
	}
}

/* Breakpoints under a systematic search (hooks.constrain): the paused set
 * is a function of the run so far, the same whenever a prefix replays, and
 * the search sees paused threads as not enabled. A thread reaching a
 * breakpoint is paused unless another thread stands paused at a partner:
 * then both are released (they met; the search tries both orders, as it
 * branches on every choice). When every enabled thread is paused all of
 * them may be taken (a stall: which one is released is the search's
 * choice); a thread paused longer than pause_bound steps is released. */
static bool sys_constrain(void *ctx, const struct cts_sched_point *pt, bool *allowed)
{
	struct active *a = ctx;
	bool acts = false;
	int n = 0;
	grow(a, pt->nthreads);
	for (int t = 0; t < pt->nthreads; t++) {
		struct athread *th = &a->th[t];
		uint64_t bm = pt->alive[t] ? break_mask(a, pt->pending[t].pc) : 0;
		acts = acts || bm;
		if (!bm || !pt->enabled[t] || th->pass)
			continue;
		if (th->paused && pt->step - th->since > a->opt.pause_bound) {
			th->paused = false;  /* livelock monitor */
			th->pass = true;
			continue;
		}
		for (int u = 0; u < pt->nthreads && !th->pass; u++) {
			uint64_t both = u == t || !pt->enabled[u] || !a->th[u].paused ? 0 :
					break_mask(a, pt->pending[u].pc) & bm;
			if (!both)
				continue;
			int g = __builtin_ctzll(both);
			if (!(a->break_hit & (1ull << g))) {
				struct cts_active_finding f = {
					.kind = CTS_SUSPECT_BREAK, .suspect = g, .tid1 = u, .tid2 = t,
					.pc1 = pt->pending[u].pc, .pc2 = pt->pending[t].pc,
					.addr = pt->pending[t].obj, .step = pt->step,
				};
				add_finding(a, &f);
				a->break_hit |= 1ull << g;
				struct cts_suspect *b = cts_suspects_get(a->opt.breaks, g);
				if (b && !b->confirmed++)
					b->first_run = a->run;
			}
			a->th[u].paused = false;
			a->th[u].pass = true;
			th->paused = false;
			th->pass = true;
		}
		if (!th->pass && !th->paused) {
			th->paused = true;
			th->since = pt->step;
		}
	}
	for (int t = 0; t < pt->nthreads; t++) {
		allowed[t] = pt->enabled[t] && !(a->th[t].paused && !a->th[t].pass);
		n += allowed[t];
	}
	if (n == 0)
		for (int t = 0; t < pt->nthreads; t++)
			allowed[t] = pt->enabled[t];  /* stall */
	return acts;
}

/* A pause ahead of an outer acquisition ends when no thread needs the lock
 * first any more (the acquire is checked again). True if one ended. */
static bool end_ahead(struct active *a, const struct cts_sched_point *pt)
{
	if (a->target < 0 || a->opt.dlf_paper)
		return false;
	const struct cts_suspect *s = cts_suspects_at(a->list, a->target);
	bool any = false;
	for (int t = 0; t < pt->nthreads; t++) {
		struct athread *th = &a->th[t];
		if (th->paused && th->ahead && !lock_needed(a, pt, s, t, th->link)) {
			th->paused = th->ahead = false;
			th->link = -1;
			any = true;
		}
	}
	return any;
}

static int active_choose(struct cts_strategy *s, const struct cts_sched_point *pt)
{
	struct active *a = (struct active *)s;
	grow(a, pt->nthreads);
	if (a->sys)
		return a->inner->ops->choose(a->inner, pt);
	a->ctx_tid = -1;
	if (a->phase1) {
		/* Phase 1's statements carry their contexts. */
		int c = a->inner->ops->choose(a->inner, pt);
		if (c >= 0 && c < pt->nthreads && a->k && a->base.cfg.context &&
		    (cts_op_is_access(pt->pending[c].op) || is_acquire(pt->pending[c].op))) {
			ctx_of(a, pt, c);
			a->ctx_tid = c;
		}
		return c;
	}
	int paused_enabled = 0;
	end_ahead(a, pt);
	for (int t = 0; t < pt->nthreads; t++) {
		struct athread *th = &a->th[t];
		/* Livelock monitor. */
		if (th->paused && pt->step - th->since > a->opt.pause_bound) {
			learn_thrash(a, pt, t);
			th->paused = false;
			th->pass = true;
		}
		a->en[t] = pt->enabled[t] && !th->paused;
		paused_enabled += pt->enabled[t] && th->paused;
	}
	struct cts_sched_point sub = *pt;
	sub.enabled = a->en;
	for (;;) {
		int n = 0;
		for (int t = 0; t < pt->nthreads; t++)
			n += a->en[t];
		if (n == 0 && end_ahead(a, pt)) {
			/* A thread just paused at its link (or took its
			 * last one of a lock): those paused ahead for it go on. */
			paused_enabled = 0;
			for (int t = 0; t < pt->nthreads; t++) {
				a->en[t] = pt->enabled[t] && !a->th[t].paused;
				paused_enabled += pt->enabled[t] && a->th[t].paused;
			}
			continue;
		}
		if (n == 0) {
			/* Stall: every enabled thread is paused; release one at random. */
			int k = (int)cts_rng_below(&a->rng, (uint64_t)paused_enabled), pick = -1;
			for (int t = 0; t < pt->nthreads && pick < 0; t++)
				if (pt->enabled[t] && a->th[t].paused && k-- == 0)
					pick = t;
			if (pick < 0)
				return a->inner->ops->choose(a->inner, pt);
			learn_thrash(a, pt, pick);
			a->th[pick].paused = false;
			a->th[pick].pass = true;
			return pick;
		}
		int c = a->inner->ops->choose(a->inner, &sub);
		if (c < 0 || c >= pt->nthreads || a->th[c].pass)
			return c;
		int r = check(a, pt, c);
		if (r == RUN)
			return c;
		if (r != PAUSE)
			return r;
		a->th[c].paused = true;
		a->th[c].since = pt->step;
		a->en[c] = false;
		paused_enabled++;
	}
}

static void active_executed(struct cts_strategy *s, const struct cts_sched_point *pt,
			    const struct cts_event *ev)
{
	struct active *a = (struct active *)s;
	grow(a, pt->nthreads > ev->tid ? pt->nthreads : ev->tid + 1);
	const uint64_t *ctx = NULL;
	if (a->ctx_tid >= 0 && a->ctx_tid == ev->tid && a->th[ev->tid].ctx_at == pt->step + 1)
		ctx = a->th[ev->tid].ctx;
	cts_observer_event(a->obs, ev, ctx, a->phase1);
	if (ev->tid >= 0 && ev->tid < a->nth) {
		a->th[ev->tid].pass = false;
		if (a->sys)
			a->th[ev->tid].paused = false;  /* a stall released it */
	}
	a->inner->ops->executed(a->inner, pt, ev);
	if (a->phase1 || a->target < 0)
		return;
	const struct cts_suspect *sus = cts_suspects_at(a->list, a->target);
	if (sus->kind == CTS_SUSPECT_DEADLOCK && is_acquire(ev->op) && (!ev->timed || !ev->result) &&
	    ev->tid >= 0 && ev->tid < a->nth) {
		/* Count what a thread took of the links' held locks. */
		struct cts_lock_abs l = cts_observer_lock_abs(a->obs, ev->obj);
		for (int j = 0; j < sus->ncomp; j++)
			if (lock_eq(sus->comp[j].held, l) && a->th[ev->tid].took[j] < UINT16_MAX)
				a->th[ev->tid].took[j]++;
		return;
	}
	if (sus->kind != CTS_SUSPECT_ATOMICITY)
		return;
	/* Another thread wrote what a paused block-holder read: release it. */
	if (cts_op_is_write(ev->op) && cts_op_is_access(ev->op)) {
		for (int t = 0; t < pt->nthreads; t++) {
			struct athread *th = &a->th[t];
			if (t == ev->tid || !th->paused || !th->watch || th->writer >= 0 ||
			    !(th->watch >= ev->obj && th->watch < ev->obj + (ev->size ? ev->size : 1)))
				continue;
			th->writer = ev->tid;
			th->wpc = ev->pc;
			th->wstep = pt->step;
			th->paused = false;
			th->pass = true;
		}
	}
	/* The block-holder writes x without reading it again: the violation. */
	uint64_t rpc;
	struct athread *me = ev->tid >= 0 && ev->tid < a->nth ? &a->th[ev->tid] : NULL;
	if (me && me->writer >= 0 && ev->obj == me->watch &&
	    cts_observer_stale_write(a->obs, ev, &rpc) && in_pcs(sus, 3, ev->pc)) {
		struct cts_active_finding f = {
			.kind = CTS_SUSPECT_ATOMICITY, .suspect = a->target, .tid1 = ev->tid,
			.tid2 = me->writer, .pc1 = rpc, .pc2 = me->wpc, .pc3 = ev->pc,
			.addr = me->watch, .step = pt->step,
		};
		if (!a->confirmed_now)
			add_finding(a, &f);
		a->confirmed_now = true;
		me->writer = -1;
		me->watch = 0;
	}
}

static void active_end_run(struct cts_strategy *s, const struct cts_run_summary *sum)
{
	struct active *a = (struct active *)s;
	if (a->phase1 && !sum->aborted)
		cts_observer_end_run(a->obs, a->list, phase1_mask(a->fuzzer));
	a->inner->ops->end_run(a->inner, sum);
}

int cts_active_end(struct cts_strategy *s, bool deadlock, const struct cts_active_finding **out)
{
	if (!cts_strategy_is_active(s)) {
		*out = NULL;
		return 0;
	}
	struct active *a = (struct active *)s;
	struct cts_suspect *t = cts_suspects_get(a->list, a->target);
	if (t && t->kind == CTS_SUSPECT_DEADLOCK && deadlock) {
		/* The deadlock formed after a component of the cycle was paused at
		 * its acquire (the others may have been blocked before a check), or
		 * ahead of it: released once the partner took the lock as often as
		 * it needs, it may block at its link before it is checked there. */
		bool any = a->ahead_paused;
		for (int i = 0; i < t->ncomp; i++)
			any = any || a->matched[i];
		if (any) {
			struct cts_active_finding f = { .kind = CTS_SUSPECT_DEADLOCK,
							.suspect = a->target };
			add_finding(a, &f);
			a->confirmed_now = true;
		}
	}
	if (t && a->confirmed_now && !t->confirmed++)
		t->first_run = a->run;
	*out = a->found;
	return a->nfound;
}

/* Random phases never complete; a systematic search under breakpoints is
 * complete for the schedules the breakpoints allow (docs/design.md). */
static bool active_complete(const struct cts_strategy *s)
{
	const struct active *a = (const struct active *)s;
	return a->sys && a->inner->ops->complete(a->inner);
}

static const char *active_diverged(const struct cts_strategy *s)
{
	const struct active *a = (const struct active *)s;
	return a->inner->ops->diverged ? a->inner->ops->diverged(a->inner) : "";
}

static void active_destroy(struct cts_strategy *s)
{
	struct active *a = (struct active *)s;
	cts_strategy_destroy(a->inner);
	cts_observer_free(a->obs);
	cts_suspects_free(a->own);
	free(a->th);
	free(a->en);
	free(a->cache);
	free(a);
}

static const struct cts_strategy_ops active_ops = {
	.name = "active",
	.begin_run = active_begin,
	.choose = active_choose,
	.executed = active_executed,
	.end_run = active_end_run,
	.complete = active_complete,
	.diverged = active_diverged,
	.destroy = active_destroy,
};

struct cts_strategy *cts_active_create(const char *name, const struct cts_strategy_config *cfg,
				       char *err, size_t errlen)
{
	static const struct { const char *name; enum fuzzer f; } names[] = {
		{ "racefuzzer", F_RACE }, { "deadlockfuzzer", F_DEADLOCK },
		{ "atomfuzzer", F_ATOM }, { "random", F_NONE }, { "pct", F_NONE },
		{ "dfs", F_NONE }, { "dpor", F_NONE }, { "pcb", F_NONE }, { "idb", F_NONE },
		{ "odpor", F_NONE },
	};
	static const enum cts_search_kind kinds[] = {
		CTS_SEARCH_DFS, CTS_SEARCH_DPOR, CTS_SEARCH_PCB, CTS_SEARCH_IDB, CTS_SEARCH_ODPOR,
	};
	int k = -1;
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(names[i].name, name) == 0)
			k = i;
	if (k < 0) {
		snprintf(err, errlen, "--break works with random, pct, dfs, dpor, odpor, pcb, idb, racefuzzer, "
			 "deadlockfuzzer and atomfuzzer, not '%s'", name);
		return NULL;
	}
	if (cfg->state_match != CTS_MATCH_NONE || (cfg->hapset && cfg->hapset->guide)) {
		snprintf(err, errlen, "--break does not go with --state-match or --guide hapset (their "
			 "pruning assumes every enabled thread may run)");
		return NULL;
	}
	struct active *a = cts_xcalloc(1, sizeof(*a));
	a->base.ops = &active_ops;
	a->base.cfg = *cfg;
	a->fuzzer = names[k].f;
	if (cfg->active)
		a->opt = *cfg->active;
	if (!a->opt.tries)
		a->opt.tries = DEFAULT_TRIES;
	if (!a->opt.phase1_runs)
		a->opt.phase1_runs = DEFAULT_PHASE1;
	if (!a->opt.pause_bound)
		a->opt.pause_bound = DEFAULT_PAUSE_BOUND;
	a->list = a->opt.suspects;
	if (!a->list)
		a->list = a->own = cts_suspects_new();
	a->sys = k >= 5;
	if (a->sys) {
		struct cts_search_hooks h = { .ctx = a, .constrain = sys_constrain };
		a->inner = cts_search_create(kinds[k - 5], cfg, &h);
	} else {
		a->inner = a->fuzzer == F_NONE && strcmp(name, "pct") == 0 ? cts_pct_create(cfg) :
									      cts_random_create(cfg);
	}
	a->obs = cts_observer_new();
	a->target = -1;
	a->ctx_tid = -1;
	a->k = cfg->context_k < 0 ? 0 : cfg->context_k > CTS_CTX_MAX ? CTS_CTX_MAX : cfg->context_k;
	return &a->base;
}
