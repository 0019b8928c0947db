/* check_then_act.c — atomicity violation with correct locking.
 * Bug: withdraw() checks the balance in one critical section and subtracts in
 * a second one; another withdrawal can slip in between.
 * Exposing schedule: t1 check (100 >= 80); t2 check (100 >= 80); t1 subtract
 * (20); t2 subtract (-60) -> assert(balance >= 0) fails.  Minimal mode: sync.
 * Twin check_then_act_ok.c: check and subtract in one critical section. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int balance = 100;

static void withdraw(int amount)
{
	int ok;

	pthread_mutex_lock(&m);
	ok = balance >= amount;
	pthread_mutex_unlock(&m);	/* BUG: the check is stale once the lock is dropped */
	if (ok) {
		pthread_mutex_lock(&m);
		balance -= amount;
		assert(balance >= 0);
		pthread_mutex_unlock(&m);
	}
}

static void *client(void *arg)
{
	withdraw(80);
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, client, NULL);
	pthread_create(&y, NULL, client, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(balance == 20);
	return 0;
}
