/* timeout: 60 */
/* Active testing on simulated programs: bugs behind windows random
 * scheduling almost never opens (fixed seeds: the counts are exact), found by
 * racefuzzer, deadlockfuzzer and atomfuzzer in a few runs; correct twins
 * with no finding; breakpoints; the suspect list's JSON round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "models/objmodel.h"
#include "models/observe.h"
#include "models/suspects.h"
#include "strategies/active.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "tests/unit/tap.h"

/* A lost update: t1 reads and writes x at once, t2 only after 150 steps of
 * its own; random would have to hold t1 back for all of them. */
static const char race_sim[] =
	"var x; var y\n"
	"thread main: create t1; create t2; join t1; join t2; assert x == 2\n"
	"thread t1: read x -> v; write x (v + 1)\n"
	"thread t2: let i = 0; L: write y i; let i = i + 1; if i < 150 goto L\n"
	"  read x -> w; write x (w + 1)\n";
static const char race_ok_sim[] =
	"var x; var y\n"
	"thread main: create t1; create t2; join t1; join t2; assert x == 2\n"
	"thread t1: lock m; read x -> v; write x (v + 1); unlock m\n"
	"thread t2: let i = 0; L: write y i; let i = i + 1; if i < 150 goto L\n"
	"  lock m; read x -> w; write x (w + 1); unlock m\n";

/* A lock-order inversion on iteration 150 of t1's 200; t2 takes b then a
 * once, at its start. */
static const char deadlock_sim[] =
	"thread main: create t1; create t2; join t1; join t2\n"
	"thread t1: let i = 0\n"
	"  L: lock c; incr n; unlock c\n"
	"  if i != 150 goto N; lock a; lock b; unlock b; unlock a\n"
	"  N: let i = i + 1; if i < 200 goto L\n"
	"thread t2: lock b; lock a; unlock a; unlock b\n";
static const char deadlock_ok_sim[] =
	"thread main: create t1; create t2; join t1; join t2\n"
	"thread t1: let i = 0\n"
	"  L: lock c; incr n; unlock c\n"
	"  if i != 150 goto N; lock a; lock b; unlock b; unlock a\n"
	"  N: let i = i + 1; if i < 200 goto L\n"
	"thread t2: lock a; lock b; unlock b; unlock a\n";

/* Read under m, release, re-take m and write the stale value: t2's update
 * lost. t2 comes 150 steps later. */
static const char atom_sim[] =
	"var x; var y\n"
	"thread main: create t1; create t2; join t1; join t2; assert x == 2\n"
	"thread t1: lock m; read x -> v; unlock m; lock m; write x (v + 1); unlock m\n"
	"thread t2: let i = 0; L: write y i; let i = i + 1; if i < 150 goto L\n"
	"  lock m; incr x; unlock m\n";
static const char atom_ok_sim[] =
	"var x; var y\n"
	"thread main: create t1; create t2; join t1; join t2; assert x == 2\n"
	"thread t1: lock m; read x -> v; unlock m; lock m; incr x; unlock m\n"
	"thread t2: let i = 0; L: write y i; let i = i + 1; if i < 150 goto L\n"
	"  lock m; incr x; unlock m\n";

struct outcome {
	uint64_t runs;
	int nbugs;
	enum cts_bug_kind kind;
	int suspects, confirmed;
	uint64_t first_bug_run;
	bool complete;
	char detail[4096];
};

static struct cts_backend *cur_be;
static uint64_t pause_bound;  /* 0: the default */
static uint64_t seed = 1;
static bool dlf_paper;

/* The sim names a pc "t1 (line 3: read x -> v)"; breakpoints want
 * "t1 (sim.c:3)", as the live symbolizer says it. */
static void sim_describe(void *ctx, uint64_t pc, char *buf, size_t len)
{
	char raw[512] = "", fn[128];
	int line;
	(void)ctx;
	cur_be->ops->describe_pc(cur_be->be, pc, raw, sizeof(raw));
	if (sscanf(raw, "%127s (line %d", fn, &line) == 2)
		snprintf(buf, len, "%s (sim.c:%d)", fn, line);
	else
		snprintf(buf, len, "%s", raw);
}

static struct outcome run(const char *script, const char *strategy, uint64_t runs,
			  struct cts_suspects *breaks, struct cts_suspects *list, bool preloaded)
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
	struct cts_suspects *own = list ? NULL : cts_suspects_new();
	cur_be = &be;
	struct cts_active_options ao = {
		.tries = 10, .suspects = list ? list : own, .preloaded = preloaded, .breaks = breaks,
		.describe_pc = sim_describe, .pause_bound = pause_bound, .dlf_paper = dlf_paper,
	};
	struct cts_strategy_config sc = { .seed = seed, .max_steps = 100000, .active = &ao };
	struct cts_strategy *s = cts_strategy_create(strategy, &sc, err, sizeof(err));
	if (!s) {
		tap_diag("%s", err);
		return o;
	}
	struct cts_explorer_config cfg = { .runs = runs, .max_steps = 100000, .stop_on_bug = true,
					   .quiet = true, .log = tap_quiet_log() };
	struct cts_explore_result res;
	if (cts_explore(&cfg, &be, m, s, &res) != 0)
		tap_diag("explore failed: %s", res.error);
	o.runs = res.runs;
	o.nbugs = res.nbugs;
	o.complete = res.complete;
	if (res.nbugs) {
		o.kind = res.bugs[0].kind;
		o.first_bug_run = res.bugs[0].run;
		snprintf(o.detail, sizeof(o.detail), "%s\n%s", res.bugs[0].message,
			 res.bugs[0].detail);
	}
	o.suspects = cts_suspects_count(ao.suspects);
	o.confirmed = cts_suspects_confirmed(ao.suspects, -1);
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	cts_suspects_free(own);
	cts_objmodel_free(m);
	cts_sim_free(sim);
	return o;
}

static void fuzz_pair(const char *name, const char *bad, const char *good, const char *strategy,
		      enum cts_bug_kind kind)
{
	struct outcome r = run(bad, "random", 40, NULL, NULL, false);
	tap_is_int(r.nbugs, 0, "%s: random misses the bug in 40 runs", name);
	struct outcome f = run(bad, strategy, 0, NULL, NULL, false);
	tap_ok(f.nbugs == 1 && f.kind == kind, "%s: %s finds the %s (run %llu, %d suspects)",
	       name, strategy, cts_bug_kind_name(kind), (unsigned long long)f.first_bug_run,
	       f.suspects);
	if (f.nbugs)
		tap_diag("%s", f.detail);
	tap_ok(f.runs <= 3 + 10, "%s: within phase 1 and a few tries (%llu runs)", name,
	       (unsigned long long)f.runs);
	tap_ok(strstr(f.detail, "active: ") != NULL,
	       "%s: the bug's detail says what the fuzzer confirmed", name);
	struct outcome g = run(good, strategy, 0, NULL, NULL, false);
	tap_ok(g.nbugs == 0 && g.confirmed == 0, "%s twin: %s clean (%d suspects, %d confirmed, "
	       "%llu runs)", name, strategy, g.suspects, g.confirmed, (unsigned long long)g.runs);
}

static void test_breaks(void)
{
	/* Both threads' writes of x are partners: every run where both get
	 * there hits the breakpoint. Line 3 is t1's write, line 4 t2's. */
	static const char sim[] =
		"var x; var y\n"
		"thread main: create t1; create t2; join t1; join t2\n"
		"thread t1: write x 1\n"
		"thread t2: let i = 0; L: write y i; let i = i + 1; if i < 50 goto L; write x 2\n";
	struct cts_suspects *b = cts_suspects_new();
	struct cts_suspect s = { .kind = CTS_SUSPECT_BREAK, .npcs = 0 };
	snprintf(s.spec, sizeof(s.spec), "sim.c:3,t2+0x0,sim.c:4");
	cts_suspects_add(b, &s);
	struct outcome o = run(sim, "random", 20, b, NULL, false);
	tap_is_int(cts_suspects_at(b, 0)->confirmed, 20, "--break: hit in 20 runs of 20");
	tap_is_int(o.nbugs, 0, "--break: no bug of its own");
	cts_suspects_free(b);

	b = cts_suspects_new();
	snprintf(s.spec, sizeof(s.spec), "sim.c:3");
	cts_suspects_add(b, &s);
	o = run(sim, "pct", 20, b, NULL, false);
	tap_is_int(cts_suspects_at(b, 0)->confirmed, 0, "--break with one thread's statement: "
		   "never two threads there, no hit");
	cts_suspects_free(b);
}

/* A lost update behind lock traffic: t1's load and store of x come
 * first, t2's after four lock-protected increments each thread does.
 * Each line is one statement, so FILE:LINE names one: t1's store of x is
 * line 4, t2's load line 8. */
static const char lost_sim[] =
	"var x; var c\n"
	"thread main: create t1; create t2; join t1; join t2; assert x == 2\n"
	"thread t1: read x -> v\n"
	"  write x (v + 1)\n"
	"  let i = 0; L: lock m; incr c; unlock m; let i = i + 1; if i < 4 goto L\n"
	"thread t2:\n"
	"  let i = 0; L: lock m; incr c; unlock m; let i = i + 1; if i < 4 goto L\n"
	"  read x -> w\n"
	"  write x (w + 1)\n";
static const char lost_ok_sim[] =
	"var x; var c\n"
	"thread main: create t1; create t2; join t1; join t2; assert x == 2\n"
	"thread t1: lock n; read x -> v\n"
	"  write x (v + 1); unlock n\n"
	"  let i = 0; L: lock m; incr c; unlock m; let i = i + 1; if i < 4 goto L\n"
	"thread t2:\n"
	"  let i = 0; L: lock m; incr c; unlock m; let i = i + 1; if i < 4 goto L\n"
	"  lock n; read x -> w\n"
	"  write x (w + 1); unlock n\n";

/* --break under dfs and dpor: a constraint on the explored schedules. t1
 * stays paused at its store until t2 reaches its load, so the first run
 * already loses the update; without breakpoints dfs does not get there in
 * 5000 runs and dpor needs dozens. On the twin both searches under the
 * constraint end complete, with fewer runs than without it. */
static void test_break_search(void)
{
	static const char *const strategies[] = { "dfs", "dpor" };
	static const uint64_t twin_cap[] = { 2000, 4 };
	for (int i = 0; i < 2; i++) {
		const char *st = strategies[i];
		struct cts_suspects *b = cts_suspects_new();
		struct cts_suspect s = { .kind = CTS_SUSPECT_BREAK };
		snprintf(s.spec, sizeof(s.spec), "sim.c:4,sim.c:8");
		cts_suspects_add(b, &s);
		struct outcome plain = run(lost_sim, st, 5000, NULL, NULL, false);
		struct outcome o = run(lost_sim, st, 5000, b, NULL, false);
		tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_ASSERT && o.runs == 1,
		       "%s --break: the lost update in the first run (%llu runs)", st,
		       (unsigned long long)o.runs);
		tap_ok(strstr(o.detail, "breakpoint 0 reached by thread 1") != NULL,
		       "%s --break: the bug says where the threads met", st);
		tap_is_int(cts_suspects_at(b, 0)->confirmed, 1, "%s --break: one run met there", st);
		if (i == 0)
			tap_ok(plain.nbugs == 0 && plain.runs == 5000, "dfs alone: no bug in %llu runs",
			       (unsigned long long)plain.runs);
		else
			tap_ok(plain.nbugs == 1 && plain.runs >= 10 * o.runs,
			       "dpor alone: the bug only in run %llu", (unsigned long long)plain.runs);
		struct outcome g = run(lost_ok_sim, st, 5000, b, NULL, false);
		struct outcome gp = run(lost_ok_sim, st, 5000, NULL, NULL, false);
		tap_ok(g.nbugs == 0 && g.complete && g.runs <= twin_cap[i] && g.runs < gp.runs,
		       "%s --break twin: clean, complete for the constrained schedules in %llu runs "
		       "(alone: %llu runs, %s)", st, (unsigned long long)g.runs,
		       (unsigned long long)gp.runs, gp.complete ? "complete" : "not complete");
		cts_suspects_free(b);
	}
}

/* The livelock monitor: t1 is paused at a breakpoint no other thread
 * reaches. Paused until the stall (t2 gone), its store always comes after
 * t2's load; released after 20 steps of pause it can come before, which the
 * assert turns into a bug the search finds. */
static void test_pause_bound(void)
{
	static const char sim[] =
		"var x; var seen; var y\n"
		"thread main: create t1; create t2; join t1; join t2; assert seen == 0\n"
		"thread t1:\n"
		"  write x 1\n"
		"thread t2: let i = 0; L: write y i; let i = i + 1; if i < 60 goto L\n"
		"  read x -> v; write seen v\n";
	static const char *const strategies[] = { "dfs", "random" };
	for (int i = 0; i < 2; i++) {
		struct cts_suspects *b = cts_suspects_new();
		struct cts_suspect s = { .kind = CTS_SUSPECT_BREAK };
		snprintf(s.spec, sizeof(s.spec), "sim.c:4");
		cts_suspects_add(b, &s);
		struct outcome o = run(sim, strategies[i], i ? 200 : 3000, b, NULL, false);
		tap_ok(o.nbugs == 0 && (i || o.complete), "%s --break, paused until the stall: t1's "
		       "store always after t2's load (%llu runs%s)", strategies[i],
		       (unsigned long long)o.runs, o.complete ? ", complete" : "");
		pause_bound = 20;
		o = run(sim, strategies[i], 3000, b, NULL, false);
		pause_bound = 0;
		tap_ok(o.nbugs == 1 && o.kind == CTS_BUG_ASSERT, "%s --break, released after 20 steps "
		       "paused: the store can come first (bug in run %llu)", strategies[i],
		       (unsigned long long)o.first_bug_run);
		tap_is_int(cts_suspects_at(b, 0)->confirmed, 0, "%s: no partner, never met",
			   strategies[i]);
		cts_suspects_free(b);
	}
}

/* Accesses ordered by a semaphore post and wait, or a signal and the woken
 * waiter: no suspect (the wait/notify edges of hybrid detection). */
static void test_notify(void)
{
	static const char sem[] =
		"var x\n"
		"thread main: seminit s 0; create t1; create t2; join t1; join t2\n"
		"thread t1: write x 1; sempost s\n"
		"thread t2: semwait s; read x -> v; write x (v + 1)\n";
	struct outcome o = run(sem, "racefuzzer", 0, NULL, NULL, false);
	tap_ok(o.suspects == 0 && o.nbugs == 0, "semaphore post -> wait orders the accesses "
	       "(%d suspects)", o.suspects);
	static const char cond[] =
		"var x; var ready\n"
		"thread main: create t1; create t2; join t1; join t2\n"
		"thread t1: write x 1; lock m; write ready 1; signal c; unlock m\n"
		"thread t2: lock m; read ready -> r; if r goto D; wait c m; D: unlock m\n"
		"  read x -> v\n";
	o = run(cond, "racefuzzer", 0, NULL, NULL, false);
	/* Where t2 finds ready set it never waits: x is then ordered only by
	 * the lock on ready, which hybrid detection does not count. */
	tap_ok(o.nbugs == 0, "signal -> woken waiter: no bug (%d suspects, %d confirmed)",
	       o.suspects, o.confirmed);
}

static struct cts_event mk(int tid, cts_op op, uint64_t obj, uint64_t pc, uint32_t size)
{
	struct cts_event e;
	cts_event_init(&e, tid, op);
	e.obj = obj;
	e.pc = pc;
	e.size = size;
	return e;
}

/* The observer on hand-made events: heap locks named by allocation site and
 * offset, threads by creation site, a cycle over heap locks found again in
 * a run where the blocks landed elsewhere. */
static void test_observer(void)
{
	struct cts_observer *o = cts_observer_new();
	struct cts_suspects *l = cts_suspects_new();
	for (int run = 0; run < 2; run++) {
		uint64_t base = run ? 0x9000 : 0x5000;   /* the heap moved */
		cts_observer_begin_run(o);
		struct cts_event ev[] = {
			mk(0, CTS_OP_CREATE, 0, 0x401000, 0), mk(0, CTS_OP_CREATE, 0, 0x401010, 0),
			mk(1, CTS_OP_ALLOC, base, 0x402000, 64), mk(1, CTS_OP_ALLOC, base + 0x100, 0x402010, 64),
			mk(1, CTS_OP_LOCK, base + 8, 0x403000, 0), mk(1, CTS_OP_LOCK, base + 0x108, 0x403010, 0),
			mk(1, CTS_OP_UNLOCK, base + 0x108, 0x403020, 0), mk(1, CTS_OP_UNLOCK, base + 8, 0x403030, 0),
			mk(2, CTS_OP_LOCK, base + 0x108, 0x404000, 0), mk(2, CTS_OP_LOCK, base + 8, 0x404010, 0),
			mk(2, CTS_OP_UNLOCK, base + 8, 0x404020, 0), mk(2, CTS_OP_UNLOCK, base + 0x108, 0x404030, 0),
		};
		ev[0].target = 1;
		ev[1].target = 2;
		for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
			cts_observer_event(o, &ev[i], NULL, true);
		struct cts_lock_abs a = cts_observer_lock_abs(o, base + 0x108);
		tap_ok(a.heap && a.site == 0x402010 && a.off == 8,
		       "run %d: a heap lock is its allocation site and offset", run);
		tap_ok(cts_observer_thread_abs(o, 2) == 0x401010 && cts_observer_thread_abs(o, 0) == 0,
		       "run %d: a thread is its creation site", run);
		cts_observer_end_run(o, l, 1u << CTS_SUSPECT_DEADLOCK);
	}
	tap_is_int(cts_suspects_count(l), 1, "the cycle of both runs is one suspect");
	const struct cts_suspect *s = cts_suspects_at(l, 0);
	tap_ok(s && s->ncomp == 2 && s->comp[0].want.heap && s->comp[1].held.heap,
	       "its links name heap locks by site");
	cts_suspects_free(l);
	cts_observer_free(o);
}

static void test_json(void)
{
	struct cts_suspects *l = cts_suspects_new();
	struct outcome f = run(deadlock_sim, "deadlockfuzzer", 0, NULL, l, false);
	tap_ok(f.nbugs == 1 && cts_suspects_count(l) >= 1, "deadlockfuzzer fills the list (%d)",
	       cts_suspects_count(l));
	char path[] = "/tmp/cts-suspects-XXXXXX", err[256];
	int fd = mkstemp(path);
	close(fd);
	tap_ok(cts_suspects_save(l, path, NULL, NULL, err, sizeof(err)) == 0, "suspects saved");
	struct cts_suspects *back = cts_suspects_load(path, err, sizeof(err));
	tap_ok(back && cts_suspects_count(back) == cts_suspects_count(l), "suspects loaded back");
	if (!back)
		tap_diag("%s", err);
	struct outcome g = run(deadlock_sim, "racefuzzer", 0, NULL, back, true);
	tap_ok(g.nbugs == 1 && g.kind == CTS_BUG_DEADLOCK && g.runs <= 10,
	       "--suspects-from: phase 2 only, finds the deadlock (%llu runs)",
	       (unsigned long long)g.runs);
	unlink(path);
	cts_suspects_free(back);
	cts_suspects_free(l);
}

/* Statements with contexts: equal pcs, other callers, other suspects; the
 * contexts go to JSON and back; an all-zero context admits any. */
static void test_contexts(void)
{
	struct cts_suspects *l = cts_suspects_new();
	struct cts_suspect a = { .kind = CTS_SUSPECT_RACE, .npcs = 2, .pc = { 0x1000, 0x1004 },
				 .ctx = { { 0x2005 }, { 0x3005 } } };
	struct cts_suspect b = a;
	b.ctx[0][0] = 0x3005;
	b.ctx[1][0] = 0x2005;
	struct cts_suspect c = { .kind = CTS_SUSPECT_RACE, .npcs = 2, .pc = { 0x1004, 0x1000 },
				 .ctx = { { 0x3005 }, { 0x2005 } } };
	cts_suspects_add(l, &a);
	cts_suspects_add(l, &b);
	tap_is_int(cts_suspects_count(l), 2, "same pcs through other callers: two suspects");
	tap_is_int(cts_suspects_add(l, &c), 0, "the same pair written the other way round is "
		   "the first one");
	char path[] = "/tmp/cts-ctx-XXXXXX", err[256];
	close(mkstemp(path));
	cts_suspects_save(l, path, NULL, NULL, err, sizeof(err));
	struct cts_suspects *back = cts_suspects_load(path, err, sizeof(err));
	tap_ok(back && cts_suspects_count(back) == 2 && cts_suspects_at(back, 1)->ctx[0][0] == 0x3005 &&
	       cts_suspects_at(back, 1)->ctx[1][0] == 0x2005, "contexts saved and loaded");
	uint64_t got[CTS_SUSPECT_CTX] = { 0x2005 }, other[CTS_SUSPECT_CTX] = { 0x3005 };
	static const uint64_t any[CTS_SUSPECT_CTX];
	tap_ok(cts_suspect_ctx_match(a.ctx[0], got) && !cts_suspect_ctx_match(a.ctx[0], other) &&
	       cts_suspect_ctx_match(any, other) && !cts_suspect_ctx_match(a.ctx[0], NULL),
	       "a pause matches the context; a suspect without one matches any");
	unlink(path);
	cts_suspects_free(back);
	cts_suspects_free(l);
}

/* Issue 29 item 1 (tests/programs/dlf_loop.c): t1 takes a then b once; t2
 * takes a alone N times, then b then a. The paper's pausing holds t1 at
 * lock(b) holding a, t2 blocks on a inside its loop, the stall releases
 * t1: never confirmed. Pausing t1 ahead of lock(a) while t2 still takes a
 * on its way confirms it in the first phase-2 run. */
static const char dlf_loop_fmt[] =
	"thread main: create t1; create t2; join t1; join t2\n"
	"thread t1: lock a; lock b; incr n; unlock b; unlock a\n"
	"thread t2: let i = 0; L: lock a; incr n; unlock a; let i = i + 1; if i < %d goto L\n"
	"  lock %s; lock %s; incr n; unlock %s; unlock %s\n";

static void dlf_sim(char *buf, size_t len, int n, bool ok)
{
	const char *x = ok ? "a" : "b", *y = ok ? "b" : "a";
	snprintf(buf, len, dlf_loop_fmt, n, x, y, y, x);
}

/* The link played by the thread created at site, -1. */
static int link_of(const struct cts_suspect *s, bool second)
{
	int best = -1;
	for (int i = 0; i < s->ncomp; i++)
		if (best < 0 || (second ? s->comp[i].thread > s->comp[best].thread :
				 s->comp[i].thread < s->comp[best].thread))
			best = i;
	return best;
}

static void test_dlf_loop(void)
{
	static const int ns[] = { 40, 300 };
	char bad[512], good[512];
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		int n = ns[k];
		dlf_sim(bad, sizeof(bad), n, false);
		dlf_sim(good, sizeof(good), n, true);
		for (seed = 1; seed <= 3; seed++) {
			dlf_paper = true;
			struct outcome p = run(bad, "deadlockfuzzer", 0, NULL, NULL, false);
			dlf_paper = false;
			tap_ok(p.nbugs == 0 && p.suspects == 1 && p.confirmed == 0 && p.runs == 3 + 10,
			       "dlf_loop N=%d seed %llu: the paper's pausing thrashes (%llu runs, %d "
			       "confirmed)", n, (unsigned long long)seed, (unsigned long long)p.runs,
			       p.confirmed);
			struct cts_suspects *l = cts_suspects_new();
			struct outcome f = run(bad, "deadlockfuzzer", 0, NULL, l, false);
			tap_ok(f.nbugs == 1 && f.kind == CTS_BUG_DEADLOCK && f.first_bug_run == 3 &&
			       f.confirmed == 1, "dlf_loop N=%d seed %llu: paused ahead of lock(a), "
			       "confirmed in the first phase-2 run (run %llu)", n,
			       (unsigned long long)seed, (unsigned long long)f.first_bug_run);
			const struct cts_suspect *s = cts_suspects_count(l) ? cts_suspects_at(l, 0) : NULL;
			tap_ok(s && s->ncomp == 2 && s->comp[link_of(s, true)].needs == 2 &&
			       s->comp[link_of(s, true)].times[1] == n &&
			       s->comp[link_of(s, false)].needs == 0, "dlf_loop N=%d seed %llu: phase 1 "
			       "saw t2 take t1's held lock %d times on its way, and not the other way", n,
			       (unsigned long long)seed, n);
			cts_suspects_free(l);
			struct outcome g = run(good, "deadlockfuzzer", 0, NULL, NULL, false);
			tap_ok(g.nbugs == 0 && g.suspects == 0, "dlf_loop_ok N=%d seed %llu: clean, no "
			       "suspect (%llu runs)", n, (unsigned long long)seed,
			       (unsigned long long)g.runs);
		}
		seed = 1;
	}
}

/* The same constraint in other shapes: each thread loops over the other's
 * first lock (both must wait ahead), and a cycle of three whose third
 * thread takes the first thread's lock N times on its way. */
static void test_dlf_shapes(void)
{
	static const char sym[] =
		"thread main: create t1; create t2; join t1; join t2\n"
		"thread t1: let i = 0; L: lock b; incr n; unlock b; let i = i + 1; if i < 40 goto L\n"
		"  lock a; lock b; incr n; unlock b; unlock a\n"
		"thread t2: let i = 0; L: lock a; incr n; unlock a; let i = i + 1; if i < 40 goto L\n"
		"  lock b; lock a; incr n; unlock a; unlock b\n";
	static const char three[] =
		"thread main: create t1; create t2; create t3; join t1; join t2; join t3\n"
		"thread t1: lock a; lock b; incr n; unlock b; unlock a\n"
		"thread t2: lock b; lock c; incr n; unlock c; unlock b\n"
		"thread t3: let i = 0; L: lock a; incr n; unlock a; let i = i + 1; if i < 40 goto L\n"
		"  lock c; lock a; incr n; unlock a; unlock c\n";
	/* t2 takes a once, then waits for t1's post, made while t1 holds a,
	 * and takes c 40 times before b then a: t1 must wait ahead only until
	 * t2 has taken a once, not until t2 stands at its link (which needs
	 * the post), and then be paused at its link. */
	static const char handoff[] =
		"thread main: seminit s 0; create t1; create t2; join t1; join t2\n"
		"thread t1: lock a; sempost s; lock b; incr n; unlock b; unlock a\n"
		"thread t2: lock a; incr n; unlock a; semwait s\n"
		"  let i = 0; L: lock c; incr n; unlock c; let i = i + 1; if i < 40 goto L\n"
		"  lock b; lock a; incr n; unlock a; unlock b\n";
	static const struct { const char *name, *sim; } shapes[] = {
		{ "each loops over the other's lock", sym }, { "a cycle of three", three },
		{ "a hand-off after the partner's one take", handoff },
	};
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		for (seed = 1; seed <= 3; seed++) {
			struct outcome f = run(shapes[k].sim, "deadlockfuzzer", 0, NULL, NULL, false);
			tap_ok(f.nbugs == 1 && f.kind == CTS_BUG_DEADLOCK && f.first_bug_run <= 4,
			       "%s, seed %llu: deadlockfuzzer confirms it at once (run %llu, %d "
			       "suspects)", shapes[k].name, (unsigned long long)seed,
			       (unsigned long long)f.first_bug_run, f.suspects);
		}
		seed = 1;
	}
}

/* Learnt from a thrash: a list without the phase-1 facts (an older
 * --suspects file) thrashes once, learns that t2 blocked on the lock paused
 * t1 held, and pauses t1 ahead of it from the next try. */
static void test_dlf_thrash(void)
{
	char bad[512];
	dlf_sim(bad, sizeof(bad), 40, false);
	struct cts_suspects *l = cts_suspects_new();
	run(bad, "deadlockfuzzer", 0, NULL, l, false);
	struct cts_suspects *bare = cts_suspects_new();
	struct cts_suspect s = *cts_suspects_at(l, 0);
	for (int i = 0; i < s.ncomp; i++)
		s.comp[i].needs = 0;
	cts_suspects_add(bare, &s);
	dlf_paper = true;
	struct outcome p = run(bad, "deadlockfuzzer", 0, NULL, bare, true);
	dlf_paper = false;
	tap_ok(p.nbugs == 0 && p.runs == 10 && cts_suspects_at(bare, 0)->comp[0].needs == 0 &&
	       cts_suspects_at(bare, 0)->comp[1].needs == 0,
	       "preloaded, the paper's pausing: 10 tries, none confirmed, nothing learnt");
	struct cts_suspects *bare2 = cts_suspects_new();
	cts_suspects_add(bare2, &s);
	struct outcome f = run(bad, "deadlockfuzzer", 0, NULL, bare2, true);
	const struct cts_suspect *t = cts_suspects_at(bare2, 0);
	tap_ok(f.nbugs == 1 && f.kind == CTS_BUG_DEADLOCK && f.first_bug_run == 1,
	       "preloaded without the facts: the first try thrashes, the second confirms (run %llu)",
	       (unsigned long long)f.first_bug_run);
	tap_ok(t->comp[link_of(t, true)].needs == 2 && t->comp[link_of(t, false)].needs == 0,
	       "the thrash taught that t2 takes t1's held lock on its way");
	cts_suspects_free(bare2);
	cts_suspects_free(bare);
	cts_suspects_free(l);
}

/* Needs survive the JSON round trip and merge when an equal cycle comes
 * again rotated. */
static void test_needs_json(void)
{
	struct cts_suspects *l = cts_suspects_new();
	struct cts_suspect s = { .kind = CTS_SUSPECT_DEADLOCK, .ncomp = 3 };
	for (int i = 0; i < 3; i++)
		s.comp[i] = (struct cts_cycle_comp){ .thread = 0x100 + (uint64_t)i,
			.held = { .site = 0x200 + (uint64_t)i }, .want = { .site = 0x200 + (uint64_t)(i + 1) % 3 },
			.at = 0x300 + (uint64_t)i };
	s.comp[1].needs = 1u << 2;   /* link 1 takes link 0's held lock first */
	s.comp[1].times[2] = 40;     /* ...40 times */
	cts_suspects_add(l, &s);
	struct cts_suspect r = { .kind = CTS_SUSPECT_DEADLOCK, .ncomp = 3 };
	for (int i = 0; i < 3; i++)
		r.comp[i] = s.comp[(i + 1) % 3];
	for (int i = 0; i < 3; i++)
		r.comp[i].needs = 0;
	r.comp[1].needs = 1u << 1;   /* rotated: its link 1 is link 2, taking link 0's lock */
	r.comp[1].times[1] = 3;
	r.comp[0].needs = 1u << 2;   /* its link 0 is link 1: link 0's lock, 50 times this time */
	r.comp[0].times[2] = 50;
	tap_is_int(cts_suspects_add(l, &r), 0, "a rotated equal cycle is the same suspect");
	const struct cts_suspect *m = cts_suspects_at(l, 0);
	tap_ok(m->comp[1].needs == 1u << 2 && m->comp[2].needs == 1u << 1 && m->comp[0].needs == 0 &&
	       m->comp[1].times[2] == 50 && m->comp[2].times[1] == 3,
	       "its needs are merged in, rotated back, with the most times a run showed");
	char path[] = "/tmp/cts-needs-XXXXXX", err[256];
	close(mkstemp(path));
	cts_suspects_save(l, path, NULL, NULL, err, sizeof(err));
	struct cts_suspects *back = cts_suspects_load(path, err, sizeof(err));
	tap_ok(back && cts_suspects_at(back, 0)->comp[1].needs == 1u << 2 &&
	       cts_suspects_at(back, 0)->comp[2].needs == 1u << 1 &&
	       cts_suspects_at(back, 0)->comp[0].needs == 0 &&
	       cts_suspects_at(back, 0)->comp[1].times[2] == 50 &&
	       cts_suspects_at(back, 0)->comp[2].times[1] == 3, "needs and times saved and loaded back");
	unlink(path);
	cts_suspects_free(back);
	cts_suspects_free(l);
}

int main(void)
{
	test_contexts();
	fuzz_pair("lost update", race_sim, race_ok_sim, "racefuzzer", CTS_BUG_ASSERT);
	fuzz_pair("lock-order inversion", deadlock_sim, deadlock_ok_sim, "deadlockfuzzer",
		  CTS_BUG_DEADLOCK);
	fuzz_pair("stale write", atom_sim, atom_ok_sim, "atomfuzzer", CTS_BUG_ASSERT);
	test_breaks();
	test_break_search();
	test_pause_bound();
	test_notify();
	test_observer();
	test_json();
	test_dlf_loop();
	test_dlf_shapes();
	test_dlf_thrash();
	test_needs_json();
	return tap_done();
}
