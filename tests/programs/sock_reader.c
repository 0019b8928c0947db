/* sock_reader.c — a worker thread reads one byte from a socketpair(2) that
 * main writes to, then main joins it and prints the byte.  Correct on every
 * schedule.  With the argument "wait" main writes nothing: the reader waits
 * for the world for ever.  Used by tests/e2e/interrupt.t: a socket is one
 * the world may answer, so cts-trace waits for such a reader (until
 * --timeout), and SIGINT/SIGTERM must still end it at once. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int sv[2];
static char c = '?';

static void *reader(void *arg)
{
	if (read(sv[1], &c, 1) != 1)
		c = '-';
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 2;
	pthread_create(&t, NULL, reader, NULL);
	if ((argc < 2 || strcmp(argv[1], "wait") != 0) && write(sv[0], "x", 1) != 1)
		return 2;
	pthread_join(t, NULL);
	printf("read %c\n", c);
	return 0;
}
