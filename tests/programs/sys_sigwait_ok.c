/* sys_sigwait_ok.c — twin of sys_sigwait.c: a dedicated signal thread takes
 * SIGUSR1 (pthread_kill), SIGUSR2 (kill: sent to the process) and SIGRTMIN
 * with a value (sigqueue) with sigwait()/sigwaitinfo(), then sees a
 * sigtimedwait() run out. The main thread blocks the signals before it
 * creates the thread, so the thread inherits the mask and none can be
 * delivered before it waits for it.
 * Expected: clean on every schedule.  Minimal mode: sync. */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

static sigset_t set;

static void *sigthread(void *arg)
{
	int sig, seen = 0;
	siginfo_t si;
	struct timespec brief = { 0, 1000000 };

	assert(sigwait(&set, &sig) == 0);
	seen |= 1 << (sig - SIGUSR1);
	for (int i = 0; i < 2; i++) {
		sig = sigwaitinfo(&set, &si);
		assert(sig > 0);
		if (sig == SIGRTMIN)
			assert(si.si_value.sival_int == 42);
		seen |= 1 << (sig - SIGUSR1);
	}
	assert(seen == (1 << 0 | 1 << (SIGUSR2 - SIGUSR1) | 1 << (SIGRTMIN - SIGUSR1)));
	/* Nothing more comes: the wait times out. */
	assert(sigtimedwait(&set, &si, &brief) == -1 && errno == EAGAIN);
	return arg;
}

int main(void)
{
	pthread_t t;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* FIX: before the thread exists */
	pthread_create(&t, NULL, sigthread, NULL);
	pthread_kill(t, SIGUSR1);
	kill(getpid(), SIGUSR2);
	sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = 42 });
	pthread_join(t, NULL);
	return 0;
}
