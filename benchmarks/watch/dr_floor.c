/* dr_floor PID ADDR: the floor of the watchpoint trap benchmark (catch.sh,
 * part "attach"): the least a tracer does per debug-register trap. Seizes
 * every thread of process PID, arms DR0 on the 8 bytes at ADDR (reads and
 * writes, as cts-trace's --watch does), prints "armed", then per trap:
 * wait4, DR6 read (PEEKUSER), DR6 reset (POKEUSER), the registers
 * (GETREGS), PTRACE_CONT. Other stops are continued with their signal.
 * Ends when PID exits; prints the number of traps. */
#include <dirent.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#define DR(i) offsetof(struct user, u_debugreg[i])

static int arm(pid_t tid, unsigned long addr)
{
	int st;
	/* DR7: L0, RW0 = 11 (reads and writes), LEN0 = 10 (8 bytes) */
	unsigned long dr7 = 1 | 3UL << 16 | 2UL << 18;
	if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0 || ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0 ||
	    waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st))
		return -1;
	if (ptrace(PTRACE_POKEUSER, tid, DR(0), (void *)addr) != 0 ||
	    ptrace(PTRACE_POKEUSER, tid, DR(7), (void *)dr7) != 0)
		return -1;
	return ptrace(PTRACE_CONT, tid, 0, 0);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dr_floor PID ADDR\n");
		return 2;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	unsigned long addr = strtoul(argv[2], NULL, 0);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	if (!d)
		return 1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && arm((pid_t)atoi(e->d_name), addr) != 0) {
			perror("dr_floor: arming");
			return 1;
		}
	closedir(d);
	printf("armed\n");
	fflush(stdout);

	long traps = 0;
	struct user_regs_struct regs;
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0)
			break;
		if (!WIFSTOPPED(st)) {
			if (w == pid)
				break;
			continue;
		}
		int sig = WSTOPSIG(st);
		if (sig == SIGTRAP && (st >> 16) == 0) {
			long dr6 = ptrace(PTRACE_PEEKUSER, w, DR(6), 0);
			(void)dr6;
			ptrace(PTRACE_POKEUSER, w, DR(6), 0);
			ptrace(PTRACE_GETREGS, w, 0, &regs);
			traps++;
			sig = 0;
		} else if ((st >> 16) != 0) {
			sig = 0; /* an event or interrupt stop */
		}
		ptrace(PTRACE_CONT, w, 0, (void *)(long)sig);
	}
	printf("%ld traps\n", traps);
	return 0;
}
