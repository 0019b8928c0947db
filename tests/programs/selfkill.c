/* A thread ends its own process with a signal: `selfkill term` sends SIGTERM
 * with kill(getpid()), `selfkill kill0` SIGKILL to its process group with
 * kill(0), `selfkill int` SIGINT with kill(getpid()).
 * Each is the program's intended way out, not a bug: cts-trace reports
 * "killed itself by signal N" and a clean run (a bug only with
 * --fail-on-exit). `selfkill segv` raises SIGSEGV instead: a crash. While the
 * worker runs, main waits in pthread_join and a second thread in a
 * condition wait, so threads are held at different stops when the signal
 * arrives. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static const char *how = "term";

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	for (;;)
		pthread_cond_wait(&c, &m);
	return NULL;
}

static void *killer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	if (strcmp(how, "kill0") == 0) {
		/* Run natively, kill(0) would reach the shell's whole job too. */
		if (getpgrp() != getpid())
			setpgid(0, 0);
		kill(0, SIGKILL);
	}
	else if (strcmp(how, "int") == 0)
		kill(getpid(), SIGINT);
	else if (strcmp(how, "segv") == 0)
		kill(getpid(), SIGSEGV);
	else
		kill(getpid(), SIGTERM);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w, k;
	if (argc > 1)
		how = argv[1];
	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&k, NULL, killer, NULL);
	pthread_join(k, NULL);
	return 0;
}
