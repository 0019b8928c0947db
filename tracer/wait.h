/* The one place a wait status becomes an event (strace's way). */
#ifndef CTS_WAIT_H
#define CTS_WAIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum cts_wev {
	CTS_WEV_EXITED,        /* thread/process exited: code */
	CTS_WEV_KILLED,        /* terminated by a signal: sig */
	CTS_WEV_BREAKPOINT,    /* int3 (SIGTRAP, SI_KERNEL) */
	CTS_WEV_SINGLESTEP,    /* SIGTRAP, TRAP_TRACE */
	CTS_WEV_WATCHPOINT,    /* SIGTRAP, TRAP_HWBKPT */
	CTS_WEV_SIGNAL,        /* signal-delivery stop: sig, info */
	CTS_WEV_GROUP_STOP,    /* group-stop: sig */
	CTS_WEV_SYSCALL,       /* syscall-enter/exit stop (TRACESYSGOOD) */
	CTS_WEV_SECCOMP,       /* PTRACE_EVENT_SECCOMP: a filtered syscall at entry */
	CTS_WEV_CLONE,         /* PTRACE_EVENT_CLONE: msg = new tid */
	CTS_WEV_FORK,          /* PTRACE_EVENT_FORK/VFORK: msg = new pid */
	CTS_WEV_EXEC,          /* PTRACE_EVENT_EXEC */
	CTS_WEV_EXIT,          /* PTRACE_EVENT_EXIT: msg = wait status to come */
	CTS_WEV_STOP,          /* PTRACE_EVENT_STOP (seize): sig */
	CTS_WEV_GONE,          /* the thread vanished while decoding (ESRCH) */
};

struct cts_wait_event {
	pid_t tid;
	enum cts_wev kind;
	int status;
	int code;               /* exit code */
	int sig;                /* signal number where relevant */
	unsigned long msg;      /* PTRACE_GETEVENTMSG (not read for SECCOMP: always 0) */
	siginfo_t info;         /* valid for SIGNAL and the SIGTRAP kinds */
	bool regs_fresh;        /* BREAKPOINT told from the registers, not the
	                         * siginfo: the thread's cached regs are current */
};

/* Decode one status returned by waitpid for tid. May issue
 * PTRACE_GETSIGINFO / GETEVENTMSG on tid. */
void cts_wait_decode(pid_t tid, int status, struct cts_wait_event *ev);
const char *cts_wev_name(enum cts_wev k);

#endif
