/* sys_sigwait.c — a lost signal: the signal thread blocks SIGUSR1 itself,
 * right before its sigwait(), instead of main blocking it before creating the
 * thread. If main's pthread_kill comes before the thread has blocked it, the
 * signal is delivered with its default action and the whole process dies.
 * Expected: crash (killed by SIGUSR1).  Minimal mode: sync.
 * Twin: sys_sigwait_ok.c. */
#include <assert.h>
#include <pthread.h>
#include <signal.h>

static sigset_t set;

static void *sigthread(void *arg)
{
	int sig;

	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* BUG: too late */
	assert(sigwait(&set, &sig) == 0 && sig == SIGUSR1);
	return arg;
}

int main(void)
{
	pthread_t t;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_create(&t, NULL, sigthread, NULL);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	return 0;
}
