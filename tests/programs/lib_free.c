/* lib_free.c — a shared token string says whether the shared buffer still
 * needs freeing; two threads check it with strlen, clear it with strcpy and
 * free the buffer. Every access to token and buffer happens inside libc.
 * Bug: t1 strlen (4); t2 strlen (4); both clear the token and free the
 * buffer: a double free (glibc aborts). Fix (lib_free_ok.c): check, clear
 * and free under a mutex.  Minimal mode: break. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static char token[8] = "held";
static char none[8];                 /* "": not a literal, so strcpy is a call */
static volatile size_t one = 1;      /* keeps strlen a libc call */
static char *buf;

static void *release(void *arg)
{
	if (strlen(token) >= one) {
		strcpy(token, none);
		free(buf);
	}
	return arg;
}

int main(void)
{
	pthread_t a, b;

	buf = malloc(32);
	pthread_create(&a, NULL, release, NULL);
	pthread_create(&b, NULL, release, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
