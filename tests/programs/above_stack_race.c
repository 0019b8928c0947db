/* above_stack_race.c — main allocates a big block (malloc takes it from a
 * fresh mmap), then creates a worker, whose stack glibc maps just below
 * that block: the worker's thread pointer (its TCB, at the top of its
 * stack) is then a few hundred bytes below the block's first element. Both
 * threads add 1 to that element with a plain load and store. Bug: no lock,
 * an update can be lost; main's check then fails. The tracer takes the
 * memory around a thread's thread pointer for the thread's own (its static
 * TLS and TCB): that window must end with the mapping that holds it, or the
 * block's first element looks like the worker's own and the race is never
 * seen. Expected: assertion failure (break mode). Twin: above_stack_race_ok. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#ifndef LOCKED
#define LOCKED 0
#endif
#define BIG (16u << 20)

static volatile long *big;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void add(void)
{
	if (LOCKED)
		pthread_mutex_lock(&m);
	long v = big[0];
	big[0] = v + 1;
	if (LOCKED)
		pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	(void)arg;
	add();
	return NULL;
}

int main(void)
{
	pthread_t t;
	big = malloc(BIG);
	if (!big)
		return 2;
	big[0] = 0;
	pthread_create(&t, NULL, worker, NULL);
	add();
	pthread_join(t, NULL);
	assert(big[0] == 2);
	free((void *)big);
	return 0;
}
