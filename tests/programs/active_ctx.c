/* active_ctx.c — one racy helper reached through two callers: t1 adds 1 to
 * x through via_a(), t2 through via_b() after 1,000 writes of its own; the
 * lost update needs t1 preempted inside bump's 2-instruction window. The
 * race suspects on bump's load and store come in pairs with the same pcs
 * that differ only in their callers: --context 1 tells them apart, and
 * phase 2 pauses a thread only where pc and caller both match.
 * Minimal mode: break. Twin active_ctx_ok.c: bump under a mutex. */
#include <assert.h>
#include <pthread.h>

static volatile int x, y;

__attribute__((noinline)) static void bump(volatile int *p)
{
	int v = *p;
	*p = v + 1;                     /* BUG: no lock */
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
