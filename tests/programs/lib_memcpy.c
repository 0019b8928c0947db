/* lib_memcpy.c — two threads each publish their name into a shared record
 * with two memcpy calls (name, then its check copy); main asserts the two
 * copies agree. Every access to the record happens inside libc.
 * Bug: t1 copies name; t2 copies name and check; t1 copies check: name is
 * t2's, check is t1's. Fix (lib_memcpy_ok.c): both copies under a mutex.
 * Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <string.h>

static struct {
	char name[16];
	char check[16];
} rec;
static volatile size_t len = 16; /* keeps memcpy a libc call */

static void *publish(void *arg)
{
	memcpy(rec.name, arg, len);
	memcpy(rec.check, arg, len);
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
