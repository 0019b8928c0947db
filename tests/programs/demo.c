/* demo.c — the `make demo` example: two bank transfers that deadlock.
 * transfer() locks the source account, then the destination.  Alice pays Bob
 * while Bob pays Alice, so the two threads take the same two locks in
 * opposite orders.
 * Exposing schedule: t1 locks alice; t2 locks bob; t1 waits for bob; t2 waits
 * for alice -> deadlock (main is blocked in join).  Minimal mode: sync.
 * Twin demo_ok.c: transfer() always locks the lower-numbered account first. */
#include <assert.h>
#include <pthread.h>

struct account {
	int id;
	int balance;
	pthread_mutex_t lock;
};

static struct account alice = { 1, 100, PTHREAD_MUTEX_INITIALIZER };
static struct account bob = { 2, 100, PTHREAD_MUTEX_INITIALIZER };

static void transfer(struct account *from, struct account *to, int amount)
{
	pthread_mutex_lock(&from->lock);	/* BUG: lock order depends on who pays whom */
	pthread_mutex_lock(&to->lock);
	from->balance -= amount;
	to->balance += amount;
	pthread_mutex_unlock(&to->lock);
	pthread_mutex_unlock(&from->lock);
}

static void *alice_pays_bob(void *arg)
{
	transfer(&alice, &bob, 30);
	return arg;
}

static void *bob_pays_alice(void *arg)
{
	transfer(&bob, &alice, 20);
	return arg;
}

int main(void)
{
	pthread_t t1, t2;

	pthread_create(&t1, NULL, alice_pays_bob, NULL);
	pthread_create(&t2, NULL, bob_pays_alice, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	assert(alice.balance + bob.balance == 200);
	assert(alice.balance == 90 && bob.balance == 110);
	return 0;
}
