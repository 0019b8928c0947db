/* compute.c — compute-heavy, correct (no bug); for overhead measurement.
 * Usage: compute [elements]   (default 1048576)
 * Four threads each fill and repeatedly sum their own slice of one heap
 * array (no sharing between threads: break mode should retire these
 * breakpoints as thread-local), then add their partial sums to a global
 * total under a mutex.  main checks the closed-form result.
 * Natively ~50-200 ms at the default size.  Expected: clean.  Mode: any. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define NTHREADS 4
#define PASSES 256

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *arr;
static size_t n;
static uint64_t total;

static void *worker(void *arg)
{
	size_t id = (size_t)arg;
	size_t lo = n * id / NTHREADS, hi = n * (id + 1) / NTHREADS;
	uint64_t sum = 0;

	for (size_t i = lo; i < hi; i++)
		arr[i] = (uint32_t)i;
	for (int p = 0; p < PASSES; p++)
		for (size_t i = lo; i < hi; i++)
			sum += arr[i];
	pthread_mutex_lock(&m);
	total += sum;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];

	n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20;
	if (n < 1 || n > UINT32_MAX)
		return 2;
	arr = malloc(n * sizeof *arr);
	if (!arr)
		return 2;
	for (size_t i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (size_t i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	assert(total == (uint64_t)PASSES * ((uint64_t)n * (n - 1) / 2));
	free(arr);
	return 0;
}
