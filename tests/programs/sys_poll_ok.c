/* sys_poll_ok.c — twin of sys_poll.c: a waiter sleeps in poll() and then
 * epoll_wait() on an eventfd that a notifier thread signals twice. eventfd
 * adds the notifications up, so the waiter counts what read() returns and
 * waits again only while it has seen fewer than two.
 * Expected: clean on every schedule.  Minimal mode: sync. */
#include <assert.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int efd, ep;

static void *notifier(void *arg)
{
	for (int i = 0; i < 2; i++) {
		uint64_t one = 1;
		ssize_t w = write(efd, &one, sizeof(one));
		assert(w == (ssize_t)sizeof(one));
	}
	return arg;
}

static void *waiter(void *arg)
{
	uint64_t got = 0;
	for (int round = 0; got < 2; round++) {	/* FIX: wait while events are missing */
		if (round % 2 == 0) {
			struct pollfd p = { .fd = efd, .events = POLLIN };
			assert(poll(&p, 1, -1) == 1);
		} else {
			struct epoll_event e;
			assert(epoll_wait(ep, &e, 1, -1) == 1);
		}
		uint64_t v;
		assert(read(efd, &v, sizeof(v)) == (ssize_t)sizeof(v));
		got += v;
	}
	assert(got == 2);
	return arg;
}

int main(void)
{
	pthread_t n, w;
	struct epoll_event e = { .events = EPOLLIN };

	efd = eventfd(0, 0);
	ep = epoll_create1(0);
	if (efd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &e) != 0)
		return 2;
	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&n, NULL, notifier, NULL);
	pthread_join(w, NULL);
	pthread_join(n, NULL);
	return 0;
}
