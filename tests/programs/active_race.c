/* active_race.c — a lost update whose bad order needs a preemption inside a
 * 2-instruction window: t1 loads x and stores x+1 at once; t2 does the same
 * only after 1,000 writes of its own. Random scheduling would have to hold t1
 * between its load and its store for all of them; racefuzzer pauses t1 at
 * the race until t2 arrives. Minimal mode: break.
 * Twin active_race_ok.c: both increments under one mutex. */
#include <assert.h>
#include <pthread.h>

static volatile int x, y;

static void *t1(void *arg)
{
	int v = x;
	x = v + 1;                      /* BUG: no lock */
	return arg;
}

static void *t2(void *arg)
{
	for (int i = 0; i < 1000; i++)
		y = i;
	int v = x;
	x = v + 1;
	return arg;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, 0, t1, 0);
	pthread_create(&b, 0, t2, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	assert(x == 2);
	return 0;
}
