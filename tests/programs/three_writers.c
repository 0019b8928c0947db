/* three_writers.c — three threads each write a different global once (no bug).
 * No two threads touch the same location; main checks all three after join.
 * Expected: clean on every schedule, race-free.  Mode: break (three shared
 * writes that commute: a partial-order reduction should need one schedule). */
#include <assert.h>
#include <pthread.h>

static volatile int g1, g2, g3;

static void *w1(void *arg)
{
	g1 = 1;
	return arg;
}

static void *w2(void *arg)
{
	g2 = 2;
	return arg;
}

static void *w3(void *arg)
{
	g3 = 3;
	return arg;
}

int main(void)
{
	pthread_t t1, t2, t3;

	pthread_create(&t1, NULL, w1, NULL);
	pthread_create(&t2, NULL, w2, NULL);
	pthread_create(&t3, NULL, w3, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	pthread_join(t3, NULL);
	assert(g1 == 1 && g2 == 2 && g3 == 3);
	return 0;
}
