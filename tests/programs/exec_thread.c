/* A thread replaces the process with another program (execv from a thread
 * ends every other thread, issue 17): `exec_thread [prog [args]]` runs prog,
 * /bin/true by default, while main waits in pthread_join and another thread
 * holds a mutex in a condition wait. Natively it exits with prog's status.
 * cts-trace follows the exec: the run ends with the new image's exit status
 * (0 for /bin/true, a bug only with --fail-on-exit otherwise), never a
 * timeout or a deadlock. */
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static char **prog;

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	for (;;)
		pthread_cond_wait(&c, &m);
	return NULL;
}

static void *execer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	execv(prog[0], prog);
	return NULL; /* exec failed: main's join returns, exit 1 */
}

int main(int argc, char **argv)
{
	static char *dflt[] = { "/bin/true", NULL };
	pthread_t w, e;
	prog = argc > 1 ? argv + 1 : dflt;
	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&e, NULL, execer, NULL);
	pthread_join(e, NULL);
	return 1;
}
