/* attach_race_ok.c — twin of attach_race.c: the checker reads x and checks
 * it in one critical section, so no schedule fails the assert; under
 * `cts-trace -p` control it comes back clean. */
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
