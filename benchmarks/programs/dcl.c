/* dcl.c (benchmark) — broken double-checked locking.
 * get() tests `instance` without the lock (fast path); on NULL it locks,
 * tests again and creates the object.
 * Bug: the creator publishes the pointer before initialising the object
 * (the reordering a compiler or a weaker CPU may do to the classic pattern,
 * written out explicitly), so the unlocked fast path can return an object
 * whose value is still 0.
 * Exposing schedule: t1 locks, sees NULL, stores instance; t2's fast path
 * loads instance (non-NULL) and value (0) -> assert(value == 42) fails.
 * Minimal mode: break.  Natively the window is between two adjacent stores.
 * Twin dcl_ok.c: initialise, then publish with a release store; the fast
 * path uses an acquire load (on x86 both are plain movs, so a detector that
 * only counts locked instructions as synchronisation may still report a
 * race on `instance`; the asserts hold on every schedule). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct singleton {
	volatile int value;
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct singleton *volatile instance;

static struct singleton *get(void)
{
	struct singleton *s = instance;	/* fast path, no lock */

	if (s == NULL) {
		pthread_mutex_lock(&m);
		s = instance;
		if (s == NULL) {
			s = calloc(1, sizeof *s);
			assert(s);
			instance = s;	/* BUG: visible to the fast path before it is initialised */
			s->value = 42;
		}
		pthread_mutex_unlock(&m);
	}
	return s;
}

static void *user(void *arg)
{
	struct singleton *s = get();

	assert(s->value == 42);
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, user, NULL);
	pthread_create(&y, NULL, user, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	free(instance);
	return 0;
}
