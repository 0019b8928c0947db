/* long_loop.c — a correct program that is merely long: two threads each sum
 * a read-only table, reading every entry `passes` times, and one global
 * scale factor on every iteration (many re-reads of an unchanged location
 * by a thread that makes progress: not a spin).
 * Usage: long_loop [passes]  (default 100; 2 x 100 x 1000 table reads).
 * Expected: never a bug. With the default step budget of 100000 every run
 * is inconclusive (a warning, exit 0); with a larger --max-steps it is
 * clean.  Buggy twin: long_loop_bug.c. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define SIZE 1000

static int table[SIZE];
static volatile int scale = 1;
static long passes = 100;
static long total[2];

static void *worker(void *arg)
{
	long me = (long)arg, sum = 0;

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
	assert(total[0] == total[1] && total[0] == passes * (SIZE * (SIZE - 1) / 2));
	return 0;
}
