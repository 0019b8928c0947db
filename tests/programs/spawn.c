/* spawn.c — threads that run other programs (system(3)) while a lock is
 * held. No bug: checks that processes the program forks run normally under
 * cts (they inherit its seccomp filter) and are gone afterwards. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int ok;

static void *worker(void *arg)
{
	int rc = system("exit 7");

	pthread_mutex_lock(&m);
	ok += WIFEXITED(rc) && WEXITSTATUS(rc) == 7;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(ok == 2);
	return 0;
}
