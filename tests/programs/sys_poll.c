/* sys_poll.c — a lost notification: the waiter expects one eventfd event per
 * wait (first poll(), then epoll_wait()), but eventfd adds notifications up.
 * When the notifier writes twice before the waiter's first read(), that read
 * returns 2 and the second wait sleeps forever on an eventfd nobody will
 * signal again.
 * Expected: deadlock (waiter in epoll_wait).  Minimal mode: sync.
 * Twin: sys_poll_ok.c. */
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
	uint64_t got = 0, v;
	struct pollfd p = { .fd = efd, .events = POLLIN };
	struct epoll_event e;

	assert(poll(&p, 1, -1) == 1);
	assert(read(efd, &v, sizeof(v)) == (ssize_t)sizeof(v));
	got += v;
	assert(epoll_wait(ep, &e, 1, -1) == 1);	/* BUG: both may be counted already */
	assert(read(efd, &v, sizeof(v)) == (ssize_t)sizeof(v));
	got += v;
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
