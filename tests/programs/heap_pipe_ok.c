/* heap_pipe_ok.c — a thread sleeps in read() on a pipe, into a heap buffer,
 * until the other thread writes.  Correct on every schedule.
 * The reader reads 64 bytes into a malloc'd buffer (a page break mode's
 * faults track) and counts under the mutex; the writer writes the message,
 * then counts under the mutex.  Where the reader runs first it sleeps in
 * the kernel with its buffer open to it: with the mprotect mechanism
 * (CTS_FAULTS=mprotect, tracer/fault.h) no page can stay open to one thread
 * while another runs, so the run is void and the buffer's page is left to
 * access breakpoints from then on; with protection keys it stays open to
 * the reader's PKRU only.  Twin: heap_pipe (the count without the mutex). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN 64

static const char msg[LEN] = "sixty-four bytes through a pipe, into a buffer on the heap......";

struct shared {
	int fd[2];
	char *buf;
	volatile long count;
	pthread_mutex_t m;
};

static void count(struct shared *s)
{
#ifdef UNLOCKED
	long c = s->count; /* a separate load and store: a lost update */
	s->count = c + 1;
#else
	pthread_mutex_lock(&s->m);
	s->count++;
	pthread_mutex_unlock(&s->m);
#endif
}

static void *reader(void *arg)
{
	struct shared *s = arg;
	size_t got = 0;
	while (got < LEN) {
		ssize_t r = read(s->fd[0], s->buf + got, LEN - got);
		assert(r > 0);
		got += (size_t)r;
	}
	count(s);
	return NULL;
}

static void *writer(void *arg)
{
	struct shared *s = arg;
	assert(write(s->fd[1], msg, LEN) == LEN);
	count(s);
	return NULL;
}

int main(void)
{
	struct shared *s = calloc(1, sizeof(*s));
	assert(s && pipe(s->fd) == 0);
	s->buf = aligned_alloc(4096, 4096); /* a page of its own */
	assert(s->buf);
	pthread_mutex_init(&s->m, NULL);
	pthread_t r, w;
	pthread_create(&r, NULL, reader, s);
	pthread_create(&w, NULL, writer, s);
	pthread_join(r, NULL);
	pthread_join(w, NULL);
	assert(memcmp(s->buf, msg, LEN) == 0);
	assert(s->count == 2);
	return 0;
}
