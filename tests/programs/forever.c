/* forever.c — a thread computes without end and never reaches a visible
 * operation; main waits for it. For the per-run timeout and for SIGINT
 * handling tests: cts must kill and reap it and leave nothing behind. */
#include <pthread.h>

static volatile unsigned long counter;

static void *spin(void *arg)
{
	for (;;)
		counter = counter * 6364136223846793005ul + 1;	/* changes every time: not a wait */
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, spin, NULL);
	pthread_join(t, NULL);
	return 0;
}
