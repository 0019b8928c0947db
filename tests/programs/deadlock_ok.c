/* deadlock_ok.c — twin of deadlock.c with the fix: both threads take the
 * mutexes in the same order (a then b), so no wait-for cycle can form.
 * Expected: clean on every schedule.  Minimal mode: sync. */
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
	pthread_mutex_lock(&a);	/* FIX: same order as t1 */
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
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
