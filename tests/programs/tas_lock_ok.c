/* tas_lock_ok.c — a test-and-test-and-set spinlock with `pause` around a
 * shared counter, 3 threads x 3 increments (correct).
 * The waiters spin on a plain load of the lock word, then try an atomic
 * exchange. Expected: clean on every schedule, counter == 9, and no data
 * race: the exchange is a locked RMW, so the lock word synchronizes.
 * Twin: tas_lock.c. */
#include <assert.h>
#include <pthread.h>

#define N 3
#define ITERS 3

static int lock;
static volatile int counter;

static void acquire(void)
{
	for (;;) {
		while (__atomic_load_n(&lock, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
		if (!__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
			return;
	}
}

static void release(void)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

static void *worker(void *arg)
{
	for (int i = 0; i < ITERS; i++) {
		acquire();
		int tmp = counter;
		counter = tmp + 1;
		release();
	}
	return arg;
}

int main(void)
{
	pthread_t t[N];

	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	assert(counter == N * ITERS);
	return 0;
}
