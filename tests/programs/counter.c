/* counter.c — lost update on an unprotected counter.
 * Bug: two threads increment a plain shared int with a separate load and
 * store (tmp = counter; counter = tmp + 1) and no lock.
 * Exposing schedule: t1 loads 0; t2 loads 0; t1 stores 1; t2 stores 1
 * -> assert(counter == 2) in main fails.  Minimal mode: break (no pthread call
 * separates the load from the store, so sync mode cannot see it).
 * Twin counter_ok.c: the increment is done under a mutex. */
#include <assert.h>
#include <pthread.h>

static volatile int counter;	/* volatile: keep one load and one store at -O1 */

static void *inc(void *arg)
{
	int tmp;

	tmp = counter;	/* BUG: unprotected read-modify-write */
	counter = tmp + 1;
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
