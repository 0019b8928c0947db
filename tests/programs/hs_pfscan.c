/* hs_pfscan.c — shaped like pfscan's bug (seeds/000): main starts the
 * workers and only then sets the count of active workers; a worker that
 * finishes before that decrements a count main then overwrites, so the
 * count never reaches zero and main waits for a wake-up that never comes: a
 * deadlock. Twin hs_pfscan_ok.c: the count is set before the workers start.
 * Mode: break. */
#include <pthread.h>

#define WORKERS 2

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static volatile int aworkers;
static volatile long found;

static void *worker(void *arg)
{
	found++;
	pthread_mutex_lock(&m);
	if (--aworkers == 0)
		pthread_cond_signal(&done);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t w[WORKERS];
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&w[i], 0, worker, 0);
	aworkers = WORKERS;             /* BUG: too late, a worker may be done */
	pthread_mutex_lock(&m);
	while (aworkers > 0)
		pthread_cond_wait(&done, &m);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], 0);
	return 0;
}
