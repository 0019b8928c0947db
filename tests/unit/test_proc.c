/* timeout: 60 */
/* tracer/proc: /proc/PID/status fields read from this very process and a
 * child stopped with SIGSTOP (known values: our pid, parent, thread count,
 * the state letter, a blocked and a pending signal). */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer/proc.h"
#include "tests/unit/tap.h"

int main(void)
{
	char text[64];
	pid_t me = getpid();
	tap_ok(cts_proc_status_field(me, "Tgid", NULL, 0) == me, "Tgid of this process");
	tap_ok(cts_proc_status_field(me, "PPid", NULL, 0) == getppid(), "PPid");
	tap_ok(cts_proc_status_field(me, "Threads", NULL, 0) == 1, "Threads: 1");
	tap_ok(cts_proc_status_field(me, "State", text, sizeof(text)) == 0 &&
	       strncmp(text, "R (running)", 11) == 0, "State as text: '%s'", text);
	tap_ok(cts_proc_status_field(me, "NoSuchKey", text, sizeof(text)) == -1, "a missing key: -1");
	/* "Pid" must not match "PPid" nor "TracerPid": keys are anchored at a line start */
	tap_ok(cts_proc_status_field(me, "Pid", NULL, 0) == me, "Pid, not PPid's or TracerPid's");
	tap_ok(cts_proc_status_field(me, "Tgi", NULL, 0) == -1, "a key's prefix does not match");

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid_t kid = fork();
	if (kid == 0) {
		raise(SIGUSR1); /* blocked: stays pending */
		raise(SIGSTOP);
		_exit(0);
	}
	int st;
	waitpid(kid, &st, WUNTRACED);
	tap_ok(WIFSTOPPED(st), "child stopped");
	tap_ok(cts_proc_status_field(kid, "State", text, sizeof(text)) == 0 && text[0] == 'T',
	       "child's state: '%s'", text);
	struct cts_sigstate ss;
	tap_ok(cts_proc_sigstate(kid, &ss) == 0, "child's signal masks");
	tap_ok((ss.blk >> (SIGUSR1 - 1)) & 1, "SIGUSR1 blocked");
	tap_ok(((ss.pnd | ss.shd) >> (SIGUSR1 - 1)) & 1, "SIGUSR1 pending");
	pid_t *ids;
	size_t n;
	bool found = false;
	tap_ok(cts_proc_tasks(kid, &ids, &n) == 0 && n == 1 && ids[0] == kid,
	       "the child's one thread");
	free(ids);
	tap_ok(cts_proc_pids(&ids, &n) == 0, "the processes");
	for (size_t i = 0; i < n; i++)
		found |= ids[i] == kid;
	tap_ok(found, "the child among them");
	free(ids);
	char comm[32], parent[32];
	cts_proc_comm(me, parent, sizeof(parent));
	cts_proc_comm(kid, comm, sizeof(comm));
	tap_ok(comm[0] && !strchr(comm, '\n') && strcmp(comm, parent) == 0,
	       "comm without its newline: '%s'", comm);
	kill(kid, SIGKILL);
	waitpid(kid, &st, 0);
	cts_proc_comm(kid, comm, sizeof(comm));
	tap_ok(!comm[0], "a reaped child's comm: empty");
	tap_ok(cts_proc_tasks(kid, &ids, &n) == -1 && !ids && !n, "a reaped child's tasks: -1");
	tap_ok(cts_proc_status_field(kid, "Tgid", NULL, 0) == -1, "a reaped child: -1");
	tap_plan(tap_n);
	return tap_failed != 0;
}
