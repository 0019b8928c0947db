/* The fork server: a copy of the program stopped at main from which every
 * run after the first is forked (an injected clone(2)), instead of exec'd. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/native.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/wait.h"

/* The server's options are every run's (its children inherit them): its
 * runs' own forks and execs are followed (they run free); the server itself
 * never forks but by the injected clone, nor execs. */
#define RUN_PTRACE_OPTIONS                                                                      \
	(PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT | PTRACE_O_TRACESYSGOOD |  \
	 PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC)

/* Make the process stopped at main the fork server, if glibc looks as
 * expected. */
bool cts_tr_become_server(struct cts_tracer *tr, const struct user_regs_struct *regs)
{
	uint32_t tid = 0;
	if (cts_mem_read(tr->pid, regs->fs_base + GLIBC_TID_OFFSET, &tid, 4) != 0 ||
	    tid != (uint32_t)tr->pid)
		return false;
	if (ptrace(PTRACE_SETOPTIONS, tr->pid, 0, (void *)RUN_PTRACE_OPTIONS) != 0)
		return false;
	tr->server = tr->pid;
	tr->server_regs = *regs;
	tr->pid = 0;
	for (size_t i = 0; i < tr->bpcap; i++)
		tr->bps[i].in_server = tr->bps[i].addr && cts_tr_bp_in_text(tr, &tr->bps[i], true);
	tr->bps_dirty = false;
	return true;
}

/* One run's process: the server runs an injected clone(2) the way glibc's
 * fork does, and the child, stopped at main, is the program (PTRACE-NOTES'
 * fork-server recipe). Breakpoints, the seccomp filter and ASLR-off come with
 * the copy. Returns the child's pid, or -1. */
pid_t cts_tr_fork_from_server(struct cts_tracer *tr)
{
	static const uint8_t code[3] = { 0x0f, 0x05, 0xcc }; /* syscall; int3 */
	pid_t srv = tr->server, child = 0;
	struct user_regs_struct r = tr->server_regs;
	uint8_t saved[3];
	int status;
	bool child_stopped = false, server_back = false;
	/* The stub page has syscall; int3 of its own: no text to patch and
	 * put back in the server and the child (and no copy of main's page). */
	bool patch = !tr->stub_syscall;

	if (patch && (cts_mem_read(srv, r.rip, saved, 3) != 0 || cts_mem_write(srv, r.rip, code, 3) != 0))
		return -1;
	if (!patch)
		r.rip = tr->stub_syscall;
	r.rax = SYS_clone;
	r.rdi = CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_PARENT | SIGCHLD;
	r.rsi = 0;
	r.rdx = 0;
	r.r10 = tr->server_regs.fs_base + GLIBC_TID_OFFSET;
	r.r8 = 0;
	if (ptrace(PTRACE_SETREGS, srv, 0, &r) != 0 || ptrace(PTRACE_CONT, srv, 0, 0) != 0)
		goto fail;
	while (!server_back || !child_stopped) {
		pid_t w = waitpid(-1, &status, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		/* The child's first stop and the server's int3 after the fork
		 * event are told from the status alone (no PTRACE_GETSIGINFO). */
		bool plain = WIFSTOPPED(status) && (status >> 16) == 0;
		if (plain && w != srv && WSTOPSIG(status) == SIGSTOP) {
			child = child ? child : w;
			child_stopped = true;
			continue;
		}
		if (plain && w == srv && WSTOPSIG(status) == SIGTRAP && child) {
			server_back = true;
			continue;
		}
		struct cts_wait_event ev;
		cts_wait_decode(w, status, &ev);
		if (w == srv) {
			if (ev.kind == CTS_WEV_FORK) {
				child = (pid_t)ev.msg;
			} else if (ev.kind == CTS_WEV_BREAKPOINT) {
				server_back = true;
				continue;
			} else if (ev.kind == CTS_WEV_EXITED || ev.kind == CTS_WEV_KILLED) {
				tr->server = 0;
				return -1;
			}
			ptrace(PTRACE_CONT, srv, 0, 0);
		} else if (ev.kind == CTS_WEV_SIGNAL || ev.kind == CTS_WEV_GROUP_STOP ||
			   ev.kind == CTS_WEV_STOP) {
			child = child ? child : w;
			child_stopped = true;
		} else if (ev.kind == CTS_WEV_EXITED || ev.kind == CTS_WEV_KILLED) {
			goto fail;
		}
	}
	/* The server's registers stay as the clone left them: the next fork
	 * sets them all before it runs again. */
	if (patch) {
		cts_mem_write(srv, tr->server_regs.rip, saved, 3);
		ptrace(PTRACE_SETREGS, srv, 0, &tr->server_regs);
	}
	/* The child is a copy made mid-injection: put main back in it too. Its
	 * ptrace options are the server's (an auto-attached child inherits
	 * them), so no PTRACE_SETOPTIONS. */
	if (patch)
		cts_mem_write(child, tr->server_regs.rip, saved, 3);
	ptrace(PTRACE_SETREGS, child, 0, &tr->server_regs);
	/* Its own process group, as an exec'd run has: the program's kill(0)
	 * must not reach the server. */
	setpgid(child, child);
	cts_view_inherit(tr->view, srv, child);
	return child;
fail:
	if (patch)
		cts_mem_write(srv, tr->server_regs.rip, saved, 3);
	ptrace(PTRACE_SETREGS, srv, 0, &tr->server_regs);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, __WALL);
	}
	return -1;
}

void cts_tr_stop_server(struct cts_tracer *tr)
{
	int status;
	if (tr->server <= 0)
		return;
	kill(tr->server, SIGKILL);
	while (waitpid(tr->server, &status, __WALL) == tr->server && WIFSTOPPED(status))
		ptrace(PTRACE_CONT, tr->server, 0, 0);
	tr->server = 0;
}
