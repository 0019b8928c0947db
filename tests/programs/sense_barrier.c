/* sense_barrier.c — a sense-reversing barrier that forgets to reverse.
 * 3 workers meet at a hand-written sense-reversing barrier (an atomic count;
 * the last arriver resets it and flips the shared sense, the others loop on
 * `while (sense == local) sched_yield();`).  In each of 2 phases a worker
 * writes its slot, waits at the barrier, reads its neighbour's slot (every
 * slot access under a mutex) and waits again.  BUG: a thread never reverses
 * its own sense, so from the second episode on the shared sense already
 * differs from it and the barrier lets it through at once.
 * Exposing schedule: a worker passes the second barrier before its
 * neighbour read its slot, and writes phase 2 into it.
 * Outcome: assert v == p.  Fix (sense_barrier_ok.c): reverse the local sense
 * at every episode.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

#define N 3
#define PHASES 2

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int slot[N];
static int count = N;	/* arrivals still expected in this episode */
static int sense;

static void barrier_wait(int *local)
{
	int old = *local;

	/* BUG: *local is never reversed */
	if (__atomic_sub_fetch(&count, 1, __ATOMIC_SEQ_CST) == 0) {
		__atomic_store_n(&count, N, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sense, !old, __ATOMIC_SEQ_CST);
	} else {
		while (__atomic_load_n(&sense, __ATOMIC_SEQ_CST) == old)
			sched_yield();
	}
}

static void *worker(void *arg)
{
	int i = (int)(long)arg, local = 0, v;

	for (int p = 1; p <= PHASES; p++) {
		pthread_mutex_lock(&m);
		slot[i] = p;
		pthread_mutex_unlock(&m);
		barrier_wait(&local);
		pthread_mutex_lock(&m);
		v = slot[(i + 1) % N];
		pthread_mutex_unlock(&m);
		assert(v == p);	/* the neighbour finished phase p, not p + 1 */
		barrier_wait(&local);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[N];

	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	return 0;
}
