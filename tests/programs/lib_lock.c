/* lib_lock.c — lib_lock_ok with the lock omitted on one path: thread 0
 * adds its last round without sl_lock.  That increment races with the
 * others' locked ones (a data race on counter in break mode, whatever the
 * schedule: no lock operation orders it), and a schedule that interleaves
 * it with another thread's increment loses an update (assert).  Correct
 * twin: lib_lock_ok. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>

void sl_lock(int *l);
void sl_unlock(int *l);

#define THREADS 3
#define ROUNDS 40

static int lock;
static long counter;

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;

	for (int i = 0; i < ROUNDS; i++) {
		if (me == 0 && i == ROUNDS - 1) {
			counter++;	/* the bug: no lock */
			continue;
		}
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
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert(counter == THREADS * ROUNDS);
	return 0;
}
