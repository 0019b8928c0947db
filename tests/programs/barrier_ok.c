/* barrier_ok.c — twin of barrier.c with the fix: every worker, worker 2
 * included, reads its neighbour's slot only after pthread_barrier_wait, when
 * all phase-1 writes are done.  Expected: clean on every schedule.  Mode: sync. */
#include <assert.h>
#include <pthread.h>

#define N 3

static pthread_barrier_t bar;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int slot[N];

static int get(int i)
{
	int v;

	pthread_mutex_lock(&m);
	v = slot[i];
	pthread_mutex_unlock(&m);
	return v;
}

static void *worker(void *arg)
{
	int i = (int)(long)arg, next = (i + 1) % N, v = 0;

	pthread_mutex_lock(&m);
	slot[i] = i + 1;	/* phase 1: publish */
	pthread_mutex_unlock(&m);
	pthread_barrier_wait(&bar);
	v = get(next);	/* FIX: phase 2 starts after the barrier for everyone */
	assert(v == next + 1);
	return NULL;
}

int main(void)
{
	pthread_t t[N];

	pthread_barrier_init(&bar, NULL, N);
	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	return 0;
}
