/* rwlock_ok.c — twin of rwlock.c with the fix: the writer updates x and y in
 * one write-locked section, so a reader never sees them differ.
 * Expected: clean on every schedule.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int x, y;	/* invariant: x == y whenever the lock is free */

static void *writer(void *arg)
{
	pthread_rwlock_wrlock(&rw);
	x = 1;
	y = 1;	/* FIX: same critical section */
	pthread_rwlock_unlock(&rw);
	return arg;
}

static void *reader(void *arg)
{
	pthread_rwlock_rdlock(&rw);
	assert(x == y);
	pthread_rwlock_unlock(&rw);
	return arg;
}

int main(void)
{
	pthread_t w, r;

	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	assert(x == 1 && y == 1);
	return 0;
}
