/* attach_idle.c — the correct twin of attach_deadlock.c for attach mode:
 * both threads take a then b, so no deadlock; each then waits on a condition
 * variable nobody signals (the process idles with every thread asleep, as the
 * buggy one does, but with no wait-for cycle: attaching finds nothing).
 * Launched, it never ends on purpose, so it is not named *_ok: every *_ok
 * program must finish clean under `cts-trace`. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t both;
static int go;

static void *worker(void *arg)
{
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	pthread_mutex_unlock(&b);
	while (!go)
		pthread_cond_wait(&never, &a);
	pthread_mutex_unlock(&a);
	return arg;
}

int main(void)
{
	pthread_t x, y;
	pthread_barrier_init(&both, NULL, 2);
	pthread_create(&x, NULL, worker, NULL);
	pthread_create(&y, NULL, worker, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	puts("done");
	return 0;
}
