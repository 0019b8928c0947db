/* publish.c (benchmark) — publish before initialise.
 * Bug: the loader makes the new configuration reachable (config = c) before
 * it fills in the fields; a reader that sees the pointer reads zeros.
 * Exposing schedule: loader stores config; reader loads config (non-NULL)
 * and c->port (0) -> assert fails.  Minimal mode: break (plain accesses, no
 * lock).  Natively the window is between two adjacent stores.
 * Twin publish_ok.c: fill in first, then publish; the pointer is accessed
 * under a mutex (race-free). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct config {
	volatile int port;	/* volatile: keep the stores, in program order */
	volatile int timeout;
};

static struct config *volatile config;

static void *loader(void *arg)
{
	struct config *c = calloc(1, sizeof *c);

	assert(c);
	config = c;	/* BUG: published before it is initialised */
	c->port = 8080;
	c->timeout = 30;
	return arg;
}

static void *reader(void *arg)
{
	struct config *c = config;

	if (c)
		assert(c->port == 8080 && c->timeout == 30);
	return arg;
}

int main(void)
{
	pthread_t l, r;

	pthread_create(&l, NULL, loader, NULL);
	pthread_create(&r, NULL, reader, NULL);
	pthread_join(l, NULL);
	pthread_join(r, NULL);
	free(config);
	return 0;
}
