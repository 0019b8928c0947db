/* `thousand_threads N`: main creates N threads (default 1,000) that are all
 * alive at once: each waits on a barrier of N+1 parties (main is the last),
 * then adds 1 to a counter under a mutex; main joins them all. Clean on
 * every schedule: the barrier only opens once every thread exists, so the
 * run holds N+1 live threads (threads.t). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_barrier_t all_here;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count;

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&all_here);
	pthread_mutex_lock(&m);
	count++;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t attr;

	assert(t);
	/* Small stacks: a thousand default 8 MiB stacks are 8 GiB of address space. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&all_here, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++)
		assert(pthread_create(&t[i], &attr, worker, NULL) == 0);
	pthread_barrier_wait(&all_here);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	assert(count == n);
	free(t);
	return 0;
}
