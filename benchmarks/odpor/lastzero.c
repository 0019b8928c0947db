/* lastzero(N) (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014): array[0..N]
 * starts 0; thread i (1..N) sets array[i] = array[i-1] + 1; a reader walks
 * down from array[N] to the last zero. argv[1] = N (default 3, at most 16).
 * No bug (tests/programs/lastzero.c is the buggy shape). Same program as
 * lastzero.sim. */
#include <pthread.h>
#include <stdlib.h>

#define MAXN 16

static volatile int array[MAXN + 1];
static int n;

static void *reader(void *arg)
{
	for (int i = n; i >= 0 && array[i] != 0; i--)
		;
	return arg;
}

static void *writer(void *arg)
{
	long j = (long)arg;
	array[j] = array[j - 1] + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXN + 1];
	n = argc > 1 ? atoi(argv[1]) : 3;
	if (n < 1 || n > MAXN)
		return 2;
	pthread_create(&t[0], NULL, reader, NULL);
	for (long j = 1; j <= n; j++)
		pthread_create(&t[j], NULL, writer, (void *)j);
	for (int j = 0; j <= n; j++)
		pthread_join(t[j], NULL);
	return 0;
}
