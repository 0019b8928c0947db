/* pfscan_big_ok.c — twin of pfscan_big.c: the count of active workers is
 * set before the first worker starts. */
#include <pthread.h>

#define WORKERS 3
#define FILES 8
#define WORDS 8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static volatile int head, tail, closed, aworkers;
static int queue[FILES];
static volatile long data[FILES][WORDS];
static volatile long matches;

static void *worker(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&m);
		while (head == tail && !closed)
			pthread_cond_wait(&more, &m);
		if (head == tail)
			break;
		int f = queue[head++];
		pthread_mutex_unlock(&m);
		long n = 0;
		for (int w = 0; w < WORDS; w++)
			n += (data[f][w] % 3) == 0;
		pthread_mutex_lock(&m);
		matches += n;
		pthread_mutex_unlock(&m);
	}
	if (--aworkers == 0)
		pthread_cond_signal(&finished);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t w[WORKERS];
	for (int f = 0; f < FILES; f++)
		for (int i = 0; i < WORDS; i++)
			data[f][i] = f * WORDS + i;
	aworkers = WORKERS;
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&w[i], 0, worker, 0);
	for (int f = 0; f < FILES; f++) {
		pthread_mutex_lock(&m);
		queue[tail++] = f;
		pthread_cond_signal(&more);
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&m);
	closed = 1;
	pthread_cond_broadcast(&more);
	pthread_mutex_unlock(&m);
	pthread_mutex_lock(&m);
	while (aworkers > 0)
		pthread_cond_wait(&finished, &m);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], 0);
	return 0;
}
