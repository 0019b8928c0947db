/* pipeline.c (benchmark) — three-stage producer/consumer pipeline; correct,
 * synchronisation-heavy (overhead measurement).
 * Usage: pipeline [items]   (default 100000)
 * source -> queue q1 -> square -> queue q2 -> sink.  Each queue is a bounded
 * ring (16 slots) with a mutex and two condition variables, waited on in
 * while loops.  The sink checks the sum of squares against the closed form.
 * Expected: clean on every schedule.  Mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define QCAP 16

struct queue {
	pthread_mutex_t m;
	pthread_cond_t notempty, notfull;
	uint64_t slot[QCAP];
	int head, count;
};

static struct queue q1 = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			   PTHREAD_COND_INITIALIZER, { 0 }, 0, 0 };
static struct queue q2 = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			   PTHREAD_COND_INITIALIZER, { 0 }, 0, 0 };
static uint64_t items = 100000;

static void put(struct queue *q, uint64_t v)
{
	pthread_mutex_lock(&q->m);
	while (q->count == QCAP)
		pthread_cond_wait(&q->notfull, &q->m);
	q->slot[(q->head + q->count) % QCAP] = v;
	q->count++;
	pthread_cond_signal(&q->notempty);
	pthread_mutex_unlock(&q->m);
}

static uint64_t get(struct queue *q)
{
	uint64_t v;

	pthread_mutex_lock(&q->m);
	while (q->count == 0)
		pthread_cond_wait(&q->notempty, &q->m);
	v = q->slot[q->head];
	q->head = (q->head + 1) % QCAP;
	q->count--;
	pthread_cond_signal(&q->notfull);
	pthread_mutex_unlock(&q->m);
	return v;
}

static void *source(void *arg)
{
	for (uint64_t i = 1; i <= items; i++)
		put(&q1, i);
	return arg;
}

static void *square(void *arg)
{
	for (uint64_t i = 0; i < items; i++) {
		uint64_t v = get(&q1);

		put(&q2, v * v);
	}
	return arg;
}

static void *sink(void *arg)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < items; i++)
		sum += get(&q2);
	assert(sum == items * (items + 1) * (2 * items + 1) / 6);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t a, b, c;

	if (argc > 1)
		items = strtoull(argv[1], NULL, 0);
	if (items > 1000000000)
		return 2;
	pthread_create(&a, NULL, source, NULL);
	pthread_create(&b, NULL, square, NULL);
	pthread_create(&c, NULL, sink, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	return 0;
}
