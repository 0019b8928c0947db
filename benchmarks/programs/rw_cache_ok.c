/* rw_cache_ok.c (benchmark) — twin of rw_cache.c with the fix: on a miss the
 * cache is filled under the write lock from the store as it is then (and
 * only if still invalid), so a put() between the read and write sections is
 * never overwritten.  Expected: clean on every schedule.  Mode: sync. */
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
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_wrlock(&rw);
	if (!valid) {	/* FIX: fill from the store as it is now, under the write lock */
		cached = store;
		valid = 1;
	}
	v = cached;
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
