/* relay.c — a three-leg handshake whose bug needs three preemptions, each
 * while the other thread is parked, in a long run (synthetic, in the spirit
 * of seeds/002's benchmarks).
 * Workers (2 by default) run `iterations` rounds of two critical sections
 * on one mutex: the first opens the worker's window (win[me] = round + 1),
 * the second closes it.
 * Bug: the window is opened and closed in separate critical sections, so
 * another worker can see it open. Seeing the same window open in `need`
 * consecutive rounds of its own advances the relay: leg 1 (worker 1 sees
 * worker 0's window), leg 2 (worker 0 sees worker 1's), leg 3 (worker 1
 * again) -> stage 3.
 * Exposing schedule: worker 0 preempted inside its window while worker 1
 * runs `need` rounds; worker 1 preempted inside its window while worker 0
 * runs `need` rounds; worker 0 preempted inside its window again while
 * worker 1 runs `need` rounds -> assert(stage < 3) in main fails. Any round
 * will do for each leg, but each leg needs one worker to stay parked in the
 * same window while the other runs `need` rounds (4 visible operations each).
 * Minimal mode: sync. Twin relay_ok.c: the window is opened and closed in
 * one critical section. Args: [iterations=250 [need=8 [workers=2]]]; with 3
 * workers, leg 1 is worker 1 watching worker 0, leg 2 worker 2 watching
 * worker 1, leg 3 worker 0 watching worker 2. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
#define MAX_WORKERS 8
/* worker i is between its two critical sections of round k: k + 1, else 0 */
static int win[MAX_WORKERS];
static int stage;      /* legs of the relay done */
static int iterations = 250, need = 8, workers = 2;

static void *worker(void *arg)
{
	int me = (int)(long)arg, seen = 0, last = 0;

	for (int k = 0; k < iterations; k++) {
		pthread_mutex_lock(&m);
		/* leg s+1: worker (s+1) % workers watches worker s % workers */
		int watched = stage % workers, turn = (stage + 1) % workers;
		/* the same window seen open `need` rounds in a row */
		if (stage < 3 && turn == me && win[watched] && win[watched] == last) {
			if (++seen == need) {
				stage++;
				seen = 0;
			}
		} else {
			seen = win[watched] ? 1 : 0;
		}
		last = win[watched];
		win[me] = k + 1;	/* BUG: open here, closed in the next critical section */
		pthread_mutex_unlock(&m);
		pthread_mutex_lock(&m);
		win[me] = 0;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_WORKERS];

	if (argc > 1)
		iterations = atoi(argv[1]);
	if (argc > 2)
		need = atoi(argv[2]);
	if (argc > 3)
		workers = atoi(argv[3]);
	if (workers < 2 || workers > MAX_WORKERS || need < 1)
		return 2;
	for (long i = 0; i < workers; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < workers; i++)
		pthread_join(t[i], NULL);
	assert(stage < 3);
	return 0;
}
