/* spinbar_assert_ok.c — the twin of spinbar_assert.c: main and two workers
 * meet, round after round, at a hand-written split-phase sense-reversing
 * barrier (arrive() decrements an atomic count; in wait() the last arriver
 * sums every thread's slot and checks the sum, resets the count and flips
 * the shared sense, while the others spin on the sense with
 * sched_yield()). A thread writes its slot before it
 * arrives (the fix), so the completion always sums this round's values:
 * clean on every schedule. */
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

		slot[id] = v;	/* before arriving */
		int last = arrive(&local);
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
