/* Attach mode: waiting for ptrace stops and handling each one (breakpoints,
 * interrupts, group-stops, clones, forks, exec, exit, crashes). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "hw/hw.h"
#include "models/error.h"
#include "tracer/access.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/wait.h"
#include "tracer/attach_int.h"

/* ---- waiting ---------------------------------------------------------------- */

/* A wait with a timeout costs what one without costs, a blocking waitpid
 * (on this VM a stop woken through sigtimedwait cost 2-4 us more than one
 * woken in waitpid, a sixth of a whole debug-register trap): the timeout
 * comes from the ticker, a child of ours that shares this page with us and
 * stops itself, a stop waitpid reports (WUNTRACED), when the wait it was
 * told of passes its deadline. We continue it. A ticker stop is "no stop
 * came", spurious or not; the callers loop anyway. */
struct att_tick {
	uint64_t deadline;      /* ns, CLOCK_MONOTONIC */
	uint64_t gen;           /* waits begun */
	uint64_t waiting;       /* the wait going on (its gen), 0 none */
};

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static _Noreturn void ticker_main(struct att_tick *t, pid_t parent)
{
	uint64_t fired = 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, "cts-ticker", 0, 0, 0);
	/* the tracing process's signals are its own (a ^C, a dead cts-trace) */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	for (;;) {
		uint64_t w = __atomic_load_n(&t->waiting, __ATOMIC_ACQUIRE);
		uint64_t g = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
		uint64_t d = __atomic_load_n(&t->deadline, __ATOMIC_ACQUIRE), now = now_ns();
		bool due = w && w == g && g != fired;
		if (due && now >= d) {
			fired = g;
			raise(SIGSTOP); /* until the tracing process has seen it */
			continue;
		}
		/* to the deadline of the wait going on, else a millisecond on */
		uint64_t until = due ? d : now + 1000000;
		struct timespec ts = { (time_t)(until / 1000000000u), (long)(until % 1000000000u) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

void cts_att_ticker_start(struct att *a)
{
	if (a->ticker || getenv("CTS_NO_TICKER")) /* the fallback, for testing */
		return;
	void *p = mmap(NULL, sizeof(struct att_tick), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	pid_t self = getpid(), pid = fork();
	if (pid == 0)
		ticker_main(p, self);
	if (pid < 0) {
		munmap(p, sizeof(struct att_tick));
		return;
	}
	a->tick = p;
	a->ticker = pid;
}

void cts_att_ticker_stop(struct att *a)
{
	int st;
	if (a->ticker) {
		kill(a->ticker, SIGKILL);
		while (waitpid(a->ticker, &st, __WALL) < 0 && errno == EINTR)
			;
		a->ticker = 0;
	}
	if (a->tick)
		munmap(a->tick, sizeof(struct att_tick));
	a->tick = NULL;
}

/* The ticker's report, r: it stopped (continued, a timeout) or ended. */
static bool ticker_report(struct att *a, pid_t r, int status)
{
	if (!a->ticker || r != a->ticker)
		return false;
	if (WIFSTOPPED(status))
		kill(a->ticker, SIGCONT);
	else
		a->ticker = 0; /* gone: the waits are timed with sigtimedwait */
	return true;
}

/* Without a ticker: SIGCHLD waited for with sigtimedwait, blocked for good
 * at the first such wait (the tracing process has no use for its
 * delivery): a stop while we wait is a pending SIGCHLD. One pending
 * already, for a stop reaped since, only costs another turn. */
static pid_t wait_signalled(pid_t who, int *status, long timeout_us)
{
	static bool chld_blocked;
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (!chld_blocked) {
		sigprocmask(SIG_BLOCK, &chld, NULL);
		chld_blocked = true;
	}
	pid_t r = waitpid(who, status, __WALL | WNOHANG);
	if (r != 0)
		return r;
	double end = cts_tr_now_s() + (timeout_us < 0 ? 100000 : timeout_us) / 1e6;
	for (;;) {
		double left = end - cts_tr_now_s();
		if (left <= 0)
			return 0;
		struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };
		int got = sigtimedwait(&chld, NULL, &ts);
		int e = errno;
		r = waitpid(who, status, __WALL | WNOHANG);
		if (r != 0)
			return r;
		if (got < 0 && e == EINTR) {
			errno = EINTR; /* SIGINT, SIGTERM: the caller looks */
			return -1;
		}
		if (got < 0)
			return 0; /* timed out */
	}
}

/* waitpid for tracee who (-1: any of ours), at most timeout_us (< 0: about
 * 0.1 s, for callers that loop); 0 when none came, -1 with EINTR on a
 * signal (SIGINT, SIGTERM: the caller looks). */
static pid_t wait_for(struct att *a, pid_t who, int *status, long timeout_us)
{
	pid_t r;
	if (timeout_us == 0) {
		r = waitpid(who, status, __WALL | WNOHANG | (who < 0 ? WUNTRACED : 0));
		return r > 0 && ticker_report(a, r, *status) ? 0 : r;
	}
	if (who >= 0 || !a->ticker) {
		r = wait_signalled(who, status, timeout_us);
		return r > 0 && ticker_report(a, r, *status) ? 0 : r;
	}
	struct att_tick *t = a->tick;
	uint64_t g = t->gen + 1;
	__atomic_store_n(&t->deadline, now_ns() + (uint64_t)(timeout_us < 0 ? 100000 : timeout_us) * 1000u,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&t->gen, g, __ATOMIC_RELEASE);
	__atomic_store_n(&t->waiting, g, __ATOMIC_RELEASE);
	r = waitpid(-1, status, __WALL | WUNTRACED);
	int e = errno;
	__atomic_store_n(&t->waiting, 0, __ATOMIC_RELEASE);
	if (r > 0 && ticker_report(a, r, *status))
		return 0;
	errno = e;
	return r;
}

/* ---- threads ---------------------------------------------------------------- */

struct thread *cts_att_add_thread(struct att *a, pid_t tid)
{
	struct thread *th = cts_tr_new_thread(a->tr, tid);
	if (!th)
		return NULL;
	memset(X(a, th), 0, sizeof(struct att_th));
	return th;
}

static struct extra_th *find_extra(struct att *a, pid_t tid)
{
	for (size_t i = 0; i < a->nextra; i++)
		if (a->extra[i].tid == tid)
			return &a->extra[i];
	return NULL;
}

/* A thread past --max-threads: control ends. It is not let run (it would
 * meet our int3s untraced and die of SIGTRAP, and the process with it):
 * it stays in its first stop until the detach, after the bytes are back. */
static void too_many(struct att *a, pid_t tid, bool stopped)
{
	if (!a->overflow)
		cts_error_msg("process %d created more threads than --max-threads: detaching",
			      (int)a->pid);
	a->overflow = true;
	if (a->nextra == a->extracap) {
		size_t cap = cts_grow_cap(a->extracap, a->nextra + 1);
		a->extra = cts_xgrow(a->extra, a->extracap, cap, sizeof(*a->extra));
		a->extracap = cap;
	}
	a->extra[a->nextra++] = (struct extra_th){ .tid = tid, .stopped = stopped };
}

/* Wait up to limit_s in all for the threads past --max-threads to report
 * their first stop (or their end): nothing of them ran. One that has not
 * by then is left to the kernel's detach at our exit, which is safe: the
 * text is restored and a new thread inherits no debug registers. */
int cts_att_release_extra(struct att *a, double limit_s)
{
	int rc = 0;
	double end = cts_tr_now_s() + limit_s;
	for (size_t i = 0; i < a->nextra; i++) {
		struct extra_th *e = &a->extra[i];
		int status;
		while (!e->stopped && cts_tr_now_s() < end) {
			pid_t w = wait_for(a, e->tid, &status, 10000);
			if (w == 0 || (w < 0 && errno == EINTR))
				continue;
			if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status))
				break;
			e->stopped = true;
		}
		if (!e->stopped)
			continue;
		if (cts_hw_clear(e->tid, NULL) != 0 && errno != ESRCH && errno != EIO)
			rc = -1;
		if (ptrace(PTRACE_DETACH, e->tid, 0, 0) != 0 && errno != ESRCH) {
			cts_error_msg("warning: PTRACE_DETACH of thread %d: %s", (int)e->tid,
				      strerror(errno));
			rc = -1;
		}
	}
	a->nextra = 0;
	return rc;
}

static void thread_gone(struct att *a, struct thread *th)
{
	th->state = TH_DEAD;
	X(a, th)->stopped = false;
	if (a->cur == th)
		a->cur = NULL;
	cts_tr_publish(a->tr, th);
	cts_tr_reaped(a->tr, th);
}

int cts_att_interrupt(struct att *a, struct thread *th, enum intr why)
{
	struct att_th *x = X(a, th);
	if (x->stopped && !x->listening)
		return 0;
	if (x->intr == INTR_NONE || why == INTR_DETACH || why == INTR_HOLD)
		x->intr = why;
	if (ptrace(PTRACE_INTERRUPT, th->tid, 0, 0) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

/* Let th run on (with the signal it stopped for, delivered once). A thread
 * stopped before its step over a breakpoint completed goes on stepping:
 * continued, it would leave the int3 out of the text. */
int cts_att_run_on(struct att *a, struct thread *th, enum th_state as)
{
	struct att_th *x = X(a, th);
	int sig = x->sig;
	x->sig = 0;
	x->stopped = false;
	x->paused = false;
	if (cts_tr_flush_regs(th) != 0)
		return -1;
	th->regs_valid = false;
	th->state = as;
	int req = th->stepping_bp ? PTRACE_SINGLESTEP : a->tr->trace_syscalls ? PTRACE_SYSCALL :
		  PTRACE_CONT;
	if (ptrace(req, th->tid, 0, (void *)(long)sig) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

/* Planted int3 at addr (ours, in the text now)? planted is sorted. */
bool cts_att_is_planted(const struct att *a, uint64_t addr)
{
	size_t lo = 0, hi = a->nplanted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->planted[mid] == addr)
			return true;
		if (a->planted[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* A process the target forked, stopped: a copy of the text, int3s
 * included. A fork child gets the original bytes back and runs free; a
 * vfork child shares our text and execs or exits at once: it is only let
 * go. Unknown (its stop came before the fork event): the bytes go back,
 * at worst costing a vfork parent some breakpoints until the detach. */
static void release_child(struct att *a, pid_t child, bool shares_vm)
{
	if (!shares_vm) {
		for (size_t i = 0; i < a->nplanted; i++) {
			struct bp *b = cts_tr_bp_find(a->tr, a->planted[i]);
			if (b)
				cts_tr_bp_write_to(child, b, false);
		}
	}
	ptrace(PTRACE_DETACH, child, 0, 0);
}

static void foreign_child(struct att *a, pid_t child, bool shares_vm)
{
	int status;
	/* ECHILD: its first stop came first and it is released already */
	if (waitpid(child, &status, __WALL) != child || !WIFSTOPPED(status))
		return;
	release_child(a, child, shares_vm);
}

static bool crash_signal(struct att *a, const struct cts_wait_event *ev)
{
	struct cts_sigstate ss;
	int sig = ev->sig;
	bool kernel = ev->info.si_code > 0;
	bool own = ev->info.si_code <= 0 && ev->info.si_pid == a->pid;
	if (!(((sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) && kernel) ||
	      (sig == SIGABRT && (own || kernel))))
		return false;
	/* A handler may recover: then it is not a death. */
	if (cts_proc_sigstate(ev->tid, &ss) == 0 && ((ss.cgt >> (sig - 1)) & 1))
		return false;
	return true;
}

static void on_crash(struct att *a, struct thread *th, const struct cts_wait_event *ev)
{
	cts_tr_getregs(th);
	a->bug = true;
	a->bug_kind = "crash";
	snprintf(a->bug_head, sizeof(a->bug_head), "thread %d (tid %d) killed by %s at "
		 "0x%" PRIx64 " (fault address 0x%" PRIx64 ")", th->num, (int)th->tid,
		 strsignal(ev->sig), (uint64_t)th->regs.rip, (uint64_t)ev->info.si_addr);
	a->bug_th = th;
}

static int on_breakpoint(struct att *a, struct thread *th)
{
	struct cts_tracer *tr = a->tr;
	th->regs_valid = false;
	if (cts_tr_getregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	uint64_t addr = th->regs.rip - 1;
	struct bp *b = cts_tr_bp_find(tr, addr);
	if (!b || !cts_att_is_planted(a, addr)) {
		/* The program's own int3: its SIGTRAP, as without us. */
		X(a, th)->sig = SIGTRAP;
		if (a->detaching)
			return 0;
		return cts_att_run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state);
	}
	/* Written at once, not cached: if cts-trace dies now, the thread
	 * resumes on the instruction, not in the middle of it. */
	th->regs.rip = addr;
	if (cts_tr_setregs(th) != 0 && errno != ESRCH)
		return -1;
	bool heap = b->kind == BP_LIBCALL && b->fn == -1;
	if (a->detaching || (b->kind != BP_SYNC && b->kind != BP_ACCESS && !heap))
		return 0;
	X(a, th)->stopped = true;
	if (heap) {
		enum th_state was = th->state;
		cts_att_heap_free(a, th);
		int rc = cts_tr_step_over_at(tr, th, addr);
		X(a, th)->stopped = false;
		if (was != TH_HELD && was != TH_RUNNING)
			th->state = was;
		return rc;
	}
	if (b->kind == BP_ACCESS) {
		/* shared: held as a visible access; else stepped over (emulated
		 * or single-stepped) and run on */
		enum th_state was = th->state;
		int rc = cts_access_hit(tr, th, b);
		X(a, th)->stopped = th->state == TH_HELD;
		if (th->state == TH_RUNNING && was == TH_OUTSIDE)
			th->state = TH_OUTSIDE;
		return rc;
	}
	int rc = cts_tr_on_sync_bp(tr, th, b);
	if (th->state == TH_HELD) {
		X(a, th)->stopped = true;
		if (a->st.status == CTS_RUN_ASSERT && !a->bug) {
			a->bug = true;
			a->bug_kind = "assert";
			snprintf(a->bug_head, sizeof(a->bug_head), "%s (thread %d, tid %d)",
				 a->st.message, th->num, (int)th->tid);
			a->bug_th = th;
		}
	} else {
		X(a, th)->stopped = false; /* a libc-internal call let through */
	}
	return rc;
}

/* A thread created while we are attached, at its first stop: it joins
 * the schedule where it starts. */
static int new_thread_stop(struct att *a, struct thread *th)
{
	X(a, th)->stopped = true;
	if (!a->controlling || a->detaching)
		return 1; /* first_states or the detach takes it from here */
	if (cts_tr_getregs(th) == 0)
		th->handle = th->regs.fs_base;
	cts_event_init(&th->pending, th->num, CTS_OP_START);
	th->pending.pc = th->regs_valid ? th->regs.rip : 0;
	cts_tr_hold(a->tr, th, AT_START);
	cts_att_observe_kernel(a, th); /* after its creator's clone */
	if (a->accesses)
		cts_access_watch_thread(a->tr, th);
	return 1;
}

/* An interrupt's stop (or a SIGCONT's end of a group-stop), th decoded. */
static int stop_event(struct att *a, struct thread *th)
{
	struct att_th *x = X(a, th);
	enum intr why = x->intr;
	x->intr = INTR_NONE;
	x->stopped = true;
	if (x->listening) {
		x->listening = false;
		if (why == INTR_NONE) { /* SIGCONT ended the group-stop */
			x->jstop = false;
			if (!a->detaching) {
				cts_event_init(&th->pending, th->num, CTS_OP_START);
				cts_tr_hold(a->tr, th, AT_START);
			}
			return 1;
		}
	}
	if (th->state == TH_NEW)
		return new_thread_stop(a, th);
	if (a->detaching)
		return 1;
	if (why == INTR_PAUSE) {
		x->paused = true;
		return 1;
	}
	if (why == INTR_HOLD) {
		if (cts_tr_getregs(th) == 0)
			th->pending.pc = th->regs.rip;
		cts_event_init(&th->pending, th->num, CTS_OP_START);
		if (th->regs_valid)
			th->pending.pc = th->regs.rip;
		cts_tr_hold(a->tr, th, AT_START);
		if (a->cur == th)
			a->cur = NULL;
		return 1;
	}
	/* A stale interrupt: run on as before. */
	return cts_att_run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
}

/* th at a ptrace event or system-call stop, handled: it runs on, unless
 * an interrupt of ours is pending. The kernel clears a pending
 * PTRACE_INTERRUPT at any such stop (not at a signal-delivery stop, which
 * reports the interrupt first), so this stop is the one the interrupt
 * asked for and no other will come: let run, th would never stop for it
 * (a seize that waited 15 s, an idle check that failed the session). */
static int event_done(struct att *a, struct thread *th)
{
	enum intr why = X(a, th)->intr;
	if (why == INTR_HOLD || why == INTR_PAUSE)
		return stop_event(a, th);
	return cts_att_run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
}

/* One stop, decoded and handled. 1 handled, 0 none came, -1 error. */
int cts_att_event(struct att *a, long timeout_us)
{
	int status;
	pid_t tid = wait_for(a, -1, &status, timeout_us);
	if (tid == 0 || (tid < 0 && errno == EINTR))
		return 0;
	if (tid < 0) {
		if (errno == ECHILD) {
			a->gone = true;
			return 0;
		}
		return -1;
	}
	struct cts_wait_event ev;
	cts_wait_decode(tid, status, &ev);
	struct thread *th = cts_tr_by_tid(a->tr, tid);
	if (!th) {
		struct extra_th *e = find_extra(a, tid);
		if (ev.kind == CTS_WEV_EXITED || ev.kind == CTS_WEV_KILLED) {
			if (e)
				*e = a->extra[--a->nextra];
			return 1;
		}
		if (e) {
			e->stopped = true; /* its first stop: it stays in it */
			return 1;
		}
		long tgid = cts_proc_status_field(tid, "Tgid", NULL, 0);
		if (tgid != a->pid) {
			release_child(a, tid, false); /* a fork child, before its fork event */
			return 1;
		}
		/* A new thread's first stop before its clone event. */
		th = cts_att_add_thread(a, tid);
		if (!th) {
			too_many(a, tid, true);
			return 1;
		}
	}
	struct att_th *x = X(a, th);
	th->regs_valid = false;
	switch (ev.kind) {
	case CTS_WEV_EXITED:
	case CTS_WEV_KILLED:
		if (tid == a->pid) {
			a->gone = true;
			if (ev.kind == CTS_WEV_EXITED)
				snprintf(a->gone_how, sizeof(a->gone_how), "exited with status %d",
					 ev.code);
			else
				/* "killed by SIGKILL", not strsignal's "killed by Killed" */
				snprintf(a->gone_how, sizeof(a->gone_how), "was killed by SIG%s",
					 sigabbrev_np(ev.sig) ? sigabbrev_np(ev.sig) : "?");
			for (int i = a->tr->nlive - 1; i >= 0; i--)
				thread_gone(a, a->tr->live[i]);
			return 1;
		}
		thread_gone(a, th);
		return 1;
	case CTS_WEV_GONE:
		return 1;
	case CTS_WEV_BREAKPOINT:
		x->stopped = true;
		return on_breakpoint(a, th) == 0 ? 1 : -1;
	case CTS_WEV_SINGLESTEP:
		x->stopped = true;
		if (th->stepping_bp) {
			uint64_t at = th->stepping_bp;
			th->stepping_bp = 0;
			for (int i = 0; a->races && i < a->tr->nlive; i++) {
				struct thread *o = a->tr->live[i];
				if (o != th && o->state != TH_DEAD && !X(a, o)->stopped) {
					a->nblind++;
					a->blind_last = a->obs_step;
					break;
				}
			}
			struct bp *b = cts_tr_bp_find(a->tr, at);
			if (b && !a->detaching && cts_att_is_planted(a, at) && b->active)
				cts_tr_bp_plant(a->tr, b);
		}
		if (a->detaching)
			return 1;
		if (th->after_step) {
			/* --watch: a write is reported with its new value */
			enum th_state was = th->state;
			x->stopped = false;
			if (cts_access_after_step(a->tr, th) != 0)
				return -1;
			if (was != TH_HELD && was != TH_RUNNING)
				th->state = was;
			return 1;
		}
		return cts_att_run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
	case CTS_WEV_SIGNAL:
		x->stopped = true;
		if (!a->detaching && !a->bug && crash_signal(a, &ev)) {
			x->sig = ev.sig; /* delivered at the detach: the death it was headed for */
			on_crash(a, th, &ev);
			th->state = TH_HELD;
			return 1;
		}
		x->sig = ev.sig;
		if (th->state == TH_NEW)
			return new_thread_stop(a, th); /* delivered when it runs (once) */
		if (a->detaching)
			return 1; /* delivered by the detach (once) */
		cts_att_observe_kernel(a, th); /* after its sender */
		return cts_att_run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
	case CTS_WEV_GROUP_STOP:
		x->stopped = true;
		x->listening = false; /* trapped again (an interrupt of a LISTEN) */
		if (th->state == TH_NEW && !x->was_stopped) {
			x->intr = INTR_NONE; /* a new thread's first stop (SIGSTOP under SEIZE) */
			return new_thread_stop(a, th);
		}
		x->jstop = true;
		x->intr = INTR_NONE; /* the group-stop reports in its place */
		if (th->state == TH_NEW || a->detaching)
			return 1;
		if (a->cur == th)
			a->cur = NULL;
		/* Stopped by job control: it stays stopped, and LISTEN lets a
		 * SIGCONT end the stop while we are attached. */
		x->listening = true;
		th->state = TH_OUTSIDE;
		if (ptrace(PTRACE_LISTEN, tid, 0, 0) != 0 && errno != ESRCH)
			return -1;
		x->stopped = false;
		return 1;
	case CTS_WEV_STOP:
		return stop_event(a, th);
	case CTS_WEV_CLONE: {
		x->stopped = true;
		pid_t ntid = (pid_t)ev.msg;
		if (!cts_tr_by_tid(a->tr, ntid) && !find_extra(a, ntid) && !cts_att_add_thread(a, ntid))
			too_many(a, ntid, false);
		if (a->detaching)
			return 1;
		return event_done(a, th);
	}
	case CTS_WEV_FORK:
		x->stopped = true;
		foreign_child(a, (pid_t)ev.msg, (ev.status >> 16) == PTRACE_EVENT_VFORK);
		if (a->detaching)
			return 1;
		return event_done(a, th);
	case CTS_WEV_EXEC: {
		/* A new image: none of our int3s, every other thread gone. */
		x->stopped = true;
		a->gone = true;
		snprintf(a->gone_how, sizeof(a->gone_how), "exec'd a new program");
		for (int i = a->tr->nlive - 1; i >= 0; i--)
			if (a->tr->live[i] != th)
				thread_gone(a, a->tr->live[i]);
		a->nplanted = 0;
		th->tid = a->pid;
		ptrace(PTRACE_DETACH, a->pid, 0, 0);
		thread_gone(a, th);
		return 1;
	}
	case CTS_WEV_EXIT:
		x->stopped = true;
		if (a->detaching)
			return 1;
		if (x->intr == INTR_HOLD || x->intr == INTR_PAUSE)
			return stop_event(a, th);
		return cts_att_run_on(a, th, TH_OUTSIDE) == 0 ? 1 : -1;
	case CTS_WEV_WATCHPOINT:
		x->stopped = true;
		if (a->detaching)
			return 1;
		if (a->accesses) {
			enum th_state was = th->state;
			if (cts_access_watch_hit(a->tr, th, (uint64_t)(uintptr_t)ev.info.si_addr) != 0)
				return -1;
			x->stopped = false;
			if (was != TH_HELD && was != TH_RUNNING)
				th->state = was;
			return 1;
		}
		return cts_att_run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
	case CTS_WEV_SYSCALL:
		if (a->detaching) {
			x->stopped = true;
			return 1;
		}
		cts_att_observe_kernel(a, th); /* --races: entry and exit alike */
		/* fall through */
	case CTS_WEV_SECCOMP:
		x->stopped = true;
		if (a->detaching)
			return 1;
		return event_done(a, th);
	}
	return 1;
}

/* Wait until every thread we know is in a ptrace-stop (or gone). */
int cts_att_wait_all_stopped(struct att *a, double limit_s, bool interruptible)
{
	double end = cts_tr_now_s() + limit_s;
	for (;;) {
		if (interruptible && cts_tr_interrupted()) {
			errno = EINTR;
			return -1;
		}
		bool all = true;
		for (int i = 0; i < a->tr->nlive; i++) {
			struct att_th *x = X(a, a->tr->live[i]);
			if (a->tr->live[i]->state != TH_DEAD && (!x->stopped || x->listening))
				all = false;
		}
		if (all || a->gone)
			return 0;
		if (cts_tr_now_s() > end) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (cts_att_event(a, 10000) < 0)
			return -1;
	}
}
