/* semaphore.c — a semaphore with the wrong initial count.
 * Bug: the resource is meant to be used by one thread at a time, but the
 * semaphore guarding it starts at 2, so both users get in together.
 * Exposing schedule: t1 sem_wait, enters (inside = 1); t2 sem_wait also
 * succeeds, enters -> assert(inside == 1) fails.  Minimal mode: sync (the
 * `inside` counter is kept under a mutex so each step is a pthread call).
 * Twin semaphore_ok.c: the semaphore starts at 1. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

#define SLOTS 2	/* BUG: the resource has one slot */

static sem_t sem;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int inside, uses;

static void *user(void *arg)
{
	sem_wait(&sem);
	pthread_mutex_lock(&m);
	inside++;
	assert(inside == 1);	/* exclusive use */
	pthread_mutex_unlock(&m);
	pthread_mutex_lock(&m);
	uses++;
	inside--;
	pthread_mutex_unlock(&m);
	sem_post(&sem);
	return arg;
}

int main(void)
{
	pthread_t x, y;

	sem_init(&sem, 0, SLOTS);
	pthread_create(&x, NULL, user, NULL);
	pthread_create(&y, NULL, user, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(uses == 2 && inside == 0);
	sem_destroy(&sem);
	return 0;
}
