/* active_atom.c — an atomicity violation: t1 reads x under m, releases m,
 * takes m again and writes the value it read plus one; t2 increments x
 * under m, but only after 1,000 writes of its own. Random scheduling would
 * have to hold t1 between its two blocks for all of them; atomfuzzer pauses
 * t1 before it re-takes m until t2 has written x. Minimal mode: break.
 * Twin active_atom_ok.c: t1's second block reads x again. */
#include <assert.h>
#include <pthread.h>

static volatile int x, y;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *t1(void *arg)
{
	pthread_mutex_lock(&m);
	int v = x;
	pthread_mutex_unlock(&m);
	pthread_mutex_lock(&m);         /* BUG: v may be stale by now */
	x = v + 1;
	pthread_mutex_unlock(&m);
	return arg;
}

static void *t2(void *arg)
{
	for (int i = 0; i < 1000; i++)
		y = i;
	pthread_mutex_lock(&m);
	x = x + 1;
	pthread_mutex_unlock(&m);
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
