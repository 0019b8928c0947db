/* got_reads.c — globals beside the GOT read in a hot loop; a lost update.
 * Usage: got_reads [iterations]   (default 200000)
 * main sets three config globals before the threads; each worker reads them
 * all at every iteration (volatile: three loads), adds its sum to a heap
 * total under a mutex, and counts itself in the global `done` with a
 * separate load and store and no lock.  The globals sit in .data/.bss, which
 * a partial-RELRO executable maps on the page holding the end of .got.plt,
 * written by the dynamic linker and read by PLT stubs: that page cannot
 * carry the deny key, so every read of a config global stopped at its int3
 * (GNU sort's comparison function reads three such globals); with the read
 * key (tracer/fault.h) every thread reads the page natively.
 * Bug: t1 loads done; t2 loads done; t1 stores 1; t2 stores 1 -> the assert
 * in main fails.  The first write to the page while two threads live voids
 * the run (who read the page is unknown); the page is then decided per
 * access, and the lost update is found there.  Minimal mode: break.
 * Twin got_reads_ok.c: each worker returns its count, main adds them. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static volatile long scale, offset, factor;
static volatile long done;
static long iters, *total;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	long sum = 0;

	for (long i = 0; i < iters; i++)
		sum += scale + offset * factor;
	pthread_mutex_lock(&m);
	*total += sum;
	pthread_mutex_unlock(&m);
	long t = done;	/* BUG: unprotected read-modify-write of a global */
	done = t + 1;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	iters = argc > 1 ? atol(argv[1]) : 200000;
	total = calloc(1, sizeof(*total));
	if (iters < 0 || !total)
		return 2;
	scale = 3;
	offset = 1;
	factor = 2;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(done == 2 && *total == 2 * 5 * iters);
	free(total);
	return 0;
}
