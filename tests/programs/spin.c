/* spin.c — a correct busy-wait handoff (no bug).
 * Thread A spins on a volatile flag; thread B stores data = 42, then flag = 1.
 * Under sequential consistency (which a serialised run gives, and x86-TSO
 * keeps for two plain stores) A sees data == 42 once it sees the flag.
 * Expected: clean on every schedule.  Mode: break (the spin loop makes no
 * pthread call: in sync mode it is invisible and runs until the step budget
 * or timeout unless the tool detects spinning).  Exercises spin detection /
 * fair scheduling: a scheduler that keeps picking A must not hang. */
#include <assert.h>
#include <pthread.h>

static volatile int data;
static volatile int flag;

static void *a(void *arg)
{
	while (!flag)
		;
	assert(data == 42);
	return arg;
}

static void *b(void *arg)
{
	data = 42;
	flag = 1;
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, a, NULL);
	pthread_create(&y, NULL, b, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	return 0;
}
