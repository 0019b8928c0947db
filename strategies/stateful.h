/* Systematic search with Petri-net state matching (Kähkönen & Heljanko,
 * TAP 2014, Fig. 5, the "naive" stateful search; the net is models/petri.h):
 * a depth-first search over the markings of the model (dfs --state-match
 * petri), cut at markings visited before (with the sleep set they were
 * explored with: sleep sets as in the paper's experiments). Where the model
 * does not know what a thread does next (PREDICTTRANSITIONSFROMMODEL cannot
 * tell), a test run replays the transition sequence to that marking and
 * goes on freely (EXTENDMODEL).
 *
 * The unfolding search (Fig. 6, `--strategy unfold`; strategies/unfold.h)
 * uses the same runs over a net with place replication; once its prefix is
 * complete, a model-only sweep of this DFS looks for dead markings (the
 * unfolding alone does not promise to reach deadlocks), each confirmed by a
 * real run.
 *
 * Test runs are the only place bugs are found: every marking where a
 * thread's next step is not known, every dead marking and every final
 * marking is reached by a real run. See docs/systematic.md "State matching". */
#ifndef CTS_STATEFUL_H
#define CTS_STATEFUL_H

#include "models/petri.h"
#include "strategies/strategy.h"

struct cts_strategy *cts_petri_dfs_create(const struct cts_strategy_config *cfg,
					  enum cts_petri_keying keying);

/* cutoffs false: the stateless unfolding baseline (no terminals). */
struct cts_strategy *cts_petri_unfold_create(const struct cts_strategy_config *cfg,
					     enum cts_petri_keying keying, bool cutoffs);

struct cts_petri_search_stats {
	uint64_t runs;         /* test executions */
	uint64_t markings;     /* markings stored (visited; unfold: distinct St(e)) */
	uint64_t terminals;    /* visits cut at a marking explored before (unfold: cut-off events) */
	bool unfold;           /* the unfolding search: */
	uint64_t events, conditions;          /* ...its prefix */
	uint64_t sweep_markings, sweep_terminals, sweep_runs; /* ...its dead-marking sweep */
	uint64_t restarts;     /* the model was contradicted and the search began again */
	uint64_t widenings;    /* unfold: a run showed a new thread, the prefix began again */
	uint64_t stateless_tests; /* unfold --no-cutoffs: the runs before the sweep, which
	                           * executed every event of the prefix (a stateless
	                           * unfolding tester's test executions) */
	uint64_t stutters;     /* runs stopped at a step the explorer holds back (a spin) */
	uint64_t places, transitions, bytes;
	uint64_t conflicts;    /* observations that contradicted the model */
	bool nomatch;          /* matching was off (something the model cannot key) */
	bool complete;
	char why[160];
};

/* False if s is not one of these strategies. */
bool cts_petri_search_stats(const struct cts_strategy *s, struct cts_petri_search_stats *out);

#endif
