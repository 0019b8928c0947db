/* replay: follow a saved schedule exactly, checking at every step that the
 * chosen thread is about to do what the recorded run did. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/schedule.h"
#include "strategies/strategy.h"

struct replay_strategy {
	struct cts_strategy base;
	const struct cts_schedule *sched;
	struct cts_schedule *owned;  /* loaded here, freed here */
	bool ran;
	char why[512];
};

static bool replay_begin(struct cts_strategy *s, uint64_t run)
{
	struct replay_strategy *r = (struct replay_strategy *)s;
	(void)run;
	if (r->ran)
		return false;
	r->ran = true;
	return true;
}

static int replay_choose(struct cts_strategy *s, const struct cts_sched_point *pt)
{
	struct replay_strategy *r = (struct replay_strategy *)s;
	char want[96], got[96];

	if (pt->step >= r->sched->n && r->sched->bug &&
	    strncmp(r->sched->bug, "inconclusive:", 13) == 0) {
		/* The recorded run was cut here (step budget, timeout). */
		snprintf(r->why, sizeof(r->why), "the schedule ends after %zu steps (recorded: %s)",
			 r->sched->n, r->sched->bug);
		return CTS_CHOOSE_END;
	}
	if (pt->step >= r->sched->n) {
		snprintf(r->why, sizeof(r->why),
			 "step %" PRIu64 ": the program goes on past the end of the schedule (%zu steps)",
			 pt->step, r->sched->n);
		return CTS_CHOOSE_DIVERGED;
	}
	const struct cts_sched_step *st = &r->sched->steps[pt->step];
	struct cts_event w;
	cts_event_init(&w, st->tid, st->op);
	w.obj = st->obj;
	cts_event_str(&w, want, sizeof(want));
	if (st->tid >= pt->nthreads || !pt->alive[st->tid]) {
		snprintf(r->why, sizeof(r->why),
			 "step %" PRIu64 ": schedule runs thread %d (%s) but it does not exist", pt->step,
			 st->tid, want);
		return CTS_CHOOSE_DIVERGED;
	}
	const struct cts_event *p = &pt->pending[st->tid];
	/* Blocked in the kernel when the recorded run had it back already: wait for it. */
	if (pt->outside && pt->outside[st->tid] && !pt->enabled[st->tid] && p->op == st->op &&
	    p->obj == st->obj)
		return CTS_CHOOSE_WAIT;
	if (p->op != st->op || p->obj != st->obj) {
		cts_event_str(p, got, sizeof(got));
		snprintf(r->why, sizeof(r->why),
			 "step %" PRIu64 ": thread %d was recorded doing '%s' but now does '%s'",
			 pt->step, st->tid, want, got);
		return CTS_CHOOSE_DIVERGED;
	}
	if (!pt->enabled[st->tid]) {
		snprintf(r->why, sizeof(r->why),
			 "step %" PRIu64 ": thread %d ('%s') is not enabled now", pt->step, st->tid,
			 want);
		return CTS_CHOOSE_DIVERGED;
	}
	return st->tid;
}

static void replay_executed(struct cts_strategy *s, const struct cts_sched_point *pt,
			    const struct cts_event *ev)
{
	(void)s, (void)pt, (void)ev;
}

static void replay_end(struct cts_strategy *s, const struct cts_run_summary *sum)
{
	(void)s, (void)sum;
}

static bool replay_complete(const struct cts_strategy *s)
{
	return ((const struct replay_strategy *)s)->ran;
}

static const char *replay_diverged(const struct cts_strategy *s)
{
	return ((const struct replay_strategy *)s)->why;
}

static void replay_destroy(struct cts_strategy *s)
{
	struct replay_strategy *r = (struct replay_strategy *)s;
	cts_schedule_free(r->owned);
	free(r);
}

static const struct cts_strategy_ops replay_ops = {
	.name = "replay",
	.begin_run = replay_begin,
	.choose = replay_choose,
	.executed = replay_executed,
	.end_run = replay_end,
	.complete = replay_complete,
	.diverged = replay_diverged,
	.destroy = replay_destroy,
};

struct cts_strategy *cts_replay_create(const struct cts_strategy_config *cfg, char *err,
				       size_t errlen)
{
	struct cts_schedule *sched = NULL;
	if (!cfg->schedule && !cfg->schedule_file) {
		snprintf(err, errlen, "replay needs a schedule file");
		return NULL;
	}
	if (!cfg->schedule && cts_schedule_load(cfg->schedule_file, &sched, err, errlen) != 0)
		return NULL;
	struct replay_strategy *r = cts_xcalloc(1, sizeof(*r));
	r->base.ops = &replay_ops;
	r->base.cfg = *cfg;
	r->owned = sched;
	r->sched = sched ? sched : cfg->schedule;
	return &r->base;
}
