/* pct: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
 * Nagarakatte, ASPLOS 2010). Threads get random distinct priorities above d;
 * d-1 change points, uniform over the k steps of a run, each drop the running
 * thread's priority to i (below every initial priority). The highest-priority
 * enabled thread always runs. k is learned: the longest run seen so far.
 *
 * A thread that yields or sleeps again after changing something goes to the
 * end of the queue: its priority drops below every other thread's, change
 * points' drops included, as a sleep in the kernel lets every runnable
 * thread run. A periodic thread (sleep, lock, tick, unlock: mksquashfs's
 * progress bar) makes progress, so the spin detector never holds it; with
 * its initial priority it ran alone from its first sleep on, and dropped
 * only below the threads that had not been demoted it still starved the ones
 * a change point had demoted: every pct run ended at the step budget (issue
 * 31 item 3, tests/programs/ticker).
 *
 * A thread's first yield, and a yield after steps that changed nothing,
 * keep its priority: that thread is starting to wait or waiting, and the
 * spin detector holds it back already. Dropping it there decided every
 * waiter's race at the moment its wait ends: the last arriver at a
 * sense-reversing barrier always ran on past a flip of the sense, before the
 * waiters it released, so pct never found yield_barrier's livelock (a
 * change point cannot lift a waiter above a thread it demotes either).
 * The drops are a function of the schedule, so a run replays. */
#include <stdlib.h>
#include "models/error.h"
#include "strategies/strategy.h"

#define PCT_MAX_DEPTH 64

/* Priority bands, highest first: a new thread's is INIT_BAND plus 53 random
 * bits; change point i gives CHANGE_BAND + i; a yielder's counts down from
 * YIELD_BAND, each below the one before. */
#define INIT_BAND (1ull << 63)
#define CHANGE_BAND (1ull << 62)
#define YIELD_BAND (1ull << 61)

struct pct_thread {
	uint64_t prio;
	bool yielded;   /* has yielded or slept this run */
	bool moved;     /* changed something since then */
};

struct pct_strategy {
	struct cts_strategy base;
	struct cts_rng rng;
	int d;
	uint64_t k;                      /* estimated steps per run */
	uint64_t change[PCT_MAX_DEPTH];  /* change[i] = step of change point i (1..d-1) */
	uint64_t next;                   /* the clock of the next decision if no access
	                                  * runs without a step before it */
	uint64_t yield_floor;            /* the last yielder's priority this run */
	struct pct_thread *th;           /* [nknown]: threads 0..nknown-1 have one */
	int nknown;
	size_t cap;
};

static bool pct_begin(struct cts_strategy *s, uint64_t run)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	cts_rng_seed(&p->rng, s->cfg.seed * 0x100000001B3ull + run);
	p->nknown = 0;
	p->next = 0;
	p->yield_floor = YIELD_BAND;
	for (int i = 1; i < p->d; i++)
		p->change[i] = p->k ? cts_rng_below(&p->rng, p->k) : UINT64_MAX;
	return true;
}

static int pct_choose(struct cts_strategy *s, const struct cts_sched_point *pt)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	int best;

	/* A new thread's priority is uniform random in the top band, which
	 * keeps the priorities a uniform random permutation however many
	 * threads appear later. */
	if (pt->nthreads > p->nknown) {
		size_t cap = cts_grow_cap(p->cap, (size_t)pt->nthreads);
		if (cap > p->cap) {
			p->th = cts_xgrow(p->th, p->cap, cap, sizeof(*p->th));
			p->cap = cap;
		}
		for (; p->nknown < pt->nthreads; p->nknown++)
			p->th[p->nknown] = (struct pct_thread){
				.prio = INIT_BAND + (cts_rng_next(&p->rng) >> 11) };
	}
again:
	best = -1;
	CTS_SCHED_FOR_EACH(pt, k, t)
		if (pt->enabled[t] && (best < 0 || p->th[t].prio > p->th[best].prio))
			best = t;
	if (best < 0)
		return -1;
	/* Change points count every access, those run without a step too (a
	 * thread's repeats while it alone can move): one that falls among
	 * them takes effect at the next decision, as it did when each was a
	 * step whose only choice was that thread. */
	uint64_t clock = pt->step + pt->quiet, from = p->next < clock ? p->next : clock;
	for (int i = 1; i < p->d; i++) {
		if (p->change[i] >= from && p->change[i] <= clock &&
		    p->th[best].prio > CHANGE_BAND + (uint64_t)i) {
			p->th[best].prio = CHANGE_BAND + (uint64_t)i;
			p->change[i] = UINT64_MAX; /* fire once */
			goto again;
		}
	}
	p->next = clock + 1;
	return best;
}

/* Whether a step may change what another thread sees: not a read, a yield
 * or a sleep, nor a try that failed (a poll). */
static bool pct_moves(const struct cts_event *ev)
{
	switch (ev->op) {
	case CTS_OP_READ:
	case CTS_OP_LIB_READ:
	case CTS_OP_YIELD:
	case CTS_OP_SLEEP:
		return false;
	case CTS_OP_TRYLOCK:
	case CTS_OP_TRYRDLOCK:
	case CTS_OP_TRYWRLOCK:
	case CTS_OP_SEM_TRYWAIT:
		return ev->result == 0;
	default:
		return true;
	}
}

static void pct_executed(struct cts_strategy *s, const struct cts_sched_point *pt,
			 const struct cts_event *ev)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	(void)pt;
	if (ev->tid < 0 || ev->tid >= p->nknown)
		return;
	struct pct_thread *th = &p->th[ev->tid];
	if (ev->op != CTS_OP_YIELD && ev->op != CTS_OP_SLEEP) {
		th->moved = th->moved || pct_moves(ev);
		return;
	}
	if (th->yielded && th->moved)
		th->prio = --p->yield_floor;
	th->yielded = true;
	th->moved = false;
}

static void pct_end(struct cts_strategy *s, const struct cts_run_summary *sum)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	if (!sum->aborted && sum->steps + sum->quiet > p->k)
		p->k = sum->steps + sum->quiet;
}

static bool pct_complete(const struct cts_strategy *s)
{
	(void)s;
	return false;
}

static void pct_destroy(struct cts_strategy *s)
{
	free(((struct pct_strategy *)s)->th);
	free(s);
}

static const struct cts_strategy_ops pct_ops = {
	.name = "pct",
	.begin_run = pct_begin,
	.choose = pct_choose,
	.executed = pct_executed,
	.end_run = pct_end,
	.complete = pct_complete,
	.destroy = pct_destroy,
};

struct cts_strategy *cts_pct_create(const struct cts_strategy_config *cfg)
{
	struct pct_strategy *p = cts_xcalloc(1, sizeof(*p));
	p->base.ops = &pct_ops;
	p->base.cfg = *cfg;
	p->d = cfg->depth > 0 ? cfg->depth : 3;
	if (p->d > PCT_MAX_DEPTH)
		p->d = PCT_MAX_DEPTH;
	p->k = 0; /* first run: no change points until a run's length is known */
	return &p->base;
}
