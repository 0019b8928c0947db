/* lock_counter.c (benchmark) — lock-heavy shared counter; correct
 * (overhead and synchronisation throughput).
 * Usage: lock_counter [iterations [threads]]   (defaults 100000, 2; threads <= 16)
 * Each thread increments one counter `iterations` times, taking the mutex
 * for every increment; main checks the total.
 * Expected: clean on every schedule.  Mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define MAXTHREADS 16

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long iters = 100000;

static void *worker(void *arg)
{
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXTHREADS];
	int nt = 2;

	if (argc > 1)
		iters = atol(argv[1]);
	if (argc > 2)
		nt = atoi(argv[2]);
	if (iters < 0 || nt < 1 || nt > MAXTHREADS)
		return 2;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	assert(counter == iters * nt);
	return 0;
}
