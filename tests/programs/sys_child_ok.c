/* sys_child_ok.c — I/O with the world outside the program: a child process
 * writes into a pipe that a reader thread sleeps on, and the main thread
 * waits for the child with waitpid(). Both calls sleep in the kernel until
 * the child (which runs free, outside any schedule) acts; the other threads
 * are scheduled meanwhile and the explorer waits for the sleepers when
 * nothing else can run.
 * Expected: clean on every schedule.  Minimal mode: sync. */
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int fds[2];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char got[8];

static void *reader(void *arg)
{
	char buf[8] = "";
	ssize_t n = 0, r;
	while (n < 5 && (r = read(fds[0], buf + n, (size_t)(5 - n))) > 0)
		n += r;
	pthread_mutex_lock(&m);
	memcpy(got, buf, sizeof(got));
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t t;
	int status;

	if (pipe(fds) != 0)
		return 2;
	pthread_create(&t, NULL, reader, NULL);
	pid_t child = fork();
	if (child == 0) {
		ssize_t w = write(fds[1], "hello", 5);
		_exit(w == 5 ? 0 : 1);
	}
	assert(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0);
	pthread_join(t, NULL);
	assert(strcmp(got, "hello") == 0);
	return 0;
}
