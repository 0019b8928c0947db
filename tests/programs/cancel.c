/* Bug: a thread cancelled in pthread_cond_wait leaves it holding the mutex
 * (the cancelled wait re-acquires it before unwinding), and this one has no
 * cleanup handler to unlock it. main cancels it, joins it, then locks the
 * mutex: that blocks forever on every schedule. cts-trace: deadlock, main
 * waits for the mutex held by the exited thread 1. Fix (cancel_ok cond):
 * pthread_cleanup_push(unlock) around the wait. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	for (;;)
		pthread_cond_wait(&c, &m);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, cond_waiter, NULL);
	pthread_cancel(t);
	pthread_join(t, NULL);
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return 0;
}
