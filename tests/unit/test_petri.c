/* Petri-net state matching (models/petri.h, strategies/stateful.h) through
 * cts_explore on simulated programs: exact run counts against dfs and dpor,
 * programs whose interleavings converge to one marking and ones whose do
 * not, and every bug of the buggy scripts still found. */
#include <inttypes.h>
#include <dirent.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/systematic.h"
#include "strategies/stateful.h"
#include "tests/unit/tap.h"

static char simdir[512];

static struct cts_sim *load(const char *name)
{
	char path[768], err[256];
	snprintf(path, sizeof(path), "%s/%s", simdir, name);
	struct cts_sim *sim = cts_sim_load(path, err, sizeof(err));
	if (!sim)
		tap_diag("%s", err);
	return sim;
}

static struct cts_sim *parse(const char *text)
{
	char err[256];
	struct cts_sim *sim = cts_sim_parse(text, err, sizeof(err));
	if (!sim)
		tap_diag("%s", err);
	return sim;
}

enum algo { DFS, DPOR, NAIVE, NAIVE_W };
static const char *const algo_names[] = { "dfs", "dpor", "naive", "naive/writes" };

/* Final states of real runs (a few variables, and whether a bug ended the
 * run): state matching must reach every one dfs reaches. */
#define MAX_FINALS 512
struct finals {
	struct cts_sim *sim;
	int n;
	char seen[MAX_FINALS][96];
};

static const char *const final_vars[] = { "x", "y", "a", "miss", "got", "ready", "p", "q", "c",
					  "f0", "f1", "f2", NULL };

static void finals_add(struct finals *f, bool bug)
{
	char buf[96];
	size_t off = (size_t)snprintf(buf, sizeof(buf), "%s", bug ? "bug" : "ok");
	for (int i = 0; final_vars[i] && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %" PRId64,
					cts_sim_value(f->sim, final_vars[i], 0));
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->seen[i], buf) == 0)
			return;
	if (f->n < MAX_FINALS)
		snprintf(f->seen[f->n++], sizeof(f->seen[0]), "%s", buf);
}

/* A strategy wrapped to see where each run ends. */
struct wrap {
	struct cts_strategy base;
	struct cts_strategy_ops ops;
	struct cts_strategy *in;
	struct finals *fin;
};

static bool w_begin(struct cts_strategy *b, uint64_t run)
{
	struct wrap *w = (struct wrap *)b;
	return w->in->ops->begin_run(w->in, run);
}

static int w_choose(struct cts_strategy *b, const struct cts_sched_point *pt)
{
	struct wrap *w = (struct wrap *)b;
	return w->in->ops->choose(w->in, pt);
}

static void w_executed(struct cts_strategy *b, const struct cts_sched_point *pt,
		       const struct cts_event *ev)
{
	struct wrap *w = (struct wrap *)b;
	w->in->ops->executed(w->in, pt, ev);
}

static void w_end(struct cts_strategy *b, const struct cts_run_summary *sum)
{
	struct wrap *w = (struct wrap *)b;
	if (!sum->aborted)
		finals_add(w->fin, sum->bug);
	w->in->ops->end_run(w->in, sum);
}

static bool w_complete(const struct cts_strategy *b)
{
	const struct wrap *w = (const struct wrap *)b;
	return w->in->ops->complete(w->in);
}

static const char *w_diverged(const struct cts_strategy *b)
{
	const struct wrap *w = (const struct wrap *)b;
	return w->in->ops->diverged ? w->in->ops->diverged(w->in) : "";
}

static void w_destroy(struct cts_strategy *b)
{
	free(b);
}

struct outcome {
	uint64_t runs;
	bool complete;
	int nbugs;
	enum cts_bug_kind kind;
	struct cts_petri_search_stats ps;
};

static uint64_t run_limit;

static struct outcome go(struct cts_sim *sim, enum algo a, bool stop_on_bug, struct finals *fin)
{
	struct outcome o = { 0 };
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, m);
	struct cts_strategy_config sc = { .max_steps = 10000 };
	struct cts_strategy *s;
	if (a == DFS || a == DPOR)
		s = cts_search_create(a == DFS ? CTS_SEARCH_DFS : CTS_SEARCH_DPOR, &sc, NULL);
	else
		s = cts_petri_dfs_create(&sc, a == NAIVE ? CTS_PETRI_VALUES : CTS_PETRI_WRITES);
	struct wrap *w = cts_xcalloc(1, sizeof(*w));
	w->ops = (struct cts_strategy_ops){ .name = s->ops->name, .begin_run = w_begin,
		.choose = w_choose, .executed = w_executed, .end_run = w_end,
		.complete = w_complete, .diverged = w_diverged, .destroy = w_destroy };
	w->base.ops = &w->ops;
	w->base.cfg = sc;
	w->in = s;
	static struct finals scratch;
	w->fin = fin ? fin : &scratch;
	w->fin->sim = sim;
	w->fin->n = 0;
	struct cts_explorer_config cfg = { .runs = run_limit, .max_steps = 10000,
					   .stop_on_bug = stop_on_bug, .quiet = true, .log = stderr };
	struct cts_explore_result res;
	if (cts_explore(&cfg, &be, m, &w->base, &res))
		tap_diag("explore failed: %s", res.error);
	o.runs = res.runs;
	o.complete = res.complete;
	o.nbugs = res.nbugs;
	if (res.nbugs)
		o.kind = res.bugs[0].kind;
	cts_petri_search_stats(s, &o.ps);
	cts_explore_result_free(&res);
	cts_strategy_destroy(&w->base);
	cts_strategy_destroy(s);
	cts_objmodel_free(m);
	return o;
}

static void show(const char *name, enum algo a, const struct outcome *o)
{
	tap_diag("%s %s: %" PRIu64 " runs, %d bugs, complete %d, markings %" PRIu64
		 ", cut %" PRIu64 ", places %" PRIu64 ", transitions %" PRIu64
		 ", conflicts %" PRIu64 " %s",
		 name, algo_names[a], o->runs, o->nbugs, o->complete, o->ps.markings, o->ps.terminals,
		 o->ps.places, o->ps.transitions, o->ps.conflicts, o->ps.why);
}

static bool same_finals(const struct finals *a, const struct finals *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		bool found = false;
		for (int j = 0; j < b->n; j++)
			found |= strcmp(a->seen[i], b->seen[j]) == 0;
		if (!found)
			return false;
	}
	return true;
}


/* Every script of tests/sim: each state-matching search reaches exactly the
 * final states dfs reaches (so no bug class is hidden), completely, and
 * never needs more runs than dfs. */
static void test_finals_vs_dfs(void)
{
	static struct finals fd, fp;
	DIR *dir = opendir(simdir);
	struct dirent *de;
	int checked = 0;

	if (!tap_ok(dir != NULL, "open %s", simdir))
		return;
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".sim"))
			continue;
		struct cts_sim *sim = load(de->d_name);
		if (!sim)
			continue;
		cts_sim_set_const(sim, "N", 2);
		run_limit = 100000;
		struct outcome d = go(sim, DFS, false, &fd);
		run_limit = 0;
		if (!d.complete && cts_sim_set_const(sim, "N", 1))
			d = go(sim, DFS, false, &fd);
		for (int a = NAIVE; a <= NAIVE_W; a++) {
			struct outcome o = go(sim, a, false, &fp);
			bool same = same_finals(&fd, &fp);
			if (!tap_ok(d.complete && o.complete && o.runs <= d.runs && same &&
				    o.ps.conflicts == 0,
				    "%s %s: %" PRIu64 " runs (dfs %" PRIu64 "), same %d final states",
				    de->d_name, algo_names[a], o.runs, d.runs, fd.n))
				show(de->d_name, a, &o);
		}
		cts_sim_free(sim);
		checked++;
	}
	closedir(dir);
	tap_ok(checked >= 20, "checked %d scripts", checked);
}

int main(int argc, char **argv)
{
	snprintf(simdir, sizeof(simdir), "%s/../sim", dirname(argv[0]));
	(void)argc;
	(void)parse;
	test_finals_vs_dfs();
	return tap_done();
}
