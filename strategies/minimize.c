#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "strategies/minimize.h"

/* ---- the guide strategy ------------------------------------------------ */

struct guide {
	struct cts_strategy base;
	int *tids;
	size_t n;
	bool infeasible;
};

static bool guide_begin(struct cts_strategy *s, uint64_t run)
{
	(void)run;
	((struct guide *)s)->infeasible = false;
	return true;
}

static int guide_choose(struct cts_strategy *s, const struct cts_sched_point *pt)
{
	struct guide *g = (struct guide *)s;
	if (pt->step < g->n) {
		int t = g->tids[pt->step];
		if (t < pt->nthreads && pt->enabled[t])
			return t;
		/* A thread in the kernel (outside) is not waited for: a candidate
		 * that needs it now is infeasible, which never stalls. */
		g->infeasible = true;
		return CTS_CHOOSE_STOP;
	}
	/* Past the list: no preemptions. */
	if (pt->last >= 0 && pt->last < pt->nthreads && pt->enabled[pt->last])
		return pt->last;
	CTS_SCHED_FOR_EACH(pt, i, t)
		if (pt->enabled[t])
			return t;
	return CTS_CHOOSE_STOP;
}

static void guide_executed(struct cts_strategy *s, const struct cts_sched_point *pt,
			   const struct cts_event *ev)
{
	(void)s, (void)pt, (void)ev;
}

static void guide_end(struct cts_strategy *s, const struct cts_run_summary *sum)
{
	(void)s, (void)sum;
}

static bool guide_complete(const struct cts_strategy *s)
{
	(void)s;
	return false;
}

static const char *guide_diverged(const struct cts_strategy *s)
{
	return ((const struct guide *)s)->infeasible ? "candidate schedule not feasible" : "";
}

static void guide_destroy(struct cts_strategy *s)
{
	free(((struct guide *)s)->tids);
	free(s);
}

static const struct cts_strategy_ops guide_ops = {
	.name = "minimize",
	.begin_run = guide_begin,
	.choose = guide_choose,
	.executed = guide_executed,
	.end_run = guide_end,
	.complete = guide_complete,
	.diverged = guide_diverged,
	.destroy = guide_destroy,
};

struct cts_strategy *cts_min_guide_create(const int *tids, size_t n)
{
	struct guide *g = cts_xcalloc(1, sizeof(*g));
	g->base.ops = &guide_ops;
	g->tids = cts_xmalloc((n ? n : 1) * sizeof(*tids));
	if (n)
		memcpy(g->tids, tids, n * sizeof(*tids));
	g->n = n;
	return &g->base;
}

/* ---- runs -------------------------------------------------------------- */

void cts_min_run_free(struct cts_min_run *r)
{
	free(r->tids);
	free(r->preempt);
	free(r->ev);
	memset(r, 0, sizeof(*r));
}

uint64_t cts_min_run_preemptions(const struct cts_min_run *r)
{
	uint64_t p = 0;
	for (size_t i = 0; i < r->n; i++)
		p += r->preempt[i];
	return p;
}

void cts_min_result_free(struct cts_min_result *res)
{
	cts_min_run_free(&res->best);
}

int cts_min_run_threads(const struct cts_min_run *r)
{
	int n = 0;
	for (size_t i = 0; i < r->n; i++) {
		size_t j = 0;
		while (j < i && r->tids[j] != r->tids[i])
			j++;
		n += j == i;
	}
	return n;
}

struct mini {
	const struct cts_min_config *cfg;
	cts_min_try_fn fn;
	void *ctx;
	struct cts_min_result *res;
	bool failed;
};

static bool spent(struct mini *m)
{
	if (m->res->runs >= m->cfg->max_runs) {
		m->res->cut = true;
		return true;
	}
	return m->failed;
}

/* Run a candidate; out is filled (free it). false when nothing ran. */
static bool attempt(struct mini *m, const int *tids, size_t n, struct cts_min_run *out)
{
	memset(out, 0, sizeof(*out));
	if (spent(m))
		return false;
	m->res->runs++;
	if (m->fn(m->ctx, tids, n, out) != 0) {
		m->failed = true;
		cts_min_run_free(out);
		return false;
	}
	return true;
}

/* ---- preemption reduction ------------------------------------------------ */

/* Candidates that take away the preemption at step p of b: (a) b up to p,
 * then no preemptions at all; (b) the preempted thread's next block of
 * steps moved up to p, the rest of b kept in order. */
static size_t candidate(const struct cts_min_run *b, size_t p, int kind, int *out)
{
	memcpy(out, b->tids, p * sizeof(*out));
	if (kind == 0)
		return p;
	int u = b->tids[p - 1];
	size_t j = p, k, n = p;
	while (j < b->n && b->tids[j] != u)
		j++;
	if (j == b->n)
		return 0;
	for (k = j; k < b->n && b->tids[k] == u; k++)
		out[n++] = u;
	for (size_t i = p; i < j; i++)
		out[n++] = b->tids[i];
	for (size_t i = k; i < b->n; i++)
		out[n++] = b->tids[i];
	return n;
}

static void reduce(struct mini *m)
{
	struct cts_min_run *best = &m->res->best;
	uint64_t bp = cts_min_run_preemptions(best);
	bool better = true;

	while (better && bp > 0) {
		better = false;
		int *cand = cts_xmalloc((best->n + 1) * sizeof(*cand));
		for (size_t p = 1; p < best->n && !better; p++) {
			if (!best->preempt[p])
				continue;
			for (int kind = 0; kind < 2 && !better; kind++) {
				size_t n = candidate(best, p, kind, cand);
				struct cts_min_run r;
				if ((kind && !n) || !attempt(m, cand, n, &r))
					continue;
				uint64_t rp = cts_min_run_preemptions(&r);
				if (r.same_bug && rp < bp) {
					cts_min_run_free(best);
					*best = r;
					bp = rp;
					better = true;
				} else {
					cts_min_run_free(&r);
				}
			}
			if (spent(m))
				break;
		}
		free(cand);
	}
}

/* ---- threads the bug does not need ---------------------------------------- */

static size_t steps_of(const struct cts_min_run *r, int t)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->tids[i] == t;
	return n;
}

/* b without thread t's steps from its k-th on (the guide then runs t only
 * where it must: when nothing else can go on before the bug). */
static size_t without_tail(const struct cts_min_run *b, int t, size_t k, int *out)
{
	size_t n = 0, seen = 0;
	for (size_t i = 0; i < b->n; i++)
		if (b->tids[i] != t || seen++ < k)
			out[n++] = b->tids[i];
	return n;
}

/* For each thread but the failing one, lowest number first: drop all its
 * steps, else the shortest tail of them found by bisection (the number of
 * steps kept, in log2 replays). A candidate is taken when its run is the
 * same bug with fewer steps of the thread and no more preemptions. */
static void drop_threads(struct mini *m)
{
	int maxt = -1;
	for (size_t i = 0; i < m->res->best.n; i++)
		if (m->res->best.tids[i] > maxt)
			maxt = m->res->best.tids[i];
	for (int t = 0; t <= maxt && !spent(m); t++) {
		struct cts_min_run *b = &m->res->best, keep = { 0 };
		size_t mt = steps_of(b, t), lo = 0, hi = mt, k = 0;
		uint64_t bp = cts_min_run_preemptions(b);
		if (!mt || t == m->cfg->fail_tid)
			continue;
		int *cand = cts_xmalloc((b->n + 1) * sizeof(*cand));
		/* Smallest k whose cut reproduces; k = mt (no cut) does. */
		while (lo < hi) {
			struct cts_min_run r;
			if (!attempt(m, cand, without_tail(b, t, k, cand), &r))
				break;
			if (r.same_bug && !r.infeasible && cts_min_run_preemptions(&r) <= bp &&
			    steps_of(&r, t) < mt) {
				cts_min_run_free(&keep);
				keep = r;
				hi = k;
			} else {
				cts_min_run_free(&r);
				lo = k + 1;
			}
			k = lo + (hi - lo) / 2;
		}
		free(cand);
		if (keep.n) {
			cts_min_run_free(b);
			*b = keep;
		}
	}
}

/* ---- the critical pair ---------------------------------------------------- */

static bool pairable(const struct cts_event *e)
{
	return cts_op_is_range(e->op) || cts_op_is_sync(e->op);
}

/* Steps i < j of different threads that conflict; flipped: thread tj's
 * steps in (i, j] go before i. The closest pairs first: the first whose
 * flip runs clean is the pair. */
static void critical_pair(struct mini *m)
{
	struct cts_min_run *b = &m->res->best;
	int *cand = cts_xmalloc((b->n + 1) * sizeof(*cand));

	m->res->pair[0] = m->res->pair[1] = m->res->pair_after = -1;
	for (size_t d = 1; d < b->n && m->res->pair[0] < 0 && !spent(m); d++) {
		for (size_t i = 0; i + d < b->n && !spent(m); i++) {
			size_t j = i + d, n = i;
			int ti = b->tids[i], tj = b->tids[j];
			if (ti == tj || !pairable(&b->ev[i]) || !pairable(&b->ev[j]) ||
			    !cts_event_dependent(&b->ev[i], &b->ev[j]))
				continue;
			memcpy(cand, b->tids, i * sizeof(*cand));
			for (size_t k = i + 1; k <= j; k++)
				if (b->tids[k] == tj)
					cand[n++] = tj;
			for (size_t k = i; k <= j; k++)
				if (b->tids[k] != tj)
					cand[n++] = b->tids[k];
			for (size_t k = j + 1; k < b->n; k++)
				cand[n++] = b->tids[k];
			struct cts_min_run r;
			if (!attempt(m, cand, n, &r))
				break;
			bool flip_fixes = r.clean && !r.infeasible;
			cts_min_run_free(&r);
			if (!flip_fixes)
				continue;
			m->res->pair[0] = (long)i;
			m->res->pair[1] = (long)j;
			/* "comes between": ti's next step that conflicts with j. */
			for (size_t k = j + 1; k < b->n; k++)
				if (b->tids[k] == ti && cts_event_dependent(&b->ev[k], &b->ev[j])) {
					m->res->pair_after = (long)k;
					break;
				}
			break;
		}
	}
	free(cand);
}

int cts_minimize(struct cts_min_run *orig, const struct cts_min_config *cfg, cts_min_try_fn fn,
		 void *ctx, struct cts_min_result *res)
{
	struct mini m = { .cfg = cfg, .fn = fn, .ctx = ctx, .res = res };

	memset(res, 0, sizeof(*res));
	res->best = *orig;
	memset(orig, 0, sizeof(*orig));
	res->original_preemptions = cts_min_run_preemptions(&res->best);
	res->original_threads = cts_min_run_threads(&res->best);
	res->pair[0] = res->pair[1] = res->pair_after = -1;
	reduce(&m);
	drop_threads(&m);
	critical_pair(&m);
	return m.failed ? -1 : 0;
}
