/* check_act_ok.c (benchmark) — twin of check_act.c with the fix:
 * add_if_absent() tests and inserts in one critical section.
 * Usage: check_act_ok [keys]   (default 1, at most 64).  Expected: clean.  Mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define MAXKEYS 64

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int present[MAXKEYS];
static int size;
static int nkeys = 1;

static void add_if_absent(int k)
{
	pthread_mutex_lock(&m);
	if (!present[k]) {	/* FIX: check and act under one lock */
		present[k] = 1;
		size++;
	}
	pthread_mutex_unlock(&m);
}

static void *registrar(void *arg)
{
	for (int k = 0; k < nkeys; k++)
		add_if_absent(k);
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
