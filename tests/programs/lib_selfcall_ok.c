/* lib_selfcall_ok.c — two threads increment a counter under a mutex through
 * libselfcall.so's sc_bump, which calls the library's own exported sc_add
 * through its PLT.  Correct: with --trace-lib selfcall the counter's
 * accesses are in traced code, the search is complete, and nothing is
 * "not seen" (a traced library's calls to itself were once listed as calls
 * of an untraced function).  Minimal mode: break.  No buggy twin: the
 * property is what cts reports, not the program's verdict. */
#include <assert.h>
#include <pthread.h>

void sc_bump(int *p);

static int counter;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	sc_bump(&counter);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 2);
	return 0;
}
