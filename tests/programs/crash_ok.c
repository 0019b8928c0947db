/* crash_ok.c — twin of crash.c: the check and the use are one critical section.
 * (Original header follows.)
 * Bug: the reader checks `cur` under the lock, drops the lock, then uses
 * the pointer under the lock again; the writer clears it in between.
 * Exposing schedule: reader checks (non-NULL); writer sets cur = NULL;
 * reader dereferences NULL -> SIGSEGV.  Minimal mode: sync.
 * Twin crash_ok.c: the check and the use are one critical section. */
#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int value = 42;
static int *volatile cur = &value;
static volatile int sink;

static void *reader(void *arg)
{
	int *p;

	pthread_mutex_lock(&m);
	p = cur;
	if (p)
		sink = *p;
	pthread_mutex_unlock(&m);
	return arg;
}

static void *writer(void *arg)
{
	pthread_mutex_lock(&m);
	cur = NULL;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t r, w;

	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(r, NULL);
	pthread_join(w, NULL);
	return 0;
}
