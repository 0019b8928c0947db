/* semaphore_ok.c — twin of semaphore.c with the fix: the semaphore guarding
 * the single-slot resource starts at 1, so users enter one at a time.
 * Expected: clean on every schedule.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

#define SLOTS 1	/* FIX: one slot, one user at a time */

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
