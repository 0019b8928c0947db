/* lib_free_ok.c — twin of lib_free.c with the fix: strlen, strcpy and free
 * under one mutex, so the buffer is freed once.
 * Expected: clean on every schedule.  Minimal mode: break. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char token[8] = "held";
static char none[8];                 /* "": not a literal, so strcpy is a call */
static volatile size_t one = 1;      /* keeps strlen a libc call */
static char *buf;

static void *release(void *arg)
{
	pthread_mutex_lock(&m);	/* FIX */
	if (strlen(token) >= one) {
		strcpy(token, none);
		free(buf);
	}
	pthread_mutex_unlock(&m);
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
