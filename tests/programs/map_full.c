/* map_full.c — every MAP pattern on its one shared variable can be covered
 * (issue 29 item 5; seeds/001). Two workers run the same code: two atomic
 * increments of hits (a locked instruction: a read then a write at one pc),
 * so all 8 one-variable patterns of that pc are feasible. Each worker also
 * keeps a tally only it ever touches; before one-thread variables left the
 * estimate, their patterns kept 100% out of reach. Correct program. */
#include <pthread.h>

static volatile long hits;
static volatile long tally_a, tally_b;

static void *worker(void *arg)
{
	volatile long *mine = arg;
int rounds = 2;

	/* An opaque bound: unrolled, the two increments would be two pcs, and
	 * orders of them that program order forbids would count. */
	__asm__("" : "+r"(rounds));
	for (int i = 0; i < rounds; i++) {
		__atomic_fetch_add(&hits, 1, __ATOMIC_SEQ_CST);
		*mine = *mine + 1;
	}
	return 0;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, 0, worker, (void *)&tally_a);
	pthread_create(&b, 0, worker, (void *)&tally_b);
	pthread_join(a, 0);
	pthread_join(b, 0);
	return 0;
}
