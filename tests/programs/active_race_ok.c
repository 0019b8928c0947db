/* active_race_ok.c — twin of active_race.c: both increments under one
 * mutex; no race, x == 2 on every schedule. */
#include <assert.h>
#include <pthread.h>

static volatile int x, y;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *t1(void *arg)
{
	pthread_mutex_lock(&m);
	int v = x;
	x = v + 1;
	pthread_mutex_unlock(&m);
	return arg;
}

static void *t2(void *arg)
{
	for (int i = 0; i < 1000; i++)
		y = i;
	pthread_mutex_lock(&m);
	int v = x;
	x = v + 1;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, 0, t1, 0);
	pthread_create(&b, 0, t2, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	assert(x == 2);
	return 0;
}
