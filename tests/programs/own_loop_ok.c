/* own_loop_ok.c — twin of own_loop.c with the fix: the worker stores its
 * result and raises done in one critical section.
 * The shape is ripgrep's under cts (issue 8).  The worker first calls
 * getcwd(3) into its own heap block: an untraced call with a pointer to
 * shared memory, so from then on cts cannot prove that a thread makes no
 * progress.  Then it loops, asking a helper for a field of its own block on
 * every iteration: the same load at the same pc seeing the same value while
 * the loop counter moves in a register.  That is progress, not a spin, but
 * cts took it for one after three reads and held the worker back for good,
 * while main, waiting for done with a timed wait (a progress reporter's
 * periodic wake-up), gave up its wait again and again: every run ended at
 * the step budget.
 * Expected: clean on every schedule, every run completes.  Minimal mode:
 * sync. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define LEN 40

struct job {
	unsigned long len;
	char cwd[4096];
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int done;
static unsigned long result;

/* noipa: the load stays in the loop (no pure-function hoisting). */
__attribute__((noipa)) static unsigned long job_len(const struct job *j)
{
	return j->len;
}

static unsigned long hash_upto(unsigned long n, const struct job *j)
{
	unsigned long h = 5381;
	for (unsigned long i = 0; i < (j ? job_len(j) : n); i++)
		h = h * 33 + i;
	return h;
}

static void *worker(void *arg)
{
	struct job *j = malloc(sizeof(*j));
	assert(j);
	j->len = LEN;
	assert(getcwd(j->cwd, sizeof(j->cwd)));
	unsigned long h = hash_upto(0, j);
	free(j);
	pthread_mutex_lock(&m);
	result = h;	/* FIX: the result is in place before done */
	done = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t w;
	unsigned long r;

	pthread_create(&w, NULL, worker, NULL);
	pthread_mutex_lock(&m);
	while (!done) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&c, &m, &ts);
	}
	r = result;
	pthread_mutex_unlock(&m);
	assert(r == hash_upto(LEN, NULL));
	pthread_join(w, NULL);
	return 0;
}
