/* bank3_ok.c (benchmark) — twin of bank3.c with the fix: transfer() locks
 * the lower-numbered account first, so all threads follow one global lock
 * order and no cycle can form.  Usage: bank3_ok [iterations]   (default 1).
 * Expected: clean on every schedule.  Mode: sync. */
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
	int first = from < to ? from : to;	/* FIX: one global order: lower index first */
	int second = from < to ? to : from;

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
