/* execfn_steps.c — counter's lost update (two threads do `tmp = counter;
 * counter = tmp + 1;` with no lock) in a program whose run depends on how it
 * was started, as a real program's stack does on its AT_EXECFN and argv[0]
 * (issue 27 item 3: plzip by a symlink): before the threads start, main
 * takes and releases a mutex once per byte of AT_EXECFN and of argv[0]. A
 * schedule recorded with one name diverges when replayed with another.
 * Exposing schedule: t1 load 0; t2 load 0; t1 store 1; t2 store 1, so
 * assert(counter == 2) fails.
 * Minimal mode: break (the load and the store must be split).
 * Twin execfn_steps_ok.c: the increment under the mutex. */
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int counter;

static void *inc(void *arg)
{
	int tmp = counter;	/* BUG: read and write with no lock */
	counter = tmp + 1;
	return arg;
}

int main(int argc, char **argv)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);
	size_t n = (fn ? strlen(fn) : 0) + (argc > 0 ? strlen(argv[0]) : 0);
	pthread_t a, b;

	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	pthread_create(&a, NULL, inc, NULL);
	pthread_create(&b, NULL, inc, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 2);
	return 0;
}
