/* attach_race.c — an atomicity violation for `cts-trace -p` to find under
 * control in a running process.
 * Bug: the checker reads x in one critical section and checks it in the
 * next; the bumper's increment between the two fails the assert. Natively
 * the window is two calls wide against milliseconds of work between
 * increments, so the process runs on; under control the bumper is often
 * scheduled into it.
 * Twin attach_race_ok.c: the read and the check share one critical section. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long x;

static void work(void)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < 2000000; i++)
		s += i;
}

static void *checker(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&m);
		long v = x;
		pthread_mutex_unlock(&m);
		pthread_mutex_lock(&m); /* BUG: x may have changed in between */
		assert(x == v);
		pthread_mutex_unlock(&m);
		work();
	}
	return arg;
}

static void *bumper(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&m);
		x++;
		pthread_mutex_unlock(&m);
		work();
	}
	return arg;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, checker, NULL);
	pthread_create(&b, NULL, bumper, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
