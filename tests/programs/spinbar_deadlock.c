/* spinbar_deadlock.c — main and two workers meet, round after round, at a
 * hand-written spin barrier: an arrival counter under a mutex, and a flag the
 * last arriver sets while the others busy-wait on it (a plain volatile load,
 * no yield). The last arriver of each round also folds the round's count into
 * a log: it locks `stats` then `logm`. Every other thread, once through the
 * barrier, counts its round: it locks `logm` then `stats`.
 * BUG: the last arriver sets the flag before its serial section instead of
 * after it, so the others' logm -> stats runs while it takes stats -> logm.
 * Exposing schedule: the last arriver sets the flag and locks stats; a
 * released waiter sees the flag and locks logm; each then blocks on the
 * other's mutex (one preemption, in any round).
 * Outcome: deadlock. Fix (spinbar_deadlock_ok.c): the serial section before
 * the flag is set, while the others still spin. Minimal mode: break (the
 * waiters' loads of the flag are plain loads). */
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
		flag = k;	/* BUG: the others go before the serial section */
		pthread_mutex_lock(&stats);
		pthread_mutex_lock(&logm);
		logged += count;
		count = 0;
		pthread_mutex_unlock(&logm);
		pthread_mutex_unlock(&stats);
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
