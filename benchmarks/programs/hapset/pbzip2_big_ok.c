/* pbzip2_big_ok.c — twin of pbzip2_big.c: main joins the consumers
 * before it frees the queue. */
#include <pthread.h>
#include <stdlib.h>

#define CONSUMERS 3
#define BLOCKS 12
#define WORDS 4

struct queue {
	pthread_mutex_t m;
	pthread_cond_t not_empty;
	int head, tail, closed;
	int blk[BLOCKS];
};

static struct queue *volatile fifo;
static pthread_mutex_t om = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static volatile int done[BLOCKS];
static volatile long out[BLOCKS][WORDS];
static volatile long written;

static void *consumer(void *arg)
{
	for (;;) {
		struct queue *q = fifo;
		pthread_mutex_lock(&q->m);
		while (q->head == q->tail && !q->closed)
			pthread_cond_wait(&q->not_empty, &q->m);
		if (q->head == q->tail) {
			pthread_mutex_unlock(&q->m);
			return arg;
		}
		int b = q->blk[q->head++];
		pthread_mutex_unlock(&q->m);
		for (int w = 0; w < WORDS; w++)
			out[b][w] = b * 100 + w;  /* "compress" */
		pthread_mutex_lock(&om);
		done[b] = 1;
		pthread_cond_broadcast(&ready);
		pthread_mutex_unlock(&om);
	}
}

static void *writer(void *arg)
{
	for (int b = 0; b < BLOCKS; b++) {
		pthread_mutex_lock(&om);
		while (!done[b])
			pthread_cond_wait(&ready, &om);
		pthread_mutex_unlock(&om);
		for (int w = 0; w < WORDS; w++)
			written += out[b][w];
	}
	return arg;
}

int main(void)
{
	pthread_t c[CONSUMERS], wr;
	struct queue *q = calloc(1, sizeof(*q));
	if (!q)
		return 2;
	pthread_mutex_init(&q->m, 0);
	pthread_cond_init(&q->not_empty, 0);
	fifo = q;
	for (int i = 0; i < CONSUMERS; i++)
		pthread_create(&c[i], 0, consumer, 0);
	pthread_create(&wr, 0, writer, 0);
	for (int b = 0; b < BLOCKS; b++) {      /* read the input */
		pthread_mutex_lock(&q->m);
		q->blk[q->tail++] = b;
		pthread_cond_signal(&q->not_empty);
		pthread_mutex_unlock(&q->m);
	}
	pthread_mutex_lock(&q->m);
	q->closed = 1;
	pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->m);
	pthread_join(wr, 0);                    /* every block written */
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(c[i], 0);
	fifo = NULL;
	pthread_mutex_destroy(&q->m);
	free(q);
	return 0;
}
