/* sigwait_thread_ok.c — twin of sigwait_thread.c with the fix: main records
 * the request under the mutex before it sends the signal.  SIGUSR1 is blocked
 * in every thread; a dedicated thread waits for it in sigwait(3) (the
 * rt_sigtimedwait syscall) and main wakes it with pthread_kill(3), 3 times,
 * waiting each time (on a condition variable) until the request was served.
 * Expected: clean on every schedule, no race report.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <signal.h>

#define ROUNDS 3

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t served_cv = PTHREAD_COND_INITIALIZER;
static int requested, served;
static sigset_t usr1;

static void *sig_thread(void *arg)
{
	int sig;

	for (int i = 1; i <= ROUNDS; i++) {
		if (sigwait(&usr1, &sig) != 0 || sig != SIGUSR1)
			return NULL;
		pthread_mutex_lock(&m);
		assert(requested == i);	/* the signal announces request i */
		served = i;
		pthread_cond_signal(&served_cv);
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(void)
{
	pthread_t t;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);	/* inherited by the thread */
	pthread_create(&t, NULL, sig_thread, NULL);
	for (int i = 1; i <= ROUNDS; i++) {
		/* FIX: record the request, then signal */
		pthread_mutex_lock(&m);
		requested = i;
		pthread_mutex_unlock(&m);
		pthread_kill(t, SIGUSR1);
		pthread_mutex_lock(&m);
		while (served != i)
			pthread_cond_wait(&served_cv, &m);
		pthread_mutex_unlock(&m);
	}
	pthread_join(t, NULL);
	return 0;
}
