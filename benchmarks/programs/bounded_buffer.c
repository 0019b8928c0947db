/* bounded_buffer.c (benchmark) — `if` instead of `while` around cond_wait.
 * Usage: bounded_buffer [items_per_consumer]   (default 1)
 * One producer, two consumers, a one-slot buffer, two condition variables.
 * Bug: a consumer tests `count == 0` with `if`, so after a wakeup it does
 * not re-check; the item it was woken for may already be gone.
 * Exposing schedule: c1 locks, sees empty, waits; producer puts an item and
 * signals c1; c2 locks before c1 re-acquires the mutex and takes the item;
 * c1 returns from cond_wait with count == 0 -> assert(count > 0) fails.
 * Minimal mode: sync.  Natively the window is the hand-over of the mutex
 * from the signaller to the woken consumer (also hit by spurious wakeups).
 * Twin bounded_buffer_ok.c: `while (count == 0)`. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define CAP 1

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t notfull = PTHREAD_COND_INITIALIZER;
static int buf[CAP], head, tail, count;
static long per_consumer = 1, consumed, checksum;

static void *producer(void *arg)
{
	for (long i = 1; i <= 2 * per_consumer; i++) {
		pthread_mutex_lock(&m);
		while (count == CAP)
			pthread_cond_wait(&notfull, &m);
		buf[tail] = (int)i;
		tail = (tail + 1) % CAP;
		count++;
		pthread_cond_signal(&notempty);
		pthread_mutex_unlock(&m);
	}
	return arg;
}

static void *consumer(void *arg)
{
	for (long i = 0; i < per_consumer; i++) {
		pthread_mutex_lock(&m);
		if (count == 0)	/* BUG: must be `while`: the item can be taken before we run */
			pthread_cond_wait(&notempty, &m);
		assert(count > 0);
		checksum += buf[head];
		head = (head + 1) % CAP;
		count--;
		consumed++;
		pthread_cond_signal(&notfull);
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t p, c1, c2;
	long n;

	if (argc > 1)
		per_consumer = atol(argv[1]);
	n = 2 * per_consumer;
	pthread_create(&c1, NULL, consumer, NULL);
	pthread_create(&c2, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c1, NULL);
	pthread_join(c2, NULL);
	assert(consumed == n && checksum == n * (n + 1) / 2);
	return 0;
}
