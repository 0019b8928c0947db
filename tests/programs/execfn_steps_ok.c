/* execfn_steps_ok.c — the twin of execfn_steps.c: two threads increment a
 * counter under a mutex (the fix) in a program whose run depends on how it
 * was started, as a real program's stack does on its AT_EXECFN and argv[0]
 * (issue 27 item 3: plzip by a symlink): before the threads start, main
 * takes and releases a mutex once per byte of AT_EXECFN and of argv[0]. A
 * schedule recorded with one name diverges when replayed with another.
 * Clean on every schedule. */
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int counter;

static void *inc(void *arg)
{
	pthread_mutex_lock(&m);
	int tmp = counter;
	counter = tmp + 1;
	pthread_mutex_unlock(&m);
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
