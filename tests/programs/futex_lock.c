/* futex_lock.c — a hand-made lock on the raw futex syscall, broken.
 * Bug: acquire tests the lock word and sets it in two separate steps, with a
 * sched_yield() (a visible operation) in between, so two threads can both see
 * it free and both enter.  The critical section also yields once, so the
 * overlap is observable without watching memory.
 * Exposing schedule: t1 sees l == 0, yields; t2 sees l == 0, yields; t1 sets
 * l = 1, enters (inside = 1), yields in the critical section; t2 sets l = 1,
 * enters -> assert(inside == 1) fails.  Minimal mode: sync.
 * Twin futex_lock_ok.c: Drepper's "mutex 2" (cmpxchg 0->1, else xchg 2 and
 * FUTEX_WAIT; unlock decrements and wakes if it was contended). */
#include <assert.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

static int l;	/* 0 free, 1 locked (2 locked with waiters in the twin) */
static volatile int counter;
static int inside;

static void futex_wait(int *addr, int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(int *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static void lock(void)
{
	while (__atomic_load_n(&l, __ATOMIC_SEQ_CST) != 0)
		futex_wait(&l, 1);
	sched_yield();	/* BUG: test and set are two steps; another thread can pass the test too */
	__atomic_store_n(&l, 1, __ATOMIC_SEQ_CST);
}

static void unlock(void)
{
	__atomic_store_n(&l, 0, __ATOMIC_SEQ_CST);
	futex_wake(&l, 1);
}

static void *worker(void *arg)
{
	int tmp, in;

	lock();
	in = __atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);
	assert(in == 1);	/* mutual exclusion */
	tmp = counter;
	sched_yield();	/* a preemption point inside the critical section */
	counter = tmp + 1;
	__atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
	unlock();
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, worker, NULL);
	pthread_create(&y, NULL, worker, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(counter == 2);
	return 0;
}
