/* sync_heavy.c — many short critical sections, correct (no bug); for
 * synchronisation throughput (visible operations per second).
 * Usage: sync_heavy [iterations [threads]]   (defaults 2000, 2; threads <= 16)
 * Each thread does `iterations` mutex-protected increments of one counter;
 * main checks the total.  Expected: clean on every schedule.  Mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define MAXTHREADS 16

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long iters = 2000;

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
