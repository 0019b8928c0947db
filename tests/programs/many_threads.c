/* `many_threads N`: main creates and joins N threads one after another
 * (default 200), each adding 1 to a counter under a mutex. Clean. cts-trace
 * numbers every thread a run creates (never reusing a number); its tables
 * grow, and --max-threads bounds them (lifecycle.t, threads.t). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count;

static void *add(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	count++;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200;
	for (long i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, add, NULL);
		pthread_join(t, NULL);
	}
	assert(count == n);
	return 0;
}
