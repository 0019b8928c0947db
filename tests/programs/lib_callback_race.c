/* lib_callback_race.c — two workers each sort an array of their own with
 * qsort; the arrays share a page, so qsort's accesses there are library code
 * on a page neither thread can be granted, and after a few of them the
 * thread runs library code in its own mode (every page open, the traced
 * text not executable). Each call of the comparator (traced code, called
 * back by qsort) counts itself in a shared counter without a lock: a lost
 * update. The callback's first instruction ends the mode before it runs,
 * so its accesses are seen as always.
 * Expected: BUG (assert: a lost update).  Minimal mode: break.
 * Twin: lib_callback_ok (each thread its own counter). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define N 24

static struct {
	int a[2][N];
	long mine[2];
} page __attribute__((aligned(4096)));
/* a load and a store (volatile: not one add to memory, which no schedule
 * can split) */
#ifdef CALLBACK_OK
static volatile long calls[2];
#define COUNT(t) (calls[t] = calls[t] + 1)
#else
static volatile long calls;
#define COUNT(t) ((void)(t), calls = calls + 1)
#endif
static __thread int me;

static int cmp(const void *x, const void *y)
{
	COUNT(me);
	page.mine[me]++;
	return *(const int *)x - *(const int *)y;
}

static void *worker(void *arg)
{
	me = (int)(long)arg;
	for (int i = 0; i < N; i++)
		page.a[me][i] = (i * 7919 + me) % 101;
	qsort(page.a[me], N, sizeof(int), cmp);
	for (int i = 1; i < N; i++)
		assert(page.a[me][i - 1] <= page.a[me][i]);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
#ifdef CALLBACK_OK
	assert(calls[0] == page.mine[0] && calls[1] == page.mine[1]);
#else
	assert(calls == page.mine[0] + page.mine[1]);
#endif
	return 0;
}
