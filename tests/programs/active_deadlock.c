/* active_deadlock.c — a lock-order inversion on one of 1,000 loop
 * iterations: t1 takes c on every iteration and a then b on iteration 700
 * only; t2 takes b then a once, at its start. Random scheduling would have
 * to hold t2 inside its b-a section for 700 of t1's iterations;
 * deadlockfuzzer pauses t2 before a (holding b) until t1 holds a and wants b.
 * Minimal mode: sync. Twin active_deadlock_ok.c: t2 takes a then b. */
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
	pthread_mutex_lock(&b);         /* BUG: opposite order to t1 */
	pthread_mutex_lock(&a);
	shared++;
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
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
