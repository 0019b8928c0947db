/* publish.c — publish before initialise.
 * Bug: the writer makes the object reachable (ptr = &obj) before it sets
 * obj.value; a reader that sees the pointer may read the old value.
 * Exposing schedule: writer stores ptr; reader loads ptr (non-NULL) and
 * p->value (0) -> assert(p->value == 42) fails.  Minimal mode: break (plain
 * loads and stores, no lock).
 * Twin publish_ok.c: initialise first, then publish; ptr is accessed under a
 * mutex, which makes the program race-free. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

struct obj {
	volatile int value;	/* volatile: keep the accesses, in program order */
};

static struct obj obj;
static struct obj *volatile ptr;

static void *writer(void *arg)
{
	ptr = &obj;	/* BUG: published before it is initialised */
	obj.value = 42;
	return arg;
}

static void *reader(void *arg)
{
	struct obj *p = ptr;

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
