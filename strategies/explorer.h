/* The explorer loop: runs the program again and again through a backend,
 * asks the strategy at every scheduling point, keeps the models up to date,
 * judges each run with the oracles and saves every bug's schedule. */
#ifndef CTS_EXPLORER_H
#define CTS_EXPLORER_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "models/bug.h"
#include "strategies/backend.h"
#include "strategies/strategy.h"

struct cts_coverage;
struct cts_objmodel;
struct cts_race_detector;
struct cts_schedule;
struct cts_instance;
struct cts_split;
struct cts_hold_point;

struct cts_explorer_config {
	uint64_t runs;            /* 0 = until the strategy is complete or time runs out */
	double time_limit;        /* seconds, 0 = none */
	uint64_t max_steps;       /* per-run step budget */
	int max_threads;          /* threads one run may create (0: CTS_THREADS_DEFAULT) */
	bool stop_on_bug;         /* stop at the first bug (default) */
	bool fail_on_exit;        /* non-zero exit status is a bug */
	const char *out_dir;      /* where schedules go; NULL = don't save */
	const char *program;      /* for the schedule header and replay command */
	char *const *argv;        /* program argv (argv[0] = program) */
	const char *mode;         /* "sync", "break", "step" */
	const char *strategy_desc;/* e.g. "pct seed=1 depth=3" */
	bool quiet, verbose, progress;
	FILE *log;                /* human output, usually stderr */
	int races;                /* 0 off, 1 report, 2 a race is a bug */
	bool races_catch;         /* races are the backend's caught ones (--races catch),
	                           * not the happens-before detector's */
	const char *self;         /* path of cts-trace, for replay commands */
	const struct cts_schedule *options; /* run options to record in saved schedules, or NULL */
	const char *check;        /* --check: shell command run after each run, NULL = none */
	double check_timeout;     /* its time limit, seconds (the run's --timeout; 0 = none),
	                           * always within what is left of time_limit */
	/* Every run restricted to this instance (strategies/tiles.h), or NULL. */
	struct cts_instance *instance;
	uint64_t run_base;        /* added to the run numbers reported (--instances) */
	/* With races on: the detector to go on with (--instances: one for all the
	 * instances, so each race is reported once with every run that saw it);
	 * the caller owns it and res->races stays NULL. NULL: a fresh one. */
	struct cts_race_detector *race_detector;
	struct cts_coverage *coverage; /* --coverage, --strategy map: fed every run, or NULL */
	struct cts_split *split;  /* --jobs/--shard: the runs or subtrees this process
	                           * takes (strategies/split.h); NULL = all */
	bool systematic;          /* progress says "schedules" (a search, not samples) */
	bool minimize;            /* minimize each new bug's schedule before saving it */
	int min_runs;             /* ...within this many replays (never time: the
	                           * result must not depend on the machine's load) */
	/* Replays a saved schedule in a fresh process as --replay does: 1 when
	 * it ended with the bug, 0 when not (why says what happened), -1 when
	 * it could not run. NULL: saved schedules are not checked. */
	int (*verify)(const struct cts_explorer_config *cfg, const char *path,
		      const struct cts_bug *bug, char *why, size_t len);
	int verify_replays;       /* replays each saved bug schedule must pass */
	bool clocks;              /* keep happens-before clocks of every run, replays and
	                           * minimization candidates too, for the backend
	                           * (cts_run_state.ordered): its events depend on them */
	/* --gdb, --core: the first run is held at step hold_step (UINT64_MAX:
	 * where it ends) with its program alive, released (backend->release)
	 * and given to on_hold(); backend->stop kills it when that returns.
	 * Its -1 (with why) is an error of the session, bad input when *bad. */
	bool hold;
	uint64_t hold_step;
	int (*on_hold)(void *ctx, const struct cts_hold_point *h, char *why, size_t len,
		       bool *bad);
	void *hold_ctx;
	bool relearn;             /* a run that ends with st->relearn is run again after
	                           * backend->relearn, the strategy restarted (its
	                           * restart op); false: such a run is a divergence */
	bool quiet_repeats;       /* a plain access a thread repeats while it alone can
	                           * move is no step (docs/design.md, "Repeats made
	                           * alone"; recorded in schedules: cts_schedule) */
	bool relearn_ends;        /* ...or, after backend->relearn, the search ends there
	                           * (res->relearn_ended): --instances, whose tiling counted
	                           * the events of the smaller set, begins again whole */
};

/* Where a held run stopped (cts_explorer_config.hold), for the caller that
 * takes the program over (--gdb, --core). */
struct cts_hold_point {
	pid_t pid;                /* the program, released by backend->release */
	int nthreads;             /* threads the run created: tids[0..nthreads) */
	const pid_t *tids;        /* kernel thread id of each, 0 when gone */
	int focus;                /* the thread to look at first, -1 none */
	uint64_t step;            /* steps executed */
	bool early;               /* stopped by hold_step, before the run's end */
	const struct cts_bug *bug;/* the run's bug, kind CTS_BUG_NONE if none */
	int sig;                  /* a crash's signal, 0 */
};

struct cts_explorer;

int cts_explore(const struct cts_explorer_config *cfg, struct cts_backend *backend,
		struct cts_objmodel *model, struct cts_strategy *strategy,
		struct cts_explore_result *res);
void cts_explore_result_free(struct cts_explore_result *res);
/* The search begins again (a void run taught it shared lines): the runs
 * so far move to res->discarded with their counts; what they found (bugs,
 * races, inconclusive runs) stays. */
void cts_explore_result_discard_runs(struct cts_explore_result *res);

/* "lock 4, unlock 4, read 12": the visible operations executed, by kind,
 * most frequent first ("none" if none). Returns buf. */
char *cts_explore_ops_str(const struct cts_explore_result *res, char *buf, size_t len);

/* Ask a running exploration to stop after the current run (signal-safe). */
void cts_explore_interrupt(void);
/* The last exploration stopped for that (until the next one starts). */
bool cts_explore_interrupted(void);

#endif
