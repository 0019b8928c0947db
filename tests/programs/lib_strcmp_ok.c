/* lib_strcmp_ok.c — twin of lib_strcmp.c with the fix: strcmp and strcpy
 * under one mutex, so one thread takes the slot.
 * Expected: clean on every schedule.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char state[16] = "idle";
static char taken[16] = "taken"; /* not a literal: keeps strcpy a libc call */

static void *take(void *arg)
{
	void *took = NULL;

	pthread_mutex_lock(&m);	/* FIX */
	if (strcmp(state, "idle") == 0) {
		strcpy(state, taken);
		took = arg;
	}
	pthread_mutex_unlock(&m);
	return took;
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
