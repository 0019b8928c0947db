/* The event pump: waits for the program's stops and dispatches each (wait.c
 * decodes it) to the breakpoint, syscall, access and crash handlers until the
 * running thread reaches its next visible operation. Also: processes the
 * program forks (run free), the time slice, the run timeout, ^C. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "models/symbolize.h"
#include "tracer/access.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/wait.h"

static volatile sig_atomic_t alarm_fired, user_interrupt;

void cts_tracer_interrupt(void)
{
	user_interrupt = 1;
}

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
	th->regs.rip = addr;
	th->regs_dirty = true;
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

static int on_new_stop(struct cts_tracer *tr, struct thread *th)
{
	/* A new thread's first stop. Its pthread_t is its TLS pointer. */
	if (cts_tr_getregs(th) == 0) {
		th->handle = th->regs.fs_base;
		th->pending.pc = th->regs.rip;
	}
	if (tr->cfg.nwatch)
		cts_access_watch_thread(tr, th);
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
	if (tid > 0 && !is_foreign(tr, tid) && tr->nforeign < MAX_FOREIGN)
		tr->foreign[tr->nforeign++] = tid;
}

static void forget_foreign(struct cts_tracer *tr, pid_t tid)
{
	for (int i = 0; i < tr->nforeign; i++)
		if (tr->foreign[i] == tid)
			tr->foreign[i] = tr->foreign[--tr->nforeign];
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static int foreign_event(struct cts_tracer *tr, const struct cts_wait_event *ev)
{
	int sig = 0;
	add_foreign(tr, ev->tid);
	if (ev->kind == CTS_WEV_FORK)
		add_foreign(tr, (pid_t)ev->msg);
	if (ev->kind == CTS_WEV_SIGNAL && ev->sig != SIGSTOP)
		sig = ev->sig;
	if (ptrace(PTRACE_CONT, ev->tid, 0, (void *)(long)sig) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

void cts_tr_kill_foreign(struct cts_tracer *tr)
{
	int status;
	for (int i = 0; i < tr->nforeign; i++) {
		pid_t p = tr->foreign[i];
		kill(p, SIGKILL);
		while (waitpid(p, &status, __WALL) == p && WIFSTOPPED(status))
			ptrace(PTRACE_CONT, p, 0, 0);
	}
	tr->nforeign = 0;
}

static int dispatch(struct cts_tracer *tr, struct cts_wait_event *ev)
{
	struct thread *th = cts_tr_by_tid(tr, ev->tid);

	if (!th) {
		if (ev->kind == CTS_WEV_EXITED || ev->kind == CTS_WEV_KILLED) {
			forget_foreign(tr, ev->tid);
			return 0;
		}
		if (is_foreign(tr, ev->tid) || tgid_of(ev->tid) != tr->pid)
			return foreign_event(tr, ev);
		/* A new thread reported before its clone event: remember it. */
		if (tr->nearly < CTS_MAX_THREADS)
			tr->early[tr->nearly++] = ev->tid;
		return 0;
	}
	th->regs_valid = false;
	switch (ev->kind) {
	case CTS_WEV_EXITED:
	case CTS_WEV_KILLED:
		if (th->tid == tr->pid) {
			/* The process is gone. */
			for (int i = 0; i < tr->nthreads; i++)
				if (tr->th[i].state != TH_DEAD)
					cts_tr_mark_dead(tr, &tr->th[i]);
			if (tr->st->status == CTS_RUN_ACTIVE && user_interrupt) {
				tr->st->status = CTS_RUN_INTERRUPTED;
				snprintf(tr->st->message, sizeof(tr->st->message), "interrupted");
			} else if (tr->st->status == CTS_RUN_ACTIVE) {
				if (ev->kind == CTS_WEV_EXITED) {
					tr->st->status = CTS_RUN_EXITED;
					tr->st->exit_code = ev->code;
				} else {
					tr->st->status = CTS_RUN_SIGNALED;
					tr->st->sig = ev->sig;
					tr->st->fault_tid = tr->running ? tr->running->num : 0;
				}
			}
			tr->pid_reaped = true;
			return 0;
		}
		cts_tr_mark_dead(tr, th);
		return 0;
	case CTS_WEV_GONE:
		return 0;
	case CTS_WEV_BREAKPOINT:
		return on_breakpoint(tr, th, ev);
	case CTS_WEV_SINGLESTEP:
		if (th->probing)
			return cts_access_probe_step(tr, th);
		if (th->stepping_bp) {
			struct bp *b = cts_tr_bp_find(tr, th->stepping_bp);
			th->stepping_bp = 0;
			if (b && b->active)
				cts_tr_bp_plant(tr, b);
		}
		if (th->after_step)
			return cts_access_after_step(tr, th);
		if (th->stepping)
			return cts_access_single_step(tr, th);
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_WATCHPOINT:
		return cts_access_watch_hit(tr, th);
	case CTS_WEV_SIGNAL:
		if (th->state == TH_NEW && ev->sig == SIGSTOP)
			return on_new_stop(tr, th);
		if (ev->sig == SIGSTOP && th->probe_requested) {
			th->probe_requested = false;
			return cts_access_probe_start(tr, th);
		}
		if (ev->sig == SIGSTOP)
			return cts_tr_resume(tr, th, 0);
		if (fatal_signal(ev->sig)) {
			on_crash(tr, th, ev);
			return 0;
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
			cts_tr_set_error(tr, "more than %d threads", CTS_MAX_THREADS);
			return -1;
		}
		tr->last_created = nt->num;
		cts_tr_publish(tr, nt);
		for (int i = 0; i < tr->nearly; i++) {
			if (tr->early[i] == ntid) {
				tr->early[i] = tr->early[--tr->nearly];
				on_new_stop(tr, nt);
				break;
			}
		}
		return cts_tr_resume(tr, th, 0);
	}
	case CTS_WEV_EXIT:
		if (th->tid == tr->pid && !tr->proc_exiting) {
			bool others = false;
			for (int i = 0; i < tr->nthreads; i++)
				others |= &tr->th[i] != th && tr->th[i].state != TH_DEAD;
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
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_SYSCALL:
	case CTS_WEV_STOP:
	case CTS_WEV_EXEC:
		return cts_tr_resume(tr, th, 0);
	}
	return 0;
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
	for (int i = 0; i < tr->nthreads; i++)
		if (tr->th[i].state == TH_RUNNING || tr->th[i].state == TH_NEW)
			return true;
	return false;
}

/* The running thread has had its slice: ask it to stop for a spin probe. */
static void slice_expired(struct cts_tracer *tr, double t)
{
	struct thread *th = tr->running;
	if (!th || th->state != TH_RUNNING || th->probe_requested || th->probing)
		return;
	if (t - tr->step_started < SLICE_US * 1e-6)
		return;
	th->probe_requested = true;
	syscall(SYS_tgkill, tr->pid, th->tid, SIGSTOP);
}

int cts_tr_pump(struct cts_tracer *tr)
{
	while (busy(tr)) {
		int status;
		/* A signal that came outside waitpid (a busy stream of stops
		 * leaves little time inside it) is seen here. */
		pid_t tid = user_interrupt || alarm_fired ? (errno = EINTR, -1) :
			    waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR) {
				if (user_interrupt) {
					tr->st->status = CTS_RUN_INTERRUPTED;
					snprintf(tr->st->message, sizeof(tr->st->message), "interrupted");
					return 0;
				}
				if (alarm_fired) {
					alarm_fired = 0;
					double t = cts_tr_now_s();
					if (tr->cfg.timeout <= 0 || t - tr->run_started < tr->cfg.timeout) {
						slice_expired(tr, t);
						continue;
					}
					tr->st->status = CTS_RUN_TIMEOUT;
					snprintf(tr->st->message, sizeof(tr->st->message),
						 "run timed out after %.1f s (a thread ran without reaching a "
						 "visible operation: busy loop or blocking call?)",
						 tr->cfg.timeout);
					return 0;
				}
				continue;
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
		cts_wait_decode(tid, status, &ev);
		tr->stats.stops++;
		if (dispatch(tr, &ev) != 0) {
			if (tr->st->status == CTS_RUN_ACTIVE)
				cts_tr_set_error(tr, "tracing thread %d failed at %s event: %s", (int)tid,
					  cts_wev_name(ev.kind), strerror(errno));
			return -1;
		}
	}
	return 0;
}
