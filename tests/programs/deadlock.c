/* deadlock.c — lock-order inversion.
 * Bug: thread 1 takes a then b, thread 2 takes b then a.
 * Exposing schedule: t1 lock(a); t2 lock(b); t1 lock(b) blocks; t2 lock(a) blocks
 * -> every live thread blocked (main in join): deadlock.  Minimal mode: sync.
 * Twin deadlock_ok.c: both threads take a then b. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *t1(void *arg)
{
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

static void *t2(void *arg)
{
	pthread_mutex_lock(&b);	/* BUG: opposite order to t1 */
	pthread_mutex_lock(&a);
	shared++;
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, t1, NULL);
	pthread_create(&y, NULL, t2, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(shared == 2);
	return 0;
}
