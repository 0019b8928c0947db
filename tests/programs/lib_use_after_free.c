/* lib_use_after_free.c — a reader reads a shared object in its own code
 * while a cleaner thread frees it; the only write to the object is libc's
 * free (glibc's allocator then stores its list pointers in the block).
 * Bug: the cleaner frees the object before the reader reads it: the reader
 * sees allocator data instead of 42. Fix (lib_use_after_free_ok.c): the
 * cleaner unpublishes and frees under a mutex, the reader reads under it.
 * Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct obj {
	int value;
	int pad[3];
};
static struct obj *obj;

static void *reader(void *arg)
{
	struct obj *o = arg;

	assert(o->value == 42);
	return NULL;
}

static void *cleaner(void *arg)
{
	free(arg);
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	obj = malloc(sizeof(*obj));
	obj->value = 42;
	pthread_create(&a, NULL, reader, obj);
	pthread_create(&b, NULL, cleaner, obj);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
