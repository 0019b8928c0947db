/* tas_spinlock.c — a spinlock whose test and set are two steps.
 * 3 threads each take a hand-written spinlock twice, spinning with the x86
 * `pause` instruction while it is held, and increment a plain counter
 * inside; main checks the total.  BUG: the lock waits until it sees the word
 * free, then stores 1, with no atomic exchange in between.
 * Exposing schedule: t1 sees l == 0; t2 sees l == 0; both store 1 and enter.
 * Outcome: assert inside == 1 (or counter == 6 in main).  Fix
 * (tas_spinlock_ok.c): atomic exchange.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>

#define THREADS 3
#define ROUNDS 2

static int l;
static int inside;
static volatile int counter;

static void lock(void)
{
	while (__atomic_load_n(&l, __ATOMIC_RELAXED))
		__builtin_ia32_pause();
	__atomic_store_n(&l, 1, __ATOMIC_RELAXED);	/* BUG: not atomic with the test */
}

static void unlock(void)
{
	__atomic_store_n(&l, 0, __ATOMIC_RELEASE);
}

static void *worker(void *arg)
{
	int in;

	for (int i = 0; i < ROUNDS; i++) {
		lock();
		in = __atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);
		assert(in == 1);	/* mutual exclusion */
		counter = counter + 1;
		__atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
		unlock();
	}
	return arg;
}

int main(void)
{
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert(counter == THREADS * ROUNDS);
	return 0;
}
