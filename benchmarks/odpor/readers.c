/* readers(N): one writer of x and N readers of x (the optimal-DPOR paper's
 * readers-writers shape, Nidhugg's readers_N): 2^N traces. argv[1] = N
 * (default 3, at most 16). No bug. Same program as readers.sim. */
#include <pthread.h>
#include <stdlib.h>

#define MAXN 16

static volatile int x;
static volatile int seen[MAXN];

static void *writer(void *arg)
{
	x = 42;
	return arg;
}

static void *reader(void *arg)
{
	long i = (long)arg;
	seen[i] = x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXN + 1];
	int n = argc > 1 ? atoi(argv[1]) : 3;
	if (n < 1 || n > MAXN)
		return 2;
	pthread_create(&t[0], NULL, writer, NULL);
	for (long i = 0; i < n; i++)
		pthread_create(&t[i + 1], NULL, reader, (void *)i);
	for (int i = 0; i <= n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
