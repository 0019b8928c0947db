/* demo_ok.c — twin of demo.c with the fix: transfer() always locks the
 * account with the lower id first, so both transfers take the locks in the
 * same order and no wait-for cycle can form.
 * Expected: clean on every schedule.  Minimal mode: sync. */
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
	/* FIX: one global lock order (by account id), whoever pays whom */
	struct account *first = from->id < to->id ? from : to;
	struct account *second = from->id < to->id ? to : from;

	pthread_mutex_lock(&first->lock);
	pthread_mutex_lock(&second->lock);
	from->balance -= amount;
	to->balance += amount;
	pthread_mutex_unlock(&second->lock);
	pthread_mutex_unlock(&first->lock);
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
