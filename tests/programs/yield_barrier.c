/* yield_barrier.c — a sense-reversing barrier that flips the sense before it
 * resets the count (bug); waiters spin with sched_yield().
 * Exposing schedule: the last arriver of a round flips the sense; a released
 * waiter runs on into the next barrier and decrements the count before the
 * last arriver resets it, so that barrier never completes: every thread
 * yields and re-reads the sense for ever (a livelock; main waits in join).
 * Minimal mode: break (the waiters' loads of `sense` must be visible to tell
 * a spin from progress; in sync mode the run is only inconclusive).
 * Twin yield_barrier_ok.c: reset the count first, then flip the sense. */
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
		__atomic_store_n(&sense, *local, __ATOMIC_RELEASE);	/* BUG: flips first */
		count = N;
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
