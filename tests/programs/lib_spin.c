/* lib_spin.c — no bug: A spins until strcmp says the shared flag string is
 * "go"; B sets data = 42, then strcpy's "go" into the flag; A asserts data
 * is 42. The spin only reads through libc, so each strcmp is two library
 * reads; the tool must see that A re-reads unchanged memory and let B run.
 * Expected: clean on every schedule, no step budget or timeout.
 * Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <string.h>

static char flag[8] = "wait";
static char go[8] = "go";	/* not a literal: keeps strcmp and strcpy libc calls */
static volatile int data;

static void *waiter(void *arg)
{
	for (;;) {
		__asm__ volatile("" ::: "memory");	/* strcmp again every time */
		if (strcmp(flag, go) == 0)
			break;
	}
	assert(data == 42);
	return arg;
}

static void *setter(void *arg)
{
	data = 42;
	strcpy(flag, go);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, waiter, NULL);
	pthread_create(&b, NULL, setter, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
