/* relay.c — a three-leg handshake whose bug needs three preemptions, each
 * while the other thread is parked, in a long run (synthetic, in the spirit
 * of seeds/002's benchmarks).
 * Two workers run `iterations` rounds of two critical sections on one mutex:
 * the first opens the worker's window (win[me] = 1), the second closes it.
 * Bug: the window is opened and closed in separate critical sections, so the
 * other worker can see it open. Seeing it open in `need` consecutive rounds
 * of its own advances the relay: leg 1 (thread 1 sees thread 0's window),
 * leg 2 (thread 0 sees thread 1's), leg 3 (thread 1 again) -> stage 3.
 * Exposing schedule: thread 0 preempted inside its window while thread 1
 * runs `need` rounds; thread 1 preempted inside its window while thread 0
 * runs `need` rounds; thread 0 preempted inside its window again while
 * thread 1 runs `need` rounds -> assert(stage < 3) in main fails. Any round
 * will do for each leg, but each leg needs one thread to stay parked while
 * the other runs `need` rounds (4 visible operations each) unpreempted.
 * Minimal mode: sync. Twin relay_ok.c: the window is opened and closed in
 * one critical section. Args: [iterations=250 [need=8]]. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int win[2];     /* worker i is between its two critical sections */
static int stage;      /* legs of the relay done */
static int iterations = 250, need = 8;

static void *worker(void *arg)
{
	int me = (int)(long)arg, other = 1 - me, seen = 0;

	for (int k = 0; k < iterations; k++) {
		pthread_mutex_lock(&m);
		/* legs 1 and 3 are thread 1's to advance, leg 2 thread 0's */
		int turn = stage == 1 ? 0 : 1;
		if (stage < 3 && turn == me && win[other]) {
			if (++seen == need) {
				stage++;
				seen = 0;
			}
		} else {
			seen = 0;
		}
		win[me] = 1;	/* BUG: open here, closed in the next critical section */
		pthread_mutex_unlock(&m);
		pthread_mutex_lock(&m);
		win[me] = 0;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		iterations = atoi(argv[1]);
	if (argc > 2)
		need = atoi(argv[2]);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(stage < 3);
	return 0;
}
