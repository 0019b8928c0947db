/* The event pump: waits for the program's stops and dispatches each (wait.c
 * decodes it) to the breakpoint, syscall, access and crash handlers until the
 * running thread reaches its next visible operation. Also: processes the
 * program forks (run free), the time slice, the run timeout, ^C. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "disasm/disasm.h"
#include "models/error.h"
#include "models/objmodel.h"
#include "models/symbolize.h"
#include "tracer/native.h"
#include "tracer/access.h"
#include "tracer/fault.h"
#include "tracer/proc.h"
#include "tracer/pfilter.h"
#include "tracer/run_int.h"
#include "tracer/wait.h"

static volatile sig_atomic_t alarm_fired;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_fired = 1;
}

void cts_tr_catch_alarm(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: waitpid must return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
}

void cts_tr_clear_alarm(void)
{
	alarm_fired = 0;
}

double cts_tr_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The clock of the run's timeout and of the time slice: wall time without
 * the machine's stalls. It is read at every step and every tick (each
 * slice), so a longer gap since the last reading means that nothing of
 * ours ran meanwhile: a loaded or paused machine (gaps of 1-3 s seen on a
 * shared 2-CPU VM, in several tracers at once). Such a gap counts as two
 * ticks: a stall ended runs of a correct program as inconclusive at a 2 s
 * --timeout and probed threads that had not run for a slice. */
double cts_tr_run_clock(struct cts_tracer *tr)
{
	double now = cts_tr_now_s(), gap = now - tr->clock_at;
	double two = 2 * tr->slice_us * 1e-6;
	tr->clock += gap < two ? gap : two;
	tr->clock_at = now;
	return tr->clock;
}

static int on_breakpoint(struct cts_tracer *tr, struct thread *th, struct cts_wait_event *ev)
{
	(void)ev;
	tr->stats.bp_hits++;
	if (cts_tr_getregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	uint64_t addr = th->regs.rip - 1;
	struct bp *b = cts_tr_bp_find(tr, addr);
	if (!b || !b->active) {
		/* The program's own int3: deliver SIGTRAP as the kernel would. */
		return cts_tr_resume(tr, th, SIGTRAP);
	}
	if (!b->entry) {
		th->regs.rip = addr; /* a stub's trap goes on from past its int3 */
		th->regs_dirty = true;
	}
	if (th->ret_pc == addr)
		cts_tr_libcall_returned(tr, th);
	switch (b->kind) {
	case BP_SYNC:
		return cts_tr_on_sync_bp(tr, th, b);
	case BP_LIBCALL:
		return cts_tr_on_libcall_bp(tr, th, b);
	case BP_LIBRET:
		return cts_tr_on_libret_bp(tr, th, b);
	case BP_ACCESS:
	case BP_RETURN:
		return cts_access_hit(tr, th, b);
	}
	return -1;
}

/* Is th, just stepped over b, still inside b's rep string instruction? */
static bool rep_unfinished(struct thread *th, const struct bp *b)
{
	return b->kind == BP_ACCESS && b->insn && b->insn->rep &&
	       b->insn->access == CTS_ACC_STRING && cts_tr_getregs(th) == 0 &&
	       th->regs.rip == b->addr && th->regs.rcx != 0;
}

/* ---- the event pump ------------------------------------------------------- */

static bool fatal_signal(int sig)
{
	switch (sig) {
	case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGABRT: case SIGSYS:
	case SIGTRAP:
		return true;
	default:
		return false;
	}
}

static void on_crash(struct cts_tracer *tr, struct thread *th, const struct cts_wait_event *ev)
{
	cts_tr_getregs(th);
	/* In a stub's copy of libc's first instructions: the same state at
	 * the original instruction, where the unwinder knows the frame. */
	uint64_t orig = cts_tr_stub_orig_pc(tr, th->regs.rip);
	if (orig) {
		th->regs.rip = orig;
		cts_tr_setregs(th);
	}
	tr->st->status = CTS_RUN_SIGNALED;
	tr->st->sig = ev->sig;
	tr->st->fault_tid = th->num;
	tr->st->fault_pc = th->regs.rip;
	tr->st->fault_addr = (uint64_t)ev->info.si_addr;
	tr->st->message[0] = 0;
	/* Unwinding needs a handle on this very process: one per crash is fine. */
	struct cts_sym *cs = tr->cfg.symbolize ? cts_sym_new(tr->pid) : NULL;
	if (cs) {
		uint64_t pcs[16];
		int n = cts_sym_stack(cs, th->tid, pcs, 16);
		size_t off = 0;
		for (int i = 0; i < n && off < sizeof(tr->st->message) - 1; i++) {
			char where[256];
			cts_sym_format_frame(cs, pcs[i], i > 0, where, sizeof(where));
			int w = snprintf(tr->st->message + off, sizeof(tr->st->message) - off,
					 "    #%d %s\n", i, where);
			if (w < 0)
				break;
			off += (size_t)w;
		}
		cts_sym_free(cs);
	}
	th->state = TH_HELD;
}

/* The pthread_t of the thread th's clone just made: the TLS pointer it
 * gave the child (CLONE_SETTLS), 0 if none. Known at the clone event, so a
 * join reached before the child's first stop names the new thread, not a
 * reaped one whose descriptor glibc reused. */
static uint64_t clone_tls(struct thread *th)
{
	uint64_t flags = 0, tls = 0;
	if (cts_tr_getregs(th) != 0)
		return 0;
	if (th->regs.orig_rax == SYS_clone3) {
		/* struct clone_args: flags at 0, tls at 56 (one read of both) */
		uint64_t args[8];
		if (cts_mem_read(th->tid, th->regs.rdi, args, sizeof(args)) != 0)
			return 0;
		flags = args[0];
		tls = args[7];
	} else if (th->regs.orig_rax == SYS_clone) {
		flags = th->regs.rdi;
		tls = th->regs.r8;
	}
	return flags & CLONE_SETTLS ? tls : 0;
}

static int on_new_stop(struct cts_tracer *tr, struct thread *th)
{
	/* A new thread's first stop. Its pthread_t is its TLS pointer. */
	if (cts_tr_getregs(th) == 0) {
		th->handle = th->regs.fs_base;
		th->pending.pc = th->regs.rip;
	}
	if (tr->cfg.nwatch || tr->ct)
		cts_access_watch_thread(tr, th);
	cts_fault_thread_start(tr, th);
	cts_event_init(&th->pending, th->num, CTS_OP_START);
	cts_tr_hold(tr, th, AT_START);
	return 0;
}

/* Processes the program forks (system(), popen) are followed only so that
 * they run free: their inherited seccomp filter needs a tracer, or their
 * futex and exit calls would fail with ENOSYS. */
static bool is_foreign(const struct cts_tracer *tr, pid_t tid)
{
	for (int i = 0; i < tr->nforeign; i++)
		if (tr->foreign[i] == tid)
			return true;
	return false;
}

static void add_foreign(struct cts_tracer *tr, pid_t tid)
{
	if (tid <= 0 || is_foreign(tr, tid))
		return;
	if ((size_t)tr->nforeign == tr->foreigncap) {
		tr->foreigncap = tr->foreigncap ? 2 * tr->foreigncap : 16;
		tr->foreign = cts_xrealloc(tr->foreign, tr->foreigncap * sizeof(*tr->foreign));
	}
	tr->foreign[tr->nforeign++] = tid;
}

void cts_tr_forget_foreign(struct cts_tracer *tr, pid_t tid)
{
	for (int i = 0; i < tr->nforeign; i++)
		if (tr->foreign[i] == tid)
			tr->foreign[i] = tr->foreign[--tr->nforeign];
}

static pid_t tgid_of(pid_t tid)
{
	long tgid = cts_proc_status_field(tid, "Tgid", NULL, 0);
	return tgid > 0 ? (pid_t)tgid : 0;
}

/* A forked child runs a copy of our breakpoints (a vfork child runs on the
 * very same text): step it over the original instruction, as if none. */
static int foreign_breakpoint(struct cts_tracer *tr, pid_t pid)
{
	struct user_regs_struct regs;
	int status;
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) != 0)
		return errno == ESRCH ? 0 : -1;
	struct bp *b = cts_tr_bp_find(tr, regs.rip - 1);
	if (!b || b->entry) /* the program's own int3, or a stub's trap: go on */
		return ptrace(PTRACE_CONT, pid, 0, (void *)(long)(b ? 0 : SIGTRAP)) == 0 ||
		       errno == ESRCH ? 0 : -1;
	uint8_t cc = 0xCC;
	regs.rip--;
	if (ptrace(PTRACE_SETREGS, pid, 0, &regs) != 0 || cts_mem_write(pid, b->addr, &b->orig, 1) != 0 ||
	    ptrace(PTRACE_SINGLESTEP, pid, 0, 0) != 0)
		return errno == ESRCH ? 0 : -1;
	if (waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status))
		return 0; /* gone */
	cts_mem_write(pid, b->addr, &cc, 1);
	return ptrace(PTRACE_CONT, pid, 0, 0) == 0 || errno == ESRCH ? 0 : -1;
}

/* Let a thread we do not schedule go on, with the signal it stopped for. */
static int run_free(const struct cts_wait_event *ev)
{
	int sig = ev->kind == CTS_WEV_SIGNAL && ev->sig != SIGSTOP ? ev->sig : 0;
	if (ptrace(PTRACE_CONT, ev->tid, 0, (void *)(long)sig) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

static int foreign_event(struct cts_tracer *tr, const struct cts_wait_event *ev)
{
	if (ev->kind == CTS_WEV_SIGNAL && ev->sig == SIGSTOP)
		cts_fault_foreign(tr, ev->tid); /* a fork's first stop */
	add_foreign(tr, ev->tid);
	if (ev->kind == CTS_WEV_BREAKPOINT)
		return foreign_breakpoint(tr, ev->tid);
	if (ev->kind == CTS_WEV_SECCOMP) {
		cts_tr_sys_guard_free(tr, ev->tid);
		cts_view_free_call(tr->view, ev->tid);
	}
	if (ev->kind == CTS_WEV_FORK)
		add_foreign(tr, (pid_t)ev->msg);
	return run_free(ev);
}

/* Wait until a tracee of ours is gone, continuing its stops. A thread that
 * cannot be waited for (ECHILD) is not ours or was reaped already. */
static void reap_tracee(pid_t tid)
{
	int status;
	for (;;) {
		pid_t r = waitpid(tid, &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue; /* SIGKILLed: it is on its way out */
		if (r != tid || !WIFSTOPPED(status))
			return;
		ptrace(PTRACE_CONT, tid, 0, 0);
	}
}

/* Every thread of a killed process, its leader last: the kernel reports a
 * leader's death only once its other threads are reaped, and those are our
 * tracees too, so a wait on the leader alone never returns (issue 27 item
 * 7: a child left running with threads hung cts-trace for good). The task
 * list is read again until the leader is alone: a thread created while the
 * SIGKILL came is in it by then. */
static void reap_process(pid_t any_tid)
{
	long tgid = cts_proc_status_field(any_tid, "Tgid", NULL, 0);
	pid_t leader = tgid > 0 ? (pid_t)tgid : any_tid;
	for (int round = 0; round < 1000; round++) {
		pid_t *tids = NULL;
		size_t n = 0;
		bool others = false;
		if (cts_proc_tasks(leader, &tids, &n) == 0)
			for (size_t i = 0; i < n; i++)
				if (tids[i] != leader) {
					others = true;
					reap_tracee(tids[i]);
				}
		free(tids);
		if (!others)
			break;
	}
	reap_tracee(leader);
}

/* The processes the program started are killed with the run, whatever
 * they do: threads of their own, a session of their own (setsid). The
 * run's process group (group: its leader's pid) goes too, for a process
 * whose fork we had not seen yet; only while one of ours, unreaped, is in
 * it and so holds its id (never another group a process moved to). */
void cts_tr_kill_foreign(struct cts_tracer *tr, pid_t group)
{
	for (int i = 0; i < tr->nforeign; i++) {
		pid_t p = tr->foreign[i];
		bool in_group = group > 0 && getpgid(p) == group;
		kill(p, SIGKILL);
		if (in_group)
			kill(-group, SIGKILL);
	}
	for (int i = 0; i < tr->nforeign; i++)
		reap_process(tr->foreign[i]);
	tr->nforeign = 0;
}

static void mark_all_dead(struct cts_tracer *tr)
{
	for (int i = 0; i < tr->nlive; i++)
		if (tr->live[i]->state != TH_DEAD)
			cts_tr_mark_dead(tr, tr->live[i]);
}

/* Signals that ask a process to end: a death by one is the program's (or
 * its sender's) choice, not a fault. */
static bool termination_request(int sig)
{
	return sig == SIGTERM || sig == SIGKILL || sig == SIGINT || sig == SIGHUP;
}

/* The program's process is gone (the leader's status, which comes last).
 * How a death by signal is judged (docs/design.md, "How a run ends"): the
 * crash signals are seen at their delivery (on_crash) and are bugs; a
 * termination request (SIGTERM, SIGINT, SIGHUP, SIGKILL) ends the run like an
 * exit with status 128+N, a bug only with --fail-on-exit; any other signal
 * whose default action ended the process (SIGUSR1 with no handler, SIGPIPE,
 * SIGALRM) arrived where the program did not expect it: a crash. */
static void process_gone(struct cts_tracer *tr, const struct cts_wait_event *ev)
{
	struct cts_run_state *st = tr->st;
	mark_all_dead(tr);
	tr->pid_reaped = true;
	if (st->status != CTS_RUN_ACTIVE)
		return;
	if (cts_tr_interrupted()) {
		st->status = CTS_RUN_INTERRUPTED;
		snprintf(st->message, sizeof(st->message), "interrupted");
	} else if (ev->kind == CTS_WEV_EXITED) {
		st->status = CTS_RUN_EXITED;
		st->exit_code = ev->code;
	} else if (fatal_signal(ev->sig)) {
		/* Not seen at delivery: a crash of the image an exec started. */
		st->status = CTS_RUN_SIGNALED;
		st->sig = ev->sig;
		if (!st->fault_pc)
			st->fault_tid = tr->running ? tr->running->num : 0;
		snprintf(st->message, sizeof(st->message),
			 "    in the program thread %d exec'd\n", st->fault_tid);
	} else if (!termination_request(ev->sig) && !tr->exec_free) {
		st->status = CTS_RUN_SIGNALED;
		st->sig = ev->sig;
		if (!st->fault_pc)
			st->fault_tid = tr->running ? tr->running->num : 0;
	} else {
		st->status = CTS_RUN_EXITED;
		st->exit_code = 128 + ev->sig;
		st->exit_sig = ev->sig;
		st->exit_sig_self = ev->sig == tr->self_sig;
	}
}

/* A signal some thread is about to take: remember whether the program (its
 * process or a process it forked) sent it, for process_gone. */
static void note_sender(struct cts_tracer *tr, const struct cts_wait_event *ev)
{
	pid_t from = ev->info.si_pid;
	if (ev->info.si_code <= 0 && (from == tr->pid || is_foreign(tr, from)))
		tr->self_sig = ev->sig;
}

/* A thread exec'd: execve ended every other thread, and the execing thread
 * now has the leader's tid. The new image is another program, not the one
 * under test: it runs free (untraced but for this pass-through) to its end,
 * and its exit is the run's (docs/design.md, "How a run ends"). */
static int on_exec(struct cts_tracer *tr, const struct cts_wait_event *ev)
{
	tr->exec_free = true; /* first: the threads' deaths must not touch the new image's text */
	mark_all_dead(tr);
	tr->proc_exiting = true;
	return run_free(ev);
}

static int after_exec_event(struct cts_tracer *tr, const struct cts_wait_event *ev)
{
	bool gone = ev->kind == CTS_WEV_EXITED || ev->kind == CTS_WEV_KILLED;
	if (gone && ev->tid == tr->pid)
		process_gone(tr, ev);
	else if (gone || ev->kind == CTS_WEV_GONE)
		cts_tr_forget_foreign(tr, ev->tid);
	else if (ev->kind == CTS_WEV_FORK)
		add_foreign(tr, (pid_t)ev->msg);
	if (gone || ev->kind == CTS_WEV_GONE)
		return 0;
	if (ev->kind == CTS_WEV_SECCOMP)
		cts_view_free_call(tr->view, ev->tid);
	return run_free(ev);
}

static int dispatch(struct cts_tracer *tr, struct cts_wait_event *ev)
{
	if (ev->kind == CTS_WEV_CLONE || ev->kind == CTS_WEV_FORK)
		cts_view_inherit(tr->view, ev->tid, (pid_t)ev->msg);
	else if (ev->kind == CTS_WEV_EXITED || ev->kind == CTS_WEV_KILLED)
		cts_view_forget(tr->view, ev->tid);
	if (tr->exec_free)
		return after_exec_event(tr, ev);
	struct thread *th = cts_tr_by_tid(tr, ev->tid);

	if (!th) {
		if (ev->kind == CTS_WEV_EXITED || ev->kind == CTS_WEV_KILLED) {
			cts_tr_forget_foreign(tr, ev->tid);
			return 0;
		}
		if (is_foreign(tr, ev->tid) || tgid_of(ev->tid) != tr->pid)
			return foreign_event(tr, ev);
		/* A new thread reported before its clone event: remember it. */
		cts_tr_add_early(tr, ev->tid);
		return 0;
	}
	if (!ev->regs_fresh)
		th->regs_valid = false;
	th->last_stop = ev->kind;
	switch (ev->kind) {
	case CTS_WEV_EXITED:
	case CTS_WEV_KILLED:
		if (th->tid == tr->pid) {
			process_gone(tr, ev);
			return 0;
		}
		cts_tr_mark_dead(tr, th);
		cts_tr_reaped(tr, th);
		return 0;
	case CTS_WEV_GONE:
		return 0;
	case CTS_WEV_BREAKPOINT:
		return on_breakpoint(tr, th, ev);
	case CTS_WEV_SINGLESTEP:
		th->stepping_over = false;
		if (th->pkru_open && !th->flt_sys)
			cts_fault_close(tr, th);
		if (tr->cfg.nwatch || tr->ct)
			cts_access_watch_step(tr, th, ev->info.si_code == TRAP_TRACE);
		if (th->probing)
			return cts_access_probe_step(tr, th);
		if (th->stepping_bp) {
			struct bp *b = cts_tr_bp_find(tr, th->stepping_bp);
			/* A rep string instruction does one element per step. Its
			 * access was decided at its int3 for every element left
			 * (disasm.h's string ranges), as a library call's range
			 * is: the rest run in the same step, not one scheduling
			 * point per element (an inlined 4 KiB memset on a freed
			 * block's lines was 512 steps). --watch reports each
			 * element that touches its bytes: those come back. */
			if (b && !tr->cfg.nwatch && !tr->ct && rep_unfinished(th, b))
				return cts_tr_single_step_over(tr, th, b, th->after_step);
			th->stepping_bp = 0;
			if (b && cts_tr_bp_in_text(tr, b, false))
				cts_tr_bp_plant(tr, b);
		}
		if (th->after_step)
			return cts_access_after_step(tr, th);
		if (th->stepping)
			return cts_access_single_step(tr, th);
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_WATCHPOINT:
		return cts_access_watch_hit(tr, th, (uint64_t)(uintptr_t)ev->info.si_addr);
	case CTS_WEV_SIGNAL:
		if (th->state == TH_NEW && ev->sig == SIGSTOP)
			return on_new_stop(tr, th);
		if (ev->sig == SIGSTOP && th->probe_requested) {
			th->probe_requested = false;
			/* Mid-step over a breakpoint: finish the step, probe later. */
			if (th->stepping_bp || th->after_step)
				return cts_tr_resume(tr, th, 0);
			return cts_access_probe_start(tr, th);
		}
		/* A signal ends a spin probe: resumed by PTRACE_CONT (a handler
		 * is not stepped through), a thread left marked probing would
		 * never be probed again nor take the quick breakpoint path. */
		if (ev->sig == SIGSEGV && cts_fault_ours(tr, &ev->info))
			return cts_access_fault(tr, th, (uint64_t)ev->info.si_addr);
		th->probing = false;
		if (ev->sig == SIGSTOP)
			return cts_tr_resume(tr, th, 0);
		if (fatal_signal(ev->sig)) {
			on_crash(tr, th, ev);
			return 0;
		}
		note_sender(tr, ev);
		/* A signal sent by the program that ends it (SIGUSR1's default):
		 * every thread's exit must be waited for, held ones included. */
		if (cts_tr_sys_signal_kills(th, ev->sig)) {
			tr->proc_exiting = true;
			tr->st->fault_tid = th->num; /* who it was delivered to, and where */
			if (cts_tr_getregs(th) == 0)
				tr->st->fault_pc = th->regs.rip;
		}
		return cts_tr_resume(tr, th, ev->sig);
	case CTS_WEV_GROUP_STOP:
		if (th->state == TH_NEW)
			return on_new_stop(tr, th);
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_SECCOMP:
		return cts_tr_on_seccomp(tr, th);
	case CTS_WEV_CLONE: {
		pid_t ntid = (pid_t)ev->msg;
		struct thread *nt = cts_tr_new_thread(tr, ntid);
		if (!nt) {
			/* A limit of cts, not a fault of it nor of the program. */
			cts_tr_set_error(tr, "%s creates more than %d threads in one run (counting "
					 "every thread created; raise --max-threads)", tr->cfg.path,
					 cts_run_state_limit(tr->st));
			tr->st->bad_input = true;
			return -1;
		}
		tr->last_created = nt->num;
		nt->pf_head = th->pf_head; /* the kernel copies the creator's filters */
		nt->handle = clone_tls(th);
		cts_tr_publish(tr, nt);
		if (cts_access_threads_changed(tr) != 0)
			return -1;
		for (int i = 0; i < tr->nearly; i++) {
			if (tr->early[i] == ntid) {
				tr->early[i] = tr->early[--tr->nearly];
				/* at its first stop, reported before this event:
				 * a safe one for an injected call (fault.c apply) */
				nt->last_stop = CTS_WEV_SIGNAL;
				on_new_stop(tr, nt);
				break;
			}
		}
		return cts_tr_resume(tr, th, 0);
	}
	case CTS_WEV_EXIT:
		/* A held thread cannot leave by itself, and a signal's death is
		 * the whole process's: it is ending (a fatal signal, exit_group,
		 * execve). Wait for every thread and the leader's status. */
		if (th->state == TH_HELD || WIFSIGNALED((int)ev->msg))
			tr->proc_exiting = true;
		if (th->tid == tr->pid && !tr->proc_exiting) {
			bool others = false;
			for (int i = 0; i < tr->nlive; i++)
				others |= tr->live[i] != th && tr->live[i]->state != TH_DEAD;
			if (others) {
				/* The main thread left with pthread_exit: a zombie until
				 * the others are done, but gone for scheduling. */
				cts_tr_resume(tr, th, 0);
				cts_tr_mark_dead(tr, th);
				return 0;
			}
			tr->proc_exiting = true; /* last thread: the process ends */
		}
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_FORK:
		add_foreign(tr, (pid_t)ev->msg);
		cts_tr_sys_forked(tr);
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_EXEC:
		return on_exec(tr, ev);
	case CTS_WEV_SYSCALL:
		if (th->flt_exit_apply && !th->flt_sys && !th->in_kcall && !th->pf_installing) {
			th->flt_exit_apply = false; /* fault.c: protections before user code */
			return cts_tr_resume(tr, th, 0);
		}
		th->flt_exit_apply = false;
		if (th->flt_sys)
			cts_fault_sys_exit(tr, th);
		if (th->pf_installing)
			cts_pf_installed(tr, th);
		return cts_tr_sys_exit_stop(tr, th);
	case CTS_WEV_STOP:
		return cts_tr_resume(tr, th, 0);
	}
	return 0;
}

/* Is SIGCANCEL pending for this thread? */
static bool sigcancel_pending(pid_t tid)
{
	struct cts_sigstate ss;
	return cts_proc_sigstate(tid, &ss) == 0 && (ss.pnd >> (CTS_SIGCANCEL - 1)) & 1;
}

/* Will th act on a cancel at its next cancellation point? glibc 2.36's
 * cancelhandling: cancelled, cancellation enabled, not already exiting. */
static bool cancel_due(const struct thread *th)
{
	uint32_t ch;
	if (!th->handle || cts_mem_read(th->tid, th->handle + GLIBC_CANCEL_OFFSET, &ch, 4) != 0)
		return false;
	return (ch & GLIBC_CANCELED) && !(ch & GLIBC_CANCEL_DISABLED) && !(ch & GLIBC_EXITING);
}

/* After a pthread_cancel in this run, tell the model which held threads
 * will unwind at their next cancellation point instead of blocking there
 * (they may get there, or enable cancellation, long after the cancel). */
void cts_tr_note_cancels(struct cts_tracer *tr)
{
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *t = tr->live[i];
		if (t->state == TH_HELD && cancel_due(t))
			cts_objmodel_cancel(tr->model, t->num);
	}
}

/* The running thread's pthread_cancel(target) is done. glibc signals
 * (SIGCANCEL) a target in asynchronous mode, which includes one inside a
 * cancellable blocking call; natively it acts at once, but a held thread
 * would take the signal only when scheduled. So: a thread parked in a futex
 * wait is interrupted (the wait returns EINTR when it runs, and a
 * cancellable wait unwinds from there; a cond wait's cleanup takes the mutex
 * back as its cond_reacquire), and one held at a breakpoint takes the signal
 * now (it unwinds to its cleanup handlers' first visible operation). A
 * deferred cancel sends nothing: cts_tr_note_cancels covers it. */
int cts_tr_cancel_sent(struct cts_tracer *tr, int target)
{
	tr->cancel_seen = true;
	struct thread *t = cts_tr_by_num(tr, target);
	if (!t)
		return 0;
	if (t->state != TH_HELD || !sigcancel_pending(t->tid))
		return 0;
	if (t->fblocked) {
		t->fblocked = false;
		t->sig_interrupt = true;
		if (t->pending.op == CTS_OP_COND_REACQUIRE)
			cts_objmodel_cond_woken(tr->model, t->num);
		cts_objmodel_cancel(tr->model, t->num);
		cts_tr_publish(tr, t);
		return 0;
	}
	if (t->at != AT_BREAKPOINT)
		return 0; /* takes it when it next runs, before its operation */
	struct thread *was = tr->running;
	tr->running = t;
	cts_tr_bp_rewind(tr, t); /* it takes the signal before its operation */
	int rc = cts_tr_resume(tr, t, 0);
	if (rc == 0)
		rc = cts_tr_pump(tr);
	tr->running = was;
	return rc;
}

/* Is anything still in flight? */
static bool busy(struct cts_tracer *tr)
{
	if (tr->pid_reaped)
		return false;
	if (tr->st->status != CTS_RUN_ACTIVE)
		return false;
	if (tr->proc_exiting)
		return true;
	for (int i = 0; i < tr->nlive; i++)
		if (tr->live[i]->state == TH_RUNNING || tr->live[i]->state == TH_NEW)
			return true;
	return false;
}

/* The running thread has had its slice: ask it to stop for a spin probe. */
static void slice_expired(struct cts_tracer *tr, double t)
{
	struct thread *th = tr->running;
	if (!th || th->state != TH_RUNNING || th->probe_requested || th->probing || th->in_kcall)
		return;
	if (t - tr->step_started < tr->slice_us * 1e-6)
		return;
	/* Asleep in a call cts does not model, not spinning: a stop signal
	 * would only interrupt the call. The run's timeout names it. */
	if (cts_tr_sys_asleep(th))
		return;
	th->probe_requested = true;
	syscall(SYS_tgkill, tr->pid, th->tid, SIGSTOP);
}

/* waitpid with a timeout: SIGCHLD, blocked only meanwhile, marks a new
 * stop (any stop before the block is seen by the first WNOHANG). 0: none. */
static pid_t timed_waitpid(int *status, long timeout_us)
{
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	pid_t tid = waitpid(-1, status, __WALL | WNOHANG);
	if (tid == 0) {
		struct timespec ts = { timeout_us / 1000000, (timeout_us % 1000000) * 1000 };
		int r = sigtimedwait(&chld, NULL, &ts);
		int err = errno;
		tid = waitpid(-1, status, __WALL | WNOHANG);
		if (tid == 0 && r < 0 && err == EINTR) {
			tid = -1; /* SIGALRM or ^C: the caller looks at them */
			errno = EINTR;
		}
	}
	int err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return tid;
}

static void run_timed_out(struct cts_tracer *tr)
{
	char outside[384];
	if (tr->exec_free) {
		/* Not the program under test: a command it exec'd that runs
		 * long. Killed, no verdict. */
		tr->st->status = CTS_RUN_EXITED;
		tr->st->exit_code = 128 + SIGKILL;
		tr->st->exit_sig = SIGKILL;
		return;
	}
	tr->st->status = CTS_RUN_TIMEOUT;
	if (cts_tr_sys_describe_outside(tr, outside, sizeof(outside))) {
		tr->st->blocked_outside = true;
		snprintf(tr->st->message, sizeof(tr->st->message), "run timed out after %.1f s: %s",
			 tr->cfg.timeout, outside);
		return;
	}
	snprintf(tr->st->message, sizeof(tr->st->message),
		 "run timed out after %.1f s (a thread ran without reaching a "
		 "visible operation: busy loop or blocking call?)", tr->cfg.timeout);
}

/* An event told from the wait status alone (no siginfo). */
static void quick_event(struct cts_wait_event *ev, pid_t tid, int status, enum cts_wev kind)
{
	memset(ev, 0, sizeof(*ev));
	ev->tid = tid;
	ev->status = status;
	ev->sig = WSTOPSIG(status);
	ev->kind = kind;
}

/* A plain SIGTRAP stop of a thread that was continued (not stepped), whose
 * rip is just past one of our int3s, is that breakpoint: the registers
 * on_breakpoint reads anyway tell it, without PTRACE_GETSIGINFO (one ptrace
 * call of the ~4 each visible operation costs). Hardware watchpoints also
 * stop with SIGTRAP after the instruction, so not with --watch on them. */
static bool quick_breakpoint(struct cts_tracer *tr, pid_t tid, int status,
			     struct cts_wait_event *ev)
{
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP || (status >> 16) != 0 ||
	    tr->exec_free || cts_access_hw_watching(tr))
		return false;
	struct thread *th = cts_tr_by_tid(tr, tid);
	if (!th || th->state != TH_RUNNING || th->stepping || th->stepping_bp || th->after_step ||
	    th->probing)
		return false;
	th->regs_valid = false;
	if (cts_tr_getregs(th) != 0)
		return false;
	struct bp *b = cts_tr_bp_find(tr, th->regs.rip - 1);
	if (!b || !cts_tr_bp_in_text(tr, b, false))
		return false;
	quick_event(ev, tid, status, CTS_WEV_BREAKPOINT);
	ev->regs_fresh = true;
	return true;
}

/* A new thread's first stop: its SIGSTOP, or a group-stop, which on_new_stop
 * takes alike, so PTRACE_GETSIGINFO (which tells them apart) is not needed. */
static bool quick_first_stop(struct cts_tracer *tr, pid_t tid, int status,
			     struct cts_wait_event *ev)
{
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP || (status >> 16) != 0 ||
	    tr->exec_free)
		return false;
	struct thread *th = cts_tr_by_tid(tr, tid);
	if (!th || th->state != TH_NEW)
		return false;
	quick_event(ev, tid, status, CTS_WEV_SIGNAL);
	return true;
}

int cts_tr_next_event(struct cts_tracer *tr, long timeout_us)
{
	int status;
	/* A signal that came outside waitpid (a busy stream of stops leaves
	 * little time inside it) is seen here. */
	pid_t tid = cts_tr_interrupted() || alarm_fired ? (errno = EINTR, -1) :
		    timeout_us < 0 ? waitpid(-1, &status, __WALL) : timed_waitpid(&status, timeout_us);
	if (tid == 0)
		return 0;
	if (tid < 0) {
		if (errno == EINTR) {
			if (cts_tr_interrupted()) {
				tr->st->status = CTS_RUN_INTERRUPTED;
				snprintf(tr->st->message, sizeof(tr->st->message), "interrupted");
				return 0;
			}
			if (alarm_fired) {
				alarm_fired = 0;
				double t = cts_tr_run_clock(tr);
				if (tr->cfg.timeout <= 0 || t - tr->run_started < tr->cfg.timeout)
					slice_expired(tr, t);
				else
					run_timed_out(tr);
			}
			return 0;
		}
		if (errno == ECHILD) {
			tr->pid_reaped = true;
			if (tr->st->status == CTS_RUN_ACTIVE)
				cts_tr_set_error(tr, "program vanished");
			return 0;
		}
		cts_tr_set_error(tr, "waitpid: %s", strerror(errno));
		return -1;
	}
	struct cts_wait_event ev;
	if (!quick_breakpoint(tr, tid, status, &ev) && !quick_first_stop(tr, tid, status, &ev))
		cts_wait_decode(tid, status, &ev);
	tr->stats.stops++;
	if (dispatch(tr, &ev) != 0) {
		if (tr->st->status == CTS_RUN_ACTIVE)
			cts_tr_set_error(tr, "tracing thread %d failed at %s event: %s", (int)tid,
				  cts_wev_name(ev.kind), strerror(errno));
		return -1;
	}
	return 1;
}

/* The first look at a thread resumed into a call that may sleep comes this
 * soon (it shares our CPU: it has run by then), then less and less often. */
#define SLEEP_POLL_MIN_US 100
#define SLEEP_POLL_MAX_US 10000

int cts_tr_pump(struct cts_tracer *tr)
{
	long poll_us = SLEEP_POLL_MIN_US;
	while (busy(tr)) {
		struct thread *th = tr->running;
		bool in_call = th && th->state == TH_RUNNING && th->in_kcall;
		int r = cts_tr_next_event(tr, in_call ? poll_us : -1);
		if (r < 0)
			return -1;
		/* Asleep in the call: it leaves the schedule, the step is over. */
		if (r == 0 && in_call && !cts_tr_sys_went_outside(tr, th) && poll_us < SLEEP_POLL_MAX_US)
			poll_us *= 2;
	}
	return 0;
}
