/* pipe_handoff_ok.c — twin of pipe_handoff.c with the fix: main publishes
 * the message under the mutex before it writes the token that wakes the
 * worker.  Main and a worker play ping-pong over two pipes for 3 rounds, so
 * on every schedule one of them blocks in read(2) until the other writes.
 * Expected: clean on every schedule, no race report (msg and reply are only
 * touched under the mutex).  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define ROUNDS 3

static int to_worker[2], to_main[2];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int msg, reply;

static void put(int fd)
{
	if (write(fd, "x", 1) != 1)
		abort();
}

static void get(int fd)	/* blocks until the other side writes */
{
	char c;

	if (read(fd, &c, 1) != 1)
		abort();
}

static void *worker(void *arg)
{
	for (int i = 1; i <= ROUNDS; i++) {
		get(to_worker[0]);
		pthread_mutex_lock(&m);
		assert(msg == i);
		reply = i * 10;
		pthread_mutex_unlock(&m);
		put(to_main[1]);
	}
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pipe(to_worker) || pipe(to_main))
		return 2;
	pthread_create(&t, NULL, worker, NULL);
	for (int i = 1; i <= ROUNDS; i++) {
		/* FIX: publish first, then wake the reader */
		pthread_mutex_lock(&m);
		msg = i;
		pthread_mutex_unlock(&m);
		put(to_worker[1]);
		get(to_main[0]);
		pthread_mutex_lock(&m);
		assert(reply == i * 10);
		pthread_mutex_unlock(&m);
	}
	pthread_join(t, NULL);
	return 0;
}
