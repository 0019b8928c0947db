/* The explorer loop: runs the program again and again through a backend,
 * asks the strategy at every scheduling point, keeps the models up to date,
 * judges each run with the oracles and saves every bug's schedule. */
#ifndef CTS_EXPLORER_H
#define CTS_EXPLORER_H

#include <stdint.h>
#include <stdio.h>
#include "strategies/backend.h"
#include "strategies/strategy.h"

struct cts_coverage;
struct cts_objmodel;
struct cts_race_detector;
struct cts_schedule;
struct cts_instance;
struct cts_split;

enum cts_bug_kind {
	CTS_BUG_NONE = 0,
	CTS_BUG_CRASH,      /* fatal signal */
	CTS_BUG_ASSERT,
	CTS_BUG_DEADLOCK,
	CTS_BUG_LIVELOCK,   /* every live thread spins without progress or is blocked */
	CTS_BUG_EXIT,       /* non-zero exit with --fail-on-exit */
	CTS_BUG_RACE,       /* data race with --races fail */
	CTS_BUG_CHECK,      /* the --check command failed after the run */
	CTS_BUG_DIVERGED,   /* replay: the program did something else */
};

/* A run cut short without a verdict: the step budget or the run's wall clock
 * ran out while some thread was still making progress (as far as cts saw). */
enum cts_inconclusive_kind {
	CTS_INC_STEPS = 1,  /* --max-steps */
	CTS_INC_TIMEOUT,    /* --timeout */
};

struct cts_inconclusive {
	enum cts_inconclusive_kind kind;
	uint64_t run;
	uint64_t steps;
	char reason[512];
	char schedule_path[512]; /* "" if not saved */
};

/* Inconclusive runs listed (with schedules) in a result; more are only counted. */
#define CTS_INCONCLUSIVE_LISTED 20

const char *cts_bug_kind_name(enum cts_bug_kind k);
const char *cts_inconclusive_kind_name(enum cts_inconclusive_kind k);

/* One step of a bug's run, for the reports that draw it (SARIF, timeline):
 * an executed step, or (pending) where a live thread stood at the end. */
struct cts_bug_step {
	struct cts_event ev;     /* ev.tid, ev.op, ev.obj, ev.pc */
	uint64_t step;           /* index in the run's schedule */
	bool pending;            /* not executed: where the thread stood at the end */
	bool blocked;            /* pending and unable to run (a lock held, a join...) */
	bool preempt;            /* a context switch away from a thread that could go on */
};

/* Executed steps kept per bug (the last ones of its run). */
#define CTS_BUG_TRACE 512

struct cts_bug {
	enum cts_bug_kind kind;
	uint64_t run;
	uint64_t steps;
	int tid;                 /* thread that crashed / asserted, -1 if none */
	char message[1024];      /* one line */
	char detail[4096];       /* wait-for cycle, stacks: multi-line */
	char schedule_path[512]; /* saved schedule, "" if none */
	uint64_t hits;           /* runs that hit this same bug */
	char instance[512];      /* --instance spec of the run (strategies/tiles.h), "" if none */
	uint64_t preemptions;    /* in the whole run's schedule (the saved, minimized one) */
	uint64_t original_preemptions; /* before --minimize (= preemptions without it) */
	bool minimized;          /* the saved schedule is minimized; the original is beside it */
	char orig_path[512];     /* the original schedule's file, "" if none */
	int npair;               /* the critical pair: 2, 3 with the first thread's next
	                          * conflicting step, 0 if none was found */
	struct cts_event pair[3];
	uint64_t pair_step[3];   /* their step indexes in the saved schedule */
	char timeline_path[512]; /* the bug's HTML timeline, "" if none */
	char headline[1024];     /* the critical pair in words, "" if none */
	int ntrace;              /* the last executed steps, then each live thread's pending one */
	struct cts_bug_step *trace; /* malloc'd for a recorded bug, NULL otherwise */
};

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
	int min_runs;             /* ...within this many replays */
	double min_seconds;       /* ...and this much wall time */
};

struct cts_explore_result {
	uint64_t runs;
	uint64_t steps;           /* total decisions over all runs */
	double elapsed;
	bool exhausted;           /* strategy exhausted its space */
	bool complete;            /* exhausted, and nothing shared went unseen */
	char unseen[1024];        /* what the backend could not see, "" if nothing */
	int nbugs;
	struct cts_bug *bugs;     /* distinct bugs found (malloc'd) */
	uint64_t ninconclusive;   /* runs cut short without a verdict */
	uint64_t ncut;            /* runs the strategy cut short as redundant (a DPOR
	                           * sleep set, a bound): the program did not finish */
	int nlisted;              /* the first of them (at most CTS_INCONCLUSIVE_LISTED) */
	struct cts_inconclusive *inconclusive;
	bool internal_error;
	bool bad_input;           /* the error is about the program (cannot exec it...) */
	char error[512];
	struct cts_race_detector *races; /* every race seen, NULL with races off */
	uint64_t ops[CTS_OP__COUNT]; /* visible operations executed, per kind, over all runs */
};

struct cts_explorer;

int cts_explore(const struct cts_explorer_config *cfg, struct cts_backend *backend,
		struct cts_objmodel *model, struct cts_strategy *strategy,
		struct cts_explore_result *res);
void cts_explore_result_free(struct cts_explore_result *res);

/* "lock 4, unlock 4, read 12": the visible operations executed, by kind,
 * most frequent first ("none" if none). Returns buf. */
char *cts_explore_ops_str(const struct cts_explore_result *res, char *buf, size_t len);

/* Ask a running exploration to stop after the current run (signal-safe). */
void cts_explore_interrupt(void);
/* The last exploration stopped for that (until the next one starts). */
bool cts_explore_interrupted(void);

#endif
