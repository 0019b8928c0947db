/* check_then_act_ok.c — twin of check_then_act.c with the fix: the balance
 * check and the subtraction happen in one critical section, so exactly one of
 * the two withdrawals succeeds.  Expected: clean on every schedule.  Mode: sync. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int balance = 100;

static void withdraw(int amount)
{
	pthread_mutex_lock(&m);
	if (balance >= amount) {	/* FIX: check and act under one lock */
		balance -= amount;
		assert(balance >= 0);
	}
	pthread_mutex_unlock(&m);
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
