/* timeout: 60 */
/* Runs with many threads (issue 17, item 12): vector clocks of different
 * widths, and the growth paths of every thread table, driven through the
 * explorer with the simulated backend (random, dfs, dpor) and through the
 * race detector and the object model with thread numbers far above 128. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/objmodel.h"
#include "models/race.h"
#include "models/vclock.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/systematic.h"
#include "tests/unit/tap.h"

/* ---- vector clocks ---- */

static void test_vclock_widths(void)
{
	struct cts_vc a = CTS_VC_INIT, b = CTS_VC_INIT, c = CTS_VC_INIT;

	tap_ok(a.n == 0 && cts_vc_get(&a, 5000) == 0 && cts_vc_leq(&a, &b),
	       "vc: an empty clock is all zeros");
	cts_vc_tick(&a, 0);
	cts_vc_tick(&b, 300);
	tap_ok(a.n == 1 && b.n == 301, "vc: a tick widens to the thread's number only (1 and 301)");
	tap_ok(cts_vc_concurrent(&a, &b), "vc: narrow and wide clocks with their own ticks are concurrent");
	cts_vc_join(&a, &b);
	tap_ok(a.n == 301 && cts_vc_get(&a, 0) == 1 && cts_vc_get(&a, 300) == 1,
	       "vc: joining a wider clock widens the narrow one");
	tap_ok(cts_vc_leq(&b, &a) && !cts_vc_leq(&a, &b), "vc: after the join b <= a, not a <= b");
	cts_vc_join(&b, &c);
	tap_ok(b.n == 301 && cts_vc_get(&b, 300) == 1, "vc: joining an empty clock changes nothing");
	cts_vc_tick(&c, 2);
	tap_ok(!cts_vc_leq(&c, &b) && cts_vc_leq(&b, &a), "vc: a narrow clock with a component the wide one lacks is not <=");
	/* a wide clock whose extra components are 0 is <= a narrow one */
	struct cts_vc w = CTS_VC_INIT, n = CTS_VC_INIT;
	cts_vc_tick(&n, 1);
	cts_vc_raise(&w, 1, 1);
	cts_vc_raise(&w, 9999, 0);
	cts_vc_tick(&w, 9999);
	w.c[9999] = 0;   /* width 10000, all zero past thread 1 */
	tap_ok(w.n == 10000 && cts_vc_leq(&w, &n) && cts_vc_leq(&n, &w),
	       "vc: trailing zeros do not count (width 10000 vs 2)");
	tap_ok(cts_vc_epoch_leq(1, 300, &a) && !cts_vc_epoch_leq(2, 300, &a) &&
	       !cts_vc_epoch_leq(1, 301, &a), "vc: epochs at and beyond the width");
	cts_vc_copy(&c, &a);
	tap_ok(cts_vc_leq(&c, &a) && cts_vc_leq(&a, &c), "vc: copy of a wide clock is equal");
	cts_vc_zero(&a);
	cts_vc_copy(&c, &a);
	tap_ok(c.n == 0 && cts_vc_get(&c, 300) == 0, "vc: copying an empty clock empties the wide one");
	uint32_t snap[3] = { 4, 0, 7 };
	cts_vc_join_array(&c, snap, 3);
	cts_vc_raise(&c, 1, 2);
	cts_vc_raise(&c, 0, 1);
	tap_ok(c.n == 3 && c.c[0] == 4 && c.c[1] == 2 && c.c[2] == 7, "vc: join_array and raise");
	cts_vc_free(&a);
	cts_vc_free(&b);
	cts_vc_free(&c);
	cts_vc_free(&w);
	cts_vc_free(&n);
	tap_ok(a.n == 0 && a.c == NULL, "vc: free leaves an empty clock");
}

/* ---- the explorer on simulated programs with many threads ---- */

struct outcome {
	int rc;
	uint64_t runs, inconclusive;
	int nbugs;
	bool complete, bad_input;
	enum cts_bug_kind kind;
	char message[1024], error[512];
	int64_t count;
};

static struct outcome explore(const char *script, const char *strategy, uint64_t runs,
			      int max_threads, int64_t nthreads)
{
	struct outcome o = { 0 };
	char err[256];
	struct cts_sim *sim = cts_sim_parse(script, err, sizeof(err));
	if (!sim) {
		tap_diag("parse: %s", err);
		o.rc = -1;
		return o;
	}
	cts_sim_set_const(sim, "N", nthreads);
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, m);
	struct cts_strategy_config sc = { .seed = 1, .max_steps = 1000000 };
	struct cts_strategy *s = cts_strategy_create(strategy, &sc, err, sizeof(err));
	struct cts_explorer_config cfg = { .runs = runs, .max_steps = 1000000, .stop_on_bug = true,
					   .quiet = true, .log = tap_quiet_log(), .max_threads = max_threads };
	struct cts_explore_result res;
	o.rc = cts_explore(&cfg, &be, m, s, &res);
	o.runs = res.runs;
	o.inconclusive = res.ninconclusive;
	o.nbugs = res.nbugs;
	o.complete = res.complete;
	o.bad_input = res.bad_input;
	snprintf(o.error, sizeof(o.error), "%s", res.error);
	if (res.nbugs) {
		o.kind = res.bugs[0].kind;
		snprintf(o.message, sizeof(o.message), "%s", res.bugs[0].message);
	}
	o.count = cts_sim_value(sim, "count", 0);
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	cts_objmodel_free(m);
	cts_sim_free(sim);
	return o;
}

/* N threads created and joined one after another. */
static const char sequential[] =
	"const N = 300\n"
	"thread main: let i = 0; L: if i >= N goto E; create w -> r; join r; let i = i + 1; "
	"goto L; E: assert count == N\n"
	"thread w: lock m; incr count; unlock m\n";

/* N threads alive at once: a barrier of N+1 (main last), then each counts. */
static const char concurrent[] =
	"const N = 200\n"
	"thread main: barrierinit bar (N + 1); let i = 0; L: if i >= N goto E; create w; "
	"let i = i + 1; goto L; E: barrierwait bar; let j = 1; J: if j > N goto D; join j; "
	"let j = j + 1; goto J; D: assert count == N\n"
	"thread w: barrierwait bar; lock m; incr count; unlock m\n";

/* N threads one after another, then two more, numbered N+1 and N+2, with a
 * lock-order inversion. */
static const char late_deadlock[] =
	"const N = 150\n"
	"thread main: let i = 0; L: if i >= N goto E; create w -> r; join r; let i = i + 1; "
	"goto L; E: create ab; create ba; join ab; join ba\n"
	"thread w: lock m; incr count; unlock m\n"
	"thread ab: lock a; lock b; unlock b; unlock a\n"
	"thread ba: lock b; lock a; unlock a; unlock b\n";

static void test_sequential(void)
{
	struct outcome o = explore(sequential, "random", 3, 0, 300);
	tap_ok(o.rc == 0 && o.runs == 3 && !o.nbugs && !o.inconclusive && o.count == 300,
	       "random: 300 threads one after another, 3 clean runs (count %" PRId64 ")", o.count);
	o = explore(sequential, "dpor", 0, 0, 300);
	tap_ok(o.rc == 0 && !o.nbugs && o.complete && o.runs >= 1 && o.count == 300,
	       "dpor: 300 threads one after another, complete in %" PRIu64 " runs", o.runs);
	o = explore(sequential, "dfs", 2, 0, 300);
	/* a join waits for its thread: one schedule only */
	tap_ok(o.rc == 0 && o.runs == 1 && o.complete && !o.nbugs && !o.inconclusive,
	       "dfs: 300 threads one after another, the one schedule, complete (%" PRIu64 " runs)",
	       o.runs);
	o = explore(sequential, "pct", 2, 0, 300);
	tap_ok(o.rc == 0 && o.runs == 2 && !o.nbugs, "pct: 300 threads one after another");
}

static void test_concurrent(void)
{
	struct outcome o = explore(concurrent, "random", 2, 0, 200);
	tap_ok(o.rc == 0 && o.runs == 2 && !o.nbugs && !o.inconclusive && o.count == 200,
	       "random: 200 threads alive at once, 2 clean runs");
	o = explore(concurrent, "dpor", 2, 0, 200);
	tap_ok(o.rc == 0 && o.runs == 2 && !o.nbugs && !o.inconclusive,
	       "dpor: 200 threads alive at once, 2 clean runs (%s)", o.error);
	o = explore(concurrent, "idb", 2, 0, 200);
	tap_ok(o.rc == 0 && !o.nbugs && !o.inconclusive, "idb: 200 threads alive at once");
}

static void test_late_bug(void)
{
	struct outcome o = explore(late_deadlock, "dpor", 0, 0, 150);
	tap_ok(o.rc == 0 && o.nbugs == 1 && o.kind == CTS_BUG_DEADLOCK,
	       "dpor: a deadlock between threads 151 and 152 is found");
	tap_ok(strstr(o.message, "thread 151") && strstr(o.message, "thread 152"),
	       "  and named: %s", o.message);
	o = explore(late_deadlock, "random", 200, 0, 150);
	tap_ok(o.rc == 0 && o.nbugs == 1 && o.kind == CTS_BUG_DEADLOCK,
	       "random: found too (run %" PRIu64 ")", o.runs);
}

static void test_limit(void)
{
	struct outcome o = explore(sequential, "random", 1, 100, 300);
	tap_ok(o.rc != 0 && o.bad_input && strstr(o.error, "more than 100 threads"),
	       "--max-threads 100: the 101st thread is refused, a limit (%s)", o.error);
	o = explore(sequential, "random", 1, 301, 300);
	tap_ok(o.rc == 0 && !o.nbugs, "--max-threads 301: 301 threads fit (main and 300)");
}

/* ---- the race detector and the object model with thread numbers > 255 ---- */

static void test_race_high_threads(void)
{
	struct cts_race_detector *d = cts_race_new();
	uint64_t step = 0;
	struct cts_event e = { .tid = 0, .op = CTS_OP_CREATE, .target = 300 };
	cts_race_observe(d, &e, step++);
	e = (struct cts_event){ .tid = 0, .op = CTS_OP_CREATE, .target = 301 };
	cts_race_observe(d, &e, step++);
	e = (struct cts_event){ .tid = 300, .op = CTS_OP_WRITE, .obj = 0x1000, .size = 4, .pc = 1,
				.target = -1 };
	cts_race_observe(d, &e, step++);
	e = (struct cts_event){ .tid = 300, .op = CTS_OP_THREAD_EXIT, .target = -1 };
	cts_race_observe(d, &e, step++);
	e = (struct cts_event){ .tid = 0, .op = CTS_OP_JOIN, .target = 300 };
	cts_race_observe(d, &e, step++);
	e = (struct cts_event){ .tid = 0, .op = CTS_OP_READ, .obj = 0x1000, .size = 4, .pc = 2,
				.target = -1 };
	cts_race_observe(d, &e, step++);
	cts_race_flush(d);
	tap_is_int(cts_race_count(d), 0, "race: thread 300's write, joined, then read by main: no race");
	e = (struct cts_event){ .tid = 301, .op = CTS_OP_WRITE, .obj = 0x1000, .size = 4, .pc = 3,
				.target = -1 };
	cts_race_observe(d, &e, step++);
	cts_race_flush(d);
	/* with main's read and with thread 300's write */
	int n = cts_race_count(d), kept = 0;
	for (int i = 0; i < n; i++) {
		const struct cts_race *r = cts_race_get(d, i);
		kept += r->tid2 == 301 && (r->tid1 == 0 || r->tid1 == 300);
	}
	tap_ok(n == 2 && kept == 2,
	       "race: thread 301's write races with main's read and thread 300's write, "
	       "thread numbers kept (%d races, %d right)", n, kept);
	cts_race_begin_run(d, 1);
	e = (struct cts_event){ .tid = 5000, .op = CTS_OP_WRITE, .obj = 0x2000, .size = 8, .pc = 4,
				.target = -1 };
	tap_ok(cts_race_observe(d, &e, 0) >= 0, "race: a new run with thread 5000 first");
	cts_race_free(d);
}

static void test_objmodel_high_threads(void)
{
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_event e;

	cts_event_init(&e, 700, CTS_OP_RDLOCK);
	e.obj = 0x40;
	cts_objmodel_apply(m, &e);
	tap_is_int(e.result, 0, "objmodel: thread 700 read-locks");
	cts_event_init(&e, 3, CTS_OP_WRLOCK);
	e.obj = 0x40;
	tap_ok(!cts_objmodel_enabled(m, &e), "objmodel: a writer waits for thread 700's read hold");
	char buf[128];
	tap_is_int(cts_objmodel_blocker(m, &e, buf, sizeof(buf)), 700, "objmodel: blocker is thread 700");
	cts_event_init(&e, 700, CTS_OP_RWUNLOCK);
	e.obj = 0x40;
	cts_objmodel_apply(m, &e);
	cts_event_init(&e, 3, CTS_OP_WRLOCK);
	e.obj = 0x40;
	tap_ok(cts_objmodel_enabled(m, &e), "objmodel: free again after thread 700's unlock");
	cts_event_init(&e, 0, CTS_OP_JOIN);
	e.target = 1000;
	tap_ok(!cts_objmodel_enabled(m, &e), "objmodel: join of thread 1000, not exited, waits");
	cts_event_init(&e, 1000, CTS_OP_THREAD_EXIT);
	cts_objmodel_apply(m, &e);
	cts_event_init(&e, 0, CTS_OP_JOIN);
	e.target = 1000;
	tap_ok(cts_objmodel_enabled(m, &e), "objmodel: and may go once thread 1000 exited");
	cts_objmodel_reset(m);
	tap_ok(!cts_objmodel_thread_exited(m, 1000), "objmodel: reset forgets it");
	cts_objmodel_free(m);
}

int main(void)
{
	test_vclock_widths();
	test_sequential();
	test_concurrent();
	test_late_bug();
	test_limit();
	test_race_high_threads();
	test_objmodel_high_threads();
	return tap_done();
}
