/* heap_counter_ok.c — the twin of heap_counter.c: the additions under a mutex.
 * Each of two threads fills and sums its own half of a heap array, then adds
 * its sum to a shared heap counter 40 times, each addition under a mutex.
 * Expected: clean on every schedule. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define HALF 3200
#define ADDS 40

struct shared {
	pthread_mutex_t m;
	long vals[2 * HALF];
	volatile long count;
};

static struct shared *h;

static void *worker(void *arg)
{
	long id = (long)arg, sum = 0;

	for (long i = id * HALF; i < (id + 1) * HALF; i++)
		h->vals[i] = i & 7;
	for (long i = id * HALF; i < (id + 1) * HALF; i++)
		sum += h->vals[i];
	for (int k = 0; k < ADDS; k++) {
		pthread_mutex_lock(&h->m);
		long c = h->count;
		h->count = c + sum / ADDS;
		pthread_mutex_unlock(&h->m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	long expected = 0;

	h = calloc(1, sizeof(*h));
	pthread_mutex_init(&h->m, NULL);
	for (long i = 0; i < 2 * HALF; i++)
		expected += i & 7;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(h->count == expected);
	free(h);
	return 0;
}
