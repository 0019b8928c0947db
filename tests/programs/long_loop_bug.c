/* long_loop_bug.c — long_loop.c whose threads first count themselves in a
 * shared `started` without a lock (bug): a lost update, which main's assert
 * sees only after the long loops.
 * Usage: long_loop_bug [passes]  (default 100).
 * Exposing schedule: t1 loads started (0); t2 loads started (0); both store
 * 1 -> assert(started == 2) in main fails. Found when the step budget covers
 * the loops (e.g. long_loop_bug 1 in break mode); with a budget too small
 * for them every run is inconclusive, never a bug.  Minimal mode: break.
 * Twin long_loop.c. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define SIZE 1000

static int table[SIZE];
static volatile int scale = 1;
static long passes = 100;
static long total[2];
static volatile int started;

static void *worker(void *arg)
{
	long me = (long)arg, sum = 0;
	int tmp = started;	/* BUG: unprotected read-modify-write */

	started = tmp + 1;
	for (long p = 0; p < passes; p++)
		for (int i = 0; i < SIZE; i++)
			sum += (long)table[i] * scale;
	total[me] = sum;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		passes = atol(argv[1]);
	for (int i = 0; i < SIZE; i++)
		table[i] = i;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(started == 2);
	assert(total[0] == total[1] && total[0] == passes * (SIZE * (SIZE - 1) / 2));
	return 0;
}
