/* hs_aget_ok.c — twin of hs_aget.c: the progress-bar thread reads both
 * counters under the workers' mutex; they agree on every schedule. */
#include <assert.h>
#include <pthread.h>

#define WORKERS 2
#define CHUNKS 4
#define CHUNK 512

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile long bytes, chunks;

static void *worker(void *arg)
{
	for (int i = 0; i < CHUNKS; i++) {
		pthread_mutex_lock(&m);
		bytes += CHUNK;
		chunks++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

static void *progress(void *arg)
{
	pthread_mutex_lock(&m);
	long b = bytes;
	long c = chunks;
	pthread_mutex_unlock(&m);
	assert(b == c * CHUNK);         /* the bar would show a wrong figure */
	return arg;
}

int main(void)
{
	pthread_t w[WORKERS], p;
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&w[i], 0, worker, 0);
	pthread_create(&p, 0, progress, 0);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], 0);
	pthread_join(p, 0);
	return 0;
}
