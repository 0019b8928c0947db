/* rw_cache.c (benchmark) — a reader/writer-locked cache that keeps a stale value.
 * get() looks the value up under the read lock; on a miss it reads the backing
 * store (still under the read lock), drops the lock, takes the write lock and
 * fills the cache.  put() updates the store and invalidates the cache under
 * the write lock.
 * Bug: the fill stores a value read before the lock was dropped; a put() that
 * ran in between is overwritten by the stale value, which then stays cached.
 * Exposing schedule: reader rdlock, miss, reads store = 1, unlock; writer
 * put(2) (store = 2, cache invalid); reader wrlock, caches 1 -> main's get()
 * returns 1 while the store holds 2: assert fails.  Minimal mode: sync.
 * Natively the window is between the read unlock and the write lock.
 * Twin rw_cache_ok.c: the fill re-reads the store under the write lock and
 * only fills if the cache is still invalid. */
#include <assert.h>
#include <pthread.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int store = 1;	/* the backing store ("database") */
static int cached, valid;

static int get(void)
{
	int v;

	pthread_rwlock_rdlock(&rw);
	if (valid) {
		v = cached;
		pthread_rwlock_unlock(&rw);
		return v;
	}
	v = store;	/* miss: read the backing store */
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_wrlock(&rw);
	cached = v;	/* BUG: v may be stale by now */
	valid = 1;
	pthread_rwlock_unlock(&rw);
	return v;
}

static void put(int v)
{
	pthread_rwlock_wrlock(&rw);
	store = v;
	valid = 0;
	pthread_rwlock_unlock(&rw);
}

static void *reader(void *arg)
{
	int v = get();

	assert(v == 1 || v == 2);
	return arg;
}

static void *writer(void *arg)
{
	put(2);
	return arg;
}

int main(void)
{
	pthread_t r, w;
	int now;

	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(r, NULL);
	pthread_join(w, NULL);
	pthread_rwlock_rdlock(&rw);
	now = store;
	pthread_rwlock_unlock(&rw);
	assert(get() == now);	/* the cache must agree with the store once quiet */
	return 0;
}
