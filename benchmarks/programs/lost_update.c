/* lost_update.c (benchmark) — unprotected read-modify-write.
 * Usage: lost_update [iterations]   (default 1)
 * Bug: two threads each add 1 to a shared counter `iterations` times with a
 * plain load and a plain store (no lock, no atomic).
 * Exposing schedule: t1 loads c; t2 loads c; t1 stores c+1; t2 stores c+1
 * -> assert(counter == 2 * iterations) in main fails.  Minimal mode: break.
 * Natively the window is one load-to-store gap per iteration.
 * Twin lost_update_ok.c: the increment is one atomic read-modify-write. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static volatile long counter;	/* volatile: one load and one store each time */
static long iters = 1;

static void *inc(void *arg)
{
	for (long i = 0; i < iters; i++) {
		long tmp = counter;	/* BUG: load ... */
		counter = tmp + 1;	/* ... and store can interleave with the other thread's */
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t x, y;

	if (argc > 1)
		iters = atol(argv[1]);
	pthread_create(&x, NULL, inc, NULL);
	pthread_create(&y, NULL, inc, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(counter == 2 * iters);
	return 0;
}
