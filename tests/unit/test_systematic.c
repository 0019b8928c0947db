/* timeout: 180 */
/* dfs, dpor, pcb and idb through cts_explore on simulated programs
 * (the scripts in tests/sim): exact schedule counts, bugs found and missed, DPOR's
 * soundness against DFS (final states) and odpor (Mazurkiewicz traces), replay
 * divergence, and long runs. */
#include <dirent.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/systematic.h"
#include "tests/unit/tap.h"

#include "tests/unit/simload.h"
#include "tests/unit/traces.h"

struct outcome {
	uint64_t runs;
	bool complete;
	int nbugs;
	uint64_t inconclusive;
	enum cts_bug_kind kind;   /* first bug */
	char message[1024];
	struct cts_search_stats stats;
	int rc;
	uint64_t steps, quiet;
};

/* Final states seen (memory of a few variables, and whether a bug ended the
 * run), for comparing DPOR with DFS. */
#define MAX_FINALS 512
struct finals {
	struct cts_sim *sim;
	const char *const *vars;
	int n;
	char seen[MAX_FINALS][96];
};

static void finals_end(void *ctx, const struct cts_run_summary *sum)
{
	struct finals *f = ctx;
	char buf[96];
	size_t off;
	if (sum->aborted)
		return;   /* a cut run has no final state */
	off = (size_t)snprintf(buf, sizeof(buf), "%s", sum->bug ? "bug" : "ok");
	for (int i = 0; f->vars[i] && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %s=%" PRId64, f->vars[i],
					cts_sim_value(f->sim, f->vars[i], 0));
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->seen[i], buf) == 0)
			return;
	if (f->n < MAX_FINALS)
		snprintf(f->seen[f->n++], sizeof(f->seen[0]), "%s", buf);
}

static uint64_t run_limit;   /* runs per exploration, 0 = until complete */
static bool quiet_on;        /* cts_explorer_config.quiet_repeats */

static struct outcome run(struct cts_sim *sim, enum cts_search_kind kind, int bound, bool stop_on_bug,
			  uint64_t max_steps, struct finals *fin)
{
	struct outcome o = { 0 };
	struct cts_strategy_config sc = { .bound = bound, .max_steps = max_steps };
	struct cts_search_hooks hooks = { .ctx = fin, .end_run = finals_end };
	if (fin) {
		fin->sim = sim;
		fin->n = 0;
	}
	struct cts_strategy *s = cts_search_create(kind, &sc, fin ? &hooks : NULL);
	struct cts_explorer_config cfg = { .runs = run_limit, .max_steps = max_steps,
					   .stop_on_bug = stop_on_bug, .quiet = true, .log = tap_quiet_log(),
					   .quiet_repeats = quiet_on };
	struct cts_explore_result res;
	o.rc = cts_sim_explore(sim, &cfg, s, &res);
	if (o.rc)
		tap_diag("explore failed: %s", res.error);
	o.runs = res.runs;
	o.complete = res.complete;
	o.nbugs = res.nbugs;
	o.inconclusive = res.ninconclusive;
	o.steps = res.steps;
	o.quiet = res.quiet_repeats;
	if (res.nbugs) {
		o.kind = res.bugs[0].kind;
		snprintf(o.message, sizeof(o.message), "%s", res.bugs[0].message);
	}
	cts_search_get_stats(s, &o.stats);
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	return o;
}

static struct outcome all(struct cts_sim *sim, enum cts_search_kind kind, int bound)
{
	return run(sim, kind, bound, false, 10000, NULL);
}

/* ---- an independent oracle: brute-force enumeration ----
 * Re-runs every prefix from scratch through the backend and counts the
 * complete schedules, applying the textbook definitions of a preemption
 * (leaving a thread that is still enabled and did not yield) and of a delay
 * (each enabled thread a round-robin scheduler passes over). */
enum bound_kind { NO_BOUND, PREEMPTIONS, DELAYS };

#define BRUTE_MAX_THREADS 64

struct brute {
	struct cts_sim *sim;
	struct cts_objmodel *m;
	struct cts_backend be;
	struct cts_run_state st;
	int path[4096];
	cts_op ops[4096];
	enum bound_kind bk;
	int bound;
};

static bool brute_replay(struct brute *b, int len, bool en[BRUTE_MAX_THREADS])
{
	cts_objmodel_reset(b->m);
	cts_run_state_reset(&b->st);
	b->be.ops->start(b->be.be, &b->st);
	for (int i = 0; i < len; i++) {
		struct cts_event done;
		b->be.ops->step(b->be.be, &b->st, b->path[i], false, &done);
		cts_objmodel_apply(b->m, &done);
		b->ops[i] = done.op;
	}
	int n = 0;
	for (int t = 0; t < b->st.nthreads; t++) {
		en[t] = b->st.t[t].alive && cts_objmodel_enabled(b->m, &b->st.t[t].pending);
		n += en[t];
	}
	return b->st.status == CTS_RUN_ACTIVE && n > 0;
}

static uint64_t brute_count(struct brute *b, int len, int used)
{
	bool en[BRUTE_MAX_THREADS];
	if (!brute_replay(b, len, en))
		return 1;
	int nt = b->st.nthreads, prev = len ? b->path[len - 1] : -1;
	bool yielded = len && b->ops[len - 1] == CTS_OP_YIELD;
	uint64_t total = 0;
	for (int t = 0; t < nt; t++) {
		if (!en[t])
			continue;
		int cost = 0;
		if (b->bk == PREEMPTIONS) {
			cost = prev >= 0 && t != prev && en[prev] && !yielded;
		} else if (b->bk == DELAYS) {
			int start = prev < 0 ? 0 : yielded ? (prev + 1) % nt : prev;
			for (int u = start; u != t; u = (u + 1) % nt)
				cost += en[u];
		}
		if (b->bk != NO_BOUND && used + cost > b->bound)
			continue;
		b->path[len] = t;
		total += brute_count(b, len + 1, used + cost);
		brute_replay(b, len, en);   /* restore en[] for the next t */
	}
	return total;
}

static uint64_t brute(struct cts_sim *sim, enum bound_kind bk, int bound)
{
	struct brute *b = calloc(1, sizeof(*b));
	b->sim = sim;
	b->m = cts_objmodel_new(false);
	b->be = cts_sim_backend(sim, b->m);
	b->bk = bk;
	b->bound = bound;
	uint64_t n = brute_count(b, 0, 0);
	cts_objmodel_free(b->m);
	cts_run_state_free(&b->st);
	free(b);
	return n;
}

/* ---- tests ---- */

static void test_exact_counts(void)
{
	struct cts_sim *sim;
	struct outcome o;

	/* same_var.sim: main s c1 c2 j1 j2 exit; t1 s1 w1 e1; t2 s2 w2 e2 (s =
	 * the thread's START, e = its visible exit). All a = 3 events of t1 sit
	 * between c1 and j1, interleaved with c2 and the first k of t2's b = 3
	 * events; the rest of t2 comes before j2 in order. So the count is
	 * sum over k = 0..b of C(a + 1 + k, a) = 4 + 10 + 20 + 35 = 69. */
	sim = load("same_var.sim");
	o = all(sim, CTS_SEARCH_DFS, 0);
	tap_ok(o.runs == 69 && o.complete, "dfs same_var: 69 interleavings (got %" PRIu64 ")", o.runs);
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.runs == 2 && o.complete, "dpor same_var: 2 (the two write orders) (got %" PRIu64 ")",
	       o.runs);
	/* pcb 0: main runs until its join blocks, then t1 or t2 runs to its end:
	 * t1 first (then main or t2 next) or t2 first = 3. */
	o = all(sim, CTS_SEARCH_PCB, 0);
	tap_ok(o.runs == 3 && o.complete, "pcb 0 same_var: 3 (got %" PRIu64 ")", o.runs);
	o = all(sim, CTS_SEARCH_IDB, 0);
	tap_ok(o.runs == 1 && o.complete, "idb 0 same_var: exactly 1 (got %" PRIu64 ")", o.runs);
	/* with one preemption / delay: 12 / 8 (equal to brute force below) */
	o = all(sim, CTS_SEARCH_PCB, 1);
	tap_ok(o.runs == 12 && o.runs == brute(sim, PREEMPTIONS, 1) && o.complete,
	       "pcb 1 same_var: 12 (got %" PRIu64 ")", o.runs);
	o = all(sim, CTS_SEARCH_IDB, 1);
	tap_ok(o.runs == 8 && o.runs == brute(sim, DELAYS, 1) && o.complete,
	       "idb 1 same_var: 8 (got %" PRIu64 ")", o.runs);
	cts_sim_free(sim);

	/* two_by_two.sim: a = b = 4 (start, 2 writes, exit):
	 * sum over k = 0..4 of C(5 + k, 4) = 5 + 15 + 35 + 70 + 126 = 251. */
	sim = load("two_by_two.sim");
	o = all(sim, CTS_SEARCH_DFS, 0);
	tap_ok(o.runs == 251 && o.complete, "dfs two_by_two: 251 (got %" PRIu64 ")", o.runs);
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.runs == 1, "dpor two_by_two: 1 (got %" PRIu64 ")", o.runs);
	cts_sim_free(sim);

	sim = load("writers.sim");
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.runs == 1 && o.complete && o.stats.races == 0,
	       "dpor writers: 3 threads on own variables = exactly 1 schedule (got %" PRIu64 ")",
	       o.runs);
	uint64_t want = brute(sim, NO_BOUND, 0);
	o = all(sim, CTS_SEARCH_DFS, 0);
	tap_ok(o.runs == want && want > 100, "dfs writers: %" PRIu64 " = brute-force count %" PRIu64,
	       o.runs, want);
	cts_sim_free(sim);

	/* n threads on their own variables, n = 8: still one schedule. */
	char text[2048];
	size_t off = (size_t)snprintf(text, sizeof(text), "thread main:\n");
	for (int i = 1; i <= 8; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "  create w%d\n", i);
	for (int i = 1; i <= 8; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "  join w%d\n", i);
	for (int i = 1; i <= 8; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"thread w%d: write v%d %d; read v%d -> r\n", i, i, i, i);
	sim = parse(text);
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.runs == 1 && o.complete, "dpor: 8 threads on own variables = 1 schedule (got %" PRIu64 ")",
	       o.runs);
	cts_sim_free(sim);
}

/* pcb and idb against the brute-force oracle, for several bounds. */
static void test_bounded_counts(void)
{
	static const char *const scripts[] = { "same_var.sim", "lost_update.sim", "deadlock.sim",
					       "cond_signal.sim", "sem_barrier.sim", "trylock.sim" };
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		struct cts_sim *sim = load(scripts[i]);
		if (!sim)
			continue;
		uint64_t dfs = brute(sim, NO_BOUND, 0);
		struct outcome o = all(sim, CTS_SEARCH_DFS, 0);
		tap_ok(o.runs == dfs && o.complete, "dfs %s: %" PRIu64 " runs = brute force %" PRIu64,
		       scripts[i], o.runs, dfs);
		for (int k = 0; k <= 2; k++) {
			uint64_t p = brute(sim, PREEMPTIONS, k), d = brute(sim, DELAYS, k);
			struct outcome op = all(sim, CTS_SEARCH_PCB, k), od = all(sim, CTS_SEARCH_IDB, k);
			tap_ok(op.runs == p && op.complete,
			       "pcb %d %s: %" PRIu64 " runs = brute force %" PRIu64, k, scripts[i],
			       op.runs, p);
			tap_ok(od.runs == d && od.complete,
			       "idb %d %s: %" PRIu64 " runs = brute force %" PRIu64, k, scripts[i],
			       od.runs, d);
			if (k == 0)
				tap_ok(od.runs == 1, "idb 0 %s: exactly one schedule", scripts[i]);
		}
		struct outcome big = all(sim, CTS_SEARCH_PCB, 50);
		tap_ok(big.runs == dfs, "pcb with a large bound = dfs on %s", scripts[i]);
		big = all(sim, CTS_SEARCH_IDB, 50);
		tap_ok(big.runs == dfs, "idb with a large bound = dfs on %s", scripts[i]);
		cts_sim_free(sim);
	}
}

static void test_bugs(void)
{
	struct cts_sim *sim = load("lost_update.sim");
	struct outcome o;
	if (!sim)
		return;
	o = run(sim, CTS_SEARCH_DFS, 0, true, 10000, NULL);
	tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_ASSERT && strstr(o.message, "assert"),
	       "dfs finds the lost update: %s", o.message);
	o = run(sim, CTS_SEARCH_DPOR, 0, true, 10000, NULL);
	tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_ASSERT, "dpor finds the lost update");
	o = run(sim, CTS_SEARCH_PCB, 1, true, 10000, NULL);
	tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_ASSERT, "pcb 1 finds the lost update");
	o = run(sim, CTS_SEARCH_IDB, 1, true, 10000, NULL);
	tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_ASSERT, "idb 1 finds the lost update");
	o = all(sim, CTS_SEARCH_PCB, 0);
	tap_ok(o.nbugs == 0 && o.complete && o.runs == 3,
	       "pcb 0 misses it: 3 non-preemptive schedules, space complete");
	o = all(sim, CTS_SEARCH_IDB, 0);
	tap_ok(o.nbugs == 0 && o.complete && o.runs == 1, "idb 0 misses it");
	/* DPOR: r1 r2 commute, so the classes are t1 first, t2 first, and both
	 * reads before the writes with either write last = 4. */
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.runs == 4 && o.complete, "dpor lost_update: 4 classes (got %" PRIu64 ")", o.runs);
	o = all(sim, CTS_SEARCH_DFS, 0);
	tap_ok(o.runs == 251, "dfs lost_update: 251, same shape as two_by_two");
	cts_sim_free(sim);

	sim = load("lost_update_ok.sim");
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.runs == 2 && o.nbugs == 0 && o.complete, "dpor lost_update_ok: 2 lock orders, no bug");
	o = all(sim, CTS_SEARCH_DFS, 0);
	tap_ok(o.nbugs == 0 && o.complete, "dfs lost_update_ok: no bug in %" PRIu64 " runs", o.runs);
	cts_sim_free(sim);

	sim = load("deadlock.sim");
	static const enum cts_search_kind kinds[] = { CTS_SEARCH_DFS, CTS_SEARCH_DPOR, CTS_SEARCH_PCB,
						      CTS_SEARCH_IDB };
	for (int i = 0; i < 4; i++) {
		o = run(sim, kinds[i], 1, true, 10000, NULL);
		tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_DEADLOCK && strstr(o.message, "waits for mutex"),
		       "%s finds the lock-order deadlock: %s",
		       i == 0 ? "dfs" : i == 1 ? "dpor" : i == 2 ? "pcb 1" : "idb 1", o.message);
	}
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.runs == 3 && o.complete, "dpor deadlock: t1 first, t2 first, deadlock = 3 (got %" PRIu64 ")",
	       o.runs);
	o = all(sim, CTS_SEARCH_PCB, 0);
	tap_ok(o.nbugs == 0, "pcb 0 cannot reach the deadlock (it needs a preemption)");
	cts_sim_free(sim);

	sim = load("lost_wakeup.sim");
	o = run(sim, CTS_SEARCH_DPOR, 0, true, 10000, NULL);
	tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_DEADLOCK, "dpor finds the lost wakeup: %s", o.message);
	cts_sim_free(sim);
	sim = load("cond_signal.sim");
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.nbugs == 0 && o.complete, "cond_signal is clean under dpor (%" PRIu64 " runs)", o.runs);
	cts_sim_free(sim);
}

/* DPOR must reach every final state DFS reaches and never run more. */
/* The next script of dir, loaded (NULL when none is left), its file name
 * in *name. */
static struct cts_sim *next_script(DIR *dir, const char **name)
{
	struct dirent *de;
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		struct cts_sim *sim = n >= 5 && strcmp(de->d_name + n - 4, ".sim") == 0 ?
				      load(de->d_name) : NULL;
		if (sim) {
			*name = de->d_name;
			return sim;
		}
	}
	return NULL;
}

/* The same final states, in any order. */
static bool same_finals(const struct finals *a, const struct finals *b)
{
	bool same = a->n == b->n;
	for (int i = 0; same && i < a->n; i++) {
		bool found = false;
		for (int j = 0; j < b->n; j++)
			found |= strcmp(a->seen[i], b->seen[j]) == 0;
		same = found;
	}
	return same;
}

static void test_dpor_vs_dfs(void)
{
	static const char *const vars[] = { "x", "y", "a", "miss", "got", "ready", "p", "q", NULL };
	static struct finals fd = { .vars = vars }, fp = { .vars = vars };
	DIR *dir = opendir(simdir);
	struct cts_sim *sim;
	const char *name;
	int checked = 0;

	if (!tap_ok(dir != NULL, "open %s", simdir))
		return;
	while ((sim = next_script(dir, &name))) {
		/* benchmarks: two workers, or one where dfs would take too long */
		cts_sim_set_const(sim, "N", 2);
		run_limit = 100000;
		struct outcome a = run(sim, CTS_SEARCH_DFS, 0, false, 10000, &fd);
		run_limit = 0;
		if (!a.complete && cts_sim_set_const(sim, "N", 1))
			a = run(sim, CTS_SEARCH_DFS, 0, false, 10000, &fd);
		struct outcome b = run(sim, CTS_SEARCH_DPOR, 0, false, 10000, &fp);
		bool same = same_finals(&fd, &fp);
		tap_ok(a.complete && b.complete && b.runs <= a.runs && same,
		       "%s: dpor %" PRIu64 " <= dfs %" PRIu64 " runs, same %d final states",
		       name, b.runs, a.runs, fd.n);
		cts_sim_free(sim);
		checked++;
	}
	closedir(dir);
	tap_ok(checked >= 10, "checked %d scripts", checked);
}

/* Repeats made alone (strategies/explorer.h quiet_repeats: a plain access a
 * thread repeats while it alone can move is no step) change no outcome:
 * for every script dpor reaches the same final states in the same runs,
 * as complete, as without them; alone_loop.sim, made for them, in fewer
 * steps. */
static void test_quiet_repeats(void)
{
	static const char *const vars[] = { "x", "y", "a", "lo", "hi", "got", "ready", "p", NULL };
	static struct finals fa = { .vars = vars }, fb = { .vars = vars };
	DIR *dir = opendir(simdir);
	struct cts_sim *sim;
	const char *name;
	int checked = 0;
	uint64_t quiet = 0;

	if (!tap_ok(dir != NULL, "open %s", simdir))
		return;
	while ((sim = next_script(dir, &name))) {
		cts_sim_set_const(sim, "N", 2);
		run_limit = 20000;
		quiet_on = false;
		struct outcome a = run(sim, CTS_SEARCH_DPOR, 0, false, 10000, &fa);
		quiet_on = true;
		struct outcome b = run(sim, CTS_SEARCH_DPOR, 0, false, 10000, &fb);
		quiet_on = false;
		run_limit = 0;
		bool same = same_finals(&fa, &fb);
		tap_ok(same && a.runs == b.runs && a.complete == b.complete && a.nbugs == b.nbugs &&
		       b.steps + b.quiet == a.steps,
		       "%s: dpor with repeats made alone: %" PRIu64 " runs, %d final states, "
		       "complete %d, %" PRIu64 " of %" PRIu64 " steps quiet",
		       name, b.runs, fb.n, b.complete, b.quiet, a.steps);
		if (strcmp(name, "alone_loop.sim") == 0)
			quiet = b.quiet;
		cts_sim_free(sim);
		checked++;
	}
	closedir(dir);
	tap_ok(checked >= 10 && quiet > 0, "checked %d scripts; alone_loop.sim: %" PRIu64
	       " accesses without a step", checked, quiet);
}

/* dpor runs every Mazurkiewicz trace: the traces of its uncut runs (as
 * Foata normal forms, traces.h) include all of odpor's, which are exactly
 * the program's (one run per trace: test_odpor; dfs's set here where dfs
 * finishes, and the count where it is derived). dpor may run a trace twice
 * and have runs cut sleep-set blocked, but a trace it never runs is a
 * class of schedules a "complete" search did not try. */
static void dpor_covers(struct cts_sim *sim, const char *name, uint64_t want, bool with_dfs)
{
	struct trace_set o = trace_explore(sim, CTS_SEARCH_ODPOR, false, 0);
	struct trace_set d = trace_explore(sim, CTS_SEARCH_DPOR, false, 0);
	size_t miss = trace_missing(&o, &d);
	tap_ok(o.complete && o.dups == 0 && o.cut == 0 && (!want || o.nseen == want),
	       "odpor %s: %zu traces in %" PRIu64 " runs%s", name, o.nseen, o.runs,
	       want ? " (the known count)" : "");
	tap_ok(d.complete && miss == 0 && trace_missing(&d, &o) == 0,
	       "dpor %s: %zu of the %zu traces in %" PRIu64 " runs (%" PRIu64 " cut), complete %d",
	       name, o.nseen - miss, o.nseen, d.runs, d.cut, d.complete);
	if (with_dfs) {
		struct trace_set f = trace_explore(sim, CTS_SEARCH_DFS, false, 0);
		tap_ok(f.complete && f.nseen == o.nseen && trace_missing(&f, &o) == 0,
		       "dfs %s: the same %zu traces in %" PRIu64 " runs", name, f.nseen, f.runs);
		trace_set_free(&f);
	}
	trace_set_free(&o);
	trace_set_free(&d);
}

static void test_dpor_traces(void)
{
	/* one writer, n readers of x: the write goes before any subset of the
	 * reads, 2^n traces */
	struct cts_sim *sim = parse("thread main: create w; create r1; create r2; join w; join r1; "
				    "join r2\nthread w: write x 1\nthread r1: read x -> a\n"
				    "thread r2: read x -> a\n");
	if (sim)
		dpor_covers(sim, "writer and 2 readers", 4, true);
	cts_sim_free(sim);
	sim = parse("thread main: create w; create r1; create r2; create r3; join w; join r1; join r2; "
		    "join r3\nthread w: write x 1\nthread r1: read x -> a\nthread r2: read x -> a\n"
		    "thread r3: read x -> a\n");
	if (sim)
		dpor_covers(sim, "writer and 3 readers", 8, false);
	cts_sim_free(sim);
	/* two writers, one reader of x: 2 write orders x 3 places of the read */
	sim = parse("thread main: create w1; create w2; create r; join w1; join w2; join r\n"
		    "thread w1: write x 1\nthread w2: write x 2\nthread r: read x -> a\n");
	if (sim)
		dpor_covers(sim, "2 writers and a reader", 6, true);
	cts_sim_free(sim);

	/* pthread_cancel is dependent with every event of its target: the
	 * target's semaphore wait (keyed by the semaphore, not the thread)
	 * races with it. Cancelled first, the worker ends at its wait and
	 * never writes y; else it writes y. */
	sim = parse("thread main: seminit s 1; create w; cancel w; join w\n"
		    "thread w: write x 1; semwait s; write y 1\n");
	if (sim)
		dpor_covers(sim, "cancel of a worker", 0, true);
	cts_sim_free(sim);
	/* Two where the cancel was missing from the race index (pthread_cancel
	 * was on no chain): dpor missed the worker's write of z before the
	 * cancel, odpor t1's accesses before it. */
	sim = parse("thread main: seminit s 0; create t0; create t1; cancel t0; join t0; join t1\n"
		    "thread t0: lock m; read y -> a; write y a + 1; unlock m; write z 1; semwait s\n"
		    "thread t1: write z 1\n");
	if (sim)
		dpor_covers(sim, "cancel of a locker", 0, true);
	cts_sim_free(sim);
	sim = parse("thread main: seminit s 1; create t0; create t1; write z 2; cancel t1; "
		    "read x -> a; join t0; join t1\n"
		    "thread t0: semwait s\nthread t1: read x -> a; write x 1\n");
	if (sim)
		dpor_covers(sim, "cancel of a writer", 0, true);
	cts_sim_free(sim);
	sim = parse("thread main: seminit s 1; create w; cancel w; join w; assert y == 0\n"
		    "thread w: write x 1; semwait s; write y 1\n");
	if (sim) {
		static const enum cts_search_kind kinds[] = { CTS_SEARCH_DPOR, CTS_SEARCH_ODPOR };
		for (int i = 0; i < 2; i++) {
			struct outcome o = run(sim, kinds[i], 0, true, 10000, NULL);
			tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_ASSERT,
			       "%s: the worker passes its wait before the cancel (%" PRIu64 " runs)",
			       i ? "odpor" : "dpor", o.runs);
		}
	}
	cts_sim_free(sim);

	/* dining philosophers (benchmarks/petri/dining.sim) */
	char path[768], err[256];
	snprintf(path, sizeof(path), "%s/../../benchmarks/petri/dining.sim", simdir);
	sim = cts_sim_load(path, err, sizeof(err));
	if (!tap_ok(sim != NULL, "load dining.sim: %s", sim ? "ok" : err))
		return;
	for (int n = 3; n <= 4; n++) {
		char name[32];
		snprintf(name, sizeof(name), "dining %d", n);
		cts_sim_set_const(sim, "N", n);
		dpor_covers(sim, name, 0, false);
	}
	cts_sim_free(sim);
}

/* Random small programs (fixed seed): main and 2-3 threads of 1-2
 * operations (reads, writes, locked increments, trylocks, semaphores,
 * cond waits and signals, two mutexes nested in either order), each
 * thread joined with probability 4/5. Where dfs finishes, its traces are
 * the program's: dpor's and odpor's must be the same set. */
static uint64_t rnd_state;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rnd_state >> 33) % n);
}

/* One operation: @ is the variable, # the label number. */
static size_t random_op(char *b, size_t cap, const char *f, const char *v, int label)
{
	size_t o = 0;
	for (; *f && o + 16 < cap; f++) {
		if (*f == '@')
			o += (size_t)snprintf(b + o, cap - o, "%s", v);
		else if (*f == '#')
			o += (size_t)snprintf(b + o, cap - o, "%d", label);
		else
			b[o++] = *f;
	}
	b[o] = 0;
	return o;
}

static void random_program(char *b, size_t cap)
{
	static const char *const ops[] = {
		"read @ -> a", "write @ 1", "lock m; read @ -> a; write @ a + 1; unlock m",
		"trylock m -> r; if r != 0 goto L#; write @ 5; unlock m; L#: let r = r",
		"sempost s", "semtrywait s -> r", "semwait s",
		"lock m; signal c; unlock m",
		"lock m; read @ -> a; if a != 0 goto L#; wait c m; L#: unlock m",
		"lock m; lock n; write @ 7; unlock n; unlock m",
		"lock n; lock m; read @ -> a; unlock m; unlock n",
	};
	int nt = 2 + (rnd(3) == 0), label = 0;
	size_t o = (size_t)snprintf(b, cap, "thread main: seminit s 0");
	for (int t = 0; t < nt; t++)
		o += (size_t)snprintf(b + o, cap - o, "; create t%d", t);
	for (int t = 0; t < nt; t++)
		if (rnd(5))
			o += (size_t)snprintf(b + o, cap - o, "; join t%d", t);
	if (rnd(3) == 0)
		o += (size_t)snprintf(b + o, cap - o, "; read x -> a");
	for (int t = 0; t < nt; t++) {
		o += (size_t)snprintf(b + o, cap - o, "\nthread t%d: let a = 0", t);
		for (int k = 1 + (int)rnd(2); k > 0; k--) {
			const char *f = ops[rnd(sizeof(ops) / sizeof(ops[0]))], *v = rnd(2) ? "x" : "y";
			o += (size_t)snprintf(b + o, cap - o, "; ");
			o += random_op(b + o, cap - o, f, v, label++);
		}
	}
	snprintf(b + o, cap - o, "\n");
}

static void test_random_traces(void)
{
	char text[2048];
	int checked = 0, bad = 0;
	rnd_state = 2026;
	for (int n = 0; n < 40; n++) {
		random_program(text, sizeof(text));
		struct cts_sim *sim = parse(text);
		if (!sim)
			continue;
		struct trace_set f = trace_explore(sim, CTS_SEARCH_DFS, false, 20000);
		if (f.complete) {
			struct trace_set d = trace_explore(sim, CTS_SEARCH_DPOR, false, 0);
			struct trace_set o = trace_explore(sim, CTS_SEARCH_ODPOR, false, 0);
			size_t md = trace_missing(&f, &d), mo = trace_missing(&f, &o);
			if (md || mo || !d.complete || !o.complete) {
				tap_diag("dfs's %zu traces: dpor misses %zu, odpor %zu:\n%s", f.nseen, md,
					 mo, text);
				bad++;
			}
			checked++;
			trace_set_free(&d);
			trace_set_free(&o);
		}
		trace_set_free(&f);
		cts_sim_free(sim);
	}
	tap_ok(bad == 0 && checked >= 20,
	       "random programs: dpor and odpor run all of dfs's traces in %d of %d checked",
	       checked - bad, checked);
}

/* Flanagan & Godefroid 2005, Table 1: indexer and file system. */
static void test_benchmarks(void)
{
	static const struct {
		const char *file;
		int n;
		uint64_t runs;
	} cases[] = {
		/* indexer: threads 0 and N-1... collide from 12 threads on, 3 slots
		 * per extra thread, 2 orders each: 8^(N-11) */
		{ "indexer.sim", 11, 1 }, { "indexer.sim", 12, 8 }, { "indexer.sim", 13, 64 },
		/* file system: threads i and i+13 meet on one block: 2^(N-13) */
		{ "filesystem.sim", 13, 1 }, { "filesystem.sim", 14, 2 },
		{ "filesystem.sim", 15, 4 }, { "filesystem.sim", 16, 8 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cts_sim *sim = load(cases[i].file);
		if (!sim)
			continue;
		cts_sim_set_const(sim, "N", cases[i].n);
		struct outcome o = all(sim, CTS_SEARCH_DPOR, 0);
		tap_ok(o.runs == cases[i].runs && o.complete && o.nbugs == 0,
		       "dpor %s with %d threads: %" PRIu64 " runs (want %" PRIu64 ")", cases[i].file,
		       cases[i].n, o.runs, cases[i].runs);
		cts_sim_free(sim);
	}
}

static void test_divergence_and_completeness(void)
{
	struct cts_sim *a = parse("thread main: create t; write x 1; join t\nthread t: write x 2\n");
	struct cts_sim *b = parse("thread main: write y 0; create t; write x 1; join t\n"
				  "thread t: write x 2\n");
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_strategy_config sc = { .max_steps = 1000 };
	struct cts_strategy *s = cts_dpor_create(&sc);
	struct cts_explorer_config cfg = { .runs = 1, .max_steps = 1000, .quiet = true,
					   .log = tap_quiet_log() };
	struct cts_explore_result res;
	if (!a || !b)
		return;

	struct cts_backend be = cts_sim_backend(a, m);
	cts_explore(&cfg, &be, m, s, &res);
	tap_ok(res.runs == 1 && !res.complete, "one run of two: not complete");
	cts_explore_result_free(&res);
	/* The program changed under the stored stack: its replay must notice. */
	be = cts_sim_backend(b, m);
	cts_explore(&cfg, &be, m, s, &res);
	tap_ok(res.nbugs == 1 && res.bugs[0].kind == CTS_BUG_DIVERGED &&
	       strstr(res.bugs[0].message, "step 1: thread 0 was recorded doing 'create") &&
	       strstr(res.bugs[0].message, "now does 'write64"),
	       "replay mismatch is a divergence: %s", res.nbugs ? res.bugs[0].message : "none");
	tap_ok(!res.complete, "a diverged search is not complete");
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);

	/* Exhausted: complete, and a further exploration runs nothing. */
	s = cts_strategy_create("dpor", &sc, res.error, sizeof(res.error));
	be = cts_sim_backend(a, m);
	cfg.runs = 0;
	cts_explore(&cfg, &be, m, s, &res);
	tap_ok(res.runs == 2 && res.complete, "dpor via the registry: 2 runs, complete");
	cts_explore_result_free(&res);
	cts_explore(&cfg, &be, m, s, &res);
	tap_ok(res.runs == 0 && res.complete, "an exhausted strategy starts no run");
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	for (int i = 0; i < 4; i++) {
		static const char *const names[] = { "dfs", "dpor", "pcb", "idb" };
		s = cts_strategy_create(names[i], &sc, res.error, sizeof(res.error));
		tap_ok(s && strcmp(s->ops->name, names[i]) == 0, "registry knows %s", names[i]);
		cts_strategy_destroy(s);
	}
	cts_objmodel_free(m);
	cts_sim_free(a);
	cts_sim_free(b);

	/* A thread spinning on a flag nobody sets: with room for the proof it is
	 * a livelock (every run), with too small a budget only inconclusive. */
	struct cts_sim *spin = parse("thread main: create t\nL: read f -> v; if v == 0 goto L\n"
				     "thread t: write g 1\n");
	struct outcome o = run(spin, CTS_SEARCH_DPOR, 0, false, 40, NULL);
	tap_ok(o.nbugs == 0 && o.inconclusive == o.runs && !o.complete && o.stats.truncated > 0,
	       "step budget: inconclusive, no bug, not complete (%" PRIu64 " runs)", o.runs);
	o = run(spin, CTS_SEARCH_DPOR, 0, false, 10000, NULL);
	tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_LIVELOCK && o.complete && o.inconclusive == 0 &&
	       strstr(o.message, "thread 0 spins on f (0x") && strstr(o.message, ") = 0"),
	       "spin on a flag nobody sets: livelock: %s", o.message);
	cts_sim_free(spin);

	/* A long correct loop is slow, not wrong. */
	spin = parse("thread main: create t; join t\n"
		     "thread t: let i = 0\nL: write x i; let i = i + 1; if i < 500 goto L\n");
	o = run(spin, CTS_SEARCH_DFS, 0, false, 100, NULL);
	tap_ok(o.nbugs == 0 && o.inconclusive == o.runs && o.runs > 0 && !o.complete,
	       "500 writes over a budget of 100 steps: %" PRIu64 " runs, all inconclusive",
	       o.runs);
	cts_sim_free(spin);
}

/* Busy-waits: held back, never branched on, livelock only when every live
 * thread spins or is blocked (scripts spin_*, tas_*, yield_*, livelock*). */
static void test_spins(void)
{
	static const enum cts_search_kind kinds[] = { CTS_SEARCH_DFS, CTS_SEARCH_DPOR, CTS_SEARCH_PCB,
						      CTS_SEARCH_IDB };
	static const char *const kname[] = { "dfs", "dpor", "pcb", "idb" };
	struct cts_sim *sim = load("spin_wait.sim");
	struct outcome o;
	if (!sim)
		return;
	/* Counts derived in the script's comment. */
	o = all(sim, CTS_SEARCH_DFS, 0);
	tap_ok(o.runs == 12 && o.complete && o.nbugs == 0, "dfs spin_wait: 12 (got %" PRIu64 ")",
	       o.runs);
	o = all(sim, CTS_SEARCH_DPOR, 0);
	tap_ok(o.runs == 3 && o.complete && o.nbugs == 0 && o.stats.spin_skips > 0,
	       "dpor spin_wait: 3 classes, %" PRIu64 " races with a spinner skipped (got %" PRIu64 ")",
	       o.stats.spin_skips, o.runs);
	o = all(sim, CTS_SEARCH_PCB, 0);
	tap_ok(o.runs == 1 && o.complete, "pcb 0 spin_wait: main spins, steps aside: 1 run");
	cts_sim_free(sim);

	/* A loop that counts is never taken for a spin: dfs = brute force. */
	sim = load("counting_loop.sim");
	if (sim) {
		o = all(sim, CTS_SEARCH_DFS, 0);
		uint64_t want = brute(sim, NO_BOUND, 0);
		tap_ok(o.runs == want && o.complete, "dfs counting_loop: %" PRIu64 " = brute force %" PRIu64,
		       o.runs, want);
		cts_sim_free(sim);
	}

	static const struct {
		const char *file;
		int rounds;
		enum cts_bug_kind bug;      /* NONE: clean under every strategy */
		uint64_t dfs, dpor;         /* exact counts (0: not checked) */
	} cases[] = {
		{ "spin_flag.sim", 0, CTS_BUG_NONE, 176, 3 },
		{ "spin_flag_bug.sim", 0, CTS_BUG_ASSERT, 206, 6 },
		{ "tas_lock.sim", 0, CTS_BUG_NONE, 2605, 6 },
		{ "tas_lock_bug.sim", 0, CTS_BUG_ASSERT, 9505, 24 },
		{ "livelock.sim", 0, CTS_BUG_LIVELOCK, 35, 3 },
		{ "livelock_ok.sim", 0, CTS_BUG_NONE, 428, 9 },
		{ "yield_barrier.sim", 2, CTS_BUG_NONE, 0, 136 },
		{ "yield_barrier_bug.sim", 2, CTS_BUG_LIVELOCK, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sim = load(cases[i].file);
		if (!sim)
			continue;
		if (cases[i].rounds)
			cts_sim_set_const(sim, "ROUNDS", cases[i].rounds);
		for (int k = 0; k < 4; k++) {
			/* tas_lock_bug needs two preemptions */
			int bound = strstr(cases[i].file, "tas_lock_bug") ? 2 : 1;
			if (kinds[k] == CTS_SEARCH_DFS && !cases[i].dfs)
				continue;
			o = run(sim, kinds[k], bound, false, 10000, NULL);
			uint64_t want = k == 0 ? cases[i].dfs : k == 1 ? cases[i].dpor : 0;
			bool found = cases[i].bug == CTS_BUG_NONE ? o.nbugs == 0 :
				     o.nbugs >= 1 && o.kind == cases[i].bug;
			tap_ok(found && o.complete && o.inconclusive == 0 && (!want || o.runs == want),
			       "%s%s %s: %s, complete in %" PRIu64 " runs%s", kname[k],
			       k >= 2 ? (bound == 2 ? " 2" : " 1") : "", cases[i].file,
			       cases[i].bug == CTS_BUG_NONE ? "no bug" : cts_bug_kind_name(cases[i].bug),
			       o.runs, want ? " (exact)" : "");
			/* the waiters poll sense between yields: dpor learns it as a
			 * spin location and puts the races on it (and between the
			 * waiters' arrivals) off, never dropping them (exact count) */
			if (k == 1 && strstr(cases[i].file, "yield_barrier"))
				tap_ok(o.stats.deferred > 0, "dpor %s: %" PRIu64 " races deferred (on "
				       "the polled sense, between waiters' arrivals)", cases[i].file,
				       o.stats.deferred);
			if (cases[i].bug == CTS_BUG_LIVELOCK && o.nbugs)
				tap_ok(strstr(o.message, cases[i].rounds ? "thread 1 spins on sense" :
					      "thread 1 spins on q") != NULL,
				       "... says who spins on what: %s", o.message);
		}
		cts_sim_free(sim);
	}

	/* random and pct: spinners step aside, so no run starves. */
	static const char *const names[] = { "random", "pct" };
	for (int k = 0; k < 2; k++) {
		for (int f = 0; f < 3; f++) {
			static const char *const files[] = { "yield_barrier.sim", "yield_barrier_bug.sim",
							     "livelock.sim" };
			sim = load(files[f]);
			if (!sim)
				continue;
			cts_sim_set_const(sim, "ROUNDS", 2);
			struct cts_objmodel *m = cts_objmodel_new(false);
			struct cts_backend be = cts_sim_backend(sim, m);
			struct cts_strategy_config sc = { .seed = 7, .max_steps = 10000 };
			char err[128];
			struct cts_strategy *s = cts_strategy_create(names[k], &sc, err, sizeof(err));
			struct cts_explorer_config cfg = { .runs = 200, .max_steps = 10000, .quiet = true,
							   .log = tap_quiet_log() };
			struct cts_explore_result res;
			cts_explore(&cfg, &be, m, s, &res);
			if (f == 0)
				tap_ok(res.nbugs == 0 && res.ninconclusive == 0 && res.runs == 200,
				       "%s yield_barrier: 200 runs, no bug, none inconclusive", names[k]);
			else
				tap_ok(res.nbugs >= 1 && res.bugs[0].kind == CTS_BUG_LIVELOCK &&
				       res.ninconclusive == 0,
				       "%s %s: livelock found in %" PRIu64 " runs", names[k], files[f],
				       res.runs);
			cts_explore_result_free(&res);
			cts_strategy_destroy(s);
			cts_objmodel_free(m);
			cts_sim_free(sim);
		}
	}
}

/* Runs of tens of thousands of steps stay cheap: per-step work must not scan
 * the whole trace. */
static void test_long_runs(void)
{
	struct cts_sim *sim = parse(
		"const N = 15000\n"
		"thread main: write z 1; create a; create b; join a; join b\n"
		"thread a: let i = 0\n"
		"L: write x i; read z -> v; lock m; unlock m; let i = i + 1; if i < N goto L\n"
		"  write w 1\n"
		"thread b: let i = 0\n"
		"L: write y i; read z -> v; lock n; unlock n; let i = i + 1; if i < N goto L\n"
		"  write w 2\n");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct outcome o = run(sim, CTS_SEARCH_DPOR, 0, false, 200000, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	/* Everything but the two final writes of w is independent (own variables
	 * and mutexes, z is written before the threads exist): 2 runs. */
	tap_ok(o.runs == 2 && o.complete && o.nbugs == 0 && o.stats.max_depth > 120000,
	       "dpor on %" PRIu64 "-step runs: %" PRIu64 " runs in %.2f s", o.stats.max_depth,
	       o.runs, secs);
	tap_ok(secs < 5.0, "long runs take %.2f s (< 5)", secs);
	cts_sim_free(sim);
}

/* The extension points HaPSet guidance and state matching will use. */
struct hook_log {
	uint64_t observed, accepted_calls, pruned_at;
	bool refuse;
};

static void h_observe(void *ctx, uint64_t step, const struct cts_event *ev)
{
	(void)step, (void)ev;
	((struct hook_log *)ctx)->observed++;
}

static bool h_accept(void *ctx, uint64_t step, const struct cts_event *earlier,
		     const struct cts_event *later)
{
	struct hook_log *h = ctx;
	(void)step;
	h->accepted_calls++;
	return !(h->refuse && earlier->tid != later->tid);
}

static bool h_prune(void *ctx, const struct cts_sched_point *pt)
{
	return pt->step == ((struct hook_log *)ctx)->pruned_at;
}

static void test_hooks(void)
{
	struct cts_sim *sim = load("same_var.sim");
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, m);
	struct cts_strategy_config sc = { .max_steps = 1000 };
	struct cts_explorer_config cfg = { .max_steps = 1000, .quiet = true, .log = tap_quiet_log() };
	struct cts_explore_result res;
	struct cts_search_stats st;
	struct hook_log h = { .pruned_at = UINT64_MAX };
	struct cts_search_hooks hooks = { .ctx = &h, .observe = h_observe, .accept_race = h_accept,
					  .prune = h_prune };

	struct cts_strategy *s = cts_search_create(CTS_SEARCH_DPOR, &sc, &hooks);
	cts_explore(&cfg, &be, m, s, &res);
	tap_ok(res.runs == 2 && h.observed == res.steps && h.accepted_calls > 0,
	       "hooks: observe sees all %" PRIu64 " steps, accept_race is asked", res.steps);
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);

	h = (struct hook_log){ .refuse = true, .pruned_at = UINT64_MAX };
	s = cts_search_create(CTS_SEARCH_DPOR, &sc, &hooks);
	cts_explore(&cfg, &be, m, s, &res);
	tap_ok(res.runs == 1 && res.complete, "accept_race refusing every race leaves one run");
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);

	h = (struct hook_log){ .pruned_at = 3 };
	s = cts_search_create(CTS_SEARCH_DFS, &sc, &hooks);
	cts_explore(&cfg, &be, m, s, &res);
	cts_search_get_stats(s, &st);
	tap_ok(st.pruned == res.runs && res.steps == 3 * res.runs && res.complete,
	       "prune at step 3 cuts every run there (%" PRIu64 " runs), space still complete",
	       res.runs);
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	tap_ok(!cts_search_get_stats(NULL, &st), "stats of a non-search strategy: false");
	cts_objmodel_free(m);
	cts_sim_free(sim);
}

int main(int argc, char **argv)
{
	char self[512];
	(void)argc;
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(simdir, sizeof(simdir), "%s/../sim", dirname(self));
	test_exact_counts();
	test_bounded_counts();
	test_bugs();
	test_dpor_vs_dfs();
	test_quiet_repeats();
	test_dpor_traces();
	test_random_traces();
	test_benchmarks();
	test_divergence_and_completeness();
	test_spins();
	test_long_runs();
	test_hooks();
	return tap_done();
}
