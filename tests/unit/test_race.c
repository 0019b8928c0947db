/* timeout: 60 */
/* Happens-before race detector and vector clocks, fed synthetic event streams. */
#include <errno.h>
#include <stdint.h>

#include "models/race.h"
#include "models/vclock.h"
#include "tests/unit/tap.h"

static struct cts_race_detector *D;
static uint64_t STEP;
static int confirmed; /* races confirmed by flushes since fresh() */

/* Races found since fresh(): reading it flushes, i.e. decides the candidates
 * seen so far, as the explorer does at the end of a run. */
static int settle(void)
{
	int n = cts_race_flush(D);

	if (n < 0)
		tap_diag("flush failed");
	else
		confirmed += n;
	return confirmed;
}
#define NEW settle()

/* Race i / the count, after settling the candidates. */
static const struct cts_race *get(int i)
{
	settle();
	return cts_race_get(D, i);
}

static int count(void)
{
	settle();
	return cts_race_count(D);
}

static void fresh(void)
{
	cts_race_free(D);
	D = cts_race_new();
	if (!D) {
		tap_ok(0, "cts_race_new");
		exit(1);
	}
	STEP = 0;
	confirmed = 0;
}

static uint64_t put(const struct cts_event *e)
{
	int n = cts_race_observe(D, e, STEP);

	if (n < 0)
		tap_diag("observe failed at step %llu", (unsigned long long)STEP);
	return STEP++;
}

/* Builds events by hand: the test needs only the struct. */
static uint64_t sync_ev(int tid, cts_op op, uint64_t obj)
{
	struct cts_event e = { .tid = tid, .op = op, .obj = obj, .target = -1 };

	return put(&e);
}

static uint64_t try_ev(int tid, cts_op op, uint64_t obj, int result)
{
	struct cts_event e = { .tid = tid, .op = op, .obj = obj, .target = -1, .result = result };

	return put(&e);
}

static uint64_t cond_ev(int tid, cts_op op, uint64_t cond, uint64_t mutex)
{
	struct cts_event e = { .tid = tid, .op = op, .obj = cond, .obj2 = mutex, .target = -1 };

	return put(&e);
}

static uint64_t acc(int tid, cts_op op, uint64_t addr, uint32_t size, uint64_t pc)
{
	struct cts_event e = { .tid = tid, .op = op, .obj = addr, .size = size, .pc = pc,
			       .target = -1 };

	return put(&e);
}

static uint64_t val(int tid, cts_op op, uint64_t addr, uint32_t size, uint64_t pc, uint64_t value)
{
	struct cts_event e = { .tid = tid, .op = op, .obj = addr, .size = size, .pc = pc,
			       .value = value, .target = -1 };

	return put(&e);
}

static void thread_ev(int tid, cts_op op, int target)
{
	struct cts_event e = { .tid = tid, .op = op, .target = target };

	put(&e);
}

/* Parent creates child; the child's first step follows. */
static void create(int parent, int child)
{
	thread_ev(parent, CTS_OP_CREATE, child);
	thread_ev(child, CTS_OP_START, -1);
}

/* Thread 0 starts and creates threads 1..n. */
static void setup(int n)
{
	fresh();
	thread_ev(0, CTS_OP_START, -1);
	for (int i = 1; i <= n; i++)
		create(0, i);
}

enum {
	X = 0x601000, Y = 0x601100, Z = 0x601200, Q = 0x601300,
	M = 0x602000, M2 = 0x602040, C = 0x602080, S = 0x6020c0, B = 0x602100,
	F = 0x602140, L = 0x602180, FLAG = 0x6021c0,
};

static void test_vclock(void)
{
	struct cts_vc a = CTS_VC_INIT, b = CTS_VC_INIT;

	cts_vc_tick(&a, 0);
	cts_vc_tick(&b, 1);
	tap_ok(cts_vc_concurrent(&a, &b), "vc: independent ticks are concurrent");
	cts_vc_join(&b, &a);
	tap_ok(cts_vc_leq(&a, &b) && !cts_vc_leq(&b, &a), "vc: join orders a before b");
	tap_ok(cts_vc_epoch_leq(1, 0, &b) && !cts_vc_epoch_leq(2, 0, &b), "vc: epoch test");
	cts_vc_copy(&a, &b);
	tap_ok(cts_vc_leq(&a, &b) && cts_vc_leq(&b, &a) && cts_vc_get(&a, 1) == 1, "vc: copy equal");
	cts_vc_free(&a);
	cts_vc_free(&b);
}

static void test_write_write(void)
{
	setup(2);
	uint64_t s1 = acc(1, CTS_OP_WRITE, X, 4, 0x10);
	uint64_t s2 = acc(2, CTS_OP_WRITE, X, 4, 0x20);
	tap_is_int(NEW, 1, "unlocked write/write after create: one race");
	const struct cts_race *r = get(0);
	tap_ok(r && r->tid1 == 1 && r->tid2 == 2 && r->op1 == CTS_OP_WRITE &&
	       r->op2 == CTS_OP_WRITE && r->pc1 == 0x10 && r->pc2 == 0x20 &&
	       r->step1 == s1 && r->step2 == s2 && r->addr == X && r->size == 4 && r->run == 0,
	       "race fields: threads, ops, pcs, steps, bytes, run");
	tap_ok(get(1) == NULL && get(-1) == NULL, "get out of range is NULL");
	/* Thread 1 writing again hits the same pair: not new. */
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	tap_is_int(count(), 1, "same pc pair again in the run is not new");
}

static void test_locks(void)
{
	setup(2);
	sync_ev(1, CTS_OP_LOCK, M);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_UNLOCK, M);
	sync_ev(2, CTS_OP_LOCK, M);
	acc(2, CTS_OP_WRITE, X, 4, 0x20);
	acc(2, CTS_OP_READ, X, 4, 0x21);
	sync_ev(2, CTS_OP_UNLOCK, M);
	try_ev(1, CTS_OP_TRYLOCK, M, 0);
	acc(1, CTS_OP_RMW, X, 4, 0x11);
	sync_ev(1, CTS_OP_UNLOCK, M);
	tap_is_int(NEW, 0, "writes under one mutex (lock and successful trylock): no race");

	/* A different mutex orders nothing. */
	sync_ev(2, CTS_OP_LOCK, M2);
	acc(2, CTS_OP_WRITE, X, 4, 0x22);
	sync_ev(2, CTS_OP_UNLOCK, M2);
	tap_is_int(NEW, 1, "write under another mutex races");

	/* A failed trylock acquires nothing. */
	setup(2);
	sync_ev(1, CTS_OP_LOCK, M);
	acc(1, CTS_OP_WRITE, Y, 8, 0x30);
	sync_ev(1, CTS_OP_UNLOCK, M);
	sync_ev(1, CTS_OP_LOCK, M);
	try_ev(2, CTS_OP_TRYLOCK, M, EBUSY);
	acc(2, CTS_OP_READ, Y, 8, 0x40);
	tap_is_int(NEW, 1, "read after a failed trylock races");
}

static void test_create_join(void)
{
	fresh();
	thread_ev(0, CTS_OP_START, -1);
	acc(0, CTS_OP_WRITE, X, 4, 0x10);
	create(0, 1);
	acc(1, CTS_OP_READ, X, 4, 0x20);
	acc(1, CTS_OP_WRITE, X, 4, 0x21);
	tap_is_int(NEW, 0, "write before create is ordered before the child");
	acc(0, CTS_OP_READ, X, 4, 0x11);
	tap_is_int(NEW, 1, "parent's access after create races with the child");

	setup(1);
	acc(1, CTS_OP_WRITE, Y, 4, 0x30);
	thread_ev(1, CTS_OP_THREAD_EXIT, -1);
	thread_ev(0, CTS_OP_JOIN, 1);
	acc(0, CTS_OP_READ, Y, 4, 0x31);
	acc(0, CTS_OP_WRITE, Y, 4, 0x32);
	tap_is_int(NEW, 0, "child's write, parent's read after join: no race");

	setup(1);
	acc(1, CTS_OP_WRITE, Y, 4, 0x30);
	acc(0, CTS_OP_READ, Y, 4, 0x33);
	thread_ev(1, CTS_OP_THREAD_EXIT, -1);
	thread_ev(0, CTS_OP_JOIN, 1);
	tap_is_int(NEW, 1, "parent's read before join races");

	/* A create that did not name its child still orders the next new thread. */
	fresh();
	thread_ev(0, CTS_OP_START, -1);
	acc(0, CTS_OP_WRITE, Z, 4, 0x40);
	thread_ev(0, CTS_OP_CREATE, -1);
	thread_ev(1, CTS_OP_START, -1);
	acc(1, CTS_OP_READ, Z, 4, 0x41);
	tap_is_int(NEW, 0, "create without target: child inherits the parent's clock");
	acc(0, CTS_OP_WRITE, Z, 4, 0x42);
	tap_is_int(NEW, 1, "... and the parent's later write races with the child's read");
}

static void test_read_read(void)
{
	fresh();
	thread_ev(0, CTS_OP_START, -1);
	acc(0, CTS_OP_WRITE, X, 8, 0x10);
	create(0, 1);
	create(0, 2);
	create(0, 3);
	acc(1, CTS_OP_READ, X, 8, 0x20);
	acc(2, CTS_OP_READ, X, 8, 0x30);
	acc(1, CTS_OP_READ, X, 4, 0x21);
	tap_is_int(NEW, 0, "concurrent reads do not race");
	acc(3, CTS_OP_WRITE, X, 8, 0x40);
	tap_is_int(NEW, 3, "a write races with every concurrent read pc (0x20, 0x21, 0x30)");
}

static void test_publish(void)
{
	setup(2);
	acc(1, CTS_OP_WRITE, X, 8, 0x10);
	acc(1, CTS_OP_ATOMIC, FLAG, 4, 0x11);
	acc(2, CTS_OP_ATOMIC, FLAG, 4, 0x20);
	acc(2, CTS_OP_READ, X, 8, 0x21);
	tap_is_int(NEW, 0, "publish through an atomic flag: data ordered, atomics never race");

	/* A plain flag: its store/load pair races (it may be a C11 release and
	 * acquire: marked plain); the load saw the store's value, so it is taken
	 * as an acquire of it and the data it published is not reported too. */
	setup(2);
	acc(1, CTS_OP_WRITE, X, 8, 0x10);
	val(1, CTS_OP_WRITE, FLAG, 4, 0x12, 1);
	val(2, CTS_OP_READ, FLAG, 4, 0x22, 1);
	acc(2, CTS_OP_READ, X, 8, 0x21);
	tap_is_int(NEW, 1, "publish through a plain flag: one race, on the flag");
	setup(2);
	acc(1, CTS_OP_WRITE, X, 8, 0x10);
	val(2, CTS_OP_READ, FLAG, 4, 0x22, 0);   /* before the store */
	val(1, CTS_OP_WRITE, FLAG, 4, 0x12, 1);
	acc(2, CTS_OP_READ, X, 8, 0x21);
	tap_is_int(NEW, 2, "a load before the store acquires nothing: two races");
	/* The load acquires what the writer knew, not only its own writes. */
	setup(3);
	sync_ev(3, CTS_OP_LOCK, M);
	acc(3, CTS_OP_WRITE, Y, 8, 0x30);
	sync_ev(3, CTS_OP_UNLOCK, M);
	sync_ev(1, CTS_OP_LOCK, M);
	sync_ev(1, CTS_OP_UNLOCK, M);
	val(1, CTS_OP_WRITE, FLAG, 4, 0x12, 1);
	val(2, CTS_OP_READ, FLAG, 4, 0x22, 1);
	acc(2, CTS_OP_READ, Y, 8, 0x23);
	tap_is_int(NEW, 1, "hand-off through a plain flag is transitive: only the flag races");
	setup(2);
	val(1, CTS_OP_WRITE, FLAG, 4, 0x12, 1);  /* published too early */
	acc(1, CTS_OP_WRITE, X, 8, 0x10);
	val(2, CTS_OP_READ, FLAG, 4, 0x22, 1);
	acc(2, CTS_OP_READ, X, 8, 0x21);
	tap_is_int(NEW, 2, "data written after the flag still races with the reader");

	const struct cts_race *r = get(0);
	tap_ok(r && r->plain && r->addr == FLAG, "plain store vs plain load: marked plain");
}

/* Locked RMWs are synchronization on their address (ThreadSanitizer's
 * rule); plain loads and stores of such a variable are C11 atomic loads and
 * stores as far as a binary can tell; a non-atomic RMW still races. */
static void test_atomic_variables(void)
{
	setup(2);
	acc(1, CTS_OP_WRITE, X, 8, 0x10);
	acc(1, CTS_OP_ATOMIC, FLAG, 4, 0x13);
	acc(2, CTS_OP_READ, FLAG, 4, 0x23);
	acc(2, CTS_OP_READ, X, 8, 0x24);
	tap_is_int(NEW, 0, "plain load of an atomically updated word acquires: data ordered");

	setup(2);
	acc(1, CTS_OP_WRITE, X, 8, 0x10);
	acc(1, CTS_OP_WRITE, FLAG, 4, 0x14);     /* release store before any RMW */
	acc(2, CTS_OP_ATOMIC, FLAG, 4, 0x25);    /* exchange */
	tap_is_int(NEW, 0, "plain store then xchg of the same word: dropped once it is atomic");
	acc(2, CTS_OP_READ, X, 8, 0x26);
	tap_is_int(NEW, 1, "... but that store was not yet a release: the data still races");

	setup(2);
	acc(1, CTS_OP_ATOMIC, FLAG, 4, 0x15);
	acc(1, CTS_OP_WRITE, X, 8, 0x11);
	acc(1, CTS_OP_WRITE, FLAG, 4, 0x16);     /* a C11 release store */
	acc(2, CTS_OP_READ, FLAG, 4, 0x27);      /* a C11 acquire load */
	acc(2, CTS_OP_READ, X, 8, 0x28);
	tap_is_int(NEW, 0, "release store, acquire load of an atomic variable: data ordered");

	setup(2);
	acc(1, CTS_OP_ATOMIC, FLAG, 4, 0x17);
	acc(2, CTS_OP_RMW, FLAG, 4, 0x29);       /* add [m], r without lock */
	const struct cts_race *r = get(0);
	tap_ok(NEW == 1 && r && r->op1 == CTS_OP_ATOMIC && r->op2 == CTS_OP_RMW && !r->plain,
	       "non-atomic RMW of an atomic variable races, not marked plain");

	/* The variables stay known in later runs: the first plain accesses of
	 * run 2 are already atomic loads and stores. */
	cts_race_begin_run(D, 2);
	thread_ev(0, CTS_OP_START, -1);
	create(0, 1);
	create(0, 2);
	acc(1, CTS_OP_WRITE, Y, 8, 0x30);
	acc(1, CTS_OP_WRITE, FLAG, 4, 0x31);
	acc(2, CTS_OP_READ, FLAG, 4, 0x40);
	acc(2, CTS_OP_READ, Y, 8, 0x41);
	tap_is_int(NEW, 1, "run 2: publish through the known atomic: no new race");
}

/* A busy-wait is synchronization (ad hoc, Tian et al. ISSTA 2008): the
 * explorer marks the location, the read that ends the wait acquires the
 * write it saw. */
static void test_spin_sync(void)
{
	setup(2);
	acc(2, CTS_OP_READ, FLAG, 4, 0x20);      /* spins: 0 */
	acc(2, CTS_OP_READ, FLAG, 4, 0x20);
	acc(1, CTS_OP_WRITE, X, 8, 0x10);
	acc(1, CTS_OP_WRITE, FLAG, 4, 0x11);     /* plain store ends the wait */
	cts_race_sync_location(D, FLAG, 4);      /* the explorer: the next read is the exit */
	acc(2, CTS_OP_READ, FLAG, 4, 0x20);
	acc(2, CTS_OP_READ, X, 8, 0x21);
	tap_is_int(NEW, 0, "write, then spin exit: flag and data ordered, no race");

	setup(2);
	acc(2, CTS_OP_READ, FLAG, 4, 0x20);
	cts_race_sync_location(D, FLAG, 4);      /* held back as spinning */
	acc(1, CTS_OP_WRITE, X, 8, 0x10);
	acc(1, CTS_OP_WRITE, FLAG, 4, 0x11);     /* now a release */
	acc(2, CTS_OP_READ, FLAG, 4, 0x20);
	acc(2, CTS_OP_READ, X, 8, 0x21);
	acc(1, CTS_OP_WRITE, X, 8, 0x12);        /* after the handoff: races with 0x21 */
	const struct cts_race *r = get(0);
	tap_ok(NEW == 1 && r && r->pc1 == 0x21 && r->pc2 == 0x12,
	       "spin marked before the write: ordered up to the write, not after");
}

static void test_cond(void)
{
	setup(2);
	sync_ev(2, CTS_OP_LOCK, M);
	cond_ev(2, CTS_OP_COND_WAIT, C, M);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_COND_SIGNAL, C);
	cond_ev(2, CTS_OP_COND_REACQUIRE, C, M);
	acc(2, CTS_OP_READ, X, 4, 0x20);
	sync_ev(2, CTS_OP_UNLOCK, M);
	tap_is_int(NEW, 0, "write before signal, read after reacquire: ordered");

	setup(2);
	sync_ev(2, CTS_OP_LOCK, M);
	cond_ev(2, CTS_OP_COND_WAIT, C, M);
	sync_ev(1, CTS_OP_LOCK, M);
	acc(1, CTS_OP_WRITE, Y, 4, 0x30);
	sync_ev(1, CTS_OP_UNLOCK, M);
	cond_ev(2, CTS_OP_COND_REACQUIRE, C, M);
	acc(2, CTS_OP_READ, Y, 4, 0x40);
	tap_is_int(NEW, 0, "reacquire takes the mutex: write under it is ordered");

	setup(2);
	sync_ev(2, CTS_OP_LOCK, M);
	cond_ev(2, CTS_OP_COND_WAIT, C, M);
	sync_ev(1, CTS_OP_COND_SIGNAL, C);
	acc(1, CTS_OP_WRITE, Z, 4, 0x50);
	cond_ev(2, CTS_OP_COND_REACQUIRE, C, M);
	acc(2, CTS_OP_READ, Z, 4, 0x60);
	tap_is_int(NEW, 1, "write after the signal races");
}

static void test_sem(void)
{
	setup(2);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_SEM_POST, S);
	sync_ev(2, CTS_OP_SEM_WAIT, S);
	acc(2, CTS_OP_READ, X, 4, 0x20);
	tap_is_int(NEW, 0, "sem post/wait orders");

	setup(3);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_SEM_POST, S);
	sync_ev(3, CTS_OP_SEM_WAIT, S);
	try_ev(2, CTS_OP_SEM_TRYWAIT, S, EAGAIN);
	acc(2, CTS_OP_READ, X, 4, 0x21);
	tap_is_int(NEW, 1, "failed trywait orders nothing");
	try_ev(3, CTS_OP_SEM_TRYWAIT, S, 0);
	acc(3, CTS_OP_READ, X, 4, 0x30);
	tap_is_int(NEW, 1, "successful wait orders (no new race)");
}

static void test_barrier(void)
{
	struct cts_event init = { .tid = 0, .op = CTS_OP_BARRIER_INIT, .obj = B, .value = 2,
				  .target = -1 };

	setup(2);
	put(&init);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_BARRIER_WAIT, B);
	sync_ev(2, CTS_OP_BARRIER_WAIT, B);
	acc(2, CTS_OP_READ, X, 4, 0x20);
	acc(1, CTS_OP_READ, X, 4, 0x11);
	tap_is_int(NEW, 0, "write before barrier, read after it: ordered");

	setup(2);
	put(&init);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	acc(2, CTS_OP_READ, X, 4, 0x21);
	sync_ev(1, CTS_OP_BARRIER_WAIT, B);
	sync_ev(2, CTS_OP_BARRIER_WAIT, B);
	tap_is_int(NEW, 1, "write and read in the same phase race");

	/* Rounds, with and without the count: a slow leaver of round 0 must
	 * not see what a fast thread did after it. */
	for (int known = 0; known < 2; known++) {
		setup(2);
		if (known)
			put(&init);
		sync_ev(1, CTS_OP_BARRIER_WAIT, B);
		sync_ev(2, CTS_OP_BARRIER_WAIT, B);
		acc(1, CTS_OP_WRITE, Y, 4, 0x30);      /* phase 1 */
		sync_ev(1, CTS_OP_BARRIER_WAIT, B);    /* round 1 */
		acc(2, CTS_OP_READ, Y, 4, 0x40);       /* still phase 1 */
		tap_is_int(NEW, 1, "phase 1 write and read race (count %s)",
			   known ? "known" : "unknown");
		acc(2, CTS_OP_WRITE, Z, 4, 0x42);      /* phase 1 */
		sync_ev(2, CTS_OP_BARRIER_WAIT, B);
		acc(2, CTS_OP_READ, Y, 4, 0x41);       /* phase 2 */
		acc(1, CTS_OP_READ, Z, 4, 0x32);       /* phase 2, first to arrive */
		tap_is_int(NEW, 1, "phase 2 accesses are ordered after phase 1 (count %s)",
			   known ? "known" : "unknown");
	}
}

static void test_futex(void)
{
	setup(2);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_FUTEX_WAKE, F);
	sync_ev(2, CTS_OP_FUTEX_WAIT, F);
	acc(2, CTS_OP_READ, X, 4, 0x20);
	tap_is_int(NEW, 0, "futex wake/wait orders");

	setup(2);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	acc(1, CTS_OP_ATOMIC, F, 4, 0x11);
	sync_ev(2, CTS_OP_FUTEX_WAIT, F);
	acc(2, CTS_OP_READ, X, 4, 0x21);
	tap_is_int(NEW, 0, "futex wait after an atomic update of the word orders");

	setup(2);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(2, CTS_OP_FUTEX_WAIT, F);
	acc(2, CTS_OP_READ, X, 4, 0x22);
	tap_is_int(NEW, 1, "futex wait with no wake orders nothing");

	/* As the live tracer reports a real wait: the wait parks (first
	 * execution), the wake comes, the wait returns (second execution). */
	setup(2);
	sync_ev(2, CTS_OP_FUTEX_WAIT, F);
	acc(1, CTS_OP_WRITE, Y, 4, 0x30);
	sync_ev(1, CTS_OP_FUTEX_WAKE, F);
	sync_ev(2, CTS_OP_FUTEX_WAIT, F);
	acc(2, CTS_OP_READ, Y, 4, 0x31);
	tap_is_int(NEW, 0, "FUTEX_WAKE orders before the wait it wakes");
}

/* A pipe write and the read that got it, a signal and its waiter: ordered
 * through the kernel (one object for every such operation). */
static void test_kernel(void)
{
	setup(2);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_IO, 4);
	sync_ev(2, CTS_OP_IO, 3);
	sync_ev(2, CTS_OP_IO_RETURN, 3);
	acc(2, CTS_OP_READ, X, 4, 0x20);
	tap_is_int(NEW, 0, "io: a write to a pipe orders what came before it for the reader");

	setup(2);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_SIGNAL, 10);
	sync_ev(2, CTS_OP_SIGWAIT, 0);
	acc(2, CTS_OP_WRITE, X, 4, 0x20);
	tap_is_int(NEW, 0, "signal: a sent signal orders what came before it for its waiter");

	setup(2);
	sync_ev(2, CTS_OP_SIGWAIT, 0);
	acc(1, CTS_OP_WRITE, X, 4, 0x10);
	sync_ev(1, CTS_OP_SIGNAL, 10);
	acc(2, CTS_OP_READ, X, 4, 0x20);
	tap_is_int(NEW, 1, "signal: a wait that ended before the send orders nothing");

	struct cts_event a = { .tid = 1, .op = CTS_OP_IO, .obj = 4, .target = -1 };
	struct cts_event b = { .tid = 2, .op = CTS_OP_SIGSUSPEND, .target = -1 };
	struct cts_event c = { .tid = 2, .op = CTS_OP_LOCK, .obj = 4, .target = -1 };
	tap_ok(cts_event_dependent(&a, &b) && !cts_event_dependent(&a, &c),
	       "dependence: kernel operations meet each other, not locks");
	tap_ok(cts_op_from_name("io_return") == CTS_OP_IO_RETURN &&
	       cts_op_from_name("sigsuspend") == CTS_OP_SIGSUSPEND, "names of kernel operations");
}

static void test_rwlock(void)
{
	setup(3);
	sync_ev(1, CTS_OP_RDLOCK, L);
	acc(1, CTS_OP_READ, X, 4, 0x10);
	sync_ev(1, CTS_OP_RWUNLOCK, L);
	sync_ev(2, CTS_OP_RDLOCK, L);
	acc(2, CTS_OP_READ, X, 4, 0x20);
	sync_ev(2, CTS_OP_RWUNLOCK, L);
	sync_ev(3, CTS_OP_WRLOCK, L);
	acc(3, CTS_OP_WRITE, X, 4, 0x30);
	sync_ev(3, CTS_OP_RWUNLOCK, L);
	try_ev(1, CTS_OP_TRYRDLOCK, L, 0);
	acc(1, CTS_OP_READ, X, 4, 0x11);
	sync_ev(1, CTS_OP_RWUNLOCK, L);
	tap_is_int(NEW, 0, "writer after readers, reader after writer: ordered");

	setup(2);
	sync_ev(1, CTS_OP_RDLOCK, L);
	acc(1, CTS_OP_WRITE, Y, 4, 0x40);
	sync_ev(1, CTS_OP_RWUNLOCK, L);
	sync_ev(2, CTS_OP_RDLOCK, L);
	acc(2, CTS_OP_WRITE, Y, 4, 0x50);
	sync_ev(2, CTS_OP_RWUNLOCK, L);
	tap_is_int(NEW, 1, "two readers writing under a read lock race");
}

static void test_overlap(void)
{
	setup(2);
	acc(1, CTS_OP_WRITE, X + 2, 1, 0x10);
	acc(2, CTS_OP_READ, X, 4, 0x20);
	const struct cts_race *r = get(0);
	tap_ok(NEW == 1 && r && r->addr == X + 2 && r->size == 1,
	       "1-byte write vs 4-byte read covering it: race on that byte");

	setup(2);
	acc(1, CTS_OP_WRITE, Y, 4, 0x30);
	acc(2, CTS_OP_WRITE, Y + 4, 4, 0x40);
	acc(2, CTS_OP_READ, Y + 4, 2, 0x41);
	acc(1, CTS_OP_READ, Y + 1, 2, 0x31);
	tap_is_int(NEW, 0, "disjoint bytes of one granule do not race");
	acc(2, CTS_OP_WRITE, Y + 3, 1, 0x42);
	r = get(0);
	tap_ok(NEW == 1 && r && r->addr == Y + 3 && r->size == 1 && r->pc1 == 0x30,
	       "1-byte write into the other thread's word races on that byte");

	setup(2);
	acc(1, CTS_OP_WRITE, Z + 4, 8, 0x50);       /* straddles two granules */
	acc(2, CTS_OP_READ, Z + 6, 4, 0x60);
	r = get(0);
	tap_ok(NEW == 1 && r && r->addr == Z + 6 && r->size == 4,
	       "accesses straddling granules: one race over the whole overlap");

	setup(2);
	acc(1, CTS_OP_WRITE, Q, 8, 0x70);
	acc(1, CTS_OP_WRITE, Q, 1, 0x71);            /* same thread, partly overwrites */
	acc(2, CTS_OP_READ, Q + 4, 4, 0x80);
	r = get(0);
	tap_ok(NEW == 1 && r && r->pc1 == 0x70 && r->addr == Q + 4 && r->size == 4,
	       "partly overwritten write still stands for its other bytes");
}

static void dedup_run(uint64_t run, uint64_t pca, uint64_t pcb)
{
	cts_race_begin_run(D, run);
	thread_ev(0, CTS_OP_START, -1);
	create(0, 1);
	create(0, 2);
	acc(1, CTS_OP_WRITE, X, 4, pca);
	acc(2, CTS_OP_WRITE, X, 4, pcb);
}

static void test_dedup(void)
{
	fresh();
	dedup_run(1, 0x100, 0x200);
	tap_is_int(NEW, 1, "run 1: race reported");
	dedup_run(2, 0x100, 0x200);
	tap_is_int(NEW, 1, "run 2: same pair not reported again");
	dedup_run(3, 0x200, 0x100);
	tap_is_int(NEW, 1, "run 3: same pair in the other order not reported again");
	dedup_run(4, 0x100, 0x300);
	const struct cts_race *r = get(1);
	tap_ok(NEW == 2 && count() == 2 && r && r->run == 4 && r->pc2 == 0x300,
	       "run 4: a new pair is reported with its run number");
	/* The shadow of earlier runs must not leak into a new one. */
	cts_race_begin_run(D, 5);
	thread_ev(0, CTS_OP_START, -1);
	create(0, 1);
	acc(1, CTS_OP_READ, X, 4, 0x400);
	tap_is_int(NEW, 2, "run 5: no race with accesses of earlier runs");
	tap_ok(count() == 2 && get(0)->run == 1, "races of all runs kept");
}

static void test_bad_input(void)
{
	struct cts_event e = { .tid = CTS_THREADS_CEILING, .op = CTS_OP_WRITE, .obj = X, .size = 4 };

	fresh();
	tap_is_int(cts_race_observe(D, &e, 0), 0, "out-of-range thread ignored");
	e.tid = -1;
	tap_is_int(cts_race_observe(D, &e, 0), 0, "negative thread ignored");
	tap_is_int(cts_race_observe(D, NULL, 0), 0, "NULL event ignored");
}

/* 10^6 accesses by 4 threads: private regions, a shared read-only table, a
 * locked counter, and 100 racy pc pairs; twice, to exercise begin_run. */
static void stress_run(uint64_t run, long *accesses)
{
	const uint64_t table = 0x10000000, priv = 0x20000000, racy = 0x30000000;
	const uint64_t counter = 0x40000000;
	long n = 0;

	cts_race_begin_run(D, run);
	thread_ev(0, CTS_OP_START, -1);
	for (int i = 0; i < 1000; i++, n++)
		acc(0, CTS_OP_WRITE, table + 8 * (uint64_t)i, 8, 0x500);
	for (int t = 1; t <= 4; t++)
		create(0, t);
	for (long j = 0; n < 1000000; j++) {
		for (int t = 1; t <= 4; t++) {
			uint64_t mine = priv + ((uint64_t)t << 24);

			acc(t, CTS_OP_WRITE, mine + 8 * (uint64_t)(j % 60000), 8, 0x600);
			acc(t, CTS_OP_READ, table + 8 * (uint64_t)(j % 1000), 4, 0x700);
			n += 2;
			if (j % 16 == 0) {
				sync_ev(t, CTS_OP_LOCK, M);
				acc(t, CTS_OP_RMW, counter, 8, 0x800);
				sync_ev(t, CTS_OP_UNLOCK, M);
				n++;
			}
			if (j < 100 && t <= 2) {
				acc(t, CTS_OP_WRITE, racy + 8 * (uint64_t)j, 4,
				    (t == 1 ? 0x10000 : 0x20000) + (uint64_t)j);
				n++;
			}
		}
	}
	*accesses = n;
}

static void test_stress(void)
{
	long n1, n2;

	fresh();
	stress_run(1, &n1);
	tap_ok(n1 >= 1000000, "stress: %ld accesses observed", n1);
	tap_is_int(count(), 100, "stress: exactly the 100 racy pairs");
	tap_is_int(NEW, 100, "stress: the flush returned them as new");
	stress_run(2, &n2);
	tap_is_int(count(), 100, "stress again: nothing new after begin_run");
	const struct cts_race *r = get(99);
	tap_ok(r && r->pc1 == 0x10000 + 99 && r->pc2 == 0x20000 + 99 && r->run == 1,
	       "stress: last race is pair 99 from run 1");
}

/* --races catch hands over pairs caught in the act: candidates like the
 * detector's own, one report per pc pair, dropped on a sync variable. */
static void test_added(void)
{
	struct cts_race r = { .addr = 0x5000, .size = 4, .tid1 = 1, .tid2 = 2,
			      .op1 = CTS_OP_WRITE, .op2 = CTS_OP_READ, .pc1 = 0x401010,
			      .pc2 = 0x401020, .plain = true };
	fresh();
	cts_race_begin_run(D, 0);
	tap_is_int(cts_race_add(D, &r), 1, "added: a new pair is a candidate");
	tap_is_int(cts_race_add(D, &r), 0, "added: the same pair twice in a run is one candidate");
	tap_is_int(cts_race_flush(D), 1, "added: the flush makes it a race");
	tap_ok(cts_race_count(D) == 1 && cts_race_get(D, 0)->pc1 == 0x401010 &&
	       cts_race_get(D, 0)->run == 0 && cts_race_get(D, 0)->runs == 1,
	       "added: reported with its pcs and run");
	cts_race_begin_run(D, 1);
	tap_is_int(cts_race_add(D, &r), 0, "added: a known pair in a later run is not new");
	tap_ok(cts_race_flush(D) == 0 && cts_race_get(D, 0)->runs == 2, "added: counted in runs");
	struct cts_race s = r;
	s.addr = 0x6000;
	s.pc1 = 0x401030;
	cts_race_sync_location(D, 0x6000, 4);
	tap_is_int(cts_race_add(D, &s), 1, "added: a pair on a busy-waited variable is a candidate");
	tap_is_int(cts_race_flush(D), 0, "added: ... and is dropped at the flush");
}

int main(void)
{
	test_vclock();
	test_write_write();
	test_locks();
	test_create_join();
	test_read_read();
	test_publish();
	test_atomic_variables();
	test_spin_sync();
	test_cond();
	test_sem();
	test_barrier();
	test_futex();
	test_kernel();
	test_rwlock();
	test_overlap();
	test_dedup();
	test_bad_input();
	test_stress();
	test_added();
	cts_race_free(D);
	return tap_done();
}
