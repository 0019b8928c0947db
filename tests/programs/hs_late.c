/* hs_late.c — a HaPSet pruning trap (issue 29, item 2; seeds/000): a
 * subscriber (t1) and a publisher (t2) each run 9 critical sections on m.
 * The subscriber subscribes in its first and assumes the feed is open; the
 * publisher publishes in 8 and closes the feed in its last. The bug needs
 * t2's last lock on m (close) before t1's first (subscribe), with 8 sections
 * of each between. Every pair of statements on the way there is one that
 * ordinary runs show (a publish before the subscription, a close before a
 * read), so the paper's pruning, after 10 random learning runs, drops every
 * route to it. Twin hs_late_ok.c: the subscription checks for a closed feed.
 * Mode: sync. */
#include <assert.h>
#include <pthread.h>

#define SECTIONS 8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int published, closed, subscribed, received;

static void *subscriber(void *arg)
{
	pthread_mutex_lock(&m);
	assert(!closed);                /* BUG: the feed may be closed already */
	subscribed = 1;
	pthread_mutex_unlock(&m);
	for (int i = 0; i < SECTIONS; i++) {
		pthread_mutex_lock(&m);
		received = published;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

static void *publisher(void *arg)
{
	for (int i = 0; i < SECTIONS; i++) {
		pthread_mutex_lock(&m);
		published++;
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&m);
	closed = 1;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t s, p;
	pthread_create(&s, 0, subscriber, 0);
	pthread_create(&p, 0, publisher, 0);
	pthread_join(s, 0);
	pthread_join(p, 0);
	return 0;
}
