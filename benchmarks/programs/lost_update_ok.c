/* lost_update_ok.c (benchmark) — twin of lost_update.c with the fix: each
 * increment is a single atomic read-modify-write (lock add), which cts treats
 * as synchronisation.  Usage: lost_update_ok [iterations]   (default 1).
 * Expected: clean on every schedule, race-free.  Mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static volatile long counter;
static long iters = 1;

static void *inc(void *arg)
{
	for (long i = 0; i < iters; i++)
		__atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);	/* FIX: one atomic RMW */
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
