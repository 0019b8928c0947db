/* timeout: 60 */
/* models/objmodel: the synchronization-object model, driven with hand-built
 * events. Expected results follow glibc 2.36 (checked against the real
 * pthread functions where the model claims to mirror them). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "models/objmodel.h"
#include "tests/unit/tap.h"

#define M1 0x404080u
#define M2 0x4040c0u
#define RW 0x405000u
#define C1 0x406000u
#define C2 0x406040u
#define S1 0x407000u
#define B1 0x408000u

static struct cts_objmodel *M;
static char BUF[256];

static struct cts_event mk(int tid, cts_op op, uint64_t obj)
{
	struct cts_event e;
	cts_event_init(&e, tid, op);
	e.obj = obj;
	e.pc = 0x401000u + (uint64_t)tid * 0x10 + (uint64_t)op;
	return e;
}

static bool en(int tid, cts_op op, uint64_t obj)
{
	struct cts_event e = mk(tid, op, obj);
	return cts_objmodel_enabled(M, &e);
}

static bool avail(int tid, cts_op op, uint64_t obj)
{
	struct cts_event e = mk(tid, op, obj);
	return cts_objmodel_available(M, &e);
}

/* Applies the event and returns its result; result starts as a sentinel so a
 * result the model forgot to fill shows up. */
static int app_ev(struct cts_event *e)
{
	e->result = 12345;
	cts_objmodel_apply(M, e);
	return e->result;
}

static int app(int tid, cts_op op, uint64_t obj)
{
	struct cts_event e = mk(tid, op, obj);
	return app_ev(&e);
}

static int app_pc(int tid, cts_op op, uint64_t obj, uint64_t pc)
{
	struct cts_event e = mk(tid, op, obj);
	e.pc = pc;
	return app_ev(&e);
}

static int app_timed(int tid, cts_op op, uint64_t obj)
{
	struct cts_event e = mk(tid, op, obj);
	e.timed = true;
	return app_ev(&e);
}

static struct cts_event cond_ev(int tid, cts_op op, uint64_t cond, uint64_t mutex)
{
	struct cts_event e = mk(tid, op, cond);
	e.obj2 = mutex;
	return e;
}

static int cond_app(int tid, cts_op op, uint64_t cond, uint64_t mutex)
{
	struct cts_event e = cond_ev(tid, op, cond, mutex);
	return app_ev(&e);
}

static bool cond_en(int tid, cts_op op, uint64_t cond, uint64_t mutex)
{
	struct cts_event e = cond_ev(tid, op, cond, mutex);
	return cts_objmodel_enabled(M, &e);
}

static int blocker(struct cts_event e)
{
	BUF[0] = 0;
	return cts_objmodel_blocker(M, &e, BUF, sizeof(BUF));
}

static void fresh(bool futex_driven)
{
	cts_objmodel_free(M);
	M = cts_objmodel_new(futex_driven);
	if (!M) {
		tap_ok(0, "cts_objmodel_new");
		exit(tap_done());
	}
}

static void test_mutex_basic(void)
{
	fresh(false);
	tap_ok(en(0, CTS_OP_LOCK, M1) && avail(0, CTS_OP_LOCK, M1), "unknown mutex: lock enabled");
	tap_ok(!cts_objmodel_knows(M, M1), "unknown mutex is not known");
	tap_is_int(app_pc(0, CTS_OP_LOCK, M1, 0x401234), 0, "thread 0 locks");
	tap_is_int(cts_objmodel_acquired_at(M, M1), 0x401234, "acquired_at is the lock's call site");
	tap_ok(!en(1, CTS_OP_LOCK, M1) && !avail(1, CTS_OP_LOCK, M1), "thread 1 lock disabled");
	tap_ok(en(1, CTS_OP_LOCK, M2), "another mutex is independent");
	tap_is_int(blocker(mk(1, CTS_OP_LOCK, M1)), 0, "blocker of thread 1 is thread 0");
	tap_ok(strstr(BUF, "held by thread 0") && strstr(BUF, "0x404080"),
	       "blocker text names mutex and holder: '%s'", BUF);

	tap_ok(en(1, CTS_OP_TRYLOCK, M1), "trylock is always enabled");
	tap_ok(!avail(1, CTS_OP_TRYLOCK, M1), "  but not available on a held mutex");
	tap_is_int(app(1, CTS_OP_TRYLOCK, M1), EBUSY, "trylock on held mutex -> EBUSY");
	tap_is_int(blocker(mk(2, CTS_OP_LOCK, M1)), 0, "failed trylock did not take ownership");

	tap_is_int(app_timed(1, CTS_OP_LOCK, M1), ETIMEDOUT, "timed lock on held mutex -> ETIMEDOUT");
	tap_is_int(blocker(mk(2, CTS_OP_LOCK, M1)), 0, "timed-out lock did not take ownership");

	tap_is_int(app(1, CTS_OP_UNLOCK, M1), EPERM, "unlock by non-owner -> EPERM");
	tap_ok(!en(1, CTS_OP_LOCK, M1), "  and the mutex stays held");
	tap_is_int(app(0, CTS_OP_UNLOCK, M1), 0, "owner unlocks");
	tap_is_int(cts_objmodel_acquired_at(M, M1), 0, "acquired_at of a free mutex is 0");
	tap_ok(en(1, CTS_OP_LOCK, M1), "thread 1 lock enabled after unlock");
	tap_is_int(app(0, CTS_OP_UNLOCK, M1), EPERM, "unlock of a free mutex -> EPERM");
	tap_is_int(app(1, CTS_OP_TRYLOCK, M1), 0, "trylock on free mutex succeeds");
	tap_ok(!en(0, CTS_OP_LOCK, M1), "  and takes ownership");
	tap_is_int(cts_objmodel_acquired_at(M, M1), mk(1, CTS_OP_TRYLOCK, M1).pc,
		   "acquired_at is the trylock's pc");
	tap_is_int(blocker(mk(0, CTS_OP_LOCK, M1)), 1, "blocker is now thread 1");
	tap_ok(strstr(BUF, "held by thread 1") != NULL, "  text: '%s'", BUF);
	tap_is_int(cts_objmodel_acquired_at(M, 0xdead0), 0, "acquired_at of an unknown object is 0");
}

static void test_mutex_kinds(void)
{
	fresh(false);
	/* Normal: relock by the owner is a self-deadlock, never enabled. */
	app(0, CTS_OP_LOCK, M1);
	tap_ok(!en(0, CTS_OP_LOCK, M1), "normal mutex: relock by owner disabled (self-deadlock)");
	tap_is_int(blocker(mk(0, CTS_OP_LOCK, M1)), 0, "  blocker is the thread itself");
	tap_is_int(app(0, CTS_OP_TRYLOCK, M1), EBUSY, "normal mutex: trylock by owner -> EBUSY");

	/* Error-checking. */
	cts_objmodel_set_mutex_kind(M, M2, CTS_MUTEX_ERRORCHECK);
	tap_ok(cts_objmodel_knows(M, M2), "mutex with a set kind is known");
	tap_is_int(app(0, CTS_OP_LOCK, M2), 0, "errorcheck: lock");
	tap_ok(en(0, CTS_OP_LOCK, M2), "errorcheck: relock by owner enabled (returns at once)");
	tap_is_int(app(0, CTS_OP_LOCK, M2), EDEADLK, "errorcheck: relock -> EDEADLK");
	tap_is_int(app(0, CTS_OP_TRYLOCK, M2), EBUSY,
		   "errorcheck: trylock by owner -> EBUSY (glibc, POSIX)");
	tap_ok(!en(1, CTS_OP_LOCK, M2), "errorcheck: still held by thread 0");
	tap_is_int(app(0, CTS_OP_UNLOCK, M2), 0, "errorcheck: one unlock");
	tap_ok(en(1, CTS_OP_LOCK, M2), "  frees it (the failed relocks added no depth)");
	tap_is_int(app(1, CTS_OP_UNLOCK, M2), EPERM, "errorcheck: unlock of free mutex -> EPERM");

	/* Recursive. */
	uint64_t R = 0x409000;
	cts_objmodel_set_mutex_kind(M, R, CTS_MUTEX_RECURSIVE);
	tap_is_int(app_pc(2, CTS_OP_LOCK, R, 0x1111), 0, "recursive: lock");
	tap_ok(en(2, CTS_OP_LOCK, R), "recursive: relock by owner enabled");
	tap_is_int(app_pc(2, CTS_OP_LOCK, R, 0x2222), 0, "recursive: relock -> 0");
	tap_is_int(app_pc(2, CTS_OP_TRYLOCK, R, 0x3333), 0, "recursive: trylock by owner -> 0");
	tap_is_int(cts_objmodel_acquired_at(M, R), 0x1111, "recursive: acquired_at stays the first lock");
	tap_ok(!en(3, CTS_OP_LOCK, R), "recursive: other thread disabled");
	tap_is_int(app(2, CTS_OP_UNLOCK, R), 0, "recursive: unlock 1 of 3");
	tap_is_int(app(2, CTS_OP_UNLOCK, R), 0, "recursive: unlock 2 of 3");
	tap_ok(!en(3, CTS_OP_LOCK, R), "  still held after 2 of 3 unlocks");
	tap_is_int(app(2, CTS_OP_UNLOCK, R), 0, "recursive: unlock 3 of 3");
	tap_ok(en(3, CTS_OP_LOCK, R), "  free after the last unlock");
	tap_is_int(app(2, CTS_OP_UNLOCK, R), EPERM, "recursive: one unlock too many -> EPERM");
}

static void test_rwlock(void)
{
	fresh(false);
	tap_is_int(app(0, CTS_OP_RDLOCK, RW), 0, "rwlock: reader 0");
	tap_ok(en(1, CTS_OP_RDLOCK, RW), "rwlock: second reader enabled");
	tap_is_int(app(1, CTS_OP_RDLOCK, RW), 0, "rwlock: reader 1");
	tap_ok(!en(2, CTS_OP_WRLOCK, RW), "rwlock: writer disabled while read-held");
	int b = blocker(mk(2, CTS_OP_WRLOCK, RW));
	tap_ok((b == 0 || b == 1) && strstr(BUF, "read-held by thread"),
	       "rwlock: blocker names a reader: %d '%s'", b, BUF);
	tap_ok(en(2, CTS_OP_TRYWRLOCK, RW), "rwlock: trywrlock enabled");
	tap_is_int(app(2, CTS_OP_TRYWRLOCK, RW), EBUSY, "rwlock: trywrlock while read-held -> EBUSY");
	tap_is_int(app(0, CTS_OP_RWUNLOCK, RW), 0, "rwlock: reader 0 unlocks");
	tap_ok(!en(2, CTS_OP_WRLOCK, RW), "rwlock: writer still disabled (reader 1 left)");
	tap_is_int(blocker(mk(2, CTS_OP_WRLOCK, RW)), 1, "rwlock: blocker is the remaining reader 1");
	tap_is_int(app(0, CTS_OP_RWUNLOCK, RW), EPERM, "rwlock: unlock by a non-holder -> EPERM");
	tap_is_int(app(1, CTS_OP_RWUNLOCK, RW), 0, "rwlock: reader 1 unlocks");
	tap_ok(en(2, CTS_OP_WRLOCK, RW), "rwlock: writer enabled when free");
	tap_is_int(app_pc(2, CTS_OP_WRLOCK, RW, 0x4242), 0, "rwlock: writer 2 locks");
	tap_is_int(cts_objmodel_acquired_at(M, RW), 0x4242, "rwlock: acquired_at of the writer");
	tap_ok(!en(0, CTS_OP_RDLOCK, RW) && !en(1, CTS_OP_WRLOCK, RW),
	       "rwlock: readers and writers disabled while write-held");
	tap_is_int(blocker(mk(0, CTS_OP_RDLOCK, RW)), 2, "rwlock: blocker is the writer");
	tap_ok(strstr(BUF, "write-held by thread 2") != NULL, "  text: '%s'", BUF);
	tap_is_int(app(0, CTS_OP_TRYRDLOCK, RW), EBUSY, "rwlock: tryrdlock while write-held -> EBUSY");
	tap_is_int(app(2, CTS_OP_WRLOCK, RW), EDEADLK, "rwlock: writer relocks for write -> EDEADLK");
	tap_is_int(app(2, CTS_OP_RDLOCK, RW), EDEADLK, "rwlock: writer rdlocks -> EDEADLK");
	tap_is_int(app(2, CTS_OP_TRYWRLOCK, RW), EBUSY, "rwlock: writer trywrlocks -> EBUSY (glibc)");
	tap_is_int(app(2, CTS_OP_TRYRDLOCK, RW), EBUSY, "rwlock: writer tryrdlocks -> EBUSY (glibc)");
	tap_is_int(app(2, CTS_OP_RWUNLOCK, RW), 0, "rwlock: writer unlocks");
	tap_is_int(cts_objmodel_acquired_at(M, RW), 0, "rwlock: acquired_at 0 when free");
	tap_ok(en(0, CTS_OP_RDLOCK, RW) && en(1, CTS_OP_WRLOCK, RW), "rwlock: free again");
	tap_is_int(app(0, CTS_OP_TRYRDLOCK, RW), 0, "rwlock: tryrdlock on free -> 0");
	tap_is_int(app(0, CTS_OP_RDLOCK, RW), 0, "rwlock: same reader twice");
	tap_is_int(app(0, CTS_OP_RWUNLOCK, RW), 0, "rwlock: first of two read unlocks");
	tap_ok(!en(1, CTS_OP_WRLOCK, RW), "  still read-held");
	tap_is_int(app(0, CTS_OP_RWUNLOCK, RW), 0, "rwlock: second read unlock");
	tap_ok(en(1, CTS_OP_WRLOCK, RW), "  free");
}

static void test_cond_explicit(void)
{
	fresh(false);
	app(0, CTS_OP_LOCK, M1);
	tap_is_int(cond_app(0, CTS_OP_COND_WAIT, C1, M1), 0, "cond_wait releases the mutex (result 0)");
	tap_ok(en(1, CTS_OP_LOCK, M1), "  mutex free for others");
	tap_ok(cts_objmodel_waiting(M, 0), "  waiter parked");
	tap_ok(!cond_en(0, CTS_OP_COND_REACQUIRE, C1, M1) && !en(0, CTS_OP_LOCK, M2),
	       "  parked thread has nothing enabled");
	tap_is_int(blocker(cond_ev(0, CTS_OP_COND_REACQUIRE, C1, M1)), -1,
		   "  blocker of a parked waiter: no single thread");
	tap_ok(strstr(BUF, "condition") && strstr(BUF, "0x406000"), "  text names the condition: '%s'",
	       BUF);

	app(1, CTS_OP_LOCK, M1);
	cond_app(1, CTS_OP_COND_SIGNAL, C2, 0);
	tap_ok(cts_objmodel_waiting(M, 0), "signal on another condition does not wake it");
	app(1, CTS_OP_COND_SIGNAL, C1);
	tap_ok(!cts_objmodel_waiting(M, 0), "signal wakes the waiter");
	tap_ok(!cond_en(0, CTS_OP_COND_REACQUIRE, C1, M1), "  but reacquire waits for the mutex");
	tap_is_int(blocker(cond_ev(0, CTS_OP_COND_REACQUIRE, C1, M1)), 1,
		   "  blocker of reacquire is the mutex holder");
	tap_ok(strstr(BUF, "held by thread 1") != NULL, "  text: '%s'", BUF);
	app(1, CTS_OP_UNLOCK, M1);
	tap_ok(cond_en(0, CTS_OP_COND_REACQUIRE, C1, M1), "reacquire enabled when the mutex is free");
	struct cts_event r = cond_ev(0, CTS_OP_COND_REACQUIRE, C1, M1);
	r.pc = 0x5555;
	tap_is_int(app_ev(&r), 0, "reacquire takes the mutex");
	tap_ok(!en(1, CTS_OP_LOCK, M1), "  mutex held again by the waiter");
	tap_is_int(cts_objmodel_acquired_at(M, M1), 0x5555, "  acquired_at is the reacquire pc");
	app(0, CTS_OP_UNLOCK, M1);

	/* A signal with nobody waiting is lost. */
	app(1, CTS_OP_COND_SIGNAL, C1);
	app(2, CTS_OP_LOCK, M1);
	cond_app(2, CTS_OP_COND_WAIT, C1, M1);
	tap_ok(cts_objmodel_waiting(M, 2), "an earlier signal does not pre-wake a later waiter");

	/* FIFO: waiters arrive as 2 (above), 5, 3; signal wakes in that order. */
	app(5, CTS_OP_LOCK, M1);
	cond_app(5, CTS_OP_COND_WAIT, C1, M1);
	app(3, CTS_OP_LOCK, M1);
	cond_app(3, CTS_OP_COND_WAIT, C1, M1);
	app(4, CTS_OP_LOCK, M1);
	cond_app(4, CTS_OP_COND_WAIT, C2, M1);
	app(1, CTS_OP_COND_SIGNAL, C1);
	tap_ok(!cts_objmodel_waiting(M, 2) && cts_objmodel_waiting(M, 5) &&
	       cts_objmodel_waiting(M, 3), "first signal wakes the first waiter (2)");
	app(1, CTS_OP_COND_SIGNAL, C1);
	tap_ok(!cts_objmodel_waiting(M, 5) && cts_objmodel_waiting(M, 3),
	       "second signal wakes the second waiter (5), not the lowest tid (3)");
	app(1, CTS_OP_LOCK, M1);
	cond_app(1, CTS_OP_COND_WAIT, C1, M1);
	app(6, CTS_OP_COND_BROADCAST, C1);
	tap_ok(!cts_objmodel_waiting(M, 3) && !cts_objmodel_waiting(M, 1),
	       "broadcast wakes every waiter on the condition");
	tap_ok(cts_objmodel_waiting(M, 4), "  but not a waiter on another condition");
	cond_app(4, CTS_OP_COND_REACQUIRE, C2, M1);
	tap_ok(!cts_objmodel_waiting(M, 4), "reacquire (timed wait giving up) unparks the thread");
}

static void test_cond_errorcheck_unowned(void)
{
	fresh(false);
	cts_objmodel_set_mutex_kind(M, M2, CTS_MUTEX_ERRORCHECK);
	tap_is_int(cond_app(0, CTS_OP_COND_WAIT, C1, M2), EPERM,
		   "cond_wait with an unowned errorcheck mutex -> EPERM");
	tap_ok(!cts_objmodel_waiting(M, 0), "  and returns at once: not parked (glibc)");
}

static void test_cond_futex_driven(void)
{
	fresh(true);
	app(0, CTS_OP_LOCK, M1);
	cond_app(0, CTS_OP_COND_WAIT, C1, M1);
	app(1, CTS_OP_LOCK, M1);
	cond_app(1, CTS_OP_COND_WAIT, C1, M1);
	tap_ok(cts_objmodel_waiting(M, 0) && cts_objmodel_waiting(M, 1) && en(2, CTS_OP_LOCK, M1),
	       "futex-driven: cond_wait parks and releases");
	app(2, CTS_OP_COND_SIGNAL, C1);
	tap_ok(cts_objmodel_waiting(M, 0) && cts_objmodel_waiting(M, 1),
	       "futex-driven: signal does not wake by itself");
	app(2, CTS_OP_COND_BROADCAST, C1);
	tap_ok(cts_objmodel_waiting(M, 0) && cts_objmodel_waiting(M, 1),
	       "futex-driven: broadcast does not wake by itself");
	cts_objmodel_cond_woken(M, 1);
	tap_ok(!cts_objmodel_waiting(M, 1) && cts_objmodel_waiting(M, 0),
	       "futex-driven: cond_woken wakes exactly the named thread");
	tap_ok(cond_en(1, CTS_OP_COND_REACQUIRE, C1, M1), "  which may now reacquire");
	tap_ok(!cond_en(0, CTS_OP_COND_REACQUIRE, C1, M1), "  the other may not");
	cts_objmodel_cond_woken(M, -1);
	cts_objmodel_cond_woken(M, CTS_THREADS_CEILING);
	tap_ok(cts_objmodel_waiting(M, 0), "cond_woken ignores out-of-range threads");
}

static void test_semaphore(void)
{
	fresh(false);
	tap_ok(en(0, CTS_OP_SEM_WAIT, S1), "unknown semaphore: wait enabled (value unknown)");
	tap_is_int(app(0, CTS_OP_SEM_WAIT, S1), 0, "  and succeeds");
	struct cts_event init = mk(0, CTS_OP_SEM_INIT, S1);
	init.value = 2;
	app_ev(&init);
	tap_ok(cts_objmodel_knows(M, S1), "sem_init makes the semaphore known");
	tap_is_int(app(1, CTS_OP_SEM_WAIT, S1), 0, "sem value 2: first wait");
	tap_ok(en(2, CTS_OP_SEM_WAIT, S1), "  second wait enabled");
	tap_is_int(app(2, CTS_OP_SEM_WAIT, S1), 0, "sem value 1: second wait");
	tap_ok(!en(3, CTS_OP_SEM_WAIT, S1) && !avail(3, CTS_OP_SEM_WAIT, S1),
	       "sem value 0: wait disabled");
	tap_is_int(blocker(mk(3, CTS_OP_SEM_WAIT, S1)), -1, "  blocker: no single thread");
	tap_ok(strstr(BUF, "semaphore") && strstr(BUF, "0x407000"), "  text: '%s'", BUF);
	tap_ok(en(3, CTS_OP_SEM_TRYWAIT, S1), "sem_trywait always enabled");
	tap_is_int(app(3, CTS_OP_SEM_TRYWAIT, S1), EAGAIN, "sem_trywait at 0 -> EAGAIN");
	tap_is_int(app_timed(3, CTS_OP_SEM_WAIT, S1), ETIMEDOUT, "timed sem_wait at 0 -> ETIMEDOUT");
	tap_ok(!en(3, CTS_OP_SEM_WAIT, S1), "  failed waits did not drive the value negative");
	app(1, CTS_OP_SEM_POST, S1);
	tap_ok(en(3, CTS_OP_SEM_WAIT, S1), "post makes wait enabled");
	tap_is_int(app(3, CTS_OP_SEM_TRYWAIT, S1), 0, "sem_trywait after post -> 0");
	tap_ok(!en(3, CTS_OP_SEM_WAIT, S1), "  and consumes the post");

	cts_objmodel_set_sem(M, S1 + 64, 0);
	tap_ok(cts_objmodel_knows(M, S1 + 64) && !en(0, CTS_OP_SEM_WAIT, S1 + 64),
	       "set_sem 0: known, wait disabled");
}

static void test_barrier(void)
{
	fresh(false);
	struct cts_event init = mk(0, CTS_OP_BARRIER_INIT, B1);
	init.value = 3;
	app_ev(&init);
	tap_ok(cts_objmodel_knows(M, B1), "barrier_init makes the barrier known");
	for (int round = 0; round < 2; round++) {
		tap_is_int(app(0, CTS_OP_BARRIER_WAIT, B1), 0, "round %d: arrival 1 -> 0", round);
		tap_ok(cts_objmodel_waiting(M, 0), "  parked");
		tap_ok(!en(0, CTS_OP_RESUME, B1), "  nothing enabled for it");
		tap_is_int(app(1, CTS_OP_BARRIER_WAIT, B1), 0, "round %d: arrival 2 -> 0", round);
		tap_is_int(blocker(mk(0, CTS_OP_RESUME, B1)), -1, "  blocker: no single thread");
		tap_ok(strstr(BUF, "barrier 0x408000") && strstr(BUF, "2 of 3"),
		       "  text counts arrivals: '%s'", BUF);
		tap_is_int(app(2, CTS_OP_BARRIER_WAIT, B1), -1,
			   "round %d: last arrival -> -1 (PTHREAD_BARRIER_SERIAL_THREAD)", round);
		tap_ok(!cts_objmodel_waiting(M, 0) && !cts_objmodel_waiting(M, 1) &&
		       !cts_objmodel_waiting(M, 2), "  everyone released");
		tap_ok(en(0, CTS_OP_RESUME, B1) && en(1, CTS_OP_RESUME, B1), "  resumes enabled");
	}

	cts_objmodel_set_barrier(M, B1 + 64, 2);
	tap_ok(cts_objmodel_knows(M, B1 + 64), "set_barrier makes it known");
	app(4, CTS_OP_BARRIER_WAIT, B1 + 64);
	tap_ok(cts_objmodel_waiting(M, 4) && !cts_objmodel_waiting(M, 0),
	       "a second barrier parks independently");

	fresh(true);
	init = mk(0, CTS_OP_BARRIER_INIT, B1);
	init.value = 2;
	app_ev(&init);
	tap_is_int(app(0, CTS_OP_BARRIER_WAIT, B1), 0, "futex-driven barrier: first arrival -> 0");
	tap_ok(!cts_objmodel_waiting(M, 0), "  not parked by the model (the futex wait does that)");
	tap_is_int(app(1, CTS_OP_BARRIER_WAIT, B1), -1, "futex-driven barrier: last arrival -> -1");
}

static void test_join(void)
{
	fresh(false);
	struct cts_event j = mk(0, CTS_OP_JOIN, 0x7ffff7d8a640);
	j.target = 1;
	tap_ok(!cts_objmodel_enabled(M, &j), "join disabled while the target runs");
	tap_ok(!cts_objmodel_thread_exited(M, 1), "  target not exited");
	BUF[0] = 0;
	tap_is_int(cts_objmodel_blocker(M, &j, BUF, sizeof(BUF)), 1, "  blocker is the target");
	tap_ok(strstr(BUF, "thread 1") != NULL, "  text: '%s'", BUF);
	app(2, CTS_OP_THREAD_EXIT, 0);
	tap_ok(!cts_objmodel_enabled(M, &j), "another thread's exit does not enable it");
	app(1, CTS_OP_THREAD_EXIT, 0);
	tap_ok(cts_objmodel_thread_exited(M, 1), "THREAD_EXIT marks the thread exited");
	tap_ok(cts_objmodel_enabled(M, &j), "join enabled after the target's THREAD_EXIT");
	tap_ok(!cts_objmodel_thread_exited(M, -1) && !cts_objmodel_thread_exited(M, CTS_THREADS_CEILING),
	       "thread_exited is false out of range");
}

/* pthread_cancel: a thread with a cancel due does not block at its next
 * cancellation point; a cancelled cond wait keeps (re-takes) the mutex. */
static void test_cancel(void)
{
	fresh(true);
	struct cts_event j = mk(1, CTS_OP_JOIN, 0x7ffff7d8a640);
	j.target = 2;
	app(1, CTS_OP_LOCK, M1);
	tap_ok(!cts_objmodel_enabled(M, &j), "cancel: join blocked before the cancel");
	cts_objmodel_cancel(M, 1);
	tap_ok(cts_objmodel_enabled(M, &j), "cancel: join of a live thread enabled once cancelled");
	app(0, CTS_OP_LOCK, M2);
	tap_ok(!en(1, CTS_OP_LOCK, M2), "  and stays blocked on a held mutex");
	tap_is_int(cond_app(1, CTS_OP_COND_WAIT, C1, M1), ECANCELED, "cancel: cond_wait unwinds");
	tap_ok(!cts_objmodel_waiting(M, 1) && !en(2, CTS_OP_LOCK, M1),
	       "  not parked, and it still holds the mutex");
	app(1, CTS_OP_THREAD_EXIT, 0);
	tap_ok(cts_objmodel_thread_exited(M, 1), "cancel: the thread exits");

	fresh(true);
	app(1, CTS_OP_LOCK, M1);
	cond_app(1, CTS_OP_COND_WAIT, C1, M1);
	tap_ok(cts_objmodel_waiting(M, 1) && !cond_en(1, CTS_OP_COND_REACQUIRE, C1, M1),
	       "cancel: a parked cond waiter is blocked");
	cts_objmodel_cancel(M, 1);
	tap_ok(cond_en(1, CTS_OP_COND_REACQUIRE, C1, M1), "  cancelled, it may reacquire");
	tap_is_int(cond_app(1, CTS_OP_COND_REACQUIRE, C1, M1), 0, "  and takes the mutex back");
	tap_ok(!en(2, CTS_OP_LOCK, M1), "  which others now wait for");
	struct cts_event s = mk(3, CTS_OP_SEM_WAIT, S1);
	cts_objmodel_set_sem(M, S1, 0);
	cts_objmodel_cancel(M, 3);
	tap_ok(cts_objmodel_enabled(M, &s), "cancel: sem_wait on 0 enabled once cancelled");
	tap_is_int(app_ev(&s), ECANCELED, "  and takes nothing");
	cts_objmodel_set_sem(M, S1, 1);
	tap_ok(en(4, CTS_OP_SEM_WAIT, S1), "  the count is intact");
}

static void test_reset(void)
{
	fresh(false);
	cts_objmodel_set_mutex_kind(M, M2, CTS_MUTEX_RECURSIVE);
	app(0, CTS_OP_LOCK, M1);
	app(1, CTS_OP_LOCK, M2);
	app(2, CTS_OP_LOCK, M2 + 8);
	cond_app(2, CTS_OP_COND_WAIT, C1, M2 + 8);
	cts_objmodel_set_sem(M, S1, 0);
	cts_objmodel_set_barrier(M, B1, 2);
	app(3, CTS_OP_BARRIER_WAIT, B1);
	app(4, CTS_OP_WRLOCK, RW);
	app(5, CTS_OP_THREAD_EXIT, 0);

	cts_objmodel_reset(M);
	tap_ok(en(9, CTS_OP_LOCK, M1) && en(9, CTS_OP_LOCK, M2) && en(9, CTS_OP_RDLOCK, RW),
	       "reset: all locks free");
	tap_ok(!cts_objmodel_knows(M, M2) && !cts_objmodel_knows(M, S1) && !cts_objmodel_knows(M, B1),
	       "reset: no object known");
	tap_ok(!cts_objmodel_waiting(M, 2) && !cts_objmodel_waiting(M, 3), "reset: nobody parked");
	tap_ok(!cts_objmodel_thread_exited(M, 5), "reset: nobody exited");
	tap_ok(cts_objmodel_acquired_at(M, M1) == 0 && cts_objmodel_acquired_at(M, RW) == 0,
	       "reset: acquired_at forgotten");
	tap_ok(en(9, CTS_OP_SEM_WAIT, S1), "reset: semaphore value forgotten");
	app(1, CTS_OP_LOCK, M2);
	tap_ok(!en(1, CTS_OP_LOCK, M2), "reset: mutex kind forgotten (back to normal)");

	/* The new run's barrier arrivals start from zero. */
	cts_objmodel_set_barrier(M, B1, 2);
	app(6, CTS_OP_BARRIER_WAIT, B1);
	tap_ok(cts_objmodel_waiting(M, 6), "reset: barrier arrivals start from zero");
}

/* Enough objects to make the table grow several times. */
static void test_many_objects(void)
{
	fresh(false);
	int bad = 0;
	for (uint64_t i = 0; i < 5000; i++)
		if (app(i % 7, CTS_OP_LOCK, 0x600000 + i * 8) != 0)
			bad++;
	for (uint64_t i = 0; i < 5000; i++) {
		int owner = (int)(i % 7);
		if (en(7, CTS_OP_LOCK, 0x600000 + i * 8) ||
		    blocker(mk(7, CTS_OP_LOCK, 0x600000 + i * 8)) != owner)
			bad++;
	}
	for (uint64_t i = 0; i < 5000; i += 2)
		if (app(i % 7, CTS_OP_UNLOCK, 0x600000 + i * 8) != 0)
			bad++;
	for (uint64_t i = 0; i < 5000; i++)
		if (en(7, CTS_OP_LOCK, 0x600000 + i * 8) != (i % 2 == 0))
			bad++;
	tap_is_int(bad, 0, "5000 mutexes keep their owners through table growth");
}

int main(void)
{
	test_mutex_basic();
	test_mutex_kinds();
	test_rwlock();
	test_cond_explicit();
	test_cond_errorcheck_unowned();
	test_cond_futex_driven();
	test_semaphore();
	test_barrier();
	test_join();
	test_cancel();
	test_reset();
	test_many_objects();
	cts_objmodel_free(M);
	return tap_done();
}
