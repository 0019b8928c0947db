/* map: MAP-coverage-directed scheduling (the paper's testExecute). Each run
 * aims at one uncovered candidate pattern (cts_map_pick_target): where
 * several threads can run, the one whose next step is the pattern's next
 * step goes first, and a thread whose next step is a later one of the
 * pattern waits; otherwise the one whose next step completes any pattern no
 * run has covered yet; otherwise a uniform choice. A new run starts only
 * while the estimate leaves patterns uncovered. The explorer feeds the shared MAP model (cfg.map) the executed
 * events, so this only reads it. */
#include <stdlib.h>
#include "models/error.h"
#include "models/map.h"
#include "strategies/strategy.h"

struct map_strategy {
	struct cts_strategy base;
	struct cts_rng rng;
	struct cts_map *map;
	int *best;
	size_t cap;
};

static bool map_begin(struct cts_strategy *s, uint64_t run)
{
	struct map_strategy *m = (struct map_strategy *)s;
	struct cts_map_stats st;
	cts_map_get_stats(m->map, &st);
	/* Nothing uncovered the estimate still counts as reachable. */
	if (run > 0 && st.estimate > 0 && st.covered >= st.estimate)
		return false;
	cts_rng_seed(&m->rng, s->cfg.seed * 0x100000001B3ull + run);
	cts_map_pick_target(m->map, cts_rng_next(&m->rng));
	return true;
}

static int map_choose(struct cts_strategy *s, const struct cts_sched_point *pt)
{
	struct map_strategy *m = (struct map_strategy *)s;
	int n = cts_sched_count_enabled(pt);
	if (n <= 1)
		return cts_sched_nth_enabled(pt, 0);
	if ((size_t)n > m->cap) {
		m->best = cts_xgrow(m->best, m->cap, (size_t)n, sizeof(*m->best));
		m->cap = (size_t)n;
	}
	/* 1. the run's target pattern: its next step now, its later steps not yet */
	int nbest = 0, nfree = 0, top = 0;
	CTS_SCHED_FOR_EACH(pt, k, t) {
		if (pt->enabled[t] && cts_map_target_score(m->map, &pt->pending[t]) > 0)
			m->best[nbest++] = t;
	}
	if (nbest)
		return m->best[cts_rng_below(&m->rng, (uint64_t)nbest)];
	/* 2. a step that completes any uncovered pattern */
	CTS_SCHED_FOR_EACH(pt, k, t) {
		if (!pt->enabled[t] || cts_map_target_score(m->map, &pt->pending[t]) < 0)
			continue;
		int c = cts_map_would_complete(m->map, &pt->pending[t]);
		if (c > top) {
			top = c;
			nbest = 0;
		}
		if (c == top)
			m->best[nbest++] = t;  /* with top 0: the threads free to run */
	}
	nfree = nbest;
	if (nfree)
		return m->best[cts_rng_below(&m->rng, (uint64_t)nfree)];
	/* 3. every thread is held for the target: it cannot be had this way */
	return cts_sched_nth_enabled(pt, (int)cts_rng_below(&m->rng, (uint64_t)n));
}

static void map_executed(struct cts_strategy *s, const struct cts_sched_point *pt,
			 const struct cts_event *ev)
{
	(void)s, (void)pt, (void)ev;
}

static void map_end(struct cts_strategy *s, const struct cts_run_summary *sum)
{
	(void)s, (void)sum;
}

/* Covering every estimated pattern is no exhaustive search of schedules. */
static bool map_complete(const struct cts_strategy *s)
{
	(void)s;
	return false;
}

static void map_destroy(struct cts_strategy *s)
{
	free(((struct map_strategy *)s)->best);
	free(s);
}

static const struct cts_strategy_ops map_ops = {
	.name = "map",
	.begin_run = map_begin,
	.choose = map_choose,
	.executed = map_executed,
	.end_run = map_end,
	.complete = map_complete,
	.destroy = map_destroy,
};

struct cts_strategy *cts_map_strategy_create(const struct cts_strategy_config *cfg)
{
	if (!cfg->map)
		return NULL;
	struct map_strategy *m = cts_xcalloc(1, sizeof(*m));
	m->base.ops = &map_ops;
	m->base.cfg = *cfg;
	m->map = cfg->map;
	return &m->base;
}
