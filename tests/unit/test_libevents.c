/* timeout: 60 */
/* Library-call range events (lib_read, lib_write, free, alloc) in the models:
 * the dependence relation, the race detector's range entry, and DPOR over a
 * tiny scripted backend (two workers, one event each, between main's
 * creates and joins), including ranges wider than DPOR's per-word index. */
#include <stdio.h>
#include <string.h>

#include "models/objmodel.h"
#include "models/race.h"
#include "strategies/explorer.h"
#include "strategies/systematic.h"
#include "tests/unit/tap.h"

static struct cts_event ev(int tid, cts_op op, uint64_t obj, uint32_t size)
{
	struct cts_event e;

	cts_event_init(&e, tid, op);
	e.obj = obj;
	e.size = size;
	e.pc = 0x1000 + (uint64_t)tid;
	return e;
}

static void test_dependence(void)
{
	struct cts_event w = ev(1, CTS_OP_LIB_WRITE, 0x1000, 64), r = ev(2, CTS_OP_READ, 0x1030, 4);
	struct cts_event lr = ev(2, CTS_OP_LIB_READ, 0x1000, 8), lr2 = ev(1, CTS_OP_LIB_READ, 0x1000, 8);
	struct cts_event f1 = ev(1, CTS_OP_FREE, 0x2000, 32), f2 = ev(2, CTS_OP_FREE, 0x2000, 32);
	struct cts_event far = ev(2, CTS_OP_WRITE, 0x1040, 4), pend = ev(2, CTS_OP_ALLOC, 0, 0);
	struct cts_event got = ev(2, CTS_OP_ALLOC, 0x2000, 32), fx = ev(2, CTS_OP_FUTEX_WAKE, 0x1008, 1);

	tap_ok(cts_op_is_range(CTS_OP_LIB_READ) && !cts_op_is_access(CTS_OP_LIB_READ) &&
	       cts_op_is_libcall(CTS_OP_ALLOC) && !cts_op_is_write(CTS_OP_LIB_READ) &&
	       cts_op_is_write(CTS_OP_FREE), "library ops are ranges, not instruction accesses");
	tap_ok(cts_event_dependent(&w, &r), "lib_write [0x1000,+64) vs read at 0x1030: dependent");
	tap_ok(cts_event_dependent(&w, &lr), "lib_write vs lib_read of its bytes: dependent");
	tap_ok(!cts_event_dependent(&lr, &lr2), "two lib_reads: independent");
	tap_ok(!cts_event_dependent(&w, &far), "write just past the range: independent");
	tap_ok(cts_event_dependent(&f1, &f2), "free vs free of the same block: dependent");
	tap_ok(!cts_event_dependent(&f1, &pend), "an allocation whose block is unknown yet: independent");
	tap_ok(cts_event_dependent(&f1, &got), "the block it got vs the free of that block: dependent");
	tap_ok(cts_event_dependent(&w, &fx), "a futex word inside a library write: dependent");
	char buf[96];
	cts_event_str(&f1, buf, sizeof(buf));
	tap_ok(strstr(buf, "free 32 bytes 0x2000") != NULL, "free is printed with its range: %s", buf);
}

static void test_races(void)
{
	struct cts_race_detector *d = cts_race_new();
	struct cts_event e;

	e = ev(1, CTS_OP_LIB_WRITE, 0x1000, 64);
	cts_race_observe(d, &e, 0);
	e = ev(2, CTS_OP_READ, 0x1038, 8);
	tap_is_int(cts_race_observe(d, &e, 1), 1, "a read inside an unordered memset's range races");
	cts_race_flush(d); /* end of the run: the candidate becomes a race */
	const struct cts_race *r = cts_race_get(d, 0);
	tap_ok(r && r->op1 == CTS_OP_LIB_WRITE && r->addr == 0x1038 && r->size == 8,
	       "reported as lib_write on the read's 8 bytes");

	cts_race_begin_run(d, 1);
	e = ev(1, CTS_OP_WRITE, 0x2000, 8);
	cts_race_observe(d, &e, 0);
	e = ev(1, CTS_OP_FREE, 0x2000, 32);
	e.pc = 0x3000;
	cts_race_observe(d, &e, 1);
	e = ev(2, CTS_OP_ALLOC, 0x2000, 32);
	tap_is_int(cts_race_observe(d, &e, 2), 0, "an allocation is no access");
	e = ev(2, CTS_OP_WRITE, 0x2008, 8);
	e.pc = 0x3001;
	tap_is_int(cts_race_observe(d, &e, 3), 0, "the new owner's write after a reused block: no race");
	e = ev(1, CTS_OP_READ, 0x2008, 8);
	e.pc = 0x3002;
	tap_is_int(cts_race_observe(d, &e, 4), 1, "a stale read of the old owner races with the new owner");
	e = ev(3, CTS_OP_FREE, 0x2000, 32);
	e.pc = 0x3003;
	tap_ok(cts_race_observe(d, &e, 5) >= 1, "an unordered free races with the accesses to its block");

	/* A free, then an unordered access: the block may have been allocated
	 * again by a call that is no event (through a function pointer, or by
	 * a thread alone), so no proof of a race; the free is history. */
	cts_race_begin_run(d, 2);
	e = ev(1, CTS_OP_FREE, 0x4000, 32);
	e.pc = 0x3004;
	cts_race_observe(d, &e, 0);
	e = ev(2, CTS_OP_READ, 0x4008, 8);
	e.pc = 0x3005;
	tap_is_int(cts_race_observe(d, &e, 1), 0, "an access after an unordered free: no race");
	e = ev(3, CTS_OP_FREE, 0x4000, 32);
	e.pc = 0x3006;
	tap_is_int(cts_race_observe(d, &e, 2), 1,
		   "a free after an unordered access still races (with the access, not the first free)");
	cts_race_free(d);
}

/* A scripted program: main creates workers 1 and 2, joins them, exits;
 * each worker yields (worker 2 only: so its event is first looked at after
 * worker 1's ran, through DPOR's index), makes one event (its executed form
 * may differ, as an allocation's does) and exits. */
struct script {
	struct cts_event work[3], done[3];
	int pos[3];
};

static struct cts_event yield(int t)
{
	struct cts_event e;
	cts_event_init(&e, t, CTS_OP_YIELD);
	return e;
}

static void publish(struct cts_run_state *st, int t, struct cts_event e)
{
	struct cts_thread_view *v = cts_run_state_thread(st, t);
	e.tid = t;
	v->alive = true;
	v->pending = e;
}

static const cts_op main_ops[] = { CTS_OP_CREATE, CTS_OP_CREATE, CTS_OP_JOIN, CTS_OP_JOIN,
				   CTS_OP_PROC_EXIT };

static struct cts_event main_event(int pos)
{
	struct cts_event e;
	cts_event_init(&e, 0, main_ops[pos]);
	if (main_ops[pos] == CTS_OP_JOIN) {
		e.target = pos - 1;
		e.obj = 0x9000 + (uint64_t)pos;
	}
	return e;
}

static int s_start(void *be, struct cts_run_state *st)
{
	struct script *s = be;
	memset(s->pos, 0, sizeof(s->pos));
	publish(st, 0, main_event(0));
	st->status = CTS_RUN_ACTIVE;
	return 0;
}

static int s_step(void *be, struct cts_run_state *st, int t, bool give_up, struct cts_event *done)
{
	struct script *s = be;
	(void)give_up;
	*done = st->t[t].pending;
	int p = s->pos[t]++;
	if (t == 0) {
		if (main_ops[p] == CTS_OP_CREATE) {
			done->target = p + 1;
			publish(st, p + 1, p == 1 ? yield(2) : s->work[1]);
		}
		if (main_ops[p] == CTS_OP_PROC_EXIT) {
			st->status = CTS_RUN_EXITED;
			return 0;
		}
		publish(st, 0, main_event(p + 1));
		return 0;
	}
	if (t == 2 && p == 0) {
		publish(st, t, s->work[t]);
		return 0;
	}
	if (p == (t == 2)) {
		*done = s->done[t];
		done->tid = t;
		struct cts_event x;
		cts_event_init(&x, t, CTS_OP_THREAD_EXIT);
		publish(st, t, x);
	} else {
		st->t[t].alive = false;
	}
	return 0;
}

static void s_stop(void *be, struct cts_run_state *st)
{
	(void)be, (void)st;
}

static const struct cts_backend_ops script_ops = {
	.name = "script", .start = s_start, .step = s_step, .stop = s_stop,
};

/* Which orders of the two workers' events the runs took: bit 0 worker 1's
 * first, bit 1 worker 2's first. */
struct orders {
	bool seen1;
	unsigned mask;
};

static void o_observe(void *ctx, uint64_t step, const struct cts_event *e)
{
	struct orders *o = ctx;
	(void)step;
	if (e->tid == 1 && e->op != CTS_OP_THREAD_EXIT)
		o->seen1 = true;
	if (e->tid == 2 && e->op != CTS_OP_YIELD && e->op != CTS_OP_THREAD_EXIT)
		o->mask |= o->seen1 ? 1 : 2;
}

static void o_end(void *ctx, const struct cts_run_summary *sum)
{
	(void)sum;
	((struct orders *)ctx)->seen1 = false;
}

/* dpor on the script: which orders of the two events it tried (0 on error). */
static unsigned dpor_orders(struct cts_event a, struct cts_event ad, struct cts_event b)
{
	struct script s = { .work = { { 0 }, a, b }, .done = { { 0 }, ad, b } };
	struct cts_backend be = { &script_ops, &s };
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_strategy_config sc = { .max_steps = 100 };
	struct orders o = { 0 };
	struct cts_search_hooks hooks = { .ctx = &o, .observe = o_observe, .end_run = o_end };
	struct cts_strategy *st = cts_search_create(CTS_SEARCH_DPOR, &sc, &hooks);
	struct cts_explorer_config cfg = { .max_steps = 100, .quiet = true, .log = tap_quiet_log(),
					   .races = 1 };
	struct cts_explore_result res;
	unsigned orders = 0;
	if (cts_explore(&cfg, &be, m, st, &res) == 0 && res.complete && !res.nbugs)
		orders = o.mask;
	else
		tap_diag("exploration failed or incomplete: %s", res.error);
	cts_explore_result_free(&res);
	cts_strategy_destroy(st);
	cts_objmodel_free(m);
	return orders;
}

static void test_dpor(void)
{
	struct cts_event big = ev(1, CTS_OP_LIB_WRITE, 0x100000, 1 << 20);
	struct cts_event in = ev(2, CTS_OP_READ, 0x100000 + 700000, 4);
	struct cts_event out = ev(2, CTS_OP_READ, 0x300000, 4);
	struct cts_event big2 = ev(2, CTS_OP_LIB_READ, 0x100000 + 900000, 1 << 20);
	struct cts_event alloc = ev(1, CTS_OP_ALLOC, 0, 0), got = ev(1, CTS_OP_ALLOC, 0x300000, 32);

	tap_is_int(dpor_orders(big, big, in), 3, "1 MiB lib_write vs a read deep inside: both orders");
	tap_is_int(dpor_orders(big, big, out), 1, "vs a read outside it: one order");
	tap_is_int(dpor_orders(big, big, big2), 3, "two overlapping 1 MiB ranges: both orders");
	tap_is_int(dpor_orders(in, in, big), 3, "a read, then the big write: both orders");
	tap_is_int(dpor_orders(alloc, got, out), 3,
		   "an allocation learns its block when it runs; replays it without diverging");
}

int main(void)
{
	test_dependence();
	test_races();
	test_dpor();
	return tap_done();
}
