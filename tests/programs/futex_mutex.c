/* futex_mutex.c — a raw-futex mutex that loses a wake-up.
 * The lock follows Drepper's "mutex 2" from "Futexes Are Tricky", built on
 * the futex syscall directly: 0 free, 1 locked, 2 locked with waiters; unlock
 * wakes one waiter when the state was 2.  3 threads take it twice each and
 * increment a counter inside, with a sched_yield() in the critical section.
 * BUG: a woken waiter re-acquires with cmpxchg(0 -> 1), the "no waiters"
 * state, although other threads may still sleep in FUTEX_WAIT.
 * Exposing schedule: t1 holds the lock; t2 and t3 sleep (state 2); t1's
 * unlock wakes t2, which takes the lock in state 1; t2's unlock then wakes
 * nobody and t3 sleeps forever.
 * Outcome: deadlock (t3 in FUTEX_WAIT, main in pthread_join).  Fix
 * (futex_mutex_ok.c): re-acquire in state 2.  Minimal mode: sync. */
#include <assert.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#define THREADS 3
#define ROUNDS 2

static int word;
static int counter;

static int cas(int *p, int old, int new)	/* returns the value seen */
{
	__atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}

static void lock(void)
{
	int c = cas(&word, 0, 1);

	if (c == 0)
		return;
	do {
		if (c == 2 || cas(&word, 1, 2) != 0)
			syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
	} while ((c = cas(&word, 0, 1)) != 0);	/* BUG: forgets the other waiters */
}

static void unlock(void)
{
	if (__atomic_fetch_sub(&word, 1, __ATOMIC_SEQ_CST) != 1) {
		__atomic_store_n(&word, 0, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

static void *worker(void *arg)
{
	int tmp;

	for (int i = 0; i < ROUNDS; i++) {
		lock();
		tmp = counter;
		sched_yield();	/* let the others contend and sleep */
		counter = tmp + 1;
		unlock();
	}
	return arg;
}

int main(void)
{
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert(counter == THREADS * ROUNDS);
	return 0;
}
