/* timeout: 60 */
/* HaPSets (models/hapset.h) and HaPSet-guided search (strategies/hapset.h)
 * on simulated programs: what a run teaches, that a buggy run teaches
 * nothing, guidance pruning DPOR's and PCB's backtrack points, a bug still
 * found, and the sets saved and loaded. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "models/hapset.h"
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/hapset.h"
#include "strategies/sim.h"
#include "strategies/systematic.h"
#include "tests/unit/tap.h"

static struct cts_event ev(int tid, cts_op op, uint64_t obj, uint64_t pc)
{
	struct cts_event e;
	cts_event_init(&e, tid, op);
	e.obj = obj;
	e.pc = pc;
	e.size = 4;
	return e;
}

/* learnHapsets on hand-made runs: the paper's Figure 2 (e1 w p, e2 r p,
 * e3 r p, e4 w p) and lock acquires; unlocks and read-read teach nothing. */
static void test_learning(void)
{
	struct cts_hapset *h = cts_hapset_new(NULL, NULL);
	uint32_t e1 = cts_hapset_stmt(h, 0x10, NULL, 0), e2 = cts_hapset_stmt(h, 0x20, NULL, 0);
	uint32_t e3 = cts_hapset_stmt(h, 0x30, NULL, 0), e4 = cts_hapset_stmt(h, 0x40, NULL, 0);
	uint64_t ctx_a[1] = { 0x500 }, ctx_b[1] = { 0x600 };
	tap_ok(cts_hapset_stmt(h, 0x10, ctx_a, 1) != cts_hapset_stmt(h, 0x10, ctx_b, 1) &&
	       cts_hapset_stmt(h, 0x10, ctx_a, 1) != e1 &&
	       cts_hapset_stmt(h, 0x10, ctx_a, 1) == cts_hapset_stmt(h, 0x10, ctx_a, 1),
	       "a statement is its pc and its context");
	/* e1 (t1) e2 e3 (t2) e4 (t1): HaPSet(e2) = {e1}, HaPSet(e4) = {e3}. */
	struct cts_event r[] = { ev(1, CTS_OP_WRITE, 0x100, 0x10), ev(2, CTS_OP_READ, 0x100, 0x20),
				 ev(2, CTS_OP_READ, 0x100, 0x30), ev(1, CTS_OP_WRITE, 0x100, 0x40) };
	uint32_t st[] = { e1, e2, e3, e4 };
	for (int i = 0; i < 4; i++)
		cts_hapset_learn(h, &r[i], st[i]);
	tap_is_int((int)cts_hapset_pairs(h), 0, "pairs count only once the run ended well");
	cts_hapset_end_run(h, 0, true);
	tap_ok(cts_hapset_has(h, e2, e1) && cts_hapset_has(h, e4, e3) && !cts_hapset_has(h, e3, e1) &&
	       !cts_hapset_has(h, e1, e2) && cts_hapset_pairs(h) == 2 &&
	       cts_hapset_statements(h) == 4,
	       "Figure 2's run: HaPSet(e2) = {e1}, HaPSet(e4) = {e3} (%d pairs)",
	       (int)cts_hapset_pairs(h));
	/* Lock acquires pair up; unlocks and two reads do not. */
	uint32_t l1 = cts_hapset_stmt(h, 0x50, NULL, 0), l2 = cts_hapset_stmt(h, 0x60, NULL, 0);
	uint32_t u1 = cts_hapset_stmt(h, 0x70, NULL, 0), u2 = cts_hapset_stmt(h, 0x80, NULL, 0);
	struct cts_event k[] = { ev(1, CTS_OP_LOCK, 0x900, 0x50), ev(1, CTS_OP_UNLOCK, 0x900, 0x70),
				 ev(2, CTS_OP_LOCK, 0x900, 0x60), ev(2, CTS_OP_UNLOCK, 0x900, 0x80),
				 ev(1, CTS_OP_READ, 0x200, 0x90), ev(2, CTS_OP_READ, 0x200, 0xa0) };
	uint32_t ks[] = { l1, u1, l2, u2, cts_hapset_stmt(h, 0x90, NULL, 0),
			  cts_hapset_stmt(h, 0xa0, NULL, 0) };
	for (int i = 0; i < 6; i++)
		cts_hapset_learn(h, &k[i], ks[i]);
	cts_hapset_end_run(h, 1, true);
	tap_ok(cts_hapset_has(h, l2, l1) && !cts_hapset_has(h, u2, u1) && !cts_hapset_has(h, l2, u1) &&
	       cts_hapset_pairs(h) == 3, "lock acquires are dependent; unlocks and reads of "
	       "reads are not (%d pairs)", (int)cts_hapset_pairs(h));
	/* A buggy run teaches nothing. */
	struct cts_event b[] = { ev(2, CTS_OP_WRITE, 0x300, 0x30), ev(1, CTS_OP_WRITE, 0x300, 0x10) };
	cts_hapset_learn(h, &b[0], e3);
	cts_hapset_learn(h, &b[1], e1);
	cts_hapset_end_run(h, 2, false);
	tap_ok(!cts_hapset_has(h, e1, e3) && cts_hapset_pairs(h) == 3, "a buggy run is no good run");
	/* A run that never ended (a minimizing replay) is dropped: what it
	 * began teaches nothing to the next run. */
	cts_hapset_learn(h, &b[0], e3);
	cts_hapset_drop_run(h);
	cts_hapset_learn(h, &b[1], e1);
	cts_hapset_end_run(h, 3, true);
	tap_ok(!cts_hapset_has(h, e1, e3) && cts_hapset_pairs(h) == 3,
	       "a dropped run leaves no predecessor behind");
	json_t *rep = cts_hapset_report(h);
	tap_ok(json_array_size(json_object_get(rep, "series")) == 4 &&
	       json_integer_value(json_object_get(json_array_get(json_object_get(rep, "series"), 1),
						  "pairs")) == 3,
	       "the report's series has one point per ended run, cumulative");
	json_decref(rep);
	/* Saved and loaded by source position. */
	char path[] = "/tmp/cts-hapset-XXXXXX", err[256];
	close(mkstemp(path));
	tap_ok(cts_hapset_save(h, path, err, sizeof(err)) == 0, "saved");
	struct cts_hapset *g = cts_hapset_new(NULL, NULL);
	tap_ok(cts_hapset_load(g, path, err, sizeof(err)) == 0 && cts_hapset_pairs(g) == 3 &&
	       cts_hapset_has(g, cts_hapset_stmt(g, 0x20, NULL, 0), cts_hapset_stmt(g, 0x10, NULL, 0)),
	       "loaded back: the same pairs, found by statement");
	cts_hapset_free(g);
	unlink(path);
	/* A search beginning again on more events forgets its pairs, keeps its
	 * statements' numbers, and learns afresh. */
	cts_hapset_forget(h);
	rep = cts_hapset_report(h);
	tap_ok(cts_hapset_pairs(h) == 0 && cts_hapset_statements(h) == 0 &&
	       !cts_hapset_has(h, e2, e1) && json_array_size(json_object_get(rep, "series")) == 0,
	       "forget: no pair, no statement in a pair, an empty series");
	json_decref(rep);
	for (int i = 0; i < 2; i++)
		cts_hapset_learn(h, &r[i], st[i]);
	cts_hapset_end_run(h, 0, true);
	tap_ok(cts_hapset_has(h, e2, e1) && cts_hapset_pairs(h) == 1 && cts_hapset_statements(h) == 2,
	       "...and learns again with the same statements");
	cts_hapset_free(h);
}

struct outcome {
	uint64_t runs;
	int nbugs;
	bool complete;
	uint64_t pairs, pruned, deferred;
};

static bool prune;   /* the paper's pruning (--hapset-prune) for explore() */

static struct outcome explore(const char *script, const char *strategy, bool guide, int bound,
			      uint64_t learn, const char *load, const char *save)
{
	struct outcome o = { 0 };
	char err[256];
	struct cts_sim *sim = cts_sim_parse(script, err, sizeof(err));
	if (!sim) {
		tap_diag("%s", err);
		return o;
	}
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, m);
	struct cts_hapset_options ho = { .guide = guide, .learn = learn, .learn_given = true,
					 .prune = prune, .load = load, .save = save };
	struct cts_strategy_config sc = { .seed = 1, .max_steps = 100000, .bound = bound,
					  .hapset = guide || !strcmp(strategy, "hapset") ? &ho : NULL };
	struct cts_strategy *s = cts_strategy_create(strategy, &sc, err, sizeof(err));
	if (!s) {
		tap_diag("%s", err);
		return o;
	}
	struct cts_explorer_config cfg = { .runs = 5000, .max_steps = 100000, .stop_on_bug = true,
					   .quiet = true, .log = tap_quiet_log() };
	struct cts_explore_result res;
	if (cts_explore(&cfg, &be, m, s, &res) != 0)
		tap_diag("explore failed: %s", res.error);
	o.runs = res.runs;
	o.nbugs = res.nbugs;
	o.complete = res.complete;
	json_t *j = cts_hapset_strategy_report(s);
	if (j) {
		o.pairs = (uint64_t)json_integer_value(json_object_get(j, "pairs"));
		o.pruned = (uint64_t)json_integer_value(json_object_get(j, "pruned"));
		o.deferred = (uint64_t)json_integer_value(json_object_get(j, "deferred"));
		json_decref(j);
	}
	if (save && cts_hapset_strategy_save(s, err, sizeof(err)) != 0)
		tap_diag("%s", err);
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	cts_objmodel_free(m);
	cts_sim_free(sim);
	return o;
}

/* Four workers run the same locked update: DPOR tries every order of their
 * critical sections; once one run showed a worker's lock acquire after
 * another's (the same statements), HaPSet has nothing new to try. */
static const char workers[] =
	"var c\n"
	"thread main: create w; create w; create w; create w; join w; join w; join w; join w\n"
	"thread w: lock m; incr c; unlock m\n";

static const char workers3[] =
	"var c\n"
	"thread main: create w; create w; create w; join w; join w; join w\n"
	"thread w: lock m; incr c; unlock m\n";

/* Figure 2 of the paper: t1 checks p, then uses it; t2 clears it between. */
static const char fig2[] =
	"var p = 1\n"
	"thread main: create t1; create t2; join t1; join t2\n"
	"thread t1: read p -> v; if v == 0 goto E; read p -> w; assert w != 0; E: exit\n"
	"thread t2: write p 0\n";
static const char fig2_ok[] =
	"var p = 1\n"
	"thread main: create t1; create t2; join t1; join t2\n"
	"thread t1: lock m; read p -> v; if v == 0 goto E; read p -> w; assert w != 0; E: unlock m\n"
	"thread t2: lock m; write p 0; unlock m\n";

static void test_guidance(void)
{
	struct outcome d = explore(workers, "dpor", false, 0, 0, NULL, NULL);
	/* By default the covered orders are deferred: the search is complete
	 * as dpor's is (issue 29, item 2). */
	struct outcome df = explore(workers, "dpor", true, 0, 0, NULL, NULL);
	tap_ok(df.complete && df.pruned == 0 && df.deferred > 0,
	       "--guide hapset on dpor, deferring: complete after %llu runs, %llu choices deferred",
	       (unsigned long long)df.runs, (unsigned long long)df.deferred);
	prune = true;
	struct outcome g = explore(workers, "dpor", true, 0, 0, NULL, NULL);
	tap_ok(d.complete && d.runs >= 24, "dpor: every order of the critical sections and more "
	       "(%llu runs)", (unsigned long long)d.runs);
	tap_ok(!g.complete && g.runs < d.runs && g.pruned > 0,
	       "--guide hapset --hapset-prune on dpor: %llu runs, %llu backtrack points pruned, "
	       "not complete", (unsigned long long)g.runs, (unsigned long long)g.pruned);
	struct outcome p = explore(workers3, "pcb", false, 2, 0, NULL, NULL);
	struct outcome pg = explore(workers3, "pcb", true, 2, 0, NULL, NULL);
	tap_ok(p.complete && !pg.complete && pg.runs < p.runs && pg.pruned > 0,
	       "--guide hapset on pcb 2 (three workers): %llu runs against %llu",
	       (unsigned long long)pg.runs, (unsigned long long)p.runs);
	struct outcome h = explore(fig2, "hapset", false, 0, 0, NULL, NULL);
	tap_ok(h.nbugs == 1, "hapset-guided dpor still finds Figure 2's atomicity violation "
	       "(run %llu)", (unsigned long long)h.runs);
	h = explore(fig2, "pcb", true, 2, 0, NULL, NULL);
	tap_ok(h.nbugs == 1, "...and so does hapset-guided pcb 2 (%llu runs)",
	       (unsigned long long)h.runs);
	h = explore(fig2_ok, "hapset", false, 0, 5, NULL, NULL);
	tap_ok(h.nbugs == 0 && (h.complete || h.pruned > 0),
	       "its twin: clean, complete unless something was pruned");
	prune = false;
	h = explore(fig2_ok, "hapset", false, 0, 5, NULL, NULL);
	tap_ok(h.nbugs == 0 && h.complete, "...and deferring: clean and complete");
	prune = true;
	/* Learning runs first, then sets saved; loaded, they prune from run 0. */
	char path[] = "/tmp/cts-hapset-XXXXXX";
	close(mkstemp(path));
	struct outcome l = explore(workers, "hapset", false, 0, 20, NULL, path);
	tap_ok(l.pairs > 0 && l.runs > 20, "--strategy hapset: 20 random learning runs, then the "
	       "guided search (%llu runs, %llu pairs)", (unsigned long long)l.runs,
	       (unsigned long long)l.pairs);
	struct outcome ld = explore(workers, "dpor", true, 0, 0, path, NULL);
	tap_ok(ld.runs <= g.runs, "--hapset-load: the saved sets guide a new search "
	       "(%llu runs, from scratch %llu)", (unsigned long long)ld.runs,
	       (unsigned long long)g.runs);
	unlink(path);
}

/* --guide hapset with odpor: covered orders reversed last in each state's
 * wakeup tree, never dropped: the same runs as plain odpor (one per trace),
 * complete; pruned: fewer, not complete; Figure 2's bug still found. */
static void test_odpor_guidance(void)
{
	prune = false;
	struct outcome o = explore(workers, "odpor", false, 0, 0, NULL, NULL);
	struct outcome og = explore(workers, "odpor", true, 0, 0, NULL, NULL);
	tap_ok(o.complete && og.complete && og.runs == o.runs && og.deferred > 0,
	       "--guide hapset on odpor: %llu runs (plain odpor %llu), complete, %llu races "
	       "reversed last", (unsigned long long)og.runs, (unsigned long long)o.runs,
	       (unsigned long long)og.deferred);
	prune = true;
	struct outcome op = explore(workers, "odpor", true, 0, 0, NULL, NULL);
	tap_ok(!op.complete && op.runs < o.runs && op.pruned > 0,
	       "--guide hapset --hapset-prune on odpor: %llu runs, not complete",
	       (unsigned long long)op.runs);
	prune = false;
	struct outcome h = explore(fig2, "odpor", true, 0, 0, NULL, NULL);
	tap_ok(h.nbugs == 1, "hapset-guided odpor finds Figure 2's atomicity violation (%llu runs)",
	       (unsigned long long)h.runs);
}

int main(void)
{
	test_learning();
	test_guidance();
	test_odpor_guidance();
	return tap_done();
}
