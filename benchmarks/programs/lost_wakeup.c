/* lost_wakeup.c (benchmark) — flag checked outside the lock.
 * Bug: the waiter tests `ready` without holding the mutex and only then locks
 * and waits; the notifier can set the flag and signal in between, and the
 * waiter then sleeps on a signal that was already sent.
 * Exposing schedule: waiter reads ready == 0; notifier lock, ready = 1,
 * signal (nobody waiting), unlock; waiter lock, cond_wait -> sleeps forever,
 * main blocks in join: deadlock.  Minimal mode: sync.  Natively the window is
 * the few instructions between the test and the wait.
 * Twin lost_wakeup_ok.c: test the flag under the mutex, in a while loop. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static volatile int ready;

static void *waiter(void *arg)
{
	if (!ready) {	/* BUG: tested without the lock, and only once */
		pthread_mutex_lock(&m);
		pthread_cond_wait(&c, &m);
		pthread_mutex_unlock(&m);
	}
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
