/* active_deadlock_ok.c — twin of active_deadlock.c: the same loop, but
 * t2 takes a then b like t1: no cycle, no deadlock on any schedule.
 */
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t c = PTHREAD_MUTEX_INITIALIZER;
static int n, shared;

static void *t1(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&c);
		n++;
		pthread_mutex_unlock(&c);
		if (i == 700) {
			pthread_mutex_lock(&a);
			pthread_mutex_lock(&b);
			shared++;
			pthread_mutex_unlock(&b);
			pthread_mutex_unlock(&a);
		}
	}
	return arg;
}

static void *t2(void *arg)
{
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

int main(void)
{
	pthread_t p, q;
	pthread_create(&p, 0, t1, 0);
	pthread_create(&q, 0, t2, 0);
	pthread_join(p, 0);
	pthread_join(q, 0);
	return 0;
}
