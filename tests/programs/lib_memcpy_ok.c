/* lib_memcpy_ok.c — twin of lib_memcpy.c with the fix: a thread makes both
 * copies under one mutex, so the record's name and check always agree.
 * Expected: clean on every schedule.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char name[16];
	char check[16];
} rec;
static volatile size_t len = 16; /* keeps memcpy a libc call */

static void *publish(void *arg)
{
	pthread_mutex_lock(&m);	/* FIX */
	memcpy(rec.name, arg, len);
	memcpy(rec.check, arg, len);
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	static char alpha[16] = "alpha", bravo[16] = "bravo";
	pthread_t a, b;

	pthread_create(&a, NULL, publish, alpha);
	pthread_create(&b, NULL, publish, bravo);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(memcmp(rec.name, rec.check, len) == 0);
	return 0;
}
