/* Simplified Fib (SV-COMP fib_bench, 2 rounds, as in Table 1): two threads
 * add each other's variable into their own without locks; main checks the
 * bound every schedule respects. Same program as fib.sim. */
#include <assert.h>
#include <pthread.h>

static volatile int i = 1, j = 1;

static void *t1(void *arg)
{
	(void)arg;
	for (int k = 0; k < 2; k++)
		i = i + j;
	return NULL;
}

static void *t2(void *arg)
{
	(void)arg;
	for (int k = 0; k < 2; k++)
		j = j + i;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(i <= 21 && j <= 21);
	return 0;
}
