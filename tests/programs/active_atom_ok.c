/* active_atom_ok.c — twin of active_atom.c: t1 reads x again in its second
 * block, so t2's increment is never lost: x == 2 on every schedule. */
#include <assert.h>
#include <pthread.h>

static volatile int x, y;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *t1(void *arg)
{
	pthread_mutex_lock(&m);
	int v = x;
	pthread_mutex_unlock(&m);
	pthread_mutex_lock(&m);
	(void)v;
	x = x + 1;
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
