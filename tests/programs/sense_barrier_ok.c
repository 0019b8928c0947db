/* sense_barrier_ok.c — twin of sense_barrier.c with the fix: each thread
 * reverses its own sense at every barrier episode.  3 workers meet at a
 * hand-written sense-reversing barrier (an atomic count; the last arriver
 * resets it and flips the shared sense, the others loop on
 * `while (sense == local) sched_yield();`).  In each of 2 phases a worker
 * writes its slot, waits at the barrier, reads its neighbour's slot (every
 * slot access under a mutex) and waits again.
 * Expected: clean on every schedule, no race report on slot.  The yield loop
 * cannot progress until the last arriver writes sense: a tool must not call
 * it a livelock.  Minimal mode: sync. */
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

	*local = !old;	/* FIX: the next episode waits for the other sense */
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
