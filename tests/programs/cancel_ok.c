/* pthread_cancel (issue 17): main cancels a thread blocked at a
 * cancellation point and joins it. `cancel_ok cond`: the thread waits on a
 * condition that is never signalled, with a cleanup handler that unlocks the
 * mutex the cancelled wait re-acquired; `join`: it joins a thread that waits
 * on a semaphore; `sleep`: it sleeps; `async`: with asynchronous
 * cancellation it blocks in pthread_mutex_lock (no cancellation point) on a
 * mutex main holds. On every schedule the cancelled thread runs its cleanup
 * handler and returns PTHREAD_CANCELED (a sleep may also finish first: time
 * is not modelled), and main can take the mutex afterwards. Clean; the twin
 * cancel.c forgets the cleanup handler. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static sem_t never;
static pthread_t sleeper_of_join;
static int cleaned, finished;

static void unlock_m(void *arg)
{
	(void)arg;
	cleaned = 1;
	pthread_mutex_unlock(&m);
}

static void mark_cleaned(void *arg)
{
	(void)arg;
	cleaned = 1;
}

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	pthread_cleanup_push(unlock_m, NULL);
	for (;;)
		pthread_cond_wait(&c, &m);
	pthread_cleanup_pop(1);
	return NULL;
}

static void *sem_waiter(void *arg)
{
	(void)arg;
	sem_wait(&never);
	return NULL;
}

static void *joiner(void *arg)
{
	(void)arg;
	pthread_cleanup_push(mark_cleaned, NULL);
	pthread_join(sleeper_of_join, NULL);
	finished = 1;
	pthread_cleanup_pop(0);
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_cleanup_push(mark_cleaned, NULL);
	sleep(1000);
	finished = 1;
	pthread_cleanup_pop(0);
	return NULL;
}

static void *async_locker(void *arg)
{
	(void)arg;
	pthread_cleanup_push(mark_cleaned, NULL);
	/* A cancel already pending acts here, at the switch to async. */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	pthread_mutex_lock(&m);
	finished = 1;
	pthread_cleanup_pop(0);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "cond";
	void *(*fn)(void *) = cond_waiter;
	pthread_t t;
	void *res;

	sem_init(&never, 0, 0);
	if (strcmp(how, "join") == 0) {
		fn = joiner;
		pthread_create(&sleeper_of_join, NULL, sem_waiter, NULL);
	} else if (strcmp(how, "sleep") == 0) {
		fn = sleeper;
	} else if (strcmp(how, "async") == 0) {
		fn = async_locker;
		pthread_mutex_lock(&m);
	}
	pthread_create(&t, NULL, fn, NULL);
	pthread_cancel(t);
	pthread_join(t, &res);
	if (strcmp(how, "sleep") == 0 && finished) {
		assert(res == NULL && !cleaned);
	} else {
		assert(res == PTHREAD_CANCELED);
		assert(cleaned && !finished);
	}
	if (strcmp(how, "async") == 0)
		pthread_mutex_unlock(&m);
	pthread_mutex_lock(&m); /* the cancelled thread left it free */
	pthread_mutex_unlock(&m);
	if (strcmp(how, "join") == 0) {
		sem_post(&never);
		pthread_join(sleeper_of_join, NULL);
	}
	return 0;
}
