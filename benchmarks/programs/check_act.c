/* check_act.c (benchmark) — check-then-act over two critical sections.
 * Usage: check_act [keys]   (default 1, at most 64)
 * Two threads register the same keys in a set: `if (!contains(k)) add(k);`.
 * contains() and add() each lock the mutex, so there is no data race, but the
 * check is stale by the time add() runs.  add() requires an absent key.
 * Bug: another thread can add k between contains(k) and add(k).
 * Exposing schedule: t1 contains(0) -> 0; t2 contains(0) -> 0; t1 add(0);
 * t2 add(0) -> assert(!present[k]) fails.  Minimal mode: sync.  Natively the
 * window is between two lock calls.
 * Twin check_act_ok.c: test and insert in one critical section. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define MAXKEYS 64

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int present[MAXKEYS];
static int size;
static int nkeys = 1;

static int contains(int k)
{
	int r;

	pthread_mutex_lock(&m);
	r = present[k];
	pthread_mutex_unlock(&m);
	return r;
}

static void add(int k)
{
	pthread_mutex_lock(&m);
	assert(!present[k]);	/* precondition: k is not in the set */
	present[k] = 1;
	size++;
	pthread_mutex_unlock(&m);
}

static void *registrar(void *arg)
{
	for (int k = 0; k < nkeys; k++)
		if (!contains(k))	/* BUG: check and act are separate critical sections */
			add(k);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t x, y;

	if (argc > 1)
		nkeys = atoi(argv[1]);
	if (nkeys < 1 || nkeys > MAXKEYS)
		return 2;
	pthread_create(&x, NULL, registrar, NULL);
	pthread_create(&y, NULL, registrar, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(size == nkeys);
	return 0;
}
