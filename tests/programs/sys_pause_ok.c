/* sys_pause_ok.c — twin of sys_pause.c, the lbzip2 pattern: the main thread
 * sleeps in sigsuspend() until two workers have each counted their work done
 * and sent it SIGUSR1. SIGUSR1 stays blocked except inside sigsuspend(),
 * which unblocks it and sleeps in one step, so a signal sent between the
 * check and the wait is kept pending, not lost; and the count, not the
 * number of signals (two may merge into one), says when all are done.
 * Expected: clean on every schedule.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

static pthread_t main_thread;
static atomic_int done;

static void on_usr1(int sig)
{
	(void)sig;
}

static void *worker(void *arg)
{
	atomic_fetch_add(&done, 1);
	pthread_kill(main_thread, SIGUSR1);
	return arg;
}

int main(void)
{
	pthread_t w[2];
	sigset_t usr1, old;
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);	/* FIX: blocked while checking */
	main_thread = pthread_self();
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	while (atomic_load(&done) < 2)
		sigsuspend(&old);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	return 0;
}
