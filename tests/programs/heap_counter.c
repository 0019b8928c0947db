/* heap_counter.c — lost update on a heap counter, after a long private phase.
 * Bug: each of two threads first fills its own half of a heap array (many
 * accesses by the same instructions: break mode stops trapping them once they
 * are seen to touch only tracked memory, and protection-key faults find the
 * foreign accesses from then on), then adds its half's sum to a shared heap
 * counter 40 times with a separate load and store, no lock.
 * Exposing schedule: t1 loads the counter; t2 loads it; t1 stores; t2 stores
 * -> assert(h->count == expected) in main fails.  Minimal mode: break.
 * Twin heap_counter_ok.c: the additions are made under a mutex. */
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
		long c = h->count;	/* BUG: unprotected read-modify-write */
		h->count = c + sum / ADDS;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	long expected = 0;

	h = calloc(1, sizeof(*h));
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
