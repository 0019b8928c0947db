/* pct: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
 * Nagarakatte, ASPLOS 2010). Threads get random distinct priorities above d;
 * d-1 change points, uniform over the k steps of a run, each drop the running
 * thread's priority to i (below every initial priority). The highest-priority
 * enabled thread always runs. k is learned: the longest run seen so far.
 *
 * A thread that yields or sleeps goes to the end of the queue: its priority
 * drops below every other thread's, change points' drops included, as a
 * sleep in the kernel lets every runnable thread run. A periodic thread
 * (sleep, lock, tick, unlock: mksquashfs's progress bar) makes progress, so
 * the spin detector never holds it; with its initial priority it ran alone
 * from its first sleep on, and dropped only below the threads that had not
 * been demoted it still starved the ones a change point had demoted: every
 * pct run ended at the step budget (issue 31 item 3, tests/programs/ticker).
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

struct pct_strategy {
	struct cts_strategy base;
	struct cts_rng rng;
	int d;
	uint64_t k;                      /* estimated steps per run */
	uint64_t change[PCT_MAX_DEPTH];  /* change[i] = step of change point i (1..d-1) */
	uint64_t yield_floor;            /* the last yielder's priority this run */
	uint64_t *prio;                  /* [nknown]: threads 0..nknown-1 have one */
	int nknown;
	size_t cap;
};

static bool pct_begin(struct cts_strategy *s, uint64_t run)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	cts_rng_seed(&p->rng, s->cfg.seed * 0x100000001B3ull + run);
	p->nknown = 0;
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
			p->prio = cts_xgrow(p->prio, p->cap, cap, sizeof(*p->prio));
			p->cap = cap;
		}
		for (; p->nknown < pt->nthreads; p->nknown++)
			p->prio[p->nknown] = INIT_BAND + (cts_rng_next(&p->rng) >> 11);
	}
again:
	best = -1;
	CTS_SCHED_FOR_EACH(pt, k, t)
		if (pt->enabled[t] && (best < 0 || p->prio[t] > p->prio[best]))
			best = t;
	if (best < 0)
		return -1;
	for (int i = 1; i < p->d; i++) {
		if (p->change[i] == pt->step && p->prio[best] > CHANGE_BAND + (uint64_t)i) {
			p->prio[best] = CHANGE_BAND + (uint64_t)i;
			p->change[i] = UINT64_MAX; /* fire once */
			goto again;
		}
	}
	return best;
}

static void pct_executed(struct cts_strategy *s, const struct cts_sched_point *pt,
			 const struct cts_event *ev)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	(void)pt;
	if (ev->op != CTS_OP_YIELD && ev->op != CTS_OP_SLEEP)
		return;
	if (ev->tid >= 0 && ev->tid < p->nknown)
		p->prio[ev->tid] = --p->yield_floor;
}

static void pct_end(struct cts_strategy *s, const struct cts_run_summary *sum)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	if (!sum->aborted && sum->steps > p->k)
		p->k = sum->steps;
}

static bool pct_complete(const struct cts_strategy *s)
{
	(void)s;
	return false;
}

static void pct_destroy(struct cts_strategy *s)
{
	free(((struct pct_strategy *)s)->prio);
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
