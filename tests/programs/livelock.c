/* livelock.c — each thread waits for the other's flag before raising its
 * own (bug): both spin for ever, with `pause`, while main waits in join.
 * Every schedule livelocks. Minimal mode: break (the flag loads must be
 * visible to prove that the spinners make no progress).
 * Twin livelock_ok.c: a raises its flag first. */
#include <pthread.h>

static volatile int fa, fb;

static void *a(void *arg)
{
	while (!fb)	/* BUG: waits before it raises fa */
		__builtin_ia32_pause();
	fa = 1;
	return arg;
}

static void *b(void *arg)
{
	while (!fa)
		__builtin_ia32_pause();
	fb = 1;
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, a, NULL);
	pthread_create(&y, NULL, b, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	return 0;
}
