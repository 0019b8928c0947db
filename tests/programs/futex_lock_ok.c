/* futex_lock_ok.c — twin of futex_lock.c with the fix: the lock is Drepper's
 * "mutex 2" from "Futexes Are Tricky": acquire is one cmpxchg 0->1; on
 * contention the word is set to 2 with xchg and the thread FUTEX_WAITs on 2;
 * release decrements and, if the lock was contended, stores 0 and wakes one.
 * The sched_yield() calls stay where they were; they are harmless now.
 * Expected: clean on every schedule, no deadlock.  Minimal mode: sync. */
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
	int c = 0;

	sched_yield();
	/* FIX: test and set in one atomic step */
	if (__atomic_compare_exchange_n(&l, &c, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&l, 2, __ATOMIC_SEQ_CST);
	while (c != 0) {
		futex_wait(&l, 2);
		c = __atomic_exchange_n(&l, 2, __ATOMIC_SEQ_CST);
	}
}

static void unlock(void)
{
	if (__atomic_fetch_sub(&l, 1, __ATOMIC_SEQ_CST) != 1) {
		__atomic_store_n(&l, 0, __ATOMIC_SEQ_CST);
		futex_wake(&l, 1);
	}
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
