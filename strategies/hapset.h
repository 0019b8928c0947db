/* HaPSet-guided search (Wang, Said, Gupta, ICSE 2011; seeds/000; the
 * sets themselves: models/hapset.h).
 *
 *   --strategy hapset      learnHapsets over `learn` randomized good runs
 *                          (Algorithm 1: a random thread at every step; the
 *                          paper's random delays are what a random choice
 *                          per step amounts to under a scheduler that
 *                          serializes threads), then HaPSet-guided DPOR
 *   --guide hapset         the same guidance on --strategy dpor or pcb
 *                          (and idb), with --hapset-learn N learning runs
 *                          first (default 0: continuous learning alone, as
 *                          the paper's experiments)
 *
 * Guidance is the paper's updatebacktrack: DPOR adds a backtrack point for
 * the pending event t at the state of its latest race s_d only when
 * stmt(t) is not in HaPSet(stmt(s_d.sel)) (else it looks further back);
 * PCB keeps an alternative t at a fresh state only when stmt(t) is not in
 * HaPSet(stmt(sel)). Every good run of the search is learnt from
 * (continuous learning). By default what the paper prunes is deferred
 * instead (systematic.h, hooks.defer): the covered orders are searched after
 * every HaPSet-new one, so an exhausted search is complete as plain dpor's
 * is. With prune (the paper's trade, not safe) they are dropped and
 * complete() is never true once one was: "HaPSet-exhausted". */
#ifndef CTS_HAPSET_STRATEGY_H
#define CTS_HAPSET_STRATEGY_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "strategies/strategy.h"

struct cts_hapset_options {
	bool guide;              /* --guide hapset (with dpor, pcb or idb) */
	uint64_t learn;          /* randomized learning runs before the search */
	bool learn_given;        /* learn set (else hapset: 10, guided dpor/pcb: 0) */
	bool prune;              /* --hapset-prune: drop covered orders (the paper) */
	const char *load, *save; /* --hapset-load, --hapset-save */
	/* names pcs for the statements' source positions */
	void (*describe_pc)(void *ctx, uint64_t pc, char *buf, size_t len);
	void *describe_ctx;
};

/* "hapset", or "dpor"/"odpor"/"pcb"/"idb" with cfg->hapset->guide. NULL and err. */
struct cts_strategy *cts_hapset_create(const char *name, const struct cts_strategy_config *cfg,
				       char *err, size_t errlen);
bool cts_strategy_is_hapset(const struct cts_strategy *s);
/* The report's "hapset" object (models/hapset.h); new reference. */
json_t *cts_hapset_strategy_report(const struct cts_strategy *s);
/* --coverage: a source of the HaPSet's statements and pairs per run (its
 * model lives as long as s). false if s is not a HaPSet strategy. */
struct cts_coverage_source;
bool cts_hapset_coverage_source(const struct cts_strategy *s, struct cts_coverage_source *src);
/* --coverage under any other strategy s (random, pct, dpor, map, replay...):
 * a source of the statements and pairs of a HaPSet learnt from s's good runs
 * alongside, with contexts of k return addresses captured by s's backend
 * (s->cfg.context, set by the explorer). The coverage frees it. */
void cts_hapset_watch_source(const struct cts_strategy *s, int k,
			     void (*describe_pc)(void *ctx, uint64_t pc, char *buf, size_t len),
			     void *describe_ctx, struct cts_coverage_source *src);
/* --hapset-prune: the search ran out of HaPSet-new orders after pruning
 * some (exhausted, but not complete). */
bool cts_hapset_strategy_pruned_out(const struct cts_strategy *s);
/* --hapset-save, after the exploration. 0, or -1 and err. */
int cts_hapset_strategy_save(const struct cts_strategy *s, char *err, size_t errlen);

#endif
