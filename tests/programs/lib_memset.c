/* lib_memset.c — two threads each check a shared "owned" flag in their own
 * code, clear it with memset and free the shared buffer it guards. The only
 * write to the flag happens inside libc's memset.
 * Bug: t1 reads owned == 1; t2 reads owned == 1; both clear it and both free
 * the buffer: a double free (glibc aborts). Fix (lib_memset_ok.c): check and
 * clear under a mutex.  Minimal mode: break (dpor sees the memset only as a
 * library-call event). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct {
	int owned;
	char note[60];
} state;
static char *buf;
static volatile size_t state_size = sizeof(state); /* keeps memset a libc call */

static void *release(void *arg)
{
	if (state.owned) {
		memset(&state, 0, state_size);
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
