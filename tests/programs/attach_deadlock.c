/* attach_deadlock.c — a process that deadlocks at once, for `cts-trace -p`.
 * Bug: thread 1 takes a then b, thread 2 takes b then a; a barrier between
 * the two takes makes the inversion certain natively, so the process is
 * deadlocked (for ever) when cts attaches to it. Main joins thread 1.
 * Twin attach_idle.c: both threads take a then b, then idle for ever. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *t1(void *arg)
{
	pthread_mutex_lock(&a);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&b);
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

static void *t2(void *arg)
{
	pthread_mutex_lock(&b);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&a); /* BUG: opposite order to t1 */
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return arg;
}

int main(void)
{
	pthread_t x, y;
	pthread_barrier_init(&both, NULL, 2);
	pthread_create(&x, NULL, t1, NULL);
	pthread_create(&y, NULL, t2, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	puts("done");
	return 0;
}
