/* tas_spinlock_ok.c — twin of tas_spinlock.c with the fix: the lock is taken
 * with an atomic exchange (test-and-test-and-set).  3 threads each take a
 * hand-written spinlock twice, spinning with the x86 `pause` instruction
 * while it is held, and increment a plain counter inside; main checks the
 * total.
 * Expected: clean on every schedule.  A thread spinning on a held lock cannot
 * progress until the holder releases it: a tool must not call it a livelock.
 * (The release is a plain store, which a binary tool cannot tell from a racy
 * one: race reports on counter are the documented limit, not checked here.)
 * Minimal mode: break (the spin makes no system or pthread call). */
#include <assert.h>
#include <pthread.h>

#define THREADS 3
#define ROUNDS 2

static int l;
static int inside;
static volatile int counter;

static void lock(void)
{
	/* FIX: test and set in one atomic step */
	while (__atomic_exchange_n(&l, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
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
