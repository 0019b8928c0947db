/* ticker_ok.c — twin of ticker.c with the fix: a worker reads and stores
 * total in one critical section.  mksquashfs's shape (issue 31 item 3): a
 * progress thread ticks until told to stop (`nanosleep(1 us); lock(p);
 * ticks++; unlock(p)`), two workers each add ITEMS to total, and main waits
 * for them by polling
 * `outstanding` under m with sched_yield() between polls, as mksquashfs
 * waits for its fragment deflators.  No outcome depends on timing: the
 * sleep only makes the ticker a thread that sleeps.
 * Expected: clean on every schedule, every run completes within a budget
 * random also meets, no race report on total.
 * What it tests: the ticker makes progress (ticks) and sleeps, so it is
 * never held as a spinner, and main's poll and the ticker's lock/unlock
 * keep each other from being held; under pct, with the two above the
 * workers, they ran alone until the step budget and the workers never ran.
 * Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#define ITEMS 3

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t p = PTHREAD_MUTEX_INITIALIZER;
static int total, outstanding = 2 * ITEMS, ticks, stop;

static void *ticker(void *arg)
{
	struct timespec ts = { 0, 1000 };

	(void)arg;
	for (;;) {
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&p);
		if (stop) {
			pthread_mutex_unlock(&p);
			return NULL;
		}
		ticks++;
		pthread_mutex_unlock(&p);
	}
}

static void *worker(void *arg)
{
	int v;

	(void)arg;
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&m);
		v = total;
		total = v + 1;	/* FIX: one critical section */
		outstanding--;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t, w[2];

	pthread_create(&t, NULL, ticker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	pthread_mutex_lock(&m);
	while (outstanding) {
		pthread_mutex_unlock(&m);
		sched_yield();
		pthread_mutex_lock(&m);
	}
	assert(total == 2 * ITEMS);
	pthread_mutex_unlock(&m);
	pthread_mutex_lock(&p);
	stop = 1;
	pthread_mutex_unlock(&p);
	pthread_join(t, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	return 0;
}
