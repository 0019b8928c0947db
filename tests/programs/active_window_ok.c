/* active_window_ok.c — twin of active_window.c: both updates of x under n,
 * so no order loses one. Minimal mode: break. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;
static volatile int x, c;

static void *t1(void *arg)
{
	pthread_mutex_lock(&n);
	int v = x;
	x = v + 1;
	pthread_mutex_unlock(&n);
	for (int i = 0; i < 4; i++) {
		pthread_mutex_lock(&m);
		c++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

static void *t2(void *arg)
{
	for (int i = 0; i < 4; i++) {
		pthread_mutex_lock(&m);
		c++;
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&n);
	int v = x;
	x = v + 1;
	pthread_mutex_unlock(&n);
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
