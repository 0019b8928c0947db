/* lib_realloc.c — a reader was handed a shared array and reads it in its
 * own code while a grower thread enlarges it with realloc. A block allocated
 * right after the array keeps realloc from growing it in place, so it moves
 * the data and frees the old block (glibc's allocator then stores its list
 * pointers there). The only write to the old block is inside realloc.
 * Bug: realloc runs before the reader's load: the reader sees allocator
 * data instead of 42. Fix (lib_realloc_ok.c): the reader takes the array's
 * current address and reads it under the mutex the grower reallocates under.
 * Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static int *arr;
static void *fence;

static void *reader(void *arg)
{
	int *a = arg;

	assert(a[0] == 42);
	return NULL;
}

static void *grower(void *arg)
{
	arr = realloc(arr, 4096 * sizeof(int));
	return arg;
}

int main(void)
{
	pthread_t a, b;

	arr = malloc(4 * sizeof(int));
	fence = malloc(4 * sizeof(int));
	arr[0] = 42;
	pthread_create(&a, NULL, reader, arr);
	pthread_create(&b, NULL, grower, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	free(fence);
	free(arr);
	return 0;
}
