/* const_loop_ok.c — a worker computes for about half a second with no
 * system or pthread call and no shared store, re-reading on every iteration
 * a constant field of a shared struct (`volatile`: one load per iteration,
 * at the same pc, address and value).  Main waits in pthread_join.
 * Correct: every run must complete.  The time-slice spin probe sees that
 * load come round unchanged with no store in between, but the worker's
 * registers (its counter and its sum) move on: it works, it does not wait,
 * and the load must not be learned.  It once was (as pixz's liblzma encoder
 * loop was): every later iteration became a visible read, and the run ran
 * out of steps.  Its busy-waiting counterpart, whose load must still be
 * learned, is spin_learn_ok.  Minimal mode: sync. */
#include <pthread.h>
#include <stdio.h>

#define ITERS 300000000L

static struct {
	volatile unsigned long mult;
} cfg; /* set by main before the worker starts: writable, shared */

static void *worker(void *arg)
{
	unsigned long h = 0;

	for (long i = 0; i < ITERS; i++)
		h = h * cfg.mult + (unsigned long)i;
	*(unsigned long *)arg = h;
	return NULL;
}

int main(void)
{
	pthread_t t;
	unsigned long h = 0;

	cfg.mult = 2654435761ul;
	pthread_create(&t, NULL, worker, &h);
	pthread_join(t, NULL);
	printf("hash %lx\n", h);
	return 0;
}
