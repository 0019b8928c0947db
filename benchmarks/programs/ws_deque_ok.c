/* ws_deque_ok.c (benchmark) — twin of ws_deque.c with the fix: pop() claims
 * the last element with a CAS on `top` (as steal() does) and reports EMPTY if
 * a thief won, as in Chase and Lev's deque.  Every item is taken exactly once
 * on every schedule.  Usage: ws_deque_ok [items]   (default 2, at most 64).
 * Expected: clean.  Mode: break. */
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
	if (!__atomic_compare_exchange_n(&top, &t, t + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		x = EMPTY;	/* FIX: a thief got it first */
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
