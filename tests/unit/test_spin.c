/* Unit tests for strategies/spin.c: the yield streak of a thread that polls
 * a flag under a mutex (issue 8), without a state hash: counting, so a
 * thread is held at a yield after two yields that changed nothing. */
/* timeout: 60 */
#include "strategies/spin.h"
#include "tests/unit/tap.h"

#define M 0x1000
#define FLAG 0x2000

static uint64_t step_no;

static void run(struct cts_spin *sp, int tid, cts_op op, uint64_t obj, int result)
{
	/* a store writes 1: the flag's reads saw 0 */
	struct cts_event ev = { .tid = tid, .op = op, .obj = obj, .pc = 0x400000 + op,
				.target = -1, .result = result, .value = op == CTS_OP_WRITE };
	if (op == CTS_OP_READ || op == CTS_OP_WRITE)
		ev.size = 4;
	struct cts_spin_step out;
	cts_spin_executed(sp, &ev, step_no++, &out);
}

/* Is tid held back if its next step is a yield? */
static bool yield_stuck(struct cts_spin *sp, int tid)
{
	struct cts_event ev = { .tid = tid, .op = CTS_OP_YIELD, .pc = 0x400000 + CTS_OP_YIELD,
				.target = -1 };
	struct cts_spin_loc *loc;
	return cts_spin_stuck(sp, &ev, &loc);
}

/* One iteration of `lock(m); done = flag; unlock(m); yield`. */
static void poll_once(struct cts_spin *sp, int tid)
{
	run(sp, tid, CTS_OP_LOCK, M, 0);
	run(sp, tid, CTS_OP_READ, FLAG, 0);
	run(sp, tid, CTS_OP_UNLOCK, M, 0);
}

int main(void)
{
	struct cts_spin *sp = cts_spin_new(NULL, NULL);

	poll_once(sp, 1);
	tap_ok(!yield_stuck(sp, 1), "first yield of a poller: not held");
	run(sp, 1, CTS_OP_YIELD, 0, 0);
	poll_once(sp, 1);
	tap_ok(!yield_stuck(sp, 1), "second yield: not held");
	run(sp, 1, CTS_OP_YIELD, 0, 0);
	poll_once(sp, 1);
	tap_ok(yield_stuck(sp, 1), "its own lock/unlock between yields: held at the third");
	run(sp, 1, CTS_OP_YIELD, 0, 0);

	run(sp, 2, CTS_OP_LOCK, 0x3000, 0);
	poll_once(sp, 1);
	tap_ok(!yield_stuck(sp, 1), "another thread's lock releases it");
	run(sp, 1, CTS_OP_YIELD, 0, 0);
	poll_once(sp, 1);
	tap_ok(yield_stuck(sp, 1), "held again after a quiet iteration");
	run(sp, 1, CTS_OP_YIELD, 0, 0);

	/* lock(m); yield: the lock changed hands, a step that changed something */
	run(sp, 1, CTS_OP_LOCK, M, 0);
	tap_ok(!yield_stuck(sp, 1), "a yield after taking a lock: not held");
	run(sp, 1, CTS_OP_YIELD, 0, 0);
	run(sp, 1, CTS_OP_UNLOCK, M, 0);
	tap_ok(!yield_stuck(sp, 1), "a yield after releasing it: not held");
	run(sp, 1, CTS_OP_YIELD, 0, 0);
	run(sp, 1, CTS_OP_YIELD, 0, 0);

	/* a failed trylock between yields changes nothing */
	run(sp, 1, CTS_OP_TRYLOCK, M, 16);
	tap_ok(yield_stuck(sp, 1), "a failed trylock between yields: held");
	run(sp, 1, CTS_OP_YIELD, 0, 0);

	/* its own visible store ends the streak */
	run(sp, 1, CTS_OP_WRITE, FLAG, 0);
	run(sp, 1, CTS_OP_LOCK, M, 0);
	run(sp, 1, CTS_OP_UNLOCK, M, 0);
	tap_ok(!yield_stuck(sp, 1), "its own store between yields: not held");

	cts_spin_free(sp);

	/* A re-reader held by count (no state hash: no proof) and let go
	 * (cts_spin_release: a timed wait gave up while it was held) runs
	 * until it has earned the hold again. */
	sp = cts_spin_new(NULL, NULL);
	struct cts_event rd = { .tid = 1, .op = CTS_OP_READ, .obj = FLAG, .size = 4,
				.pc = 0x400000 + CTS_OP_READ, .target = -1 };
	struct cts_spin_loc *loc;
	for (int i = 0; i < 3; i++)
		run(sp, 1, CTS_OP_READ, FLAG, 0);
	tap_ok(cts_spin_stuck(sp, &rd, &loc) && !cts_spin_proven(sp, 1),
	       "three re-reads of an unchanged flag: held, without proof");
	cts_spin_release(sp, 1);
	tap_ok(!cts_spin_stuck(sp, &rd, &loc), "released: not held at the same read");
	run(sp, 1, CTS_OP_READ, FLAG, 0);
	run(sp, 1, CTS_OP_READ, FLAG, 0);
	tap_ok(!cts_spin_stuck(sp, &rd, &loc), "two reads after the release: not held yet");
	run(sp, 1, CTS_OP_READ, FLAG, 0);
	tap_ok(cts_spin_stuck(sp, &rd, &loc), "a third: held again");
	cts_spin_release(sp, 7);   /* a thread it never saw: nothing to do */
	tap_ok(cts_spin_stuck(sp, &rd, &loc), "releasing another thread leaves it held");
	cts_spin_free(sp);
	return tap_done();
}
