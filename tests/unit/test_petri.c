/* timeout: 180 */
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

#include "tests/unit/simload.h"

enum algo { DFS, DPOR, NAIVE, NAIVE_W, UNF, UNF_NC, UNF_W };
static const char *const algo_names[] = { "dfs", "dpor", "naive", "naive/writes", "unfold",
					  "unfold --no-cutoffs", "unfold/writes" };

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
static double time_limit;   /* seconds, 0 none */

static struct outcome go(struct cts_sim *sim, enum algo a, bool stop_on_bug, struct finals *fin)
{
	struct outcome o = { 0 };
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, m);
	struct cts_strategy_config sc = { .max_steps = 10000, .time_limit = time_limit };
	struct cts_strategy *s;
	if (a == DFS || a == DPOR)
		s = cts_search_create(a == DFS ? CTS_SEARCH_DFS : CTS_SEARCH_DPOR, &sc, NULL);
	else if (a >= UNF)
		s = cts_petri_unfold_create(&sc, a == UNF_W ? CTS_PETRI_WRITES : CTS_PETRI_VALUES,
					    a != UNF_NC);
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
	struct cts_explorer_config cfg = { .runs = run_limit, .max_steps = 10000, .time_limit = time_limit,
					   .stop_on_bug = stop_on_bug, .quiet = true, .log = tap_quiet_log() };
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


/* Every script of tests/sim: each state-matching search (naive, and the
 * unfolding with and without cut-offs) reaches exactly the final states dfs
 * reaches (so no bug class is hidden), completely, and never needs more
 * runs than dfs. */
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
		for (int a = NAIVE; a <= UNF_W; a++) {
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

/* The paper's examples and tests/sim scripts with exact counts. Where
 * interleavings converge to one marking, runs collapse; where they do not,
 * the search still runs every distinct final marking. The unfolding's runs
 * are those its prefix needs to learn the model (St(e) or a transition
 * unknown), with and without cut-offs; the final states are dfs's. */
static void test_counts(void)
{
	static const struct {
		const char *name, *text;
		uint64_t dfs, values, writes, unf;
	} cases[] = {
		/* Fig. 3: two threads write distinct variables under one lock:
		 * both orders end in one marking. */
		{ "fig3 locking", "thread main: create t1; create t2; join t1; join t2\n"
		  "thread t1: lock l; write x 1; unlock l\n"
		  "thread t2: lock l; write y 2; unlock l\n", 0, 2, 2, 2 },
		/* Fig. 4: three writes to x: six orders, three final markings
		 * (the last writer decides), each checked by a real run. */
		{ "fig4 writes", "thread main: create t1; create t2; create t3; join t1; join t2; join t3\n"
		  "thread t1: write x 1\nthread t2: write x 2\nthread t3: write x 3\n", 0, 3, 3, 3 },
		/* Reads that see different values never converge: every order of
		 * the read against the write is a different local state. */
		{ "read vs write", "thread main: create t1; create t2; join t1; join t2\n"
		  "thread t1: read x -> a; write y a\nthread t2: write x 1\n", 0, 2, 3, 2 },
		/* Value keying: both writes store 5, so a read after either one
		 * is the same observation; write keying tells them apart. */
		{ "same value", "thread main: create t1; create t2; create t3; join t1; join t2; join t3\n"
		  "thread t1: write x 5\nthread t2: write x 5\n"
		  "thread t3: read x -> a; write y a\n", 0, 3, 8, 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cts_sim *sim = parse(cases[i].text);
		if (!sim)
			continue;
		static struct finals fd, fv, fw;
		struct outcome d = go(sim, DFS, false, &fd);
		struct outcome v = go(sim, NAIVE, false, &fv);
		struct outcome w = go(sim, NAIVE_W, false, &fw);
		tap_ok(v.complete && w.complete && v.runs == cases[i].values &&
		       w.runs == cases[i].writes && same_finals(&fd, &fv) && same_finals(&fd, &fw),
		       "%s: dfs %" PRIu64 ", values %" PRIu64 " (want %" PRIu64 "), writes %" PRIu64
		       " (want %" PRIu64 ") runs, %d final states", cases[i].name, d.runs, v.runs,
		       cases[i].values, w.runs, cases[i].writes, fd.n);
		struct outcome u = go(sim, UNF, false, &fv);
		struct outcome un = go(sim, UNF_NC, false, &fw);
		/* cut-offs shrink the prefix where states converge ("read vs
		 * write" has none); the runs are the naive search's */
		tap_ok(u.complete && un.complete && u.runs == cases[i].unf && same_finals(&fd, &fv) &&
		       same_finals(&fd, &fw) && un.ps.events >= u.ps.events &&
		       (u.ps.terminals > 0) == (un.ps.events > u.ps.events),
		       "%s: unfold %" PRIu64 " runs (want %" PRIu64 "), %" PRIu64 " events, %" PRIu64
		       " cut-offs; without cut-offs %" PRIu64 " runs, %" PRIu64 " events",
		       cases[i].name, u.runs, cases[i].unf, u.ps.events, u.ps.terminals, un.runs,
		       un.ps.events);
		cts_sim_free(sim);
	}
	static const struct {
		const char *script;
		uint64_t dfs, values, writes, unf;
	} scripts[] = {
		{ "writers.sim", 25424, 1, 2, 1 },       /* three threads, own variables */
		{ "two_by_two.sim", 251, 1, 2, 1 },
		{ "lost_update_ok.sim", 540, 3, 3, 4 },  /* lock-protected increments */
		{ "lost_update.sim", 251, 4, 5, 4 },     /* racy increments: no convergence */
		{ "same_var.sim", 69, 2, 2, 2 },
	};
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		struct cts_sim *sim = load(scripts[i].script);
		if (!sim)
			continue;
		struct outcome d = go(sim, DFS, false, NULL);
		struct outcome v = go(sim, NAIVE, false, NULL);
		struct outcome w = go(sim, NAIVE_W, false, NULL);
		struct outcome u = go(sim, UNF, false, NULL);
		tap_ok(d.runs == scripts[i].dfs && v.runs == scripts[i].values &&
		       w.runs == scripts[i].writes && v.complete && w.complete && u.complete &&
		       u.runs == scripts[i].unf,
		       "%s: dfs %" PRIu64 ", naive %" PRIu64 " (values), %" PRIu64 " (writes), unfold %"
		       PRIu64 " (%" PRIu64 " events, %" PRIu64 " cut-offs)", scripts[i].script,
		       d.runs, v.runs, w.runs, u.runs, u.ps.events, u.ps.terminals);
		cts_sim_free(sim);
	}
}

/* Every buggy script's bug is found, stopping at the first bug, by the
 * naive search and the unfolding (with and without cut-offs). */
static void test_bugs(void)
{
	static const struct {
		const char *script;
		enum cts_bug_kind kind;
	} bugs[] = {
		{ "lost_update.sim", CTS_BUG_ASSERT }, { "deadlock.sim", CTS_BUG_DEADLOCK },
		{ "lost_wakeup.sim", CTS_BUG_DEADLOCK }, { "spin_flag_bug.sim", CTS_BUG_ASSERT },
		{ "tas_lock_bug.sim", CTS_BUG_ASSERT }, { "livelock.sim", CTS_BUG_LIVELOCK },
		{ "yield_barrier_bug.sim", CTS_BUG_LIVELOCK },  /* with two rounds */
	};
	for (size_t i = 0; i < sizeof(bugs) / sizeof(bugs[0]); i++) {
		struct cts_sim *sim = load(bugs[i].script);
		if (!sim)
			continue;
		cts_sim_set_const(sim, "ROUNDS", 2);
		for (int a = NAIVE; a <= UNF_W; a++) {
			struct outcome o = go(sim, a, true, NULL);
			tap_ok(o.nbugs == 1 && o.kind == bugs[i].kind, "%s %s: %s found after %" PRIu64
			       " runs (%d bugs, first %s)", bugs[i].script, algo_names[a],
			       cts_bug_kind_name(bugs[i].kind), o.runs, o.nbugs, cts_bug_kind_name(o.kind));
		}
		cts_sim_free(sim);
	}
}

/* The fast possible extensions (subtrees skipped) against the straightforward
 * ones (CTS_UNF_PE=scan, every condition of a component tried): the same
 * prefix (events, cut-offs, markings) and the same runs, on every tests/sim
 * script (with and without cut-offs) and on the Table 1 programs of
 * benchmarks/petri at sizes that finish in well under a second. */
static bool same_prefix(struct cts_sim *sim, enum algo a, const char *what)
{
	setenv("CTS_UNF_PE", "scan", 1);
	struct outcome s = go(sim, a, false, NULL);
	unsetenv("CTS_UNF_PE");
	struct outcome f = go(sim, a, false, NULL);
	return tap_ok(s.complete && f.complete && s.runs == f.runs && s.ps.events == f.ps.events &&
		      s.ps.terminals == f.ps.terminals && s.ps.markings == f.ps.markings,
		      "%s %s: fast extensions %" PRIu64 " runs, %" PRIu64 " events, %" PRIu64
		      " cut-offs, %" PRIu64 " markings; straightforward %" PRIu64 ", %" PRIu64
		      ", %" PRIu64 ", %" PRIu64, what, algo_names[a], f.runs, f.ps.events,
		      f.ps.terminals, f.ps.markings, s.runs, s.ps.events, s.ps.terminals,
		      s.ps.markings);
}

static void test_fast_extensions(void)
{
	DIR *dir = opendir(simdir);
	struct dirent *de;
	int checked = 0;

	run_limit = 0;
	while (dir && (de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".sim"))
			continue;
		struct cts_sim *sim = load(de->d_name);
		if (!sim)
			continue;
		cts_sim_set_const(sim, "N", 2);
		same_prefix(sim, UNF, de->d_name);
		same_prefix(sim, UNF_NC, de->d_name);
		cts_sim_free(sim);
		checked++;
	}
	if (dir)
		closedir(dir);
	tap_ok(checked >= 20, "fast extensions: %d scripts", checked);
	static const struct {
		const char *script, *name;
		int64_t n, k;
	} table1[] = {
		{ "dining.sim", "Dining 2", 3, 0 }, { "locking.sim", "Locking 2", 3, 0 },
		{ "writes.sim", "Writes", 3, 2 }, { "fib.sim", "Fib 1", 0, 2 },
		{ "synthetic1.sim", "Synthetic 1", 0, 0 }, { "updater.sim", "Updater", 0, 0 },
	};
	for (size_t i = 0; i < sizeof(table1) / sizeof(table1[0]); i++) {
		char path[768];
		snprintf(path, sizeof(path), "../../benchmarks/petri/%s", table1[i].script);
		struct cts_sim *sim = load(path);
		if (!sim)
			continue;
		if (table1[i].n)
			cts_sim_set_const(sim, "N", table1[i].n);
		if (table1[i].k)
			cts_sim_set_const(sim, "K", table1[i].k);
		same_prefix(sim, UNF, table1[i].name);
		cts_sim_free(sim);
	}
}

/* Issue 29 item 4(a): a thread's next operation at a place is kept apart
 * for "alone" (its memory accesses invisible) and "not alone". Main joins
 * t1, reads x, joins t2: after the first join it is alone if t2 is gone
 * (next: the join) and not alone otherwise (next: the read). Seeing the
 * alone case first must not fix the other: the read is no conflict. */
static void see_run(struct cts_petri *n, bool t2_first)
{
	struct cts_pmark *m = cts_pmark_new(n);
	struct cts_event e;
	for (int t = 1; t <= 2; t++) {
		cts_event_init(&e, 0, CTS_OP_CREATE);
		e.target = t;
		e.pc = 0x10 + (uint64_t)t;
		cts_petri_see(n, m, 0, true, &e, true, false, false);
		cts_petri_executed(n, m, &e);
	}
	int order[2] = { t2_first ? 2 : 1, t2_first ? 1 : 2 };
	for (int i = 0; i < (t2_first ? 2 : 1); i++) {
		cts_event_init(&e, order[i], CTS_OP_THREAD_EXIT);
		e.pc = 0x30;
		cts_petri_see(n, m, order[i], true, &e, true, false, false);
		cts_petri_executed(n, m, &e);
		cts_petri_see(n, m, order[i], false, &e, false, false, false);
	}
	cts_event_init(&e, 0, CTS_OP_JOIN);
	e.target = 1;
	e.pc = 0x20;
	cts_petri_see(n, m, 0, true, &e, true, false, false);
	cts_petri_executed(n, m, &e);
	/* main now: alone when t2 is gone, the read skipped */
	if (t2_first) {
		cts_event_init(&e, 0, CTS_OP_JOIN);
		e.target = 2;
		e.pc = 0x22;
	} else {
		cts_event_init(&e, 0, CTS_OP_READ);
		e.obj = 0x4000;
		e.size = 4;
		e.pc = 0x21;
	}
	cts_petri_see(n, m, 0, true, &e, true, false, false);
	cts_pmark_free(m);
}

static void test_alone_slots(void)
{
	struct cts_petri *n = cts_petri_new(CTS_PETRI_VALUES, false);
	struct cts_petri_stats st;
	see_run(n, true);
	see_run(n, false);
	cts_petri_get_stats(n, &st);
	tap_is_int(st.conflicts, 0, "alone first: the not-alone re-read is no conflict (%s)",
		   st.why[0] ? st.why : "none");
	cts_petri_free(n);
	n = cts_petri_new(CTS_PETRI_VALUES, false);
	see_run(n, false);
	see_run(n, true);
	cts_petri_get_stats(n, &st);
	tap_is_int(st.conflicts, 0, "not alone first: the lone join is no conflict (%s)",
		   st.why[0] ? st.why : "none");
	cts_petri_free(n);
}

/* Issue 29 item 4(b): place replication over every thread the model knows.
 * Replicated over the threads of each marking only, a create had to read
 * its creator's copies of every word and every step its thread's copy of
 * the thread set, so creates, starts, exits and joins (which the model does
 * not predict) had new keys in every interleaving with other threads'
 * writes, and each needed a run: Table 1's Dining 3 (4 philosophers) took
 * 40 runs, 39 of them to learn such transitions (the paper: 4). */
static void test_replication_runs(void)
{
	static const struct {
		int64_t n;
		uint64_t runs;
	} dining[] = { { 2, 2 }, { 3, 2 }, { 4, 2 } };
	for (size_t i = 0; i < sizeof(dining) / sizeof(dining[0]); i++) {
		struct cts_sim *sim = load("../../benchmarks/petri/dining.sim");
		if (!sim)
			return;
		cts_sim_set_const(sim, "N", dining[i].n);
		struct outcome u = go(sim, UNF, false, NULL);
		struct outcome v = go(sim, NAIVE, false, NULL);
		tap_ok(u.complete && u.runs == dining[i].runs && u.runs <= v.runs + 1,
		       "dining %" PRId64 " philosophers: unfold %" PRIu64 " runs (want %" PRIu64
		       "; naive %" PRIu64 "), %" PRIu64 " events", dining[i].n, u.runs,
		       dining[i].runs, v.runs, u.ps.events);
		cts_sim_free(sim);
	}
	/* A thread only some interleavings create (t1 creates t3 when it saw
	 * t2's write): the first run knows three threads, a later one four.
	 * The prefix built for three is stale (its writes set three copies)
	 * and is built again; t3 reads w, which t2 wrote before t3 existed: its
	 * copy must hold that write (y = 2), not the initial place t1 may read 0
	 * from (a contradiction of the model). */
	struct cts_sim *sim = parse("thread main: create t1; create t2; join t1; join t2\n"
				    "thread t1: read w -> b; read x -> a; if a == 0 goto e; create t3; join t3; e:\n"
				    "thread t2: write w 2; write x 1\n"
				    "thread t3: read w -> c; write y c\n");
	if (!sim)
		return;
	static struct finals fd, fu;
	struct outcome d = go(sim, DFS, false, &fd);
	bool y2 = false;
	for (int i = 0; i < fd.n; i++)
		y2 |= strstr(fd.seen[i], "ok 1 2 ") == fd.seen[i];
	for (int a = UNF; a <= UNF_W; a++) {
		struct outcome o = go(sim, a, false, &fu);
		/* values keying: the first run has t1 read x before t2 writes it */
		tap_ok(d.complete && o.complete && y2 && same_finals(&fd, &fu) &&
		       o.ps.conflicts == 0 && o.ps.restarts == 0 && (a == UNF_W || o.ps.widenings == 1),
		       "thread created in some runs only, %s: %" PRIu64 " runs, %d final states "
		       "(dfs %d), prefix built again %" PRIu64 " time(s), %" PRIu64 " restarts",
		       algo_names[a], o.runs, fu.n, fd.n, o.ps.widenings, o.ps.restarts);
	}
	cts_sim_free(sim);
}

/* A transition that touches hundreds of components: the process's exit
 * reads the whole marking (here 300 words, one copy per thread each). The
 * possible-extensions search had room for 255 and gave up ("not complete"). */
static void test_wide_exit(void)
{
	struct cts_sim *sim = parse("var a[300]\nthread main: create t; join t\n"
				    "thread t: let i = 0; l: write a[i] 1; let i = i + 1; if i < 300 goto l\n");
	if (!sim)
		return;
	for (int a = UNF; a <= UNF_NC; a++) {
		struct outcome o = go(sim, a, false, NULL);
		tap_ok(o.complete && o.runs == 1, "exit reading 600 word copies, %s: complete %d after %"
		       PRIu64 " runs (%s)", algo_names[a], o.complete, o.runs, o.ps.why);
	}
	cts_sim_free(sim);
}

/* The dead-marking sweep after the prefix (issue 29 item 4(c)): a deadlock
 * is seldom the marking of a local configuration (here every philosopher
 * holds its left fork: four concurrent events), so the sweep must reach it.
 * With stubborn sets it explores fewer markings than the whole graph
 * (CTS_UNF_SWEEP=full) and finds the same deadlock; the twin that takes the
 * lower fork first is clean and complete, with an independent thread whose
 * steps the stubborn sets leave in one order. */
static void test_sweep_stubborn(void)
{
	static const char *const text[2] = {
		"const N = 4\nvar fork[4]\nvar other\n"
		"thread main: let i = 0; c: create phil i; let i = i + 1; if i < N goto c; create noise\n"
		"  let i = 1; j: join i; let i = i + 1; if i <= N + 1 goto j\n"
		"thread noise: write other 1; write other 2; write other 3\n"
		"thread phil: let a = arg; let b = (arg + 1) % N\n"
		"  if ORDERED == 0 goto go; if a < b goto go; let t = a; let a = b; let b = t\n"
		"go: lock fork[a]; lock fork[b]; unlock fork[b]; unlock fork[a]\n",
	};
	for (int ordered = 0; ordered < 2; ordered++) {
		char buf[1024];
		snprintf(buf, sizeof(buf), "const ORDERED = %d\n%s", ordered, text[0]);
		struct cts_sim *sim = parse(buf);
		if (!sim)
			return;
		setenv("CTS_UNF_SWEEP", "full", 1);
		struct outcome f = go(sim, UNF, true, NULL);
		unsetenv("CTS_UNF_SWEEP");
		struct outcome o = go(sim, UNF, true, NULL);
		bool want = !ordered;
		tap_ok(o.nbugs == want && f.nbugs == want && (!want || o.kind == CTS_BUG_DEADLOCK) &&
		       (want || (o.complete && f.complete)) &&
		       o.ps.sweep_markings < f.ps.sweep_markings,
		       "dining %s: %s after %" PRIu64 " runs, the sweep %" PRIu64 " markings "
		       "(the whole graph: %s after %" PRIu64 " runs, %" PRIu64 " markings)",
		       ordered ? "(lower fork first)" : "(left fork first)",
		       o.nbugs ? cts_bug_kind_name(o.kind) : "no bug", o.runs, o.ps.sweep_markings,
		       f.nbugs ? cts_bug_kind_name(f.kind) : "no bug", f.runs, f.ps.sweep_markings);
		cts_sim_free(sim);
	}
}

/* Table 1's Filesystem (14 threads): the prefix is small (threads meet
 * rarely), but the sweep over the whole graph of markings, like the naive
 * search, did not end. With stubborn sets it does, reaching the final
 * states dpor's runs reach. */
static void test_filesystem(void)
{
	struct cts_sim *sim = load("filesystem.sim");
	if (!sim)
		return;
	cts_sim_set_const(sim, "N", 14);
	static struct finals fd, fu;
	run_limit = 1000;
	time_limit = 60;
	struct outcome d = go(sim, DPOR, false, &fd);
	struct outcome o = go(sim, UNF, false, &fu);
	run_limit = 0;
	time_limit = 0;
	tap_ok(d.complete && o.complete && o.ps.conflicts == 0 && same_finals(&fd, &fu),
	       "filesystem 14 threads: unfold complete %d, %" PRIu64 " runs, %" PRIu64 " events, "
	       "sweep %" PRIu64 " markings, %d final states (dpor %" PRIu64 " runs, %d)",
	       o.complete, o.runs, o.ps.events, o.ps.sweep_markings, fu.n, d.runs, fd.n);
	cts_sim_free(sim);
}

/* Issue 29 item 4(d): the paper's "stateless unfolding" is a tester with no
 * model, so every event of the unfolding is executed by a test run. Without
 * cut-offs, the runs before the sweep now execute every event of the prefix
 * (runs that cover an event no run executed yet): they are its tests.
 * Before, the prefix was built in the model after 2 runs and those 2 were
 * reported. Dining philosophers: as many as dpor's runs here (6, 90). */
static void test_stateless_tests(void)
{
	static const struct {
		int64_t n;
		uint64_t tests;
	} dining[] = { { 2, 6 }, { 3, 90 } };
	for (size_t i = 0; i < sizeof(dining) / sizeof(dining[0]); i++) {
		struct cts_sim *sim = load("../../benchmarks/petri/dining.sim");
		if (!sim)
			return;
		cts_sim_set_const(sim, "N", dining[i].n);
		struct outcome o = go(sim, UNF_NC, false, NULL);
		struct outcome d = go(sim, DPOR, false, NULL);
		tap_ok(o.complete && o.ps.stateless_tests == dining[i].tests &&
		       o.runs == o.ps.stateless_tests + o.ps.sweep_runs && o.ps.conflicts == 0,
		       "dining %" PRId64 " philosophers, stateless unfolding: %" PRIu64 " tests (want %"
		       PRIu64 "; dpor %" PRIu64 " runs), %" PRIu64 " events", dining[i].n,
		       o.ps.stateless_tests, dining[i].tests, d.runs, o.ps.events);
		cts_sim_free(sim);
	}
}

int main(int argc, char **argv)
{
	snprintf(simdir, sizeof(simdir), "%s/../sim", dirname(argv[0]));
	(void)argc;
	test_alone_slots();
	test_finals_vs_dfs();
	test_counts();
	test_bugs();
	test_fast_extensions();
	test_replication_runs();
	test_wide_exit();
	test_sweep_stubborn();
	test_filesystem();
	test_stateless_tests();
	return tap_done();
}
