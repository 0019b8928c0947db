/* yield_barrier_ok.c — a sense-reversing barrier whose waiters spin with
 * sched_yield(), used for 3 rounds by 3 threads (correct).
 * Each round a thread writes its slot, passes the barrier and checks that
 * every other slot holds this round's value. The last to arrive resets the
 * count, then flips the sense; the others loop on
 * `while (sense != local) sched_yield();`. Expected: clean on every schedule
 * in every strategy; the yield loops must not starve the last arriver (PCT,
 * dfs) nor be reported as a livelock.  Twin: yield_barrier.c. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

#define N 3
#define ROUNDS 3

static volatile int count = N;
static volatile int sense;
static volatile int slot[N];

static void barrier(int *local)
{
	*local = !*local;
	if (__atomic_fetch_sub(&count, 1, __ATOMIC_ACQ_REL) == 1) {
		count = N;
		__atomic_store_n(&sense, *local, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(&sense, __ATOMIC_ACQUIRE) != *local)
			sched_yield();
	}
}

static void *worker(void *arg)
{
	int me = (int)(long)arg, local = 0;

	for (int r = 1; r <= ROUNDS; r++) {
		slot[me] = r;
		barrier(&local);
		for (int i = 0; i < N; i++)
			assert(slot[i] >= r);
		barrier(&local);
	}
	return arg;
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
