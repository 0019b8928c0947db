/* slice_race.c — two threads add 1 to each element of their half of one
 * heap array, PASSES times; the halves meet in the middle of a page (and
 * of a 64-byte line). Bug: worker 0's loop runs one element too far, onto
 * worker 1's first element, with a plain load and store (volatile: two
 * instructions), so an update of that element can be lost; main's check of
 * it then fails. Each worker walks its half from its far end, so its loop
 * spends its first iterations on pages only it uses before it reaches the
 * shared page (break mode: the loop's access breakpoint may retire there,
 * and the shared page's accesses must still be seen).
 * Expected: assertion failure (break mode). Twin: slice_race_ok. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef OVERRUN
#define OVERRUN 1
#endif
#define N 2048
#define PASSES 8

static volatile uint32_t *arr;

static void *worker(void *arg)
{
	size_t id = (size_t)arg;
	for (int p = 0; p < PASSES; p++) {
		if (id == 0) {
			for (size_t i = 0; i < N / 2 + OVERRUN; i++) {
				uint32_t v = arr[i];
				arr[i] = v + 1;
			}
		} else {
			for (size_t i = N; i-- > N / 2;) {
				uint32_t v = arr[i];
				arr[i] = v + 1;
			}
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	/* half a page in: the halves meet at 2048 + 4096 bytes, mid-page */
	char *base = aligned_alloc(4096, 4 * N + 4096);
	if (!base)
		return 2;
	arr = (volatile uint32_t *)(base + 2048);
	for (size_t i = 0; i < N; i++)
		arr[i] = 0;
	for (size_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (size_t i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(arr[N / 2] == (uint32_t)PASSES * (1 + OVERRUN));
	free(base);
	return 0;
}
