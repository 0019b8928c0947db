/* par_sum.c (benchmark) — parallel array sum with a mutex-protected
 * reduction; correct, compute-heavy (overhead measurement).
 * Usage: par_sum [elements [threads]]   (defaults 4194304, 2; threads <= 16)
 * main fills the array, the threads each sum one slice (reading data written
 * by main before pthread_create) and add their partial sum to a shared total
 * under a mutex.  main checks the closed-form result.
 * Expected: clean.  Mode: any (break mode sees every array read as shared). */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define MAXTHREADS 16

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *arr;
static size_t n = 1u << 22;
static int nthreads = 2;
static uint64_t total;

static void *summer(void *arg)
{
	size_t id = (size_t)arg;
	size_t lo = n * id / nthreads, hi = n * (id + 1) / nthreads;
	uint64_t sum = 0;

	for (size_t i = lo; i < hi; i++)
		sum += arr[i];
	pthread_mutex_lock(&m);
	total += sum;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXTHREADS];

	if (argc > 1)
		n = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		nthreads = atoi(argv[2]);
	if (n < 1 || n > UINT32_MAX || nthreads < 1 || nthreads > MAXTHREADS)
		return 2;
	arr = malloc(n * sizeof *arr);
	if (!arr)
		return 2;
	for (size_t i = 0; i < n; i++)
		arr[i] = (uint32_t)i;
	for (size_t i = 0; i < (size_t)nthreads; i++)
		pthread_create(&t[i], NULL, summer, (void *)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	assert(total == (uint64_t)n * (n - 1) / 2);
	free(arr);
	return 0;
}
