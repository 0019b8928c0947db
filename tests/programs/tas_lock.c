/* tas_lock.c — a spinlock whose test and set are two steps (bug).
 * acquire() waits for the lock word to read 0, then stores 1: two threads
 * can both see it free and enter together.
 * Exposing schedule: t1 reads 0; t2 reads 0; both store 1 and increment
 * the counter from the same value -> assert(counter == 9) fails.
 * Minimal mode: break.  Twin tas_lock_ok.c: an atomic exchange sets it. */
#include <assert.h>
#include <pthread.h>

#define N 3
#define ITERS 3

static volatile int lock;
static volatile int counter;

static void acquire(void)
{
	while (lock)
		__builtin_ia32_pause();
	lock = 1;	/* BUG: not atomic with the test */
}

static void release(void)
{
	lock = 0;
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
