/* publish_ok.c (benchmark) — twin of publish.c with the fix: the loader fills
 * in the configuration, then publishes the pointer under a mutex that the
 * reader also takes.  Expected: clean on every schedule, race-free.  Mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct config {
	volatile int port;	/* volatile: keep the stores, in program order */
	volatile int timeout;
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct config *volatile config;

static void *loader(void *arg)
{
	struct config *c = calloc(1, sizeof *c);

	assert(c);
	c->port = 8080;	/* FIX: initialise first ... */
	c->timeout = 30;
	pthread_mutex_lock(&m);
	config = c;	/* ... then publish under the reader's lock */
	pthread_mutex_unlock(&m);
	return arg;
}

static void *reader(void *arg)
{
	struct config *c;

	pthread_mutex_lock(&m);
	c = config;
	pthread_mutex_unlock(&m);
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
