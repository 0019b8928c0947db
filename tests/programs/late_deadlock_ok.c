/* `late_deadlock_ok [N]`: late_deadlock with the fix: after N threads
 * created and joined one after another (default 200), the two late threads
 * (numbered N+1 and N+2) both lock a then b. Clean on every schedule. */
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

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200;
	pthread_t t, u;
	for (long i = 0; i < n; i++) {
		pthread_create(&t, NULL, add, NULL);
		pthread_join(t, NULL);
	}
	pthread_create(&t, NULL, ab, NULL);
	pthread_create(&u, NULL, ab, NULL);
	pthread_join(t, NULL);
	pthread_join(u, NULL);
	return count == n ? 0 : 1;
}
