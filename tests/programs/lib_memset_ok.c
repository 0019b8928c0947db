/* lib_memset_ok.c — twin of lib_memset.c with the fix: the check of the
 * "owned" flag, its memset and the free happen under one mutex, so only one
 * thread frees the buffer.
 * Expected: clean on every schedule.  Minimal mode: break. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int owned;
	char note[60];
} state;
static char *buf;
static volatile size_t state_size = sizeof(state); /* keeps memset a libc call */

static void *release(void *arg)
{
	pthread_mutex_lock(&m);	/* FIX */
	if (state.owned) {
		memset(&state, 0, state_size);
		free(buf);
	}
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	buf = malloc(32);
	state.owned = 1;
	pthread_create(&a, NULL, release, NULL);
	pthread_create(&b, NULL, release, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
