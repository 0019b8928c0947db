/* rwlock.c — torn update under a reader/writer lock.
 * Bug: the writer keeps the invariant x == y but updates the two fields in two
 * separate write-locked sections; a reader can get in between.
 * Exposing schedule: writer wrlock, x = 1, unlock; reader rdlock, sees x=1 y=0
 * -> assert(x == y) fails.  Minimal mode: sync.
 * Twin rwlock_ok.c: both fields updated in one write-locked section. */
#include <assert.h>
#include <pthread.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int x, y;	/* invariant: x == y whenever the lock is free */

static void *writer(void *arg)
{
	pthread_rwlock_wrlock(&rw);
	x = 1;
	pthread_rwlock_unlock(&rw);	/* BUG: invariant broken while unlocked */
	pthread_rwlock_wrlock(&rw);
	y = 1;
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
