/* deadlock.c (benchmark) — lock-order inversion between two mutexes.
 * Usage: deadlock [iterations]   (default 1)
 * Bug: t1 takes a then b, t2 takes b then a, `iterations` times each.
 * Exposing schedule: t1 lock(a); t2 lock(b); both block on their second lock
 * -> deadlock.  Minimal mode: sync.  Natively the window is the few
 * instructions between the two lock calls, so a stress loop hits it rarely.
 * Twin deadlock_ok.c: both threads take a then b. */
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
		pthread_mutex_lock(&b);	/* BUG: opposite order to t1 */
		pthread_mutex_lock(&a);
		shared++;
		pthread_mutex_unlock(&a);
		pthread_mutex_unlock(&b);
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
