/* attach_spawn.c — creates threads without end, one at a time: each adds 1
 * to var under a mutex and exits, main joins it.  A reader thread waits for
 * the end of standard input; then main stops and prints how many threads
 * ran and whether var counted every one.  For attach mode past
 * --max-threads: cts-trace must detach and leave the process alive (a
 * thread let run into an int3, or with a debug register still armed on
 * var, would kill it with SIGTRAP).  No bug. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile long var;
static long n;
static volatile int done;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *bump(void *arg)
{
	pthread_mutex_lock(&m);
	var = var + 1;
	pthread_mutex_unlock(&m);
	return arg;
}

static void *reader(void *arg)
{
	char c;
	while (read(0, &c, 1) > 0)
		;
	done = 1;
	return arg;
}

int main(void)
{
	pthread_t r, t;
	pthread_create(&r, NULL, reader, NULL);
	while (!done) {
		pthread_create(&t, NULL, bump, NULL);
		pthread_join(t, NULL);
		n++;
		usleep(200); /* not frantic: the attach itself is not what is tested */
	}
	pthread_join(r, NULL);
	printf("%s\n", var == n && n > 0 ? "var counted every thread" : "var wrong");
	return 0;
}
