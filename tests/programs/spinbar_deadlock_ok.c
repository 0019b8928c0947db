/* spinbar_deadlock_ok.c — the twin of spinbar_deadlock.c: main and two
 * workers meet, round after round, at a hand-written spin barrier (an arrival
 * counter under a mutex, and a flag the last arriver sets while the others
 * busy-wait on it with a plain volatile load). The last arriver folds the
 * round's count into a log (stats -> logm) before it sets the flag (the fix),
 * so no released thread's logm -> stats overlaps it: clean on every
 * schedule. */
#include <pthread.h>

#define N 3
#define ROUNDS 3

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t logm = PTHREAD_MUTEX_INITIALIZER;
static int arrived;
static volatile int flag;
static long count, logged;

/* Barrier number k (1, 2, ...): the k * N-th arrival sets the flag to k. */
static void barrier(int k)
{
	pthread_mutex_lock(&m);
	int last = ++arrived == k * N;
	pthread_mutex_unlock(&m);
	if (last) {
		pthread_mutex_lock(&stats);
		pthread_mutex_lock(&logm);
		logged += count;
		count = 0;
		pthread_mutex_unlock(&logm);
		pthread_mutex_unlock(&stats);
		flag = k;	/* the others go after the serial section */
		return;
	}
	while (flag < k)
		;
	pthread_mutex_lock(&logm);
	pthread_mutex_lock(&stats);
	count++;
	pthread_mutex_unlock(&stats);
	pthread_mutex_unlock(&logm);
}

static void *worker(void *arg)
{
	for (int r = 1; r <= ROUNDS; r++)
		barrier(r);
	return arg;
}

int main(void)
{
	pthread_t t[N - 1];

	for (int i = 0; i < N - 1; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	worker(NULL);
	for (int i = 0; i < N - 1; i++)
		pthread_join(t[i], NULL);
	return 0;
}
