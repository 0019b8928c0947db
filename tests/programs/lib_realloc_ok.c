/* lib_realloc_ok.c — twin of lib_realloc.c with the fix: the reader loads
 * the array's current address and reads it under the mutex the grower
 * reallocates under, so it never reads a freed block.
 * Expected: clean on every schedule.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int *arr;
static void *fence;

static void *reader(void *arg)
{
	pthread_mutex_lock(&m);	/* FIX */
	assert(arr[0] == 42);
	pthread_mutex_unlock(&m);
	return arg;
}

static void *grower(void *arg)
{
	pthread_mutex_lock(&m);	/* FIX */
	arr = realloc(arr, 4096 * sizeof(int));
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	arr = malloc(4 * sizeof(int));
	fence = malloc(4 * sizeof(int));
	arr[0] = 42;
	pthread_create(&a, NULL, reader, NULL);
	pthread_create(&b, NULL, grower, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	free(fence);
	free(arr);
	return 0;
}
