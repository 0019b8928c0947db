/* write_after_join_ok.c — a worker fills a buffer of its own; main joins
 * it and hands the buffer to write(2) on a pipe without touching it first,
 * then reads it back and compares (plzip's output thread does the same with
 * its workers' packets). Under break mode's mprotect mechanism the
 * worker's pages stayed closed after the last other thread ended (opened
 * lazily, at main's first fault there), and the kernel's read of the buffer
 * failed: write returned EFAULT. A system call must behave as without cts.
 * Expected: clean on every schedule, race-free.  Minimal mode: break. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN 16384

static void *worker(void *arg)
{
	(void)arg;
	char *buf = malloc(LEN);
	if (!buf)
		abort();
	for (int i = 0; i < LEN; i++)
		buf[i] = (char)('a' + i % 26);
	return buf;
}

int main(void)
{
	pthread_t t;
	void *ret;
	int fd[2];
	static char back[LEN], want[LEN];

	if (pipe(fd) != 0 || pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	pthread_join(t, &ret);
	const char *buf = ret;
	/* LEN fits a pipe's buffer: the write does not block */
	if (write(fd[1], buf, LEN) != LEN)
		abort();
	size_t got = 0;
	while (got < LEN) {
		ssize_t n = read(fd[0], back + got, LEN - got);
		if (n <= 0)
			abort();
		got += (size_t)n;
	}
	for (int i = 0; i < LEN; i++)
		want[i] = (char)('a' + i % 26);
	if (memcmp(back, want, LEN) != 0)
		abort();
	free(ret);
	return 0;
}
