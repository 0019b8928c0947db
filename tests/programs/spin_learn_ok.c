/* spin_learn_ok.c — twin of spin_learn.c with the fix: the setter publishes
 * data under the mutex before it raises the flag.  The waiter busy-waits on
 * the plain flag with no system or pthread call in its loop, so in sync
 * mode the loop is invisible until the tracer's time-slice probe learns its
 * load (a slice, about 200 ms, after it starts spinning).
 * Expected: clean on every schedule, and a systematic search completes: the
 * run that learned the load starts the search again, so no later run
 * replays a prefix recorded without the waiter's reads.  Minimal mode: sync. */
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
	pthread_mutex_lock(&m);
	data = 42;
	pthread_mutex_unlock(&m);
	flag = 1;	/* FIX: raised once data is in place */
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
