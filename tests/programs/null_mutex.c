/* null_mutex.c — a worker locks a mutex through a pointer that is still NULL
 * (main sets it up only afterwards).  Natively pthread_mutex_lock(NULL) takes
 * SIGSEGV; cts must report that crash, never a deadlock on a mutex at
 * address 0.  Correct counterpart: counter_ok.c (a counter under a mutex
 * that exists).  Minimal mode: sync. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *volatile lock; /* BUG: still NULL when used */
static int counter;

static void *worker(void *arg)
{
	pthread_mutex_lock(lock);
	counter++;
	pthread_mutex_unlock(lock);
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	lock = &m;
	printf("counter %d\n", counter);
	return 0;
}
