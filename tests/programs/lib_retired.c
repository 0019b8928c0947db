/* lib_retired.c — two workers first compare and copy their own blocks 200
 * times (memcpy and memcmp calls that stay on pages the calling thread
 * owns: in fault mode their breakpoints leave the text, tracer/lcret.h),
 * then each publishes its name into a shared record with two memcpy calls
 * (name, then its check copy); main asserts the two copies agree.
 * Bug: t1 copies name; t2 copies name and check; t1 copies check. The
 * record's accesses are made by calls whose breakpoints are out of the
 * text by then: only their bodies' faults can show them.
 * Fix (lib_retired_ok.c): both copies under a mutex. Minimal mode: break.
 * Expected: assertion failure (break mode). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 200

struct rec {
	char name[16];
	char check[16];
};
static struct rec *rec;
static volatile size_t len = 16; /* keeps memcpy a libc call */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

#ifndef LOCKED
#define LOCKED 0
#endif
#ifndef TAIL
#define TAIL 0
#endif

/* lib_retired_tail: the record's copies through a tail call (`jmp
 * memcpy@plt`), which leaves no return address that names its call. */
__attribute__((noinline, optimize("O2", "optimize-sibling-calls"))) static void *
copy_to(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n);
}

static void *publish(void *arg)
{
	char *mine = aligned_alloc(4096, 4096), *copy = mine + 2048;
	int same = 0;
	memset(mine, 0, 4096);
	for (int i = 0; i < ROUNDS; i++) {
		mine[i % 16] = (char)i;
		memcpy(copy + i % 8, mine, len);
		same += memcmp(copy + i % 8, mine, len) == 0;
	}
	assert(same == ROUNDS);
	free(mine);
	if (LOCKED)
		pthread_mutex_lock(&m);
	if (TAIL) {
		copy_to(rec->name, arg, len);
		copy_to(rec->check, arg, len);
	} else {
		memcpy(rec->name, arg, len);
		memcpy(rec->check, arg, len);
	}
	if (LOCKED)
		pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	static char alpha[16] = "alpha", bravo[16] = "bravo";
	pthread_t a, b;

	rec = calloc(1, sizeof(*rec));
	pthread_create(&a, NULL, publish, alpha);
	pthread_create(&b, NULL, publish, bravo);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(memcmp(rec->name, rec->check, len) == 0);
	free(rec);
	return 0;
}
