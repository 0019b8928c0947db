/* spin_count_barrier_ok.c — the twin of spin_count_barrier.c: main and two
 * workers meet at hand-written spin barriers (an arrival counter under a
 * mutex, and a flag the last arriver sets and the others busy-wait on with
 * sched_yield()). Between two barriers each thread adds 1 to a total under
 * the barrier's mutex (the fix), and after the barrier main checks the
 * total: clean on every schedule. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

#define N 3
#define ROUNDS 2

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int arrived;
static volatile int flag;
static volatile int total;

/* Barrier number k (1, 2, ...): the k * N-th arrival sets the flag to k. */
static void barrier(int k)
{
	pthread_mutex_lock(&m);
	int last = ++arrived == k * N;
	pthread_mutex_unlock(&m);
	if (last)
		flag = k;
	else
		while (flag < k)
			sched_yield();
}

static void add(void)
{
	pthread_mutex_lock(&m);
	total = total + 1;
	pthread_mutex_unlock(&m);
}

static void rounds(int main_thread)
{
	for (int r = 1; r <= ROUNDS; r++) {
		add();
		barrier(2 * r - 1);
		if (main_thread)
			assert(total == N * r);
		barrier(2 * r);
	}
}

static void *worker(void *arg)
{
	rounds(0);
	return arg;
}

int main(void)
{
	pthread_t t[N - 1];

	for (int i = 0; i < N - 1; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	rounds(1);
	for (int i = 0; i < N - 1; i++)
		pthread_join(t[i], NULL);
	return 0;
}
