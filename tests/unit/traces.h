/* Unit tests on the simulated backend: the Mazurkiewicz traces a search
 * explores. A run's trace is named by a hash of its Foata normal form under
 * cts_event_dependent (events in levels: an event's level is one more than
 * the highest level of an earlier event it depends on; within a level by
 * thread, and events of one thread are dependent), so two runs have the
 * same name exactly when they are the same trace up to the order of
 * independent events. Runs cut short (sleep-set blocked, step budget) are
 * no trace. */
#ifndef CTS_TEST_TRACES_H
#define CTS_TEST_TRACES_H

#include <stdlib.h>
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/systematic.h"
#include "tests/unit/tap.h"

#define TRACE_MAX_EV 4096
#define TRACE_MAX 200000
#define TRACE_SLOTS (1u << 19)

struct trace_rec {
	struct cts_event ev[TRACE_MAX_EV];
	uint32_t level[TRACE_MAX_EV];
	uint32_t order[TRACE_MAX_EV];
	uint64_t n;
	uint64_t *seen;    /* hashes of the traces of the runs so far */
	uint64_t tab[TRACE_SLOTS];
	size_t nseen;
	uint64_t dups;     /* runs whose trace an earlier run had */
};

static inline void trace_observe(void *ctx, uint64_t step, const struct cts_event *ev)
{
	struct trace_rec *t = ctx;
	if (step < TRACE_MAX_EV) {
		t->ev[step] = *ev;
		t->n = step + 1;
	}
}

static inline int trace_by_level(const void *a, const void *b, void *ctx)
{
	const struct trace_rec *t = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (t->level[x] != t->level[y])
		return t->level[x] < t->level[y] ? -1 : 1;
	return t->ev[x].tid - t->ev[y].tid;
}

static inline uint64_t trace_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static inline void trace_end(void *ctx, const struct cts_run_summary *sum)
{
	struct trace_rec *t = ctx;
	if (sum->aborted)
		return;
	for (uint64_t k = 0; k < t->n; k++) {
		uint32_t lv = 0;
		for (uint64_t m = 0; m < k; m++)
			if (t->level[m] + 1 > lv && cts_event_dependent(&t->ev[m], &t->ev[k]))
				lv = t->level[m] + 1;
		t->level[k] = lv;
		t->order[k] = (uint32_t)k;
	}
	qsort_r(t->order, t->n, sizeof(*t->order), trace_by_level, t);
	uint64_t h = 0;
	for (uint64_t k = 0; k < t->n; k++) {
		const struct cts_event *e = &t->ev[t->order[k]];
		h = trace_mix(h, t->level[t->order[k]]);
		h = trace_mix(h, (uint64_t)e->tid << 32 | e->op);
		h = trace_mix(h, e->obj);
	}
	h |= 1;   /* 0 marks a free slot */
	size_t i = (size_t)(h >> 7) & (TRACE_SLOTS - 1);
	while (t->tab[i] && t->tab[i] != h)
		i = (i + 1) & (TRACE_SLOTS - 1);
	if (t->tab[i]) {
		t->dups++;
		return;
	}
	if (t->nseen < TRACE_MAX) {
		t->tab[i] = h;
		t->seen[t->nseen++] = h;
	}
}

/* One exploration and the traces of its runs. */
struct trace_set {
	uint64_t runs, cut, traces, dups;
	bool complete;
	int nbugs;
	enum cts_bug_kind kind;   /* first bug */
	struct cts_search_stats stats;
	uint64_t *seen;   /* the traces, sorted (trace_set_free) */
	size_t nseen;
};

static inline int trace_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* max_runs 0: until the search ends. */
static inline struct trace_set trace_explore(struct cts_sim *sim, enum cts_search_kind kind,
					     bool stop_on_bug, uint64_t max_runs)
{
	struct trace_set o = { 0 };
	struct trace_rec *t = calloc(1, sizeof(*t));
	t->seen = malloc(TRACE_MAX * sizeof(*t->seen));
	struct cts_strategy_config sc = { .max_steps = 10000 };
	struct cts_search_hooks hooks = { .ctx = t, .observe = trace_observe, .end_run = trace_end };
	struct cts_strategy *s = cts_search_create(kind, &sc, &hooks);
	struct cts_explorer_config cfg = { .runs = max_runs, .max_steps = 10000,
					   .stop_on_bug = stop_on_bug, .quiet = true,
					   .log = tap_quiet_log() };
	struct cts_explore_result res;
	if (cts_sim_explore(sim, &cfg, s, &res))
		tap_diag("explore failed: %s", res.error);
	o.runs = res.runs;
	o.cut = res.ncut;
	o.complete = res.complete;
	o.nbugs = res.nbugs;
	if (res.nbugs)
		o.kind = res.bugs[0].kind;
	cts_search_get_stats(s, &o.stats);
	o.traces = t->nseen;
	o.dups = t->dups;
	qsort(t->seen, t->nseen, sizeof(*t->seen), trace_cmp);
	o.seen = t->seen;
	o.nseen = t->nseen;
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	free(t);
	return o;
}

/* How many of want's traces got does not have. */
static inline size_t trace_missing(const struct trace_set *want, const struct trace_set *got)
{
	size_t n = 0;
	for (size_t i = 0; i < want->nseen; i++)
		n += bsearch(&want->seen[i], got->seen, got->nseen, sizeof(*got->seen), trace_cmp) == NULL;
	return n;
}

static inline void trace_set_free(struct trace_set *o)
{
	free(o->seen);
	o->seen = NULL;
}

#endif
