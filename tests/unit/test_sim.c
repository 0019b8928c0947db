/* timeout: 60 */
/* The simulated backend: script parsing, and the run state it reports step
 * by step, driven by hand the way the explorer drives it. */
#include <errno.h>
#include <string.h>
#include "models/objmodel.h"
#include "strategies/sim.h"
#include "tests/unit/tap.h"

struct rig {
	struct cts_sim *sim;
	struct cts_objmodel *model;
	struct cts_backend be;
	struct cts_run_state st;
};

static bool rig_open(struct rig *r, const char *text)
{
	char err[256];
	memset(r, 0, sizeof(*r));
	r->sim = cts_sim_parse(text, err, sizeof(err));
	if (!r->sim) {
		tap_diag("parse: %s", err);
		return false;
	}
	r->model = cts_objmodel_new(false);
	r->be = cts_sim_backend(r->sim, r->model);
	cts_objmodel_reset(r->model);
	return r->be.ops->start(r->be.be, &r->st) == 0;
}

static struct cts_event step(struct rig *r, int t);

/* Like the tracer, the sim holds every thread at START before its code. */
static bool started(struct rig *r, int t)
{
	if (r->st.t[t].pending.op != CTS_OP_START)
		return false;
	step(r, t);
	return true;
}

static void rig_close(struct rig *r)
{
	cts_objmodel_free(r->model);
	cts_sim_free(r->sim);
	cts_run_state_free(&r->st);
}

static bool enabled(struct rig *r, int t)
{
	return t < r->st.nthreads && r->st.t[t].alive && !r->st.t[t].blocked &&
	       cts_objmodel_enabled(r->model, &r->st.t[t].pending);
}

/* One explorer step: backend, then the object model. */
static struct cts_event step(struct rig *r, int t)
{
	struct cts_event done;
	memset(&done, 0, sizeof(done));
	if (r->be.ops->step(r->be.be, &r->st, t, false, &done) != 0)
		tap_diag("step %d failed: %s", t, r->st.message);
	cts_objmodel_apply(r->model, &done);
	return done;
}

static void test_parse_errors(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "write x 1\n", "line 1: statement outside a thread" },
		{ "thread main: frob x\n", "line 1: unknown statement 'frob'" },
		{ "thread main:\n  goto nowhere\n", "line 2: label 'nowhere' is not defined" },
		{ "thread main:\n  write x y\n", "line 2: 'y' is not a local" },
		{ "thread main: create ghost\n", "line 1: no thread named 'ghost'" },
		{ "thread main: read x\n", "line 1: expected '-> local'" },
		{ "thread a: yield\nthread a: yield\n", "line 2: thread 'a' defined twice" },
		{ "# nothing\n", "line 1: no thread defined" },
		{ "thread main: write x 1 2\n", "line 1: unexpected 'number'" },
		{ "thread main: write x $\n", "line 1: unexpected character '$'" },
	};
	char err[256];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cts_sim *sim = cts_sim_parse(bad[i].text, err, sizeof(err));
		tap_ok(!sim && strncmp(err, bad[i].want, strlen(bad[i].want)) == 0,
		       "parse error %zu: \"%s\" (got \"%s\")", i, bad[i].want, sim ? "accepted" : err);
		cts_sim_free(sim);
	}
	tap_ok(!cts_sim_load("/nonexistent/x.sim", err, sizeof(err)) && strstr(err, "/nonexistent"),
	       "load of a missing file fails with its name: %s", err);
}

static void test_memory_and_threads(void)
{
	struct rig r;
	const char *text =
		"# locals, loops and arrays are not scheduling points\n"
		"var x = 5\n"
		"var a[4]\n"
		"const K = 3\n"
		"thread main:\n"
		"  let i = 0\n"
		"L: let i = i + 1\n"
		"  if i < K goto L\n"
		"  write a[i] i * 10\n"
		"  create worker 7 -> w\n"
		"  join w\n"
		"  read a[3] -> v; assert v == 30 && x == 6\n"
		"thread worker: incr x; cas x 6 9 -> ok; cas x 6 (-1) -> ok2\n";
	if (!tap_ok(rig_open(&r, text), "script with loop, arrays, create runs"))
		return;
	struct cts_run_state *st = &r.st;
	tap_is_int(st->nthreads, 1, "one thread at start");
	char buf[256];
	r.be.ops->describe_pc(r.be.be, st->t[0].pending.pc, buf, sizeof(buf));
	tap_ok(strcmp(buf, "main (start)") == 0, "describe_pc of the entry: %s", buf);
	tap_ok(started(&r, 0), "main is held at START first");
	tap_is_int(st->t[0].pending.op, CTS_OP_WRITE, "main's first visible op is the write");
	tap_ok(st->t[0].pending.obj == cts_sim_addr(r.sim, "a", 3) && st->t[0].pending.obj,
	       "write goes to a[3]'s fake address");
	tap_is_int(st->t[0].pending.value, 30, "written value evaluated from locals");
	tap_is_int(st->t[0].pending.size, 8, "accesses are 8 bytes");
	tap_ok(cts_sim_addr(r.sim, "a", 4) == 0 && cts_sim_addr(r.sim, "x", 0) != 0 &&
	       cts_sim_addr(r.sim, "x", 0) != cts_sim_addr(r.sim, "a", 0),
	       "distinct addresses, out of range is 0");
	step(&r, 0);
	tap_is_int(cts_sim_value(r.sim, "a", 3), 30, "memory written");
	tap_is_int(st->t[0].pending.op, CTS_OP_CREATE, "then create");
	tap_is_int(st->t[0].pending.target, -1, "create's target unknown before it runs");
	struct cts_event done = step(&r, 0);
	tap_is_int(done.target, 1, "CREATE's done.target is the new thread");
	tap_is_int(st->nthreads, 2, "two threads");
	tap_ok(st->t[1].alive && st->t[1].pending.tid == 1 && started(&r, 1),
	       "new thread held at START");
	tap_ok(st->t[1].pending.op == CTS_OP_READ, "then at its first op (incr reads first)");
	tap_is_int(st->t[0].pending.op, CTS_OP_JOIN, "main waits to join");
	tap_is_int(st->t[0].pending.target, 1, "join names thread 1 (the local from create)");
	tap_ok(!enabled(&r, 0), "join disabled while thread 1 lives");
	done = step(&r, 1);
	tap_is_int(done.value, 5, "read sees the initial value");
	tap_is_int(st->t[1].pending.value, 6, "incr writes the value read + 1");
	step(&r, 1);
	tap_is_int(st->t[1].pending.op, CTS_OP_ATOMIC, "cas is an atomic op");
	uint64_t h1, h2;
	tap_ok(r.be.ops->thread_state(r.be.be, 1, &h1) == 0, "thread_state of a held thread");
	done = step(&r, 1);
	tap_is_int(done.result, 0, "cas 6 -> 9 succeeds");
	tap_is_int(done.value, 9, "an atomic's done.value is the value after it (as the tracer's)");
	tap_is_int(cts_sim_value(r.sim, "x", 0), 9, "x is 9");
	tap_ok(r.be.ops->thread_state(r.be.be, 1, &h2) == 0 && h1 != h2,
	       "thread_state changes with the statement and locals");
	done = step(&r, 1);
	tap_is_int(done.result, EAGAIN, "second cas fails");
	tap_is_int(done.value, 9, "... and leaves the value: done.value 9");
	tap_is_int(cts_sim_value(r.sim, "x", 0), 9, "x unchanged by the failed cas");
	char var[64];
	r.be.ops->describe_data(r.be.be, cts_sim_addr(r.sim, "a", 2), var, sizeof(var));
	tap_ok(strcmp(var, "a[2]") == 0, "describe_data names array elements: %s", var);
	tap_is_int(st->t[1].pending.op, CTS_OP_THREAD_EXIT, "thread end is a visible exit");
	step(&r, 1);
	tap_ok(!st->t[1].alive, "exited thread is not alive");
	tap_ok(enabled(&r, 0), "join enabled after the exit");
	step(&r, 0);
	step(&r, 0);   /* read a[3] -> v */
	tap_ok(st->t[0].pending.op == CTS_OP_READ && st->t[0].pending.obj == cts_sim_addr(r.sim, "x", 0),
	       "the assert's shared name is read first, as a visible step");
	step(&r, 0);
	tap_is_int(st->status, CTS_RUN_ASSERT, "assert x == 6 fails (x is 9)");
	tap_ok(strstr(st->message, "assertion failed in thread main, line 12") != NULL,
	       "assert message names thread and line: %s", st->message);
	tap_is_int(st->fault_tid, 0, "fault_tid is the asserting thread");
	r.be.ops->describe_pc(r.be.be, st->t[1].pending.pc, buf, sizeof(buf));
	tap_ok(strstr(buf, "worker") != NULL, "describe_pc of an exit names the thread: %s", buf);

	/* A second run starts from the initial memory again. */
	cts_objmodel_reset(r.model);
	cts_run_state_reset(st);
	r.be.ops->start(r.be.be, st);
	tap_ok(cts_sim_value(r.sim, "x", 0) == 5 && cts_sim_value(r.sim, "a", 3) == 0 &&
	       st->nthreads == 1 && st->status == CTS_RUN_ACTIVE,
	       "start resets memory and threads");
	started(&r, 0);
	r.be.ops->describe_pc(r.be.be, st->t[0].pending.pc, buf, sizeof(buf));
	tap_ok(strstr(buf, "main (line 9: write a[i] i * 10)") != NULL, "describe_pc: %s", buf);
	tap_ok(cts_sim_set_const(r.sim, "K", 2) && !cts_sim_set_const(r.sim, "nope", 1),
	       "set_const knows the script's constants");
	cts_objmodel_reset(r.model);
	r.be.ops->start(r.be.be, st);
	started(&r, 0);
	tap_ok(st->t[0].pending.obj == cts_sim_addr(r.sim, "a", 2), "K = 2 makes the loop stop at 2");
	rig_close(&r);
}

static void test_sync(void)
{
	struct rig r;
	const char *text =
		"thread main:\n"
		"  seminit s 0; barrierinit b 2\n"
		"  create t; lock m\n"
		"  wait c m\n"
		"  unlock m; semwait s; barrierwait b\n"
		"thread t:\n"
		"  trylock m -> r; assert r != 0\n"
		"  lock m; signal c; unlock m; sempost s; barrierwait b; exit; write never 1\n";
	if (!tap_ok(rig_open(&r, text), "sync script runs"))
		return;
	struct cts_run_state *st = &r.st;
	started(&r, 0);
	step(&r, 0);
	tap_is_int(st->t[0].pending.op, CTS_OP_BARRIER_INIT, "barrier init after sem init");
	tap_is_int(st->t[0].pending.value, 2, "barrier count");
	step(&r, 0);
	step(&r, 0);   /* create */
	step(&r, 0);   /* lock m */
	started(&r, 1);
	tap_is_int(st->t[1].pending.op, CTS_OP_TRYLOCK, "t tries the lock");
	struct cts_event done = step(&r, 1);
	tap_is_int(done.result, EBUSY, "trylock of a held mutex gives EBUSY");
	tap_is_int(st->t[1].pending.op, CTS_OP_LOCK, "assert r != 0 passed, t goes on to lock");
	tap_ok(!enabled(&r, 1), "lock disabled while main holds m");
	tap_is_int(st->t[0].pending.op, CTS_OP_COND_WAIT, "main waits on c");
	tap_ok(st->t[0].pending.obj2 == cts_sim_addr(r.sim, "m", 0), "cond wait names its mutex");
	step(&r, 0);
	tap_is_int(st->t[0].pending.op, CTS_OP_COND_REACQUIRE, "after the wait main must reacquire");
	tap_ok(!enabled(&r, 0) && enabled(&r, 1), "main parked, t may lock");
	step(&r, 1);   /* lock */
	step(&r, 1);   /* signal */
	tap_ok(!enabled(&r, 0), "signalled main still needs the mutex");
	step(&r, 1);   /* unlock */
	tap_ok(enabled(&r, 0), "reacquire enabled once m is free");
	step(&r, 0);   /* reacquire */
	step(&r, 0);   /* unlock */
	tap_ok(!enabled(&r, 0), "semwait on 0 disabled");
	step(&r, 1);   /* sempost */
	tap_ok(enabled(&r, 0), "semwait enabled after the post");
	step(&r, 0);   /* semwait */
	step(&r, 0);   /* barrierwait: first arrival */
	tap_ok(!enabled(&r, 0), "first at the barrier waits");
	step(&r, 1);   /* barrierwait: releases */
	tap_ok(enabled(&r, 0), "second arrival releases the first");
	tap_is_int(st->t[1].pending.op, CTS_OP_THREAD_EXIT, "exit statement ends the thread early");
	tap_is_int(st->t[0].pending.op, CTS_OP_PROC_EXIT, "main's end is the process exit");
	step(&r, 0);
	tap_ok(st->status == CTS_RUN_EXITED && st->exit_code == 0 && !st->t[1].alive,
	       "main's exit ends the run, other threads with it");
	tap_is_int(cts_sim_value(r.sim, "never", 0), 0, "statement after exit never ran");
	rig_close(&r);
}

static void test_runtime_errors(void)
{
	struct rig r;
	if (rig_open(&r, "var a[2]\nthread main: let i = 2; write a[i] 1\n") && started(&r, 0)) {
		tap_is_int(r.st.status, CTS_RUN_ERROR, "out-of-bounds index is a run error");
		tap_ok(strstr(r.st.message, "out of bounds") != NULL, "message: %s", r.st.message);
	} else {
		tap_ok(0, "bounds script");
	}
	rig_close(&r);
	if (rig_open(&r, "thread main:\nL: goto L\n") && started(&r, 0)) {
		tap_is_int(r.st.status, CTS_RUN_ERROR, "a local endless loop is a run error");
	} else {
		tap_ok(0, "loop script");
	}
	rig_close(&r);
}

int main(void)
{
	test_parse_errors();
	test_memory_and_threads();
	test_sync();
	test_runtime_errors();
	return tap_done();
}
