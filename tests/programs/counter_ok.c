/* counter_ok.c — twin of counter.c with the fix: the load and store of the
 * increment happen under a mutex, so they cannot interleave.
 * Expected: clean on every schedule, race-free.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int counter;	/* volatile: keep one load and one store at -O1 */

static void *inc(void *arg)
{
	int tmp;

	pthread_mutex_lock(&m);	/* FIX */
	tmp = counter;
	counter = tmp + 1;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, inc, NULL);
	pthread_create(&y, NULL, inc, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(counter == 2);
	return 0;
}
