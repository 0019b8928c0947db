/* table_loop_ok.c — twin of table_loop.c with the fix: the partial sums are
 * merged under the mutex.  Main fills a 1000-entry table before it starts 2
 * threads; each reads the whole table 100 times (200,000 shared reads in
 * all, no write) and adds its sum to a shared total.
 * Expected: clean on every schedule, no race report (the table is written
 * only before the threads exist, total only under the mutex).  A long run of
 * reads is neither a livelock nor a bug.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>

#define SIZE 1000
#define PASSES 100

static int table[SIZE];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile long total;

static void *worker(void *arg)
{
	long sum = 0;

	for (int p = 0; p < PASSES; p++)
		for (int i = 0; i < SIZE; i++)
			sum += ((volatile int *)table)[i];
	pthread_mutex_lock(&m);	/* FIX: the merge is one critical section */
	total = total + sum;
	pthread_mutex_unlock(&m);
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
