/* hs_pbzip2.c — shaped like pbzip2's bug (seeds/000): consumers take blocks
 * from a queue; main waits until every block was taken, then frees the
 * queue before joining the consumers, one of which may still come back to
 * the queue for its next block: a use after free (here a NULL pointer, a
 * crash on every schedule that has it). Twin hs_pbzip2_ok.c: main joins
 * the consumers first. Mode: break. */
#include <pthread.h>
#include <stdlib.h>

#define CONSUMERS 2
#define BLOCKS 4

struct queue {
	pthread_mutex_t m;
	pthread_cond_t all_taken;
	int blocks, taken;
};

static struct queue *volatile q;
static volatile long work;

static void *consumer(void *arg)
{
	for (;;) {
		struct queue *my = q;
		if (my->blocks == 0)    /* the fast path: nothing left */
			return arg;
		pthread_mutex_lock(&my->m);
		if (my->blocks == 0) {
			pthread_mutex_unlock(&my->m);
			return arg;
		}
		my->blocks--;
		if (++my->taken == BLOCKS)
			pthread_cond_signal(&my->all_taken);
		pthread_mutex_unlock(&my->m);
		work++;
	}
}

int main(void)
{
	pthread_t c[CONSUMERS];
	struct queue *nq = calloc(1, sizeof(*nq));
	if (!nq)
		return 2;
	pthread_mutex_init(&nq->m, 0);
	pthread_cond_init(&nq->all_taken, 0);
	nq->blocks = BLOCKS;
	q = nq;
	for (int i = 0; i < CONSUMERS; i++)
		pthread_create(&c[i], 0, consumer, 0);
	pthread_mutex_lock(&nq->m);
	while (nq->taken < BLOCKS)
		pthread_cond_wait(&nq->all_taken, &nq->m);
	pthread_mutex_unlock(&nq->m);
	q = NULL;                       /* BUG: consumers may still look at it */
	free(nq);
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(c[i], 0);
	return 0;
}
