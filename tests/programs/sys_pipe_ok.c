/* sys_pipe_ok.c — twin of sys_pipe.c: a reader thread blocks in read() on a
 * pipe until the writer thread writes (the read sleeps in the kernel, outside
 * the schedule). Both count the messages under a mutex, but the reader never
 * holds the mutex while it waits for the pipe.
 * Expected: clean on every schedule.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

#define N 3

static int fds[2];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int received;

static void *reader(void *arg)
{
	for (int i = 0; i < N; i++) {
		int v;
		ssize_t r = read(fds[0], &v, sizeof(v));	/* FIX: outside the lock */
		assert(r == (ssize_t)sizeof(v) && v == i);
		pthread_mutex_lock(&m);
		received++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

static void *writer(void *arg)
{
	for (int i = 0; i < N; i++) {
		pthread_mutex_lock(&m);
		assert(received <= i);
		pthread_mutex_unlock(&m);
		ssize_t w = write(fds[1], &i, sizeof(i));
		assert(w == (ssize_t)sizeof(i));
	}
	return arg;
}

int main(void)
{
	pthread_t r, w;

	if (pipe(fds) != 0)
		return 2;
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(r, NULL);
	pthread_join(w, NULL);
	assert(received == N);
	return 0;
}
