/* yield_poll.c — a flag polled under a mutex with sched_yield(), data published late.
 * A poller loops
 * `for (;;) { lock(m); done = flag; unlock(m); if (done) break; sched_yield(); }`
 * while the setter does some work with visible operations (a counter under
 * its own mutex, 20 rounds), then sets the flag under m.
 * Bug: the setter raises flag in one critical section and publishes data in
 * a second one.  Exposing schedule: the poller takes m between the two and
 * sees flag set with data still 0.  Fix (yield_poll_ok.c): one section.
 * Expected: assert `v == 42` in the poller.  The poller's
 * lock/unlock between its yields changes nothing another thread can see
 * new: a tool must hold it back as a spinner (PCT must not starve the
 * setter) and must not call it a livelock.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

#define WORK 20

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t w = PTHREAD_MUTEX_INITIALIZER;
static int flag, data, work;

static void *poller(void *arg)
{
	int done, v;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&m);
		done = flag;
		v = data;
		pthread_mutex_unlock(&m);
		if (done)
			break;
		sched_yield();
	}
	assert(v == 42);	/* fails: flag seen before data */
	return NULL;
}

static void *setter(void *arg)
{
	(void)arg;
	for (int i = 0; i < WORK; i++) {
		pthread_mutex_lock(&w);
		work++;
		pthread_mutex_unlock(&w);
	}
	pthread_mutex_lock(&m);
	flag = 1;
	pthread_mutex_unlock(&m);
	pthread_mutex_lock(&m);
	data = 42;	/* BUG: after the flag, in a second critical section */
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t p, s;

	pthread_create(&p, NULL, poller, NULL);
	pthread_create(&s, NULL, setter, NULL);
	pthread_join(p, NULL);
	pthread_join(s, NULL);
	assert(work == WORK);
	return 0;
}
