/* HaPSet guidance over the search stack (see hapset.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/hapset.h"
#include "models/coverage.h"
#include "strategies/hapset.h"
#include "strategies/systematic.h"

#define DEFAULT_LEARN 10

struct hstrat {
	struct cts_strategy base;
	struct cts_hapset_options opt;
	struct cts_hapset *h;
	struct cts_strategy *search, *rnd;
	uint64_t learn;
	bool learning;
	int k;
	const struct cts_sched_point *pt;   /* the decision being made, for the hooks */
	uint32_t *st_of;                    /* statement of each step's event this run */
	size_t st_cap;
	uint64_t run;
	struct pend { uint64_t run, step; uint32_t st; } *pend;  /* per thread: its pending
	                                    * statement, captured once per decision */
	int npend;
	uint64_t pruned;                    /* races or alternatives HaPSet dropped */
};

static const struct cts_strategy_ops hapset_ops;

bool cts_strategy_is_hapset(const struct cts_strategy *s)
{
	return s && s->ops == &hapset_ops;
}

/* Statement of held thread t's pending event at the decision pt. */
static uint32_t pending_stmt(struct hstrat *x, const struct cts_sched_point *pt, int t)
{
	if (t >= x->npend) {
		int n = x->npend ? x->npend : 16;
		while (n <= t)
			n *= 2;
		x->pend = cts_xgrow(x->pend, (size_t)x->npend, (size_t)n, sizeof(*x->pend));
		x->npend = n;
	}
	struct pend *c = &x->pend[t];
	if (c->run == x->run + 1 && c->step == pt->step)
		return c->st;
	uint64_t ctx[CTS_CTX_MAX] = { 0 };
	if (x->k && x->base.cfg.context &&
	    x->base.cfg.context(x->base.cfg.context_ctx, t, x->k, ctx) < 0)
		memset(ctx, 0, sizeof(ctx));
	*c = (struct pend){ x->run + 1, pt->step, cts_hapset_stmt(x->h, pt->pending[t].pc, ctx, x->k) };
	return c->st;
}

static void set_stmt(struct hstrat *x, uint64_t step, uint32_t st)
{
	if (step >= x->st_cap) {
		size_t ncap = x->st_cap ? x->st_cap : 1024;
		while (ncap <= step)
			ncap *= 2;
		x->st_of = cts_xgrow(x->st_of, x->st_cap, ncap, sizeof(*x->st_of));
		x->st_cap = ncap;
	}
	x->st_of[step] = st;
}

/* ---- hooks of the search ---- */

static void h_observe(void *ctx, uint64_t step, const struct cts_event *ev)
{
	struct hstrat *x = ctx;
	if (step < x->st_cap)
		cts_hapset_learn(x->h, ev, x->st_of[step]);
}

/* The pending event `later` of a thread still held at the current decision. */
static bool covered(struct hstrat *x, uint32_t sel, const struct cts_event *later)
{
	if (!x->pt || later->tid < 0 || later->tid >= x->pt->nthreads)
		return false;
	return cts_hapset_has(x->h, sel, pending_stmt(x, x->pt, later->tid));
}

static bool h_accept_race(void *ctx, uint64_t step, const struct cts_event *earlier,
			  const struct cts_event *later)
{
	struct hstrat *x = ctx;
	(void)earlier;
	if (step >= x->st_cap || !covered(x, x->st_of[step], later))
		return true;
	x->pruned += x->opt.prune;
	return false;
}

/* odpor: the race of two executed steps, after the run: their statements
 * are known (st_of), no pending event is needed. */
static bool h_accept_steps(void *ctx, uint64_t earlier, uint64_t later)
{
	struct hstrat *x = ctx;
	if (earlier >= x->st_cap || later >= x->st_cap ||
	    !cts_hapset_has(x->h, x->st_of[earlier], x->st_of[later]))
		return true;
	x->pruned += x->opt.prune;
	return false;
}

static bool h_accept_alt(void *ctx, uint64_t step, const struct cts_event *sel,
			 const struct cts_event *alt)
{
	struct hstrat *x = ctx;
	if (!x->pt || sel->tid < 0 || !covered(x, pending_stmt(x, x->pt, sel->tid), alt))
		return true;
	(void)step;
	x->pruned += x->opt.prune;
	return false;
}

static void h_end_run(void *ctx, const struct cts_run_summary *sum)
{
	struct hstrat *x = ctx;
	cts_hapset_end_run(x->h, sum->run, !sum->bug);
}

/* ---- the strategy ---- */

static bool hs_begin(struct cts_strategy *s, uint64_t run)
{
	struct hstrat *x = (struct hstrat *)s;
	x->learning = run < x->learn;
	x->run = run;
	return x->learning ? x->rnd->ops->begin_run(x->rnd, run)
			   : x->search->ops->begin_run(x->search, run);
}

static int hs_choose(struct cts_strategy *s, const struct cts_sched_point *pt)
{
	struct hstrat *x = (struct hstrat *)s;
	x->pt = pt;
	struct cts_strategy *in = x->learning ? x->rnd : x->search;
	int c = in->ops->choose(in, pt);
	if (c >= 0 && c < pt->nthreads)
		set_stmt(x, pt->step, pending_stmt(x, pt, c));
	return c;
}

static void hs_executed(struct cts_strategy *s, const struct cts_sched_point *pt,
			const struct cts_event *ev)
{
	struct hstrat *x = (struct hstrat *)s;
	x->pt = pt;
	if (x->learning) {
		if (pt->step < x->st_cap)
			cts_hapset_learn(x->h, ev, x->st_of[pt->step]);
		x->rnd->ops->executed(x->rnd, pt, ev);
	} else {
		x->search->ops->executed(x->search, pt, ev);
	}
	x->pt = NULL;
}

static void hs_end_run(struct cts_strategy *s, const struct cts_run_summary *sum)
{
	struct hstrat *x = (struct hstrat *)s;
	x->pt = NULL;
	if (x->learning) {
		cts_hapset_end_run(x->h, sum->run, !sum->bug);
		x->rnd->ops->end_run(x->rnd, sum);
	} else {
		x->search->ops->end_run(x->search, sum);
	}
}

static bool hs_complete(const struct cts_strategy *s)
{
	const struct hstrat *x = (const struct hstrat *)s;
	return !x->learning && x->search->ops->complete(x->search) && !x->pruned;
}

bool cts_hapset_strategy_pruned_out(const struct cts_strategy *s)
{
	if (!cts_strategy_is_hapset(s))
		return false;
	const struct hstrat *x = (const struct hstrat *)s;
	return !x->learning && x->pruned && x->search->ops->complete(x->search);
}

static const char *hs_diverged(const struct cts_strategy *s)
{
	const struct hstrat *x = (const struct hstrat *)s;
	const struct cts_strategy *in = x->learning ? x->rnd : x->search;
	return in->ops->diverged ? in->ops->diverged(in) : NULL;
}

/* Break mode learned shared lines (strategy.h's restart): the runs so far
 * saw fewer events, so their pairs are of another event order. The pairs
 * go (a --hapset-load file's come back), the learning runs and the search
 * begin again. */
static void hs_restart(struct cts_strategy *s)
{
	struct hstrat *x = (struct hstrat *)s;
	char err[256];
	cts_hapset_forget(x->h);
	if (x->opt.load && cts_hapset_load(x->h, x->opt.load, err, sizeof(err)) != 0)
		cts_debug_msg("hapset: %s", err);
	if (x->search->ops->restart)
		x->search->ops->restart(x->search);
	x->pruned = 0;
	for (int t = 0; t < x->npend; t++)
		x->pend[t].run = 0; /* statements captured in a void run */
}

static void hs_destroy(struct cts_strategy *s)
{
	struct hstrat *x = (struct hstrat *)s;
	cts_strategy_destroy(x->search);
	cts_strategy_destroy(x->rnd);
	cts_hapset_free(x->h);
	free(x->st_of);
	free(x->pend);
	free(x);
}

static const struct cts_strategy_ops hapset_ops = {
	.name = "hapset",
	.begin_run = hs_begin,
	.choose = hs_choose,
	.executed = hs_executed,
	.end_run = hs_end_run,
	.complete = hs_complete,
	.diverged = hs_diverged,
	.restart = hs_restart,
	.destroy = hs_destroy,
};

struct cts_strategy *cts_hapset_create(const char *name, const struct cts_strategy_config *cfg,
				       char *err, size_t errlen)
{
	enum cts_search_kind kind;
	bool plain = strcmp(name, "hapset") == 0;
	if (plain || strcmp(name, "dpor") == 0)
		kind = CTS_SEARCH_DPOR;
	else if (strcmp(name, "odpor") == 0)
		kind = CTS_SEARCH_ODPOR;
	else if (strcmp(name, "pcb") == 0)
		kind = CTS_SEARCH_PCB;
	else if (strcmp(name, "idb") == 0)
		kind = CTS_SEARCH_IDB;
	else {
		snprintf(err, errlen, "--guide hapset works with dpor, odpor, pcb and idb, not '%s'", name);
		return NULL;
	}
	struct hstrat *x = cts_xcalloc(1, sizeof(*x));
	x->base.ops = &hapset_ops;
	x->base.cfg = *cfg;
	if (cfg->hapset)
		x->opt = *cfg->hapset;
	x->learn = x->opt.learn_given ? x->opt.learn : plain ? DEFAULT_LEARN : 0;
	x->k = cfg->context_k < 0 ? 0 : cfg->context_k > CTS_CTX_MAX ? CTS_CTX_MAX : cfg->context_k;
	x->h = cts_hapset_new(x->opt.describe_pc, x->opt.describe_ctx);
	if (x->opt.load && cts_hapset_load(x->h, x->opt.load, err, errlen) != 0) {
		cts_hapset_free(x->h);
		free(x);
		return NULL;
	}
	struct cts_search_hooks hooks = {
		.ctx = x, .observe = h_observe, .accept_race = h_accept_race,
		.accept_steps = h_accept_steps,
		.accept_alt = h_accept_alt, .end_run = h_end_run, .defer = !x->opt.prune,
	};
	x->search = cts_search_create(kind, cfg, &hooks);
	x->rnd = cts_random_create(cfg);
	return &x->base;
}

json_t *cts_hapset_strategy_report(const struct cts_strategy *s)
{
	if (!cts_strategy_is_hapset(s))
		return NULL;
	const struct hstrat *x = (const struct hstrat *)s;
	json_t *o = cts_hapset_report(x->h);
	json_object_set_new(o, "learning_runs", json_integer((json_int_t)x->learn));
	struct cts_search_stats st = { 0 };
	cts_search_get_stats(x->search, &st);
	json_object_set_new(o, "prune", json_boolean(x->opt.prune));
	json_object_set_new(o, "pruned", json_integer((json_int_t)x->pruned));
	json_object_set_new(o, "deferred", json_integer((json_int_t)st.deferred));
	return o;
}

/* --coverage: statements and pairs learnt so far, next to MAP's columns. */
static void cov_values(void *ctx, double *out)
{
	const struct cts_hapset *h = ctx;
	out[0] = (double)cts_hapset_statements(h);
	out[1] = (double)cts_hapset_pairs(h);
}

bool cts_hapset_coverage_source(const struct cts_strategy *s, struct cts_coverage_source *src)
{
	if (!cts_strategy_is_hapset(s))
		return false;
	const struct hstrat *x = (const struct hstrat *)s;
	*src = (struct cts_coverage_source){
		.name = "hapset", .ctx = x->h, .nmetrics = 2,
		.metrics = { "hapset_statements", "hapset_pairs" },
		.plot = { false, true },
		.values = cov_values,
	};
	return true;
}

/* ---- --coverage under other strategies: a HaPSet learnt alongside ---- */

struct watch {
	const struct cts_strategy *s;       /* its backend's context capture */
	struct cts_hapset *h;
	int k;
	uint32_t next;                      /* statement of the event about to run */
	bool have;
	uint64_t run;
};

/* A run starts: drop what a run without an end left (the explorer's replays
 * that minimize a bug feed events but end no coverage row). */
static void w_begin(void *ctx)
{
	struct watch *w = ctx;
	cts_hapset_drop_run(w->h);
	w->have = false;
}

static void w_pending(void *ctx, int tid, const struct cts_event *ev)
{
	struct watch *w = ctx;
	uint64_t c[CTS_CTX_MAX] = { 0 };
	if (w->k && w->s->cfg.context && w->s->cfg.context(w->s->cfg.context_ctx, tid, w->k, c) < 0)
		memset(c, 0, sizeof(c));
	w->next = cts_hapset_stmt(w->h, ev->pc, c, w->k);
	w->have = true;
}

static void w_event(void *ctx, const struct cts_event *ev)
{
	struct watch *w = ctx;
	if (w->have)
		cts_hapset_learn(w->h, ev, w->next);
	w->have = false;
}

static void w_end_run(void *ctx, bool bug)
{
	struct watch *w = ctx;
	cts_hapset_end_run(w->h, w->run++, !bug);
	w->have = false;
}

static void w_values(void *ctx, double *out)
{
	cov_values(((struct watch *)ctx)->h, out);
}

static void w_destroy(void *ctx)
{
	struct watch *w = ctx;
	cts_hapset_free(w->h);
	free(w);
}

void cts_hapset_watch_source(const struct cts_strategy *s, int k,
			     void (*describe_pc)(void *ctx, uint64_t pc, char *buf, size_t len),
			     void *describe_ctx, struct cts_coverage_source *src)
{
	struct watch *w = cts_xcalloc(1, sizeof(*w));
	w->s = s;
	w->k = k < 0 ? 0 : k > CTS_CTX_MAX ? CTS_CTX_MAX : k;
	w->h = cts_hapset_new(describe_pc, describe_ctx);
	*src = (struct cts_coverage_source){
		.name = "hapset", .ctx = w, .nmetrics = 2,
		.metrics = { "hapset_statements", "hapset_pairs" },
		.plot = { false, true },
		.begin_run = w_begin, .pending = w_pending, .event = w_event, .end_run = w_end_run,
		.values = w_values, .destroy = w_destroy,
	};
}

int cts_hapset_strategy_save(const struct cts_strategy *s, char *err, size_t errlen)
{
	if (!cts_strategy_is_hapset(s))
		return 0;
	const struct hstrat *x = (const struct hstrat *)s;
	return x->opt.save ? cts_hapset_save(x->h, x->opt.save, err, errlen) : 0;
}
