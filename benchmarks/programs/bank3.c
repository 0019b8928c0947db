/* bank3.c (benchmark) — three transfers that form a lock cycle.
 * Usage: bank3 [iterations]   (default 1)
 * Thread i moves money from account i to account (i + 1) % 3, locking the
 * source account first, then the destination.
 * Bug: the three lock orders 0->1, 1->2, 2->0 form a cycle.  Every pair of
 * threads is deadlock-free on its own; only all three together deadlock.
 * Exposing schedule: t0 locks 0, t1 locks 1, t2 locks 2; each then waits
 * for the next account -> deadlock.  Minimal mode: sync.  Natively all three
 * threads must hold their first lock at once, which is rare.
 * Twin bank3_ok.c: lock the lower-numbered account first. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define N 3

struct account {
	pthread_mutex_t lock;
	long balance;
};

static struct account acct[N] = {
	{ PTHREAD_MUTEX_INITIALIZER, 100 },
	{ PTHREAD_MUTEX_INITIALIZER, 100 },
	{ PTHREAD_MUTEX_INITIALIZER, 100 },
};
static long iters = 1;

static void transfer(int from, int to, long amount)
{
	int first = from, second = to;	/* BUG: order chosen by the direction of the transfer */

	pthread_mutex_lock(&acct[first].lock);
	pthread_mutex_lock(&acct[second].lock);
	acct[from].balance -= amount;
	acct[to].balance += amount;
	pthread_mutex_unlock(&acct[second].lock);
	pthread_mutex_unlock(&acct[first].lock);
}

static void *teller(void *arg)
{
	int i = (int)(long)arg;

	for (long k = 0; k < iters; k++)
		transfer(i, (i + 1) % N, 10 * (i + 1));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[N];
	long total = 0;

	if (argc > 1)
		iters = atol(argv[1]);
	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, teller, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < N; i++)
		total += acct[i].balance;
	assert(total == 100 * N);
	return 0;
}
