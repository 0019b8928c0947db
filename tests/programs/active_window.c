/* active_window.c — a lost update behind lock traffic: t1 loads and stores
 * x at once, then takes m four times; t2 takes m four times, then loads and
 * stores x. The bad order needs t1 held between its load and its store
 * while t2 goes through all its lock sections. dpor backtracks at every
 * pair of m's sections first (they race, and it branches deepest first), so
 * it reaches the early reordering only after dozens of runs; --break on the
 * store and the load pauses t1 there until t2 arrives and finds it at once.
 * Minimal mode: break. Twin active_window_ok.c: x under a second mutex. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int x, c;

static void *t1(void *arg)
{
	int v = x;
	x = v + 1;                      /* BUG: no lock */
	for (int i = 0; i < 4; i++) {
		pthread_mutex_lock(&m);
		c++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

static void *t2(void *arg)
{
	for (int i = 0; i < 4; i++) {
		pthread_mutex_lock(&m);
		c++;
		pthread_mutex_unlock(&m);
	}
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
