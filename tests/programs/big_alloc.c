/* big_alloc.c — two threads each allocate a 1 GiB block (mmapped by
 * malloc, never touched but for one byte: cheap natively), write their own
 * byte and free it. In break mode the malloc and free are events whose
 * range is the whole block; the explorer's spin tracker forgot such a range
 * one 8-byte granule at a time (134 million lookups, a table growing to
 * match): each run stalled until --timeout, as pixz did on its block
 * buffers. Expected: clean on every schedule, every run completes at once.
 * Minimal mode: break. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE (1ul << 30)

static void *worker(void *arg)
{
	char *b = malloc(SIZE);
	if (!b)
		return arg;
	b[SIZE / 2] = 1;
	free(b);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	void *r = worker(NULL);
	void *r2;
	pthread_join(t, &r2);
	puts(r || r2 ? "no memory" : "done");
	return 0;
}
