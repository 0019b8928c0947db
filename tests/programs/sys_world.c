/* sys_world.c — a thread sleeps forever in read() on a pipe whose other end
 * a child process holds (the child itself waits for input that never comes).
 * Nothing in the program is wrong and nothing can be shown stuck: the world
 * outside might still write. Every run waits for it until --timeout, and the
 * run is reported as cut by the timeout with the thread named as blocked
 * outside the schedule, never as a deadlock.
 * Expected: every run times out, thread 1 blocked in read outside the
 * schedule.  Minimal mode: sync. */
#include <pthread.h>
#include <unistd.h>

static int fds[2], hold[2];

static void *reader(void *arg)
{
	char c;
	(void)read(fds[0], &c, 1);
	return arg;
}

int main(void)
{
	pthread_t t;
	char c;

	if (pipe(fds) != 0 || pipe(hold) != 0)
		return 2;
	if (fork() == 0) {
		close(hold[1]);
		(void)read(hold[0], &c, 1);	/* the parent never writes: waits forever */
		_exit(0);
	}
	pthread_create(&t, NULL, reader, NULL);
	pthread_join(t, NULL);
	return 0;
}
