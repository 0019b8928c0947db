/* lib_reuse_ok.c — a block freed by one thread and allocated again by
 * another through a function pointer. In a PIE the pointer is malloc's own
 * address in libc, so the call passes no PLT stub: cts sees the free but
 * not the allocation, and the allocator's lock that orders the two is
 * inside libc. On the schedules where the freer runs first, main gets the
 * same block back (4 KiB: past the tcache, merged into the top chunk and
 * split off again) and writes it: a new life, no race. Prints "reused"
 * when that happened, for the test to know the schedule was covered.
 * Expected: clean on every schedule (no race report).  Minimal mode: break. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 4096

static void *(*volatile alloc_fn)(size_t) = malloc;

static void *freer(void *arg)
{
	free(arg);
	return NULL;
}

int main(void)
{
	pthread_t t;
	char *old = malloc(SIZE);
	old[0] = 1;
	pthread_create(&t, NULL, freer, old);
	char *p = alloc_fn(SIZE);
	int reused = p == old;   /* compares addresses only: old is not read */
	for (int i = 0; i < SIZE; i += 512)
		p[i] = 2;
	pthread_join(t, NULL);
	if (reused)
		puts("reused");
	free(p);
	return 0;
}
