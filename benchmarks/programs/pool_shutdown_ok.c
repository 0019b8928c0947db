/* pool_shutdown_ok.c (benchmark) — twin of pool_shutdown.c with the fix:
 * shutdown() sets `stop` and broadcasts while holding the pool mutex, so no
 * worker can be between its check and its wait when the flag changes.
 * Usage: pool_shutdown_ok [tasks]   (default 2, at most 64).
 * Expected: clean on every schedule.  Mode: sync. */
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
	pthread_mutex_lock(&m);	/* FIX: workers test stop under this mutex */
	stop = 1;
	pthread_cond_broadcast(&work);
	pthread_mutex_unlock(&m);
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
