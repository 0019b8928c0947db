/* lib_untraced.c — lib_memset.c with the flag cleared by swab(3), a libc
 * function cts does not model: its write to the flag cannot be seen.
 * Bug: as in lib_memset.c, both threads see owned == 1 and free the buffer
 * twice (random finds it). dpor in break mode cannot order the invisible
 * write, so it must not claim to be complete: it names swab as called with
 * a pointer to shared memory. Fix (lib_untraced_ok.c): a mutex.
 * Minimal mode: break. */
#define _GNU_SOURCE /* swab */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static struct {
	int owned;
	char note[60];
} state;
static const char zeros[sizeof(state)];
static char *buf;

static void *release(void *arg)
{
	if (state.owned) {
		swab(zeros, &state, sizeof(state));
		free(buf);
	}
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
