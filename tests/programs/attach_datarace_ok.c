/* attach_datarace_ok.c — twin of attach_datarace.c, the same traffic with
 * every shared access synchronized: hits is bumped inside the raw futex
 * lock's critical section (a lock cts sees only as atomics and futex
 * system calls), and the malloc'd nodes worker_a hands to worker_b under
 * the mutex come back, once freed, at the same addresses with new data.
 * `cts-trace -p PID --races` must report nothing. Runs until its standard
 * input ends, then prints whether the counters add up (they do). */
#include "attach_traffic.h"

static long hits;

static void traffic(long bump)
{
	pthread_mutex_lock(&m);
	locked++;
	pthread_mutex_unlock(&m);
	flock_();
	futexed++;
	hits += bump;
	funlock_();
	__atomic_fetch_add(&atomics, 1, __ATOMIC_RELAXED);
}

static void worker_a(void)
{
	traffic(1);
	produce(rounds_a);
	rounds_a++;
}

static void worker_b(void)
{
	traffic(2);
	consume();
	rounds_b++;
}

static const char *hits_verdict(void)
{
	return hits == rounds_a + 2 * rounds_b ? ", hits ok" : ", hits BAD";
}

int main(void)
{
	run_until_eof(worker_a, worker_b, hits_verdict);
	return 0;
}
