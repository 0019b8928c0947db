/* lib_use_after_free_ok.c — twin of lib_use_after_free.c with the fix: the
 * cleaner unpublishes the object and frees it under a mutex; the reader
 * reads it under the same mutex only while it is published.
 * Expected: clean on every schedule.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct obj {
	int value;
	int pad[3];
};
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct obj *obj;

static void *reader(void *arg)
{
	pthread_mutex_lock(&m);	/* FIX */
	if (obj)
		assert(obj->value == 42);
	pthread_mutex_unlock(&m);
	return arg;
}

static void *cleaner(void *arg)
{
	pthread_mutex_lock(&m);	/* FIX */
	free(obj);
	obj = NULL;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	obj = malloc(sizeof(*obj));
	obj->value = 42;
	pthread_create(&a, NULL, reader, NULL);
	pthread_create(&b, NULL, cleaner, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
