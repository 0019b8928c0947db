/* narrow3.c — a bug that needs three preemptions, each in a narrow window of
 * a long run (issue 29 item 6; seeds/002's shape). Two workers run ROUNDS
 * rounds of private work (a lock of their own: 2 visible operations a
 * round); at four rounds they meet on m:
 *   worker 0, round W1: opens window a=1, closes it in the next section
 *   worker 1, round W2: if a is 1, stage 1; opens window b, closes it next
 *   worker 0, round W3: if b is open and stage is 1, stage 2; opens a=2,
 *                       closes it next
 *   worker 1, round W4: if a is 2 and stage is 2, stage 3
 * main asserts stage < 3. Exposing schedule: worker 0 preempted inside its
 * first window, worker 1 inside its window, worker 0 inside its second: three
 * preemptions, each at one of the 2 points of a window among ~600 per thread.
 * Twin narrow3_ok.c: each window opens and closes in one critical section.
 * Mode: sync. Args: [rounds=300]. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t own[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static int rounds = 300;
static int a, b, stage;

static void work(int me)
{
	pthread_mutex_lock(&own[me]);
	pthread_mutex_unlock(&own[me]);
}

/* Opens *w = v in one critical section and closes it in the next: the
 * window between them is the bug (the twin does both in one). */
static void window(int *w, int v, int me)
{
	pthread_mutex_lock(&m);
	*w = v;
	pthread_mutex_unlock(&m);
	work(me);
	pthread_mutex_lock(&m);
	*w = 0;
	pthread_mutex_unlock(&m);
}

static void *worker0(void *arg)
{
	for (int k = 0; k < rounds; k++) {
		work(0);
		if (k == rounds / 6)
			window(&a, 1, 0);
		if (k == rounds * 4 / 6) {
			pthread_mutex_lock(&m);
			if (b && stage == 1)
				stage = 2;
			pthread_mutex_unlock(&m);
			window(&a, 2, 0);
		}
	}
	return arg;
}

static void *worker1(void *arg)
{
	for (int k = 0; k < rounds; k++) {
		work(1);
		if (k == rounds * 2 / 6) {
			pthread_mutex_lock(&m);
			if (a == 1)
				stage = 1;
			pthread_mutex_unlock(&m);
			window(&b, 1, 1);
		}
		if (k == rounds * 5 / 6) {
			pthread_mutex_lock(&m);
			if (a == 2 && stage == 2)
				stage = 3;
			pthread_mutex_unlock(&m);
		}
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t0, t1;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds < 6)
		return 2;
	pthread_create(&t0, NULL, worker0, NULL);
	pthread_create(&t1, NULL, worker1, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert(stage < 3);
	return 0;
}
