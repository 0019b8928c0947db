/* pipe_handoff.c — a wake-up sent before the data it announces.
 * Main and a worker play ping-pong over two pipes for 3 rounds; the worker
 * blocks in read(2) until main writes a token, then checks the message main
 * published under the mutex.  BUG: main writes the token first and publishes
 * the message after it.
 * Exposing schedule: main writes the token; the worker's read returns and it
 * takes the mutex before main does, so it sees the previous round's message.
 * Outcome: assert msg == i in the worker.  Fix (pipe_handoff_ok.c): publish,
 * then write.  Minimal mode: sync. */
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
		put(to_worker[1]);	/* BUG: wakes the worker too early */
		pthread_mutex_lock(&m);
		msg = i;
		pthread_mutex_unlock(&m);
		get(to_main[0]);
		pthread_mutex_lock(&m);
		assert(reply == i * 10);
		pthread_mutex_unlock(&m);
	}
	pthread_join(t, NULL);
	return 0;
}
