/* table_loop.c — a long correct loop, then a merge without the lock.
 * Main fills a 1000-entry table before it starts 2 threads; each reads the
 * whole table 100 times (200,000 shared reads in all, no write) and adds its
 * sum to a shared total.  BUG: the merge total = total + sum is not under
 * the mutex.
 * Exposing schedule: both threads load total (0) after their loops, then
 * both store their own sum.
 * Outcome: assert on total in main.  Fix (table_loop_ok.c): merge under the
 * mutex.  Minimal mode: break (the tool must get through 200,000 reads to
 * reach the merge). */
#include <assert.h>
#include <pthread.h>

#define SIZE 1000
#define PASSES 100

static int table[SIZE];
static volatile long total;

static void *worker(void *arg)
{
	long sum = 0;

	for (int p = 0; p < PASSES; p++)
		for (int i = 0; i < SIZE; i++)
			sum += ((volatile int *)table)[i];
	total = total + sum;	/* BUG: unprotected read-modify-write */
	return arg;
}

int main(void)
{
	pthread_t a, b;

	for (int i = 0; i < SIZE; i++)
		table[i] = i;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(total == 2L * PASSES * (SIZE * (SIZE - 1) / 2));
	return 0;
}
