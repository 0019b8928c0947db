/* random: a uniform choice among the enabled threads at every scheduling point. */
#include <stdlib.h>
#include "models/error.h"
#include "strategies/strategy.h"

struct random_strategy {
	struct cts_strategy base;
	struct cts_rng rng;
};

static bool random_begin(struct cts_strategy *s, uint64_t run)
{
	struct random_strategy *r = (struct random_strategy *)s;
	/* Each run has its own stream so run N can be reproduced alone. */
	cts_rng_seed(&r->rng, s->cfg.seed * 0x100000001B3ull + run);
	return true;
}

static int random_choose(struct cts_strategy *s, const struct cts_sched_point *pt)
{
	struct random_strategy *r = (struct random_strategy *)s;
	int n = cts_sched_count_enabled(pt);
	return cts_sched_nth_enabled(pt, (int)cts_rng_below(&r->rng, (uint64_t)n));
}

static void random_executed(struct cts_strategy *s, const struct cts_sched_point *pt,
			    const struct cts_event *ev)
{
	(void)s, (void)pt, (void)ev;
}

static void random_end(struct cts_strategy *s, const struct cts_run_summary *sum)
{
	(void)s, (void)sum;
}

static bool random_complete(const struct cts_strategy *s)
{
	(void)s;
	return false;
}

static void random_destroy(struct cts_strategy *s)
{
	free(s);
}

static const struct cts_strategy_ops random_ops = {
	.name = "random",
	.begin_run = random_begin,
	.choose = random_choose,
	.executed = random_executed,
	.end_run = random_end,
	.complete = random_complete,
	.destroy = random_destroy,
};

struct cts_strategy *cts_random_create(const struct cts_strategy_config *cfg)
{
	struct random_strategy *r = cts_xcalloc(1, sizeof(*r));
	r->base.ops = &random_ops;
	r->base.cfg = *cfg;
	return &r->base;
}
