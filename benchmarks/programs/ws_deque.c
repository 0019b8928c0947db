/* ws_deque.c (benchmark) — work-stealing deque: steal races with pop of the
 * last element.
 * Usage: ws_deque [items]   (default 2, at most 64)
 * A Chase-Lev style deque: the owner (main) pushes and pops at the bottom,
 * one thief steals at the top with a compare-and-swap on `top`.  Plain
 * loads and stores otherwise, with the seq_cst fence pop() needs on x86.
 * Bug: when pop() finds exactly one element (t == b) it claims it with a
 * plain store to `top` instead of a CAS, so a thief that read the same top
 * and CASes it in between also gets that element.
 * Exposing schedule (one element left): owner stores bottom, loads top; the
 * thief loads top and bottom, reads the item, CASes top (succeeds); the owner
 * stores top = t + 1 and also returns the item -> taken[x] == 2: assert fails
 * in main.  Minimal mode: break.  Natively the window is the owner's
 * load-to-store gap on `top`.
 * Twin ws_deque_ok.c: the owner claims the last element with a CAS on top and
 * gives it up if the CAS fails (the Chase-Lev algorithm). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define CAP 64
#define EMPTY (-1)
#define ABORT (-2)

static volatile long top, bottom;
static volatile int buf[CAP];
static int taken[CAP];

static void push(int x)	/* owner only */
{
	long b = bottom;

	buf[b] = x;
	bottom = b + 1;
}

static int pop(void)	/* owner only */
{
	long b = bottom - 1, t;
	int x;

	bottom = b;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* the bottom store must precede the top load */
	t = top;
	if (t > b) {	/* already empty */
		bottom = t;
		return EMPTY;
	}
	x = buf[b];
	if (t < b)	/* more than one element: no thief can reach this one */
		return x;
	/* last element: a thief may be taking it too */
	top = t + 1;	/* BUG: claims it without checking that top is still t */
	bottom = b + 1;
	return x;
}

static int steal(void)	/* thieves */
{
	long t = top, b;
	int x;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	b = bottom;
	if (t >= b)
		return EMPTY;
	x = buf[t];
	if (!__atomic_compare_exchange_n(&top, &t, t + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return ABORT;	/* lost the race to the owner or another thief */
	return x;
}

static void take(int x)
{
	__atomic_fetch_add(&taken[x], 1, __ATOMIC_SEQ_CST);
}

static void *thief(void *arg)
{
	int x;

	while ((x = steal()) != EMPTY)
		if (x != ABORT)
			take(x);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int n = argc > 1 ? atoi(argv[1]) : 2, x;

	if (n < 1 || n > CAP)
		return 2;
	for (int i = 0; i < n; i++)
		push(i);
	pthread_create(&th, NULL, thief, NULL);
	while ((x = pop()) != EMPTY)
		take(x);
	pthread_join(th, NULL);
	for (int i = 0; i < n; i++)
		assert(taken[i] == 1);	/* every item exactly once */
	return 0;
}
