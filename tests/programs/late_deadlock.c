/* `late_deadlock [N]`: main creates and joins N threads one after another
 * (default 200), then starts two more, numbered N+1 and N+2: one locks a then
 * b, the other b then a. Bug: they deadlock when each takes its first lock
 * before the other's second (both block; main waits in pthread_join). The
 * bug needs threads numbered above 128 (threads.t). Fix: late_deadlock_ok. */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count;

static void *add(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	count++;
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *ab(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return NULL;
}

static void *ba(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&b);
	pthread_mutex_lock(&a);
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200;
	pthread_t t, u;
	for (long i = 0; i < n; i++) {
		pthread_create(&t, NULL, add, NULL);
		pthread_join(t, NULL);
	}
	pthread_create(&t, NULL, ab, NULL);
	pthread_create(&u, NULL, ba, NULL);
	pthread_join(t, NULL);
	pthread_join(u, NULL);
	return count == n ? 0 : 1;
}
