/* spin_learn.c — an order violation behind a busy-wait on a plain flag.
 * Bug: the setter raises the flag before it publishes data under the mutex;
 * a waiter that leaves its loop then and takes the mutex first finds data
 * unset and the assert fails.  The waiter's loop makes no system or pthread
 * call: in sync mode it is invisible until the time-slice probe learns its
 * load, and the search must go on from there (dpor finds it).
 * Twin spin_learn_ok.c.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int flag;
static int data;

static void *waiter(void *arg)
{
	while (!flag)
		;
	pthread_mutex_lock(&m);
	assert(data == 42);
	pthread_mutex_unlock(&m);
	return arg;
}

static void *setter(void *arg)
{
	flag = 1;	/* BUG: raised before data is in place */
	pthread_mutex_lock(&m);
	data = 42;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t w, s;

	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&s, NULL, setter, NULL);
	pthread_join(w, NULL);
	pthread_join(s, NULL);
	return 0;
}
