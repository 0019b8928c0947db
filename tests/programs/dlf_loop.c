/* dlf_loop.c — a lock-order inversion behind the partner's loop on the
 * first lock (issue 29 item 1): t1 takes a then b once; t2 takes a alone
 * N times (argv[1], default 40), and only then b then a. The deadlock
 * needs t1 to hold a, wanting b, while t2 holds b, wanting a: t2 must
 * finish its N sections on a before t1 takes a. DeadlockFuzzer as the
 * paper has it pauses t1 holding a at lock(b), so t2 blocks on a inside
 * its loop, the stall monitor releases t1, and the cycle never forms;
 * pausing t1 before lock(a) until t2 stands at its lock(a) holding b
 * confirms it. Exposing schedule: t2's N sections and lock(b); t1
 * lock(a); both block on their second lock.
 * Minimal mode: sync. Twin dlf_loop_ok.c: t2 takes a then b. */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int n = 40, shared;

static void *t1(void *arg)
{
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

static void *t2(void *arg)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&a);
		shared++;
		pthread_mutex_unlock(&a);
	}
	pthread_mutex_lock(&b);         /* BUG: opposite order to t1 */
	pthread_mutex_lock(&a);
	shared++;
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t p, q;
	if (argc > 1)
		n = atoi(argv[1]);
	pthread_create(&p, 0, t1, 0);
	pthread_create(&q, 0, t2, 0);
	pthread_join(p, 0);
	pthread_join(q, 0);
	return 0;
}
