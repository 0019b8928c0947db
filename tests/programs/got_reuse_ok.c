/* got_reuse_ok.c — built with -fno-plt, as Rust code is: every call into
 * libc is `call *slot(%rip)` through the GOT, no PLT stub. A worker writes
 * a block main allocated and frees it; main then allocates 4 KiB again and
 * writes it. On the schedules where the free comes first, main gets the
 * same block back (past the tcache, merged into the top chunk and split off
 * again): a new life, ordered after the old one by the allocator's lock
 * inside libc. cts must see free and malloc at their GOT call sites to know
 * that; blind to them it reported the worker's writes and main's as a race.
 * Prints "reused" when main got the block back, for the test to know the
 * schedule was covered. Expected: clean on every schedule (no race report).
 * Buggy twin: got_reuse.c.  Minimal mode: break. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 4096

static volatile int started, after; /* main's alone, the worker's alone */

static void *worker(void *arg)
{
	char *b = arg;
	b[SIZE / 2] = 7;
	free(b);
	for (int i = 0; i < 4; i++)
		after++;         /* alive (two threads: accesses watched) while main writes */
	return NULL;
}

int main(void)
{
	pthread_t t;
	char *old = malloc(SIZE);
	pthread_create(&t, NULL, worker, old);
	started = 1;             /* a scheduling point: the worker may run first */
	char *p = malloc(SIZE);
	int reused = p == old;   /* compares addresses only: old is not read */
	for (int i = 0; i < SIZE; i += 512)
		p[i] = 2;
	pthread_join(t, NULL);
	if (reused)
		puts("reused");
	free(p);
	return 0;
}
