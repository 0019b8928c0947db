/* leave_child.c — the program leaves a multithreaded child process running
 * when it exits (issue 27 item 7). No bug: cts-trace must end the run, kill
 * the child with all its threads and exit, leaving nothing stopped or
 * running (it hung for good waiting on the child's leader while the child's
 * other threads, its tracees, sat stopped).
 *   leave_child fork [N]  N children (default 1), each forks, starts a
 *                         thread that sleeps for ever, and says so on a pipe;
 *                         main returns once every child's thread exists
 *   leave_child popen     popen of "exec leave_child helper" (3 threads),
 *                         one line read, no pclose
 *   leave_child setsid    as fork, the child in a session of its own
 *   leave_child helper    the popen'd helper: 2 more threads, a line on
 *                         stdout, then sleeps for ever */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fds[2];

static void *sleeper(void *arg)
{
	if (arg)
		(void)!write(fds[1], "x", 1);
	for (;;)
		pause();
	return NULL;
}

static void child(int own_session)
{
	pthread_t t;
	if (own_session)
		setsid();
	pthread_create(&t, NULL, sleeper, (void *)1);
	pthread_join(t, NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "fork";
	pthread_t t;
	char c, line[64];

	if (strcmp(how, "helper") == 0) {
		pthread_create(&t, NULL, sleeper, NULL);
		pthread_create(&t, NULL, sleeper, NULL);
		puts("ready");
		fflush(stdout);
		sleeper(NULL);
	}
	if (strcmp(how, "popen") == 0) {
		char cmd[4200];
		snprintf(cmd, sizeof(cmd), "exec '%s' helper", argv[0]);
		FILE *f = popen(cmd, "r");
		return f && fgets(line, sizeof(line), f) ? 0 : 1;
	}
	int n = argc > 2 ? atoi(argv[2]) : 1;
	if (pipe(fds) != 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (fork() == 0)
			child(strcmp(how, "setsid") == 0);
	for (int i = 0; i < n; i++)
		if (read(fds[0], &c, 1) != 1) /* that child's second thread exists */
			return 1;
	return 0;
}
