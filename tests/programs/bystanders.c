/* bystanders.c — a lost update between two threads while two unrelated
 * workers run beside them.
 * Bug: deposit() reads the balance in one critical section and writes it
 * back in another; the two depositors (threads 3 and 4) can both read 0.
 * The workers (threads 1 and 2) only count under their own mutexes and
 * have nothing to do with it: a minimized schedule needs none of their steps
 * (main joins them after the check).
 * Exposing schedule: t3 reads 0; t4 reads 0; t3 writes 1; t4 writes 1
 * -> assert(balance == 2) in main fails.  Minimal mode: sync.
 * Twin bystanders_ok.c: the read and the write in one critical section. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int balance;

struct worker {
	pthread_mutex_t lock;
	int count;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < 4; i++) {
		pthread_mutex_lock(&w->lock);
		w->count++;
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

static void *deposit(void *arg)
{
	int tmp;

	pthread_mutex_lock(&m);
	tmp = balance;
	pthread_mutex_unlock(&m);	/* BUG: the value read is stale once the lock is dropped */
	pthread_mutex_lock(&m);
	balance = tmp + 1;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	static struct worker w[2] = { { PTHREAD_MUTEX_INITIALIZER, 0 },
				      { PTHREAD_MUTEX_INITIALIZER, 0 } };
	pthread_t wt[2], a, b;

	pthread_create(&wt[0], NULL, work, &w[0]);
	pthread_create(&wt[1], NULL, work, &w[1]);
	pthread_create(&a, NULL, deposit, NULL);
	pthread_create(&b, NULL, deposit, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(balance == 2);
	pthread_join(wt[0], NULL);
	pthread_join(wt[1], NULL);
	assert(w[0].count == 4 && w[1].count == 4);
	return 0;
}
