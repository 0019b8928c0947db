/* user_stack_ok.c — threads on stacks the program allocates (malloc +
 * pthread_attr_setstack): their stack and TCB live in heap memory, which
 * break mode's protection-key faults track. The kernel writes a thread's
 * rseq area at every return to user space and its tid at exit under the
 * thread's own PKRU: denied, the thread died (a false crash with faults).
 * Each thread adds to a shared counter 10 times under a mutex.
 * Expected: clean on every schedule. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define THREADS 2
#define ADDS 10
#define STACK (256 * 1024)

static long counter;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg)
{
	for (int i = 0; i < ADDS; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(void)
{
	pthread_t t[THREADS];
	void *stk[THREADS];
	for (int i = 0; i < THREADS; i++) {
		pthread_attr_t a;
		stk[i] = malloc(STACK);
		assert(stk[i]);
		pthread_attr_init(&a);
		pthread_attr_setstack(&a, stk[i], STACK);
		pthread_create(&t[i], &a, work, NULL);
		pthread_attr_destroy(&a);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++)
		free(stk[i]);
	assert(counter == THREADS * ADDS);
	return 0;
}
