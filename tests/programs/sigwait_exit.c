/* sigwait_exit.c — the shape of pbzip2 -p4: a dedicated signal thread
 * sleeps in sigwait(3) for SIGINT or SIGTERM and is never woken; two workers
 * claim work items and add them up under a mutex; main hands out the items
 * under the same mutex, yielding between them (a back-off that makes it look
 * like a spinner while the workers wait for its lock), then checks the total
 * and leaves with exit() while the signal thread still sleeps.
 * Bug: a worker reads the next item in one critical section and advances
 * it in another, so two workers can take the same item: assert
 * taken[i] == 1.  Twin sigwait_exit_ok.c claims it in one.
 * Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ITEMS 12
#define WORKERS 2

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static int avail, next, finished, taken[ITEMS];
static long total;
static sigset_t stop;

static void *sig_thread(void *arg)
{
	int sig;
	if (sigwait(&stop, &sig) == 0)
		_exit(128 + sig); /* never comes: nobody sends one */
	return arg;
}

static void *worker(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&m);
		while (next == avail && !finished)
			pthread_cond_wait(&more, &m);
		if (next == avail) {
			pthread_mutex_unlock(&m);
			return arg;
		}
		int i = next;
		pthread_mutex_unlock(&m);
		pthread_mutex_lock(&m); /* BUG: the claim is split */
		next = i + 1;
		taken[i]++;
		total += i;
		pthread_mutex_unlock(&m);
	}
}

int main(void)
{
	pthread_t s, w[WORKERS];
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	pthread_create(&s, NULL, sig_thread, NULL);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	for (int b = 0; b < ITEMS; b += 4) {
		pthread_mutex_lock(&m);
		for (int k = 0; k < 4; k++) {
			avail++;
			sched_yield();
		}
		pthread_cond_broadcast(&more);
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&m);
	finished = 1;
	pthread_cond_broadcast(&more);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	for (int i = 0; i < ITEMS; i++)
		assert(taken[i] == 1);
	assert(total == ITEMS * (ITEMS - 1) / 2);
	printf("total %ld\n", total);
	exit(0); /* the signal thread is still in sigwait */
}
