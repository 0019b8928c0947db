/* lastzero_ok.c — twin of lastzero.c: the same threads and accesses; the
 * reader asserts what holds in every schedule: the slot above the zero it
 * found was nonzero when it read it (the values never go back to 0).
 * Expected: clean and complete under -s odpor (one run per trace) and
 * dpor.  Mode: break. */
#include <assert.h>
#include <pthread.h>

#define N 3

static volatile int array[N + 1];

static void *reader(void *arg)
{
	int i;
	for (i = N; array[i] != 0; i--)
		;
	assert(i == N || array[i + 1] != 0);
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
