/* lib_strcmp.c — two threads try to take a shared slot: strcmp checks that
 * its state string is "idle", strcpy marks it "taken"; each thread returns
 * whether it took the slot and main asserts at most one did. Every access
 * to the state happens inside libc.
 * Bug: t1 compares (idle); t2 compares (idle); both copy "taken": both
 * took it. Fix (lib_strcmp_ok.c): compare and copy under a mutex.
 * Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <string.h>

static char state[16] = "idle";
static char taken[16] = "taken"; /* not a literal: keeps strcpy a libc call */

static void *take(void *arg)
{
	if (strcmp(state, "idle") == 0) {
		strcpy(state, taken);
		return arg;
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	void *ra, *rb;

	pthread_create(&a, NULL, take, (void *)1);
	pthread_create(&b, NULL, take, (void *)1);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	assert(!(ra && rb));
	return 0;
}
