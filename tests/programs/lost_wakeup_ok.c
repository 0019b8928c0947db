/* lost_wakeup_ok.c — twin of lost_wakeup.c with the fix: the event is recorded
 * in a flag under the mutex and the waiter re-checks it in a while loop, so a
 * signal sent before the wait is not lost (and spurious wakeups are harmless).
 * Expected: clean on every schedule.  Minimal mode: sync. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&m);
	while (!ready)	/* FIX: wait only while the event has not happened */
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	return arg;
}

static void *signaller(void *arg)
{
	pthread_mutex_lock(&m);
	ready = 1;	/* FIX: record the event */
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
