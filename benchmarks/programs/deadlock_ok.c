/* deadlock_ok.c (benchmark) — twin of deadlock.c with the fix: both threads
 * take a then b, so no wait-for cycle can form.
 * Usage: deadlock_ok [iterations]   (default 1).  Expected: clean.  Mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long iters = 1, shared;

static void *t1(void *arg)
{
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&a);
		pthread_mutex_lock(&b);
		shared++;
		pthread_mutex_unlock(&b);
		pthread_mutex_unlock(&a);
	}
	return arg;
}

static void *t2(void *arg)
{
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&a);	/* FIX: same order as t1 */
		pthread_mutex_lock(&b);
		shared++;
		pthread_mutex_unlock(&b);
		pthread_mutex_unlock(&a);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t x, y;

	if (argc > 1)
		iters = atol(argv[1]);
	pthread_create(&x, NULL, t1, NULL);
	pthread_create(&y, NULL, t2, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(shared == 2 * iters);
	return 0;
}
