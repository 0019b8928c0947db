/* watch_count.c — no bug: one thread increments `counter` N times (argv[1],
 * default 20000), main reads it after the join.  Under --watch counter
 * every one of its 2N + 1 accesses (N loads, N stores, main's load) must be
 * reported: the loop runs long enough for the spin probe to single-step it,
 * which is where a watchpoint trap can hide behind a single-step trap.
 * Expected: clean.  Mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static volatile long counter;

static void *inc(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++)
		counter = counter + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	pthread_t t;

	pthread_create(&t, NULL, inc, (void *)n);
	pthread_join(t, NULL);
	assert(counter == n);
	return 0;
}
