/* livelock_ok.c — twin of livelock.c: a raises its flag, then waits for b's
 * answer; b waits for a, then answers. Expected: clean on every schedule. */
#include <pthread.h>

static volatile int fa, fb;

static void *a(void *arg)
{
	fa = 1;
	while (!fb)
		__builtin_ia32_pause();
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
