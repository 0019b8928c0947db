/* exit_status.c — exits 3 when the worker's update comes after main's read.
 * For --fail-on-exit: main reads `ready` under the lock and returns 3 if the
 * worker has not run yet. Without --fail-on-exit no run is a bug. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int ready;

static void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t t;
	int r;

	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&m);
	r = ready;
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	return r ? 0 : 3;
}
