/* time_seeded_ok.c — a correct program that does not repeat itself under one
 * schedule: how many times its worker takes the lock comes from the clock's
 * nanoseconds (a time-seeded RNG). cts cannot replay a prefix of it: a
 * systematic search stops with a divergence, which is no bug of the program.
 * Expected: exit 0, no bug; a divergence is reported apart from bugs. */
#include <pthread.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int n;

static void *work(void *arg)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int times = 1 + (int)(ts.tv_nsec / 1000 % 4);
	for (int i = 0; i < times; i++) {
		pthread_mutex_lock(&m);
		n++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, work, NULL);
	pthread_create(&y, NULL, work, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	return n > 0 ? 0 : 1;
}
