/* active_heap_deadlock.c — active_deadlock.c with its locks in a block main
 * mallocs before the first pthread_create: deadlockfuzzer's lock
 * abstraction names them by that allocation site (and offset), not by an
 * address another run or machine need not repeat. t1 takes a then b on one
 * of 1,000 iterations; t2 takes b then a at its start.
 * Minimal mode: break (allocations are library-call events there).
 * Twin active_heap_deadlock_ok.c: t2 takes a then b. */
#include <pthread.h>
#include <stdlib.h>

struct locks {
	pthread_mutex_t a, b, c;
};

static struct locks *L;
static int n, shared;

static void *t1(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&L->c);
		n++;
		pthread_mutex_unlock(&L->c);
		if (i == 700) {
			pthread_mutex_lock(&L->a);
			pthread_mutex_lock(&L->b);
			shared++;
			pthread_mutex_unlock(&L->b);
			pthread_mutex_unlock(&L->a);
		}
	}
	return arg;
}

static void *t2(void *arg)
{
	pthread_mutex_lock(&L->b);      /* BUG: opposite order to t1 */
	pthread_mutex_lock(&L->a);
	shared++;
	pthread_mutex_unlock(&L->a);
	pthread_mutex_unlock(&L->b);
	return arg;
}

int main(void)
{
	pthread_t p, q;
	L = malloc(sizeof(*L));
	if (!L)
		return 2;
	pthread_mutex_init(&L->a, 0);
	pthread_mutex_init(&L->b, 0);
	pthread_mutex_init(&L->c, 0);
	pthread_create(&p, 0, t1, 0);
	pthread_create(&q, 0, t2, 0);
	pthread_join(p, 0);
	pthread_join(q, 0);
	free(L);
	return 0;
}
