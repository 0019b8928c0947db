/* dlf_loop_ok.c — twin of dlf_loop.c: the same loop of N sections on a
 * (argv[1], default 40), but t2 then takes a then b like t1: one lock
 * order, no cycle, no deadlock on any schedule. */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int n = 40, shared;

static void *t1(void *arg)
{
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

static void *t2(void *arg)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&a);
		shared++;
		pthread_mutex_unlock(&a);
	}
	pthread_mutex_lock(&a);         /* the fix: a then b, as t1 */
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t p, q;
	if (argc > 1)
		n = atoi(argv[1]);
	pthread_create(&p, 0, t1, 0);
	pthread_create(&q, 0, t2, 0);
	pthread_join(p, 0);
	pthread_join(q, 0);
	return 0;
}
