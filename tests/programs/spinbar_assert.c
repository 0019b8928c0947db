/* spinbar_assert.c — main and two workers meet, round after round, at a
 * hand-written split-phase sense-reversing barrier: arrive() decrements an
 * atomic count and tells the last arriver it is last; in wait() the last
 * arriver runs the round's completion (it sums every thread's slot and
 * checks the sum), resets the count and flips the shared sense, while the
 * others spin on the sense with sched_yield(). A thread computes its value,
 * arrives, and waits.
 * BUG: a thread arrives before it writes its slot (the store sits between
 * arrive() and wait(), as work a split-phase barrier lets overlap), so the
 * completion may sum a slot that still holds the last round's value.
 * Exposing schedule: a thread arrives and is preempted before its store;
 * the last arriver arrives, stores and runs the completion (one
 * preemption, in any round).
 * Outcome: assert sum == expected. Fix (spinbar_assert_ok.c): write the slot,
 * then arrive. Minimal mode: break (the slot store is a plain store). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

#define N 3
#define ROUNDS 3

static int count = N;	/* arrivals still expected in this episode */
static int sense;
static volatile int slot[N];
static long total;

static int value(int id, int r)
{
	return r * 10 + id;
}

/* The last arriver's work: every slot holds round r's value. */
static void completion(int r)
{
	int sum = 0, expected = 0;

	for (int i = 0; i < N; i++) {
		sum += slot[i];
		expected += value(i, r);
	}
	assert(sum == expected);
	total += sum;
}

/* Arrive at the barrier: true for the last arriver of the episode. */
static int arrive(int *local)
{
	*local = !*local;
	return __atomic_sub_fetch(&count, 1, __ATOMIC_ACQ_REL) == 0;
}

/* The last arriver completes the episode and releases the others. */
static void wait_episode(int local, int last, int r)
{
	if (last) {
		completion(r);
		__atomic_store_n(&count, N, __ATOMIC_RELAXED);
		__atomic_store_n(&sense, local, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&sense, __ATOMIC_ACQUIRE) != local)
		sched_yield();
}

static void rounds(int id)
{
	int local = 0;

	for (int r = 1; r <= ROUNDS; r++) {
		int v = value(id, r);

		int last = arrive(&local);
		slot[id] = v;	/* BUG: after arriving */
		wait_episode(local, last, r);
	}
}

static void *worker(void *arg)
{
	rounds((int)(long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t[N - 1];

	for (long i = 0; i < N - 1; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	rounds(0);
	for (int i = 0; i < N - 1; i++)
		pthread_join(t[i], NULL);
	return 0;
}
