/* active_ctx_ok.c — twin of active_ctx.c: bump holds a mutex; x == 2 on
 * every schedule. */
#include <assert.h>
#include <pthread.h>

static volatile int x, y;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void bump(volatile int *p)
{
	pthread_mutex_lock(&m);
	int v = *p;
	*p = v + 1;
	pthread_mutex_unlock(&m);
}

__attribute__((noinline)) static void via_a(void)
{
	bump(&x);
}

__attribute__((noinline)) static void via_b(void)
{
	bump(&x);
}

static void *t1(void *arg)
{
	via_a();
	return arg;
}

static void *t2(void *arg)
{
	for (int i = 0; i < 1000; i++)
		y = i;
	via_b();
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
