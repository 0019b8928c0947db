/* attach_datarace.c — a data race for `cts-trace -p PID --races` to find
 * in a running process.
 * Two workers exchange correct traffic round after round (a counter under
 * a pthread mutex, one under a raw futex lock, an atomic counter) and each
 * also bumps `hits` with no lock at all: worker_a at one line, worker_b at
 * another (an unsynchronized read-modify-write pair between threads).
 * worker_a also hands malloc'd nodes to worker_b, which frees them.
 * Runs until its standard input ends, then prints whether the locked
 * counters add up (they always do: the race only loses updates of hits).
 * Twin attach_datarace_ok.c: hits is bumped inside the raw futex lock. */
#include "attach_traffic.h"

static long hits; /* BUG: bumped by both workers without a lock */

static void traffic(void)
{
	pthread_mutex_lock(&m);
	locked++;
	pthread_mutex_unlock(&m);
	flock_();
	futexed++;
	funlock_();
	__atomic_fetch_add(&atomics, 1, __ATOMIC_RELAXED);
}

static void worker_a(void)
{
	traffic();
	hits++; /* BUG: no lock */
	produce(rounds_a);
	rounds_a++;
}

static void worker_b(void)
{
	traffic();
	hits += 2; /* BUG: no lock */
	consume();
	rounds_b++;
}

int main(void)
{
	run_until_eof(worker_a, worker_b, NULL);
	return 0;
}
