/* lib_lock_ok.c — three threads add to a counter 40 times each under
 * sl_lock, a futex lock built from atomics inside a stripped shared library
 * (lib/speclock.c).  No bug and no race: the library's cmpxchg and xchg on
 * the lock word order the critical sections.  Any other total
 * than 120 aborts.  Buggy twin: lib_lock. */
#include <pthread.h>
#include <stdlib.h>

void sl_lock(int *l);
void sl_unlock(int *l);

#define THREADS 3
#define ROUNDS 40

static int lock;
static long counter;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		sl_lock(&lock);
		counter++;
		sl_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	if (counter != THREADS * ROUNDS)
		abort();
	return 0;
}
