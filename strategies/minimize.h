/* Minimal schedules for a found bug (--minimize, docs/design.md
 * "Minimizing a bug's schedule"): CHESS-style preemption reduction by
 * replaying candidate schedules, then the steps of threads the bug does not
 * need dropped, then the critical pair, the two conflicting steps whose
 * order, flipped, makes the bug go away. The budget is a number of replays,
 * never time, so the same bug minimizes the same way on every machine.
 *
 * A candidate is a list of thread choices; the guide strategy follows it
 * while it can and then runs without preemptions (the thread that ran last
 * goes on while it can, else the lowest-numbered enabled one). The explorer
 * runs candidates through a callback, so this file never sees a backend. */
#ifndef CTS_MINIMIZE_H
#define CTS_MINIMIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "models/event.h"
#include "strategies/strategy.h"

/* One candidate's run as the explorer saw it. */
struct cts_min_run {
	bool same_bug;        /* the bug being minimized, again */
	bool clean;           /* no bug at all, and the run ended normally */
	bool infeasible;      /* the candidate named a thread that could not run */
	size_t n;             /* steps of the run, as executed */
	int *tids;            /* [n] malloc'd, or NULL */
	bool *preempt;        /* [n] step i switched away from a thread that could go on */
	struct cts_event *ev; /* [n] the steps' events (tid, op, obj, pc, size) */
};

void cts_min_run_free(struct cts_min_run *r);
uint64_t cts_min_run_preemptions(const struct cts_min_run *r);
/* Threads that take at least one step in r. */
int cts_min_run_threads(const struct cts_min_run *r);

/* Run the candidate tids[0..n) (then no preemptions); fills out. 0, or -1
 * on an error that ends the minimization (the explorer's run failed). */
typedef int (*cts_min_try_fn)(void *ctx, const int *tids, size_t n, struct cts_min_run *out);

struct cts_min_config {
	int max_runs;        /* replays, all phases together */
	int fail_tid;        /* the failing thread (its steps all matter), -1 if none */
};

struct cts_min_result {
	struct cts_min_run best;       /* the minimized run (the original if nothing was better) */
	uint64_t original_preemptions;
	int original_threads;          /* threads with a step in the original run */
	int runs;                      /* replays spent */
	bool cut;                      /* the budget ran out before the end */
	long pair[2];                  /* the critical pair's step indexes in best, -1 if none */
	long pair_after;               /* first thread's next step conflicting with pair[1], -1 */
};

/* Minimize orig (its arrays are taken over: freed with the result). 0 or -1. */
int cts_minimize(struct cts_min_run *orig, const struct cts_min_config *cfg, cts_min_try_fn fn,
		 void *ctx, struct cts_min_result *res);
void cts_min_result_free(struct cts_min_result *res);

/* The guide strategy over tids[0..n) (copied). */
struct cts_strategy *cts_min_guide_create(const int *tids, size_t n);

#endif
