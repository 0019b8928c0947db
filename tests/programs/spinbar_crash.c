/* spinbar_crash.c — main and two workers run rounds between hand-written spin
 * barriers: an arrival counter under a mutex, and a flag the last arriver
 * sets while the others busy-wait on it (an acquire load and a pause, no
 * yield). The last arriver at a round's first barrier makes the round's
 * parameters and publishes them in `cur`; the last arriver at its second
 * barrier frees them and sets `cur` back to NULL. In between every thread
 * reads its weight through `cur`.
 * BUG: the last arriver at the first barrier sets the flag before it stores
 * `cur`, so a released thread can read `cur` while it is still NULL.
 * Exposing schedule: the last arriver sets the flag; a waiter sees it and
 * dereferences `cur` before the last arriver stores it (one preemption, in
 * any round).
 * Outcome: crash (SIGSEGV). Fix (spinbar_crash_ok.c): store `cur`, then set
 * the flag. Minimal mode: break. */
#include <pthread.h>
#include <stdlib.h>

#define N 3
#define ROUNDS 3

struct phase {
	int round;
	int weight[N];
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int arrived;
static int flag;
static struct phase *volatile cur;	/* NULL between rounds */
static long total[N];

/* Arrival number k (1, 2, ...): true for the k * N-th, the last one. */
static int arrive(int k)
{
	pthread_mutex_lock(&m);
	int last = ++arrived == k * N;
	pthread_mutex_unlock(&m);
	return last;
}

static void release(int k)
{
	__atomic_store_n(&flag, k, __ATOMIC_RELEASE);
}

static void await(int k)
{
	while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) < k)
		__builtin_ia32_pause();
}

static void rounds(int id)
{
	for (int r = 1; r <= ROUNDS; r++) {
		if (arrive(2 * r - 1)) {
			struct phase *p = malloc(sizeof *p);

			p->round = r;
			for (int i = 0; i < N; i++)
				p->weight[i] = r * (i + 1);
			release(2 * r - 1);	/* BUG: before cur is set */
			cur = p;
		} else {
			await(2 * r - 1);
		}
		total[id] += cur->weight[id];
		if (arrive(2 * r)) {
			free(cur);
			cur = NULL;
			release(2 * r);
		} else {
			await(2 * r);
		}
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
