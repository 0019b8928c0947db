/* heap_io_ok.c — system calls whose buffers are heap memory of the calling
 * thread, while two threads live.  Correct on every schedule.
 * Each thread allocates its buffers, writes a pattern to a pipe of its own
 * from one and reads it back into another (the kernel writes the thread's
 * heap page), fills a struct stat and a struct timespec on the heap, and
 * formats into a heap string; main checks every result after the joins.
 * With protection keys break mode denies every thread the pages it does not
 * hold (tracer/fault.h): the kernel checks the caller's keys on a system
 * call's buffers, so each such call must run with the keys open, or it fails
 * with EFAULT.  No twin: nothing here can go wrong but the tracer. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LEN 20000

struct job {
	int id, fd[2];
	char *out, *in, *text;
	struct stat *st;
	struct timespec *ts;
	int ok;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	j->out = malloc(LEN);
	j->in = malloc(LEN);
	j->text = malloc(64);
	j->st = malloc(sizeof(*j->st));
	j->ts = malloc(sizeof(*j->ts));
	for (int i = 0; i < LEN; i++)
		j->out[i] = (char)(i * 7 + j->id);
	size_t done = 0;
	while (done < LEN) {	/* a pipe holds 64 KiB: no thread ever blocks here */
		ssize_t w = write(j->fd[1], j->out + done, LEN - done);
		assert(w > 0);
		ssize_t r = read(j->fd[0], j->in + done, (size_t)w);
		assert(r == w);
		done += (size_t)r;
	}
	j->ok = memcmp(j->out, j->in, LEN) == 0 && fstat(j->fd[0], j->st) == 0 &&
		S_ISFIFO(j->st->st_mode) && clock_gettime(CLOCK_MONOTONIC, j->ts) == 0 &&
		snprintf(j->text, 64, "thread %d", j->id) == 8;
	return NULL;
}

int main(void)
{
	struct job jobs[2];
	pthread_t t[2];

	for (int i = 0; i < 2; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].id = i;
		assert(pipe(jobs[i].fd) == 0);
		pthread_create(&t[i], NULL, worker, &jobs[i]);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert(jobs[i].ok);
		assert(strcmp(jobs[i].text, i ? "thread 1" : "thread 0") == 0);
		free(jobs[i].out);
		free(jobs[i].in);
		free(jobs[i].text);
		free(jobs[i].st);
		free(jobs[i].ts);
	}
	return 0;
}
