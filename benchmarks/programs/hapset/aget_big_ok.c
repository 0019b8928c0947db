/* aget_big_ok.c — twin of aget_big.c: the progress-bar thread reads
 * `bytes` under the mutex, so it never sees the short chunk's window. */
#include <assert.h>
#include <pthread.h>

#define WORKERS 4
#define CHUNKS 16
#define CHUNK 512
#define WORDS 4          /* words of file data written per chunk */
#define POLLS 4
#define SHORT_WORKER 0
#define SHORT_CHUNK 9

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile long bytes;
static volatile long file[WORKERS][CHUNKS][WORDS];
static volatile long shown[POLLS];

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int c = 0; c < CHUNKS; c++) {
		for (int w = 0; w < WORDS; w++)
			file[id][c][w] = id * 1000 + c * 10 + w;
		long got = id == SHORT_WORKER && c == SHORT_CHUNK ? CHUNK / 2 : CHUNK;
		pthread_mutex_lock(&m);
		bytes += got;
		if (got < CHUNK) {      /* short read: take it back, fetch again */
			bytes -= got;
			bytes += CHUNK;
		}
		pthread_mutex_unlock(&m);
	}
	return 0;
}

static void *progress(void *arg)
{
	for (int i = 0; i < POLLS; i++) {
		pthread_mutex_lock(&m);
		long b = bytes;
		pthread_mutex_unlock(&m);
		assert(b % CHUNK == 0);
		shown[i] = b;
	}
	return arg;
}

int main(void)
{
	pthread_t w[WORKERS], p;
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&w[i], 0, worker, (void *)i);
	pthread_create(&p, 0, progress, 0);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], 0);
	pthread_join(p, 0);
	return bytes == (long)WORKERS * CHUNKS * CHUNK ? 0 : 3;
}
