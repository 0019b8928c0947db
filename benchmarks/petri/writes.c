/* Writes (Table 1, after the paper's Fig. 4): argv[1] threads (default 3)
 * write one variable argv[2] times each (default 2). Same as writes.sim. */
#include <pthread.h>
#include <stdlib.h>

#define MAXN 8
static volatile long x;
static int k;

static void *writer(void *arg)
{
	for (int i = 0; i < k; i++)
		x = (long)arg;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXN];
	int n = argc > 1 ? atoi(argv[1]) : 3;
	k = argc > 2 ? atoi(argv[2]) : 2;
	if (n < 1 || n > MAXN)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, writer, (void *)(long)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
