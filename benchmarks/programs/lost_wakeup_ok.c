/* lost_wakeup_ok.c (benchmark) — twin of lost_wakeup.c with the fix: the
 * waiter tests the flag with the mutex held, in a while loop, so the notifier
 * cannot set it between the test and the wait.  Expected: clean.  Mode: sync. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static volatile int ready;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&m);
	while (!ready)	/* FIX: test under the lock, re-test after each wakeup */
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	return arg;
}

static void *notifier(void *arg)
{
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t w, n;

	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&n, NULL, notifier, NULL);
	pthread_join(w, NULL);
	pthread_join(n, NULL);
	return 0;
}
