/* bounded_buffer_ok.c (benchmark) — twin of bounded_buffer.c with the fix: a
 * consumer re-checks `count == 0` in a while loop after every wakeup, so an
 * item taken by the other consumer (or a spurious wakeup) sends it back to
 * waiting.  One signal per item on a condition variable used only by
 * consumers wakes a consumer that can use it (no lost wakeup).
 * Usage: bounded_buffer_ok [items_per_consumer]   (default 1).
 * Expected: clean on every schedule.  Mode: sync. */
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
		while (count == 0)	/* FIX: re-check after every wakeup */
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
