/* poll_eventfd.c — two pollers, one event: readiness is not ownership.
 * Two workers wait in poll(2) on an eventfd; main produces 2 items (counted
 * under the mutex) and signals one event per item with eventfd_write.  Each
 * worker then takes one event with read(2).  BUG: the eventfd is
 * non-blocking, and a worker assumes that a read after a successful poll
 * always finds an event.
 * Exposing schedule: main signals the first event; both workers' polls
 * return; one reads it; the other reads before main's second event and gets
 * EAGAIN.  Outcome: assert on the read's result.  Fix (poll_eventfd_ok.c):
 * blocking reads.  Minimal mode: sync. */
#include <assert.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int efd;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int produced, consumed;

static void *worker(void *arg)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t v;
	ssize_t n;

	if (poll(&p, 1, -1) != 1)
		return NULL;
	n = read(efd, &v, sizeof v);	/* EAGAIN if the other took it */
	assert(n == sizeof v);
	pthread_mutex_lock(&m);
	consumed++;
	assert(consumed <= produced);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	efd = eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK);	/* BUG: read may fail */
	if (efd < 0)
		return 2;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&m);
		produced++;
		pthread_mutex_unlock(&m);
		eventfd_write(efd, 1);
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(consumed == 2);
	return 0;
}
