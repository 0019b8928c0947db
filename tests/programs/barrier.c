/* barrier.c — reading a neighbour's phase-1 result before the barrier.
 * Three workers each publish slot[i] in phase 1, then (phase 2) read their
 * neighbour's slot[(i+1) % 3].  Every access is under a mutex: the bug is the
 * order, not a data race.
 * Bug: worker 2 reads its neighbour's (worker 0's) slot before pthread_barrier_wait.
 * Exposing schedule: worker 2 runs its read before worker 0's write
 * -> assert(v == 1) fails.  Minimal mode: sync.
 * Twin barrier_ok.c: worker 2 reads after the barrier like the others. */
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
	if (i == N - 1)
		v = get(next);	/* BUG: phase-2 read before the barrier */
	pthread_barrier_wait(&bar);
	if (i != N - 1)
		v = get(next);	/* phase 2: read the neighbour's result */
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
