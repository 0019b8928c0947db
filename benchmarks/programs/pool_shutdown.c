/* pool_shutdown.c (benchmark) — thread-pool shutdown without the pool lock.
 * Usage: pool_shutdown [tasks]   (default 2, at most 64)
 * Two workers take tasks from a queue under a mutex and sleep on a condition
 * variable while it is empty.  main submits the tasks, waits on a semaphore
 * until all have run, then shuts the pool down and joins the workers.
 * Bug: shutdown() sets `stop` and broadcasts without holding the mutex.  A
 * worker that has just seen "queue empty, not stopped" under the mutex, but
 * has not yet entered cond_wait, misses the broadcast and sleeps forever.
 * Exposing schedule: w1 runs both tasks; w2 locks, sees empty && !stop
 * (held at its cond_wait); main's last sem_wait returns, it sets stop = 1 and
 * broadcasts to nobody; w2 waits -> w2 never wakes, main blocks joining it:
 * deadlock.  Minimal mode: sync.  Natively the window is between a worker's
 * check and its futex wait inside cond_wait.
 * Twin pool_shutdown_ok.c: shutdown() sets stop and broadcasts under the mutex. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

#define NWORKERS 2
#define MAXTASKS 64

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static sem_t done;
static int queue[MAXTASKS], head, count;
static volatile int stop;
static long executed;

static void run(int task)
{
	__atomic_fetch_add(&executed, task, __ATOMIC_SEQ_CST);
	sem_post(&done);
}

static void *worker(void *arg)
{
	for (;;) {
		int task;

		pthread_mutex_lock(&m);
		while (count == 0 && !stop)
			pthread_cond_wait(&work, &m);
		if (count == 0) {	/* stopped and drained */
			pthread_mutex_unlock(&m);
			break;
		}
		task = queue[head++];
		count--;
		pthread_mutex_unlock(&m);
		run(task);
	}
	return arg;
}

static void submit(int task)
{
	pthread_mutex_lock(&m);
	queue[head + count++] = task;
	pthread_cond_signal(&work);
	pthread_mutex_unlock(&m);
}

static void shutdown_pool(void)
{
	stop = 1;	/* BUG: not under the mutex: a worker between its check and its wait misses this */
	pthread_cond_broadcast(&work);
}

int main(int argc, char **argv)
{
	pthread_t w[NWORKERS];
	int n = argc > 1 ? atoi(argv[1]) : 2;

	if (n < 1 || n > MAXTASKS)
		return 2;
	sem_init(&done, 0, 0);
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	for (int i = 1; i <= n; i++)
		submit(i);
	for (int i = 0; i < n; i++)
		sem_wait(&done);
	shutdown_pool();
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(w[i], NULL);
	assert(executed == (long)n * (n + 1) / 2);
	sem_destroy(&done);
	return 0;
}
