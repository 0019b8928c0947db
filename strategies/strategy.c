#include <stdio.h>
#include <string.h>
#include "strategies/active.h"
#include "strategies/hapset.h"
#include "strategies/strategy.h"
#include "strategies/systematic.h"
#include "strategies/stateful.h"

struct entry {
	const char *name;
	struct cts_strategy *(*create)(const struct cts_strategy_config *cfg);
};

static const struct entry table[] = {
	{ "random", cts_random_create },
	{ "pct", cts_pct_create },
	{ "map", cts_map_strategy_create },  /* MAP coverage (strategies/map_guided.c) */
	/* systematic strategies (strategies/systematic.h) */
	{ "dfs", cts_dfs_create },
	{ "dpor", cts_dpor_create },
	{ "odpor", cts_odpor_create },
	{ "pcb", cts_pcb_create },
	{ "idb", cts_idb_create },
};

const char *cts_strategy_names(void)
{
	return "random, pct, map, dfs, dpor, odpor, pcb, idb, unfold, racefuzzer, deadlockfuzzer, atomfuzzer, hapset";
}

struct cts_strategy *cts_strategy_create(const char *name, const struct cts_strategy_config *cfg,
					 char *err, size_t errlen)
{
	if (strcmp(name, "replay") == 0)
		return cts_replay_create(cfg, err, errlen);
	/* Active testing, and breakpoints over random or pct (strategies/active.h). */
	if (strstr(name, "fuzzer") ||
	    (cfg->active && cts_suspects_count(cfg->active->breaks) > 0))
		return cts_active_create(name, cfg, err, errlen);
	/* HaPSet guidance (strategies/hapset.h). */
	if (strcmp(name, "hapset") == 0 || (cfg->hapset && cfg->hapset->guide))
		return cts_hapset_create(name, cfg, err, errlen);
	/* Petri-net state matching (strategies/stateful.h) */
	enum cts_petri_keying keying = cfg->state_match == CTS_MATCH_PETRI_WRITES ?
				       CTS_PETRI_WRITES : CTS_PETRI_VALUES;
	if (strcmp(name, "unfold") == 0)
		return cts_petri_unfold_create(cfg, keying, !cfg->no_cutoffs);
	if (cfg->state_match != CTS_MATCH_NONE && strcmp(name, "dfs") == 0)
		return cts_petri_dfs_create(cfg, keying);
	if (cfg->state_match != CTS_MATCH_NONE) {
		snprintf(err, errlen, "--state-match works with --strategy dfs (and unfold), not '%s'",
			 name);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(table[i].name, name) != 0)
			continue;
		struct cts_strategy *s = table[i].create(cfg);
		if (!s)
			snprintf(err, errlen, "cannot create strategy '%s'", name);
		return s;
	}
	snprintf(err, errlen, "unknown strategy '%s' (known: %s)", name, cts_strategy_names());
	return NULL;
}

void cts_strategy_destroy(struct cts_strategy *s)
{
	if (s)
		s->ops->destroy(s);
}

int cts_sched_count_enabled(const struct cts_sched_point *pt)
{
	int n = 0;
	CTS_SCHED_FOR_EACH(pt, k, t)
		n += pt->enabled[t];
	return n;
}

int cts_sched_nth_enabled(const struct cts_sched_point *pt, int i)
{
	CTS_SCHED_FOR_EACH(pt, k, t)
		if (pt->enabled[t] && i-- == 0)
			return t;
	return -1;
}

void cts_rng_seed(struct cts_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = cts_splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t cts_rng_next(struct cts_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t cts_rng_below(struct cts_rng *r, uint64_t n)
{
	if (n <= 1)
		return 0;
	/* Lemire's rejection keeps the choice uniform. */
	uint64_t lim = -n % n, x;
	do
		x = cts_rng_next(r);
	while (x < lim);
	return x % n;
}
