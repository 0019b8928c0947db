/* big_clear_ok.c — the twin of big_clear.c: the additions under a mutex.
 * Each of two threads clears its own 8 MiB heap block with memset (one
 * library call over 131,072 lines) and reads it back a page at a time, then
 * adds to a shared counter 20 times under a mutex, touching its block
 * between the additions. A range that big once made every later access of
 * the run visible (models/pages.c BIG_RANGE), each one a fault and a step
 * with faults: the clear alone took about 2 million stops.
 * Expected: clean on every schedule. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (8u << 20)
#define ADDS 20

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count;

static void *worker(void *arg)
{
	unsigned char *b = malloc(BLOCK);
	long sum = 0;

	assert(b);
	memset(b, (int)(long)arg, BLOCK);
	for (unsigned i = 0; i < BLOCK; i += 4096)
		sum += b[i];
	for (int k = 0; k < ADDS; k++) {
		pthread_mutex_lock(&m);
		count++;
		pthread_mutex_unlock(&m);
		b[(unsigned)k * 4096 * 97 % BLOCK] = 1;
	}
	free(b);
	return (void *)sum;
}

int main(void)
{
	pthread_t t[2];
	void *r;

	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (long i = 0; i < 2; i++) {
		pthread_join(t[i], &r);
		assert((long)r == (long)(BLOCK / 4096) * (i + 1));
	}
	assert(count == 2 * ADDS);
	return 0;
}
