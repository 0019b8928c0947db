/* got_reuse.c — the bug got_reuse_ok.c must not be confused with, built
 * with -fno-plt too: the worker fills a block with memset, called through
 * the GOT (no PLT stub), while main writes the same block with no
 * synchronization: a data race between libc's writes and main's. cts sees
 * the memset at its GOT call site; blind to it, it saw no race.
 * Expected: a race on the block (--races fail: exit 1). Minimal mode: break. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 4096

static volatile size_t size = SIZE; /* a call to memset, not inlined stores */

static void *worker(void *arg)
{
	memset(arg, 7, size);
	return NULL;
}

int main(void)
{
	pthread_t t;
	char *b = malloc(SIZE);
	pthread_create(&t, NULL, worker, b);
	b[512] = 2;
	pthread_join(t, NULL);
	free(b);
	return 0;
}
