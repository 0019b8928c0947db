#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "tracer/wait.h"

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4
#endif

static void event_msg(struct cts_wait_event *ev)
{
	if (ptrace(PTRACE_GETEVENTMSG, ev->tid, 0, &ev->msg) != 0)
		ev->msg = 0;
}

void cts_wait_decode(pid_t tid, int status, struct cts_wait_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->tid = tid;
	ev->status = status;

	if (WIFEXITED(status)) {
		ev->kind = CTS_WEV_EXITED;
		ev->code = WEXITSTATUS(status);
		return;
	}
	if (WIFSIGNALED(status)) {
		ev->kind = CTS_WEV_KILLED;
		ev->sig = WTERMSIG(status);
		return;
	}
	int sig = WSTOPSIG(status);
	int event = (unsigned)status >> 16;
	ev->sig = sig;
	switch (event) {
	case PTRACE_EVENT_CLONE:
		ev->kind = CTS_WEV_CLONE;
		event_msg(ev);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		ev->kind = CTS_WEV_FORK;
		event_msg(ev);
		return;
	case PTRACE_EVENT_EXEC:
		ev->kind = CTS_WEV_EXEC;
		event_msg(ev);
		return;
	case PTRACE_EVENT_EXIT:
		ev->kind = CTS_WEV_EXIT;
		event_msg(ev);
		return;
	case PTRACE_EVENT_SECCOMP:
		/* Every rule is SCMP_ACT_TRACE(0): the message would always be 0
		 * (one ptrace call saved per filtered system call). */
		ev->kind = CTS_WEV_SECCOMP;
		return;
	case PTRACE_EVENT_STOP:
		/* Under PTRACE_SEIZE a group-stop reports as EVENT_STOP with its stop signal. */
		ev->kind = sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU ?
			   CTS_WEV_GROUP_STOP : CTS_WEV_STOP;
		return;
	default:
		break;
	}
	if (sig == (SIGTRAP | 0x80)) {
		ev->kind = CTS_WEV_SYSCALL;
		return;
	}
	/* Group-stop vs signal-delivery stop: only GETSIGINFO tells (EINVAL). */
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &ev->info) != 0) {
		ev->kind = errno == ESRCH ? CTS_WEV_GONE : CTS_WEV_GROUP_STOP;
		return;
	}
	if (sig == SIGTRAP) {
		switch (ev->info.si_code) {
		case SI_KERNEL:
			ev->kind = CTS_WEV_BREAKPOINT;
			return;
		case TRAP_TRACE:
		case TRAP_BRKPT: /* x86: a step that completed a syscall instruction */
			ev->kind = CTS_WEV_SINGLESTEP;
			return;
		case TRAP_HWBKPT:
			ev->kind = CTS_WEV_WATCHPOINT;
			return;
		default:
			break;
		}
	}
	ev->kind = CTS_WEV_SIGNAL;
}

const char *cts_wev_name(enum cts_wev k)
{
	static const char *const names[] = {
		"exited", "killed", "breakpoint", "single-step", "watchpoint", "signal",
		"group-stop", "syscall", "seccomp", "clone", "fork", "exec", "exit", "stop", "gone",
	};
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}
