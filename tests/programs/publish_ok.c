/* publish_ok.c — twin of publish.c with the fix: the writer initialises the
 * object, then publishes the pointer under a mutex; the reader reads the
 * pointer under the same mutex.  A reader that sees the pointer is ordered
 * after the initialisation (happens-before through the mutex).
 * Expected: clean on every schedule, race-free.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

struct obj {
	volatile int value;	/* volatile: keep the accesses, in program order */
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct obj obj;
static struct obj *volatile ptr;

static void *writer(void *arg)
{
	obj.value = 42;	/* FIX: initialise first ... */
	pthread_mutex_lock(&m);
	ptr = &obj;	/* ... then publish, under the lock the reader takes */
	pthread_mutex_unlock(&m);
	return arg;
}

static void *reader(void *arg)
{
	struct obj *p;

	pthread_mutex_lock(&m);
	p = ptr;
	pthread_mutex_unlock(&m);
	if (p != NULL)
		assert(p->value == 42);
	return arg;
}

int main(void)
{
	pthread_t w, r;

	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	return 0;
}
