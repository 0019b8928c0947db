/* lost_wakeup.c — condition variable used without a predicate.
 * Bug: the waiter calls pthread_cond_wait unconditionally; a signal sent before
 * it waits is lost (condition variables have no memory).
 * Exposing schedule: signaller runs lock/signal/unlock before the waiter's
 * cond_wait -> waiter sleeps forever, main blocks in join: deadlock.
 * Minimal mode: sync.
 * Twin lost_wakeup_ok.c: a ready flag set under the mutex, waited for in a while loop. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&m);
	pthread_cond_wait(&c, &m);	/* BUG: no predicate, may wait for a signal already sent */
	pthread_mutex_unlock(&m);
	return arg;
}

static void *signaller(void *arg)
{
	pthread_mutex_lock(&m);
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t w, s;

	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&s, NULL, signaller, NULL);
	pthread_join(w, NULL);
	pthread_join(s, NULL);
	return 0;
}
