/* One interface for every exploration strategy. Strategies see scheduling
 * points and executed events; they never call ptrace. */
#ifndef CTS_STRATEGY_H
#define CTS_STRATEGY_H

#include <signal.h>
#include <stdint.h>
#include "models/event.h"
#include "models/rng.h"   /* cts_splitmix64 seeds cts_rng */

struct cts_schedule;
struct cts_active_options;
struct cts_hapset_options;
struct cts_map;
struct cts_split;

/* What the explorer shows a strategy when a choice is due. */
struct cts_sched_point {
	uint64_t step;                   /* index of this decision in the run */
	int nthreads;                    /* threads created so far */
	const bool *alive;               /* [nthreads] */
	const bool *enabled;             /* [nthreads] may run now */
	const struct cts_event *pending; /* [nthreads] next visible op of each thread */
	const bool *outside;             /* [nthreads] not enabled, but may become so with no
	                                  * step: blocked in the kernel (backend.h) */
	int last;                        /* thread that ran the previous step, -1 at start */
	/* [nthreads] held back because they spin without progress (a re-read of
	 * an unchanged location, a yield): their next step would change nothing.
	 * Not enabled; may be NULL. */
	const bool *spinning;
	/* The threads that may be alive, ascending (every alive one is here);
	 * loops over threads go through these, not through every thread the run
	 * ever created. NULL: look at 0..nthreads-1. */
	const int *live;
	int nlive;
	/* An instance (strategies/tiles.h) took enabled threads out of enabled[]
	 * here: the thread that ran last may not be preempted at this point. */
	bool restricted;
	bool instance;   /* every run is restricted to an instance */
	/* Accesses this run made without a step so far (repeats made alone,
	 * strategies/explorer.h): step + quiet counts every access, as the
	 * steps did without them. */
	uint64_t quiet;
};

/* Loop over the threads that may be alive at pt (see live above). */
#define CTS_SCHED_FOR_EACH(pt, i, t) \
	for (int i = 0, t; i < ((pt)->live ? (pt)->nlive : (pt)->nthreads) && \
	     ((t = (pt)->live ? (pt)->live[i] : i), 1); i++)

/* How a run ended, for strategies that learn across runs. */
struct cts_run_summary {
	uint64_t run;       /* 0-based run index */
	uint64_t steps;     /* decisions made */
	bool bug;           /* an oracle fired */
	bool aborted;       /* run cut short (step budget, timeout, divergence) */
	uint64_t quiet;     /* accesses run without a step (cts_sched_point.quiet) */
};

/* Calling contexts (--context K): fills ret[0..k) with the return addresses
 * of the k frames above held thread tid's pending statement (zero past the
 * outermost); returns how many are real, -1 if the backend cannot tell. */
#define CTS_CTX_MAX 4
typedef int (*cts_context_fn)(void *ctx, int tid, int k, uint64_t *ret);

struct cts_strategy_config {
	uint64_t seed;
	int depth;           /* pct: bug depth d (default 3) */
	int bound;           /* pcb/idb: preemption or delay bound */
	uint64_t max_steps;  /* run step budget, a hint for pct's k */
	const char *schedule_file; /* replay: the file to load, unless... */
	const struct cts_schedule *schedule; /* ...the caller parsed it already (borrowed) */
	const struct cts_active_options *active; /* active testing, --break (strategies/active.h) */
	/* Petri-net state matching (strategies/stateful.h): with dfs, the naive
	 * stateful search. */
	enum cts_state_match {
		CTS_MATCH_NONE = 0,
		CTS_MATCH_PETRI,        /* reads keyed by the value read */
		CTS_MATCH_PETRI_WRITES, /* the paper's keying: by the write read from */
	} state_match;
	bool no_cutoffs;     /* unfold: no terminal events (the stateless unfolding) */
	double time_limit;   /* seconds, 0 = none: a state-matching search also stops
	                      * between runs (its model-only search can be long) */
	/* Set by the explorer: nonzero once the user interrupted (SIGINT,
	 * SIGTERM, SIGHUP). A model-only search between runs polls it. */
	const volatile sig_atomic_t *interrupt;
	/* Statements with calling contexts (active testing, HaPSet): k return
	 * addresses (0: pcs alone); the explorer sets context from its backend. */
	int context_k;
	cts_context_fn context;
	void *context_ctx;
	const struct cts_hapset_options *hapset; /* --strategy hapset, --guide hapset */
	struct cts_map *map; /* --strategy map: the MAP model the explorer feeds (borrowed) */
	/* The explorer's object model learns wake-ups from futexes (the live
	 * tracer): a strategy cannot replay it from the events alone (odpor). */
	bool futex_model;
	struct cts_split *split; /* --jobs/--shard: the subtrees this process takes
	                          * (strategies/split.h), NULL = all */
};

#define CTS_CHOOSE_DIVERGED (-2) /* replaying strategy: program did something else */
#define CTS_CHOOSE_STOP (-3)     /* strategy wants this run cut short (e.g. bound hit, pruned) */
#define CTS_CHOOSE_WAIT (-4)     /* replaying: the thread due is outside the schedule; wait
                                  * for it to come back, then ask again */
#define CTS_CHOOSE_END (-5)      /* replay: the schedule of an inconclusive run ends here; the
                                  * run is inconclusive too (diverged() says why) */

struct cts_strategy;

struct cts_strategy_ops {
	const char *name;
	/* A new run is about to start; false when the space is exhausted. */
	bool (*begin_run)(struct cts_strategy *s, uint64_t run);
	/* Pick an enabled thread (or CTS_CHOOSE_*). */
	int (*choose)(struct cts_strategy *s, const struct cts_sched_point *pt);
	/* The chosen thread's op ran; ev carries its outcome (try results, create target). */
	void (*executed)(struct cts_strategy *s, const struct cts_sched_point *pt,
			 const struct cts_event *ev);
	void (*end_run)(struct cts_strategy *s, const struct cts_run_summary *sum);
	/* True once the strategy's (bounded) space has been fully explored. */
	bool (*complete)(const struct cts_strategy *s);
	/* Optional: one-line description of the divergence that made choose fail. */
	const char *(*diverged)(const struct cts_strategy *s);
	/* Optional: the backend now shows more events than in the runs so far
	 * (cts_run_state.relearn): forget what those runs taught, the same run
	 * comes again (begin_run, no end_run for the void one). NULL: a
	 * strategy whose runs do not build on each other. */
	void (*restart)(struct cts_strategy *s);
	/* Optional: the run ends with live threads none of which can run (a
	 * deadlock); pt shows every thread's pending event, before end_run. */
	void (*stuck)(struct cts_strategy *s, const struct cts_sched_point *pt);
	void (*destroy)(struct cts_strategy *s);
};

/* Every strategy's state begins with this. */
struct cts_strategy {
	const struct cts_strategy_ops *ops;
	struct cts_strategy_config cfg;
};

/* Create by name ("random", "pct", "dfs", "dpor", "odpor", "pcb", "idb", "unfold", "replay").
 * On failure returns NULL and writes a one-line reason to err. */
struct cts_strategy *cts_strategy_create(const char *name, const struct cts_strategy_config *cfg,
					 char *err, size_t errlen);
void cts_strategy_destroy(struct cts_strategy *s);
/* Comma-separated list of names, for --help. */
const char *cts_strategy_names(void);

/* Helpers for strategy implementations. */
int cts_sched_count_enabled(const struct cts_sched_point *pt);
/* The i-th enabled thread (0-based), -1 if none. */
int cts_sched_nth_enabled(const struct cts_sched_point *pt, int i);

/* Constructors, one per strategy file. */
struct cts_strategy *cts_random_create(const struct cts_strategy_config *cfg);
struct cts_strategy *cts_pct_create(const struct cts_strategy_config *cfg);
/* MAP-coverage-directed (strategies/map_guided.c); NULL without cfg->map. */
struct cts_strategy *cts_map_strategy_create(const struct cts_strategy_config *cfg);
struct cts_strategy *cts_replay_create(const struct cts_strategy_config *cfg, char *err, size_t errlen);

/* Small deterministic PRNG (xoshiro256**) so runs repeat across libcs. */
struct cts_rng { uint64_t s[4]; };
void cts_rng_seed(struct cts_rng *r, uint64_t seed);
uint64_t cts_rng_next(struct cts_rng *r);
uint64_t cts_rng_below(struct cts_rng *r, uint64_t n); /* uniform in [0, n) */

#endif
