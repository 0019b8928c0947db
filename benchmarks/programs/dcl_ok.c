/* dcl_ok.c (benchmark) — twin of dcl.c with the fix: the object is
 * initialised before the pointer is published with a release store, and the
 * fast path reads the pointer with an acquire load (C11 double-checked
 * locking).  Expected: the asserts hold on every schedule.  Mode: break.
 * Note: on x86 the release store and the acquire load are plain movs; a race
 * detector that treats only locked instructions as synchronisation may report
 * the fast-path read of `instance` as a race. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct singleton {
	volatile int value;
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct singleton *instance;

static struct singleton *get(void)
{
	struct singleton *s = __atomic_load_n(&instance, __ATOMIC_ACQUIRE);	/* fast path */

	if (s == NULL) {
		pthread_mutex_lock(&m);
		s = instance;
		if (s == NULL) {
			s = calloc(1, sizeof *s);
			assert(s);
			s->value = 42;	/* FIX: initialise first ... */
			__atomic_store_n(&instance, s, __ATOMIC_RELEASE);	/* ... then publish */
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
