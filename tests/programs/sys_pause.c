/* sys_pause.c — the lost wake-up of check-then-pause: main checks a flag the
 * SIGUSR1 handler sets and then calls pause(). If the worker's signal comes
 * after the check but before pause(), the handler runs there and pause()
 * sleeps forever.
 * Expected: deadlock (main in pause).  Minimal mode: sync.
 * Twin: sys_pause_ok.c. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static pthread_t main_thread;
static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got = 1;
}

static void *worker(void *arg)
{
	pthread_kill(main_thread, SIGUSR1);
	return arg;
}

int main(void)
{
	pthread_t w;
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	pthread_create(&w, NULL, worker, NULL);
	while (!got)
		pause();	/* BUG: the signal may come between the check and here */
	pthread_join(w, NULL);
	return 0;
}
