/* lib_untraced_ok.c — twin of lib_untraced.c with the fix: check, swab and
 * free under one mutex. Clean on every schedule, but swab still touches
 * shared memory unseen, so a systematic search says it is not complete.
 * Expected: clean.  Minimal mode: break. */
#define _GNU_SOURCE /* swab */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int owned;
	char note[60];
} state;
static const char zeros[sizeof(state)];
static char *buf;

static void *release(void *arg)
{
	pthread_mutex_lock(&m);	/* FIX */
	if (state.owned) {
		swab(zeros, &state, sizeof(state));
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
