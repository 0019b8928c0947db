/* lastzero.c — the "lastzero" program of optimal DPOR (Abdulla, Aronis,
 * Jonsson, Sagonas, POPL 2014): array[0..N] starts 0; thread i (1..N) sets
 * array[i] = array[i-1] + 1; a reader looks for the last zero from the top.
 * Bug: the reader asserts it never walks down to array[0], which it does
 * only in the one class of schedules where every writer's store lands just
 * before the reader's load of that slot (each array[i] it reads is
 * nonzero).  Twin: lastzero_ok.c.  Mode: break (plain shared accesses). */
#include <assert.h>
#include <pthread.h>

#define N 3

static volatile int array[N + 1];

static void *reader(void *arg)
{
	int i;
	for (i = N; array[i] != 0; i--)
		;
	assert(i != 0);
	return arg;
}

static void *writer(void *arg)
{
	long j = (long)arg;
	array[j] = array[j - 1] + 1;
	return NULL;
}

int main(void)
{
	pthread_t t[N + 1];
	pthread_create(&t[0], NULL, reader, NULL);
	for (long j = 1; j <= N; j++)
		pthread_create(&t[j], NULL, writer, (void *)j);
	for (int j = 0; j <= N; j++)
		pthread_join(t[j], NULL);
	return 0;
}
