/* attach_traced.c — a process that is already traced, for `cts-trace -p`'s
 * bad-input test: it forks a child that sleeps, seizes it with ptrace,
 * prints the child's pid and waits until its standard input ends (then the
 * child is killed). No bug: a helper. */
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	char buf[16];
	pid_t c = fork();
	if (c == 0) {
		for (;;)
			pause();
	}
	if (ptrace(PTRACE_SEIZE, c, 0, 0) != 0) {
		perror("PTRACE_SEIZE");
		kill(c, SIGKILL);
		return 1;
	}
	printf("%d\n", (int)c);
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	kill(c, SIGKILL);
	waitpid(c, NULL, __WALL);
	return 0;
}
