/* hs_pfscan_ok.c — twin of hs_pfscan.c: the count of active workers is set
 * before the first worker starts. */
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
	aworkers = WORKERS;
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&w[i], 0, worker, 0);
	pthread_mutex_lock(&m);
	while (aworkers > 0)
		pthread_cond_wait(&done, &m);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], 0);
	return 0;
}
