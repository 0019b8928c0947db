/* plt_loop_ok.c — a worker computes for about half a second with no system
 * or pthread call and no shared store: a loop around rand_r(3), called
 * through the PLT, whose seed lives on the worker's stack.  Main waits in
 * pthread_join.  Correct: every run must complete.  The time-slice spin
 * probe sees the PLT's `jmp *GOT` load come round with the same address and
 * value and no store in between; it must not take that for a busy-wait (it
 * once did: every later call became a visible read, and the run ran out of
 * steps).  Minimal mode: sync. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CALLS 100000000L

static void *worker(void *arg)
{
	unsigned seed = 1;
	long odd = 0;

	for (long i = 0; i < CALLS; i++)
		odd += rand_r(&seed) & 1;
	*(long *)arg = odd;
	return NULL;
}

int main(void)
{
	pthread_t t;
	long odd = -1;

	pthread_create(&t, NULL, worker, &odd);
	pthread_join(t, NULL);
	printf("odd %ld\n", odd);
	return odd >= 0 ? 0 : 1;
}
