/* rep_clear.c — a worker clears a shared 4 KiB table with one `rep stosq`
 * (inline assembly: what a compiler makes of an inlined memset), while a
 * second worker records a hit in the table's last slot; both hold no
 * lock for it. main asserts the hit survived.
 * Bug: the recorder writes its hit; the clearer clears the table: the hit
 * is lost. Fix (rep_clear_ok.c): the recorder waits until the table is
 * clear (a flag under a mutex and a condition variable).
 * The `rep stosq` is one access of its whole range at its int3 (break
 * mode): one scheduling point, not one per element (tests/e2e/rep_step.t).
 * Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>

#define WORDS 512

static uint64_t table[WORDS] __attribute__((aligned(4096)));
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int clear;

static void *clearer(void *arg)
{
	(void)arg;
	uint64_t *d = table, n = WORDS, z = 0;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(z) : "memory");
	pthread_mutex_lock(&m);
	clear = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *recorder(void *arg)
{
	(void)arg;
#ifdef REP_CLEAR_OK
	pthread_mutex_lock(&m);
	while (!clear)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
#endif
	table[WORDS - 1] = 1;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	for (int i = 0; i < WORDS; i++)
		table[i] = 7;
	pthread_create(&a, NULL, clearer, NULL);
	pthread_create(&b, NULL, recorder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(table[WORDS - 1] == 1);
	return 0;
}
