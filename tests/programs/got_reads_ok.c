/* got_reads_ok.c — twin of got_reads.c: no bug.
 * Usage: got_reads_ok [iterations]   (default 200000)
 * The same workers reading three config globals beside the GOT at every
 * iteration (see got_reads.c: the page cannot carry the deny key; the read
 * key lets every thread read it natively); each returns its count and main
 * adds them after the joins, so nobody writes the page while two threads
 * live and the read key holds for the whole run.
 * Expected: clean.  Mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static volatile long scale, offset, factor;
static volatile long done;
static long iters, *total;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	long sum = 0;

	(void)arg;
	for (long i = 0; i < iters; i++)
		sum += scale + offset * factor;
	pthread_mutex_lock(&m);
	*total += sum;
	pthread_mutex_unlock(&m);
	return (void *)(intptr_t)1;	/* FIX: counted by main after the join */
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	void *ra, *rb;

	iters = argc > 1 ? atol(argv[1]) : 200000;
	total = calloc(1, sizeof(*total));
	if (iters < 0 || !total)
		return 2;
	scale = 3;
	offset = 1;
	factor = 2;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	done = (intptr_t)ra + (intptr_t)rb;
	assert(done == 2 && *total == 2 * 5 * iters);
	free(total);
	return 0;
}
