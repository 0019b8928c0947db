/* big_alloc_race.c — the buggy twin of big_alloc.c: main frees its 1 GiB
 * block while a worker may still write into it (no join before the free).
 * A range that big is checked only against the granules the race detector
 * already holds (models/race.c, RANGE_GRANULES): the worker's write is one,
 * so the free racing with it is still found; when the free comes first the
 * write faults (the block was unmapped). Expected: a bug (race with --races
 * fail, or the crash). Minimal mode: break. */
#include <pthread.h>
#include <stdlib.h>

#define SIZE (1ul << 30)

static void *worker(void *arg)
{
	char *b = arg;
	b[SIZE / 2] = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;
	char *b = malloc(SIZE);
	if (!b)
		return 2;
	pthread_create(&t, NULL, worker, b);
	free(b);
	pthread_join(t, NULL);
	return 0;
}
