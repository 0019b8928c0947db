/* sys_pipe.c — a pipe protocol that deadlocks in one order: the reader holds
 * the mutex while it blocks in read(), and the writer needs that mutex before
 * it writes. When the reader takes the mutex first on an empty pipe, the
 * reader sleeps in the kernel on a pipe only the writer can fill, and the
 * writer waits for the mutex forever.
 * Expected: deadlock (reader in read on the pipe, writer on the mutex).
 * Minimal mode: sync.  Twin: sys_pipe_ok.c. */
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
		pthread_mutex_lock(&m);
		ssize_t r = read(fds[0], &v, sizeof(v));	/* BUG: waits holding m */
		assert(r == (ssize_t)sizeof(v) && v == i);
		received++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

static void *writer(void *arg)
{
	for (int i = 0; i < N; i++) {
		pthread_mutex_lock(&m);
		ssize_t w = write(fds[1], &i, sizeof(i));
		assert(w == (ssize_t)sizeof(i));
		pthread_mutex_unlock(&m);
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
