/* Attach mode (`cts-trace -p PID`): checking the target, seizing every
 * thread, the diagnosis of what each thread is blocked on, the control loop
 * (one thread at a time between libc entry-point breakpoints), and the
 * detach that leaves the process as it was on every exit path.
 *
 * No seccomp filter is loaded (it could never be removed) and nothing is
 * modelled: a thread let into an operation that sleeps in the kernel leaves
 * the schedule (as TH_OUTSIDE threads do in launched runs) and comes back
 * at its next breakpoint; the live memory, not a model, says who holds
 * what. docs/design.md, "Attach mode". */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <jansson.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "models/race.h"
#include "models/report.h"
#include "models/symbolize.h"
#include "strategies/strategy.h"
#include "tracer/access.h"
#include "tracer/attach.h"
#include "tracer/cli.h"
#include "tracer/elf.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/wait.h"

struct attach_cfg {
	pid_t pid;
	double time_limit;       /* seconds under control; 0 = until a bug, SIGINT or the end */
	const char *strategy;    /* "random" or "pct" */
	uint64_t seed;
	int depth;               /* pct */
	uint64_t max_steps;      /* pct's hint of the session's length */
	uint64_t max_threads;
	const char *out_dir;     /* where the observed schedule is written */
	const char *report;      /* --report FILE, or NULL */
	int races;               /* enum cts_races: off, report or fail */
	const char *const *watch; /* --watch specs */
	int nwatch;
	int watch_backend;
};

enum { EXIT_CLEAN = 0, EXIT_BUG = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3, EXIT_INTERRUPTED = 130 };

/* Why a PTRACE_INTERRUPT was sent: what its stop makes of the thread. */
enum intr { INTR_NONE, INTR_HOLD, INTR_PAUSE, INTR_DETACH };

/* Attach-only facts of a thread, by number. */
struct att_th {
	int sig;            /* a signal-delivery stop's signal, delivered when it runs on */
	bool stopped;       /* in a ptrace-stop now */
	bool jstop;         /* in a group-stop (job control) */
	bool listening;     /* PTRACE_LISTEN'd in that group-stop */
	enum intr intr;     /* an interrupt whose stop has not come yet */
	bool paused;        /* stopped by a diagnosis: goes back outside after it */
	bool was_stopped;   /* in state T (job control) when we seized it */
	/* --races: an acquire (lock, sem wait, join, a cond wait's mutex)
	 * observed only once its call has returned (see observe_step) */
	struct cts_event acq;
	bool has_acq;
};

struct att {
	const struct attach_cfg *cfg;
	struct cts_tracer *tr;
	struct cts_run_state st;
	struct cts_objmodel *model;
	struct cts_sym *sym;
	pid_t pid;
	char exe[256];
	struct att_th *x;
	size_t xcap;
	uint64_t *planted;      /* addresses of the int3s in the text now */
	size_t nplanted, plcap;
	struct thread *cur;     /* the scheduled thread, until its next stop */
	bool controlling;       /* seized and set up: new threads join the schedule */
	bool overflow;          /* a thread past --max-threads: control ends */
	bool detaching;
	struct thread *bug_th;  /* its stack is read at the detach, every thread stopped */
	bool gone;              /* the process ended (or exec'd) while attached */
	char gone_how[160];
	bool bug;
	const char *bug_kind;   /* "deadlock", "assert", "crash" */
	char bug_head[640];
	char *bug_detail;
	size_t detail_len, detail_cap;
	uint64_t steps;
	/* libc's blocking pthread/sem functions, by wait kind, for the diagnosis */
	struct fnrange { uint64_t lo, hi; int kind; } *fns;
	int nfns;
	struct cts_mapping *maps;  /* executable mappings of the program's own code */
	size_t nmaps;
	char libc[256];            /* its path and load address */
	uint64_t libc_base;
	FILE *log;
	char log_path[512];
	/* --report: the diagnosis at attach, operations scheduled, the clock */
	json_t *diag;
	uint64_t ops[CTS_OP__COUNT];
	double t_start;
	char error[512];        /* an internal error, for the report */
	/* --races: the detector over what is seen from attach on */
	struct cts_race_detector *races;
	uint64_t obs_step;
	int nsure, nunsure;
	/* Steps over an int3 lifted from the text (an instruction that could
	 * not be emulated) while a thread ran outside the schedule: that thread
	 * may have passed the spot unseen (a free, an unlock), so a race whose
	 * accesses straddle one is not sure. */
	uint64_t nblind, blind_last;
	/* --races/--watch: int3s in the program's own code too */
	bool accesses;
};

static struct att_th *X(struct att *a, const struct thread *th)
{
	size_t n = (size_t)th->num;
	if (n >= a->xcap) {
		size_t cap = cts_grow_cap(a->xcap, n + 1);
		a->x = cts_xgrow(a->x, a->xcap, cap, sizeof(*a->x));
		a->xcap = cap;
	}
	return &a->x[n];
}

static void detail(struct att *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail(struct att *a, const char *fmt, ...)
{
	va_list ap;
	char line[1024];
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = strlen(line);
	if (a->detail_len + len + 1 > a->detail_cap) {
		size_t cap = cts_grow_cap(a->detail_cap, a->detail_len + len + 1);
		a->bug_detail = cts_xgrow(a->bug_detail, a->detail_cap, cap, 1);
		a->detail_cap = cap;
	}
	memcpy(a->bug_detail + a->detail_len, line, len + 1);
	a->detail_len += len;
}

/* ---- checking the target ---------------------------------------------------- */

static bool is_ancestor(pid_t pid)
{
	for (pid_t p = getppid(); p > 1;) {
		if (p == pid)
			return true;
		long pp = cts_proc_status_field(p, "PPid", NULL, 0);
		if (pp <= 0 || pp == p)
			break;
		p = (pid_t)pp;
	}
	return pid == 1 && getppid() != 0; /* init is everyone's ancestor */
}

static void comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	buf[0] = 0;
	FILE *f = fopen(path, "re");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

static void explain_eperm(pid_t pid, char *err, size_t errlen);
static int list_tasks(pid_t pid, pid_t **out, size_t *n);

/* Every check that can be made before touching the process. 0, or -1 with
 * one line in err (bad input: exit 2). *pid may become the thread group's. */
static int check_target(pid_t *pidp, char *exe, size_t exelen, char *err, size_t errlen)
{
	pid_t pid = *pidp;
	char state[64] = "", path[96], tracer_comm[64];

	if (pid == getpid()) {
		snprintf(err, errlen, "process %d is cts-trace itself", (int)pid);
		return -1;
	}
	long tgid = cts_proc_status_field(pid, "Tgid", NULL, 0);
	if (tgid <= 0) {
		snprintf(err, errlen, "no such process: %d", (int)pid);
		return -1;
	}
	if (tgid != pid) {
		cts_error_msg("%d is a thread of process %ld: attaching to process %ld", (int)pid, tgid,
			      tgid);
		pid = *pidp = (pid_t)tgid;
	}
	if (pid == getpid()) {
		snprintf(err, errlen, "process %d is cts-trace itself", (int)pid);
		return -1;
	}
	if (is_ancestor(pid)) {
		snprintf(err, errlen, "process %d is an ancestor of cts-trace (it would wait for us "
			 "while we stop it)", (int)pid);
		return -1;
	}
	cts_proc_status_field(pid, "State", state, sizeof(state));
	long nthreads = cts_proc_status_field(pid, "Threads", NULL, 0);
	if ((state[0] == 'Z' || state[0] == 'X') && nthreads <= 1) {
		snprintf(err, errlen, "process %d is a zombie (it has exited; its parent has not "
			 "reaped it): nothing to attach to", (int)pid);
		return -1;
	}
	long tracer = cts_proc_status_field(pid, "TracerPid", NULL, 0);
	if (tracer > 0) {
		comm_of((pid_t)tracer, tracer_comm, sizeof(tracer_comm));
		snprintf(err, errlen, "process %d is already traced by process %ld (%s): a process "
			 "has one tracer at a time", (int)pid, tracer,
			 tracer_comm[0] ? tracer_comm : "?");
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, exelen - 1);
	if (n <= 0 && errno == ENOENT && nthreads > 1) {
		/* the leader left by pthread_exit: another thread's view */
		pid_t *tids;
		size_t nt;
		if (list_tasks(pid, &tids, &nt) == 0)
			for (size_t i = 0; i < nt && n <= 0; i++) {
				snprintf(path, sizeof(path), "/proc/%d/task/%d/exe", (int)pid, (int)tids[i]);
				n = readlink(path, exe, exelen - 1);
			}
		free(tids);
	}
	if (n <= 0) {
		if (errno == EACCES || errno == EPERM)
			explain_eperm(pid, err, errlen);
		else
			snprintf(err, errlen, "process %d has no executable (a kernel thread?)",
				 (int)pid);
		return -1;
	}
	exe[n] = 0;
	/* The image as mapped (it may have been replaced on disk since). */
	struct cts_elf_info info;
	char why[512];
	enum cts_elf_problem p = cts_elf_check(path, &info, why, sizeof(why));
	if (p == CTS_ELF_32BIT || p == CTS_ELF_NOTX86) {
		snprintf(err, errlen, "process %d runs %s, not an x86-64 program: cts traces "
			 "64-bit x86 processes only", (int)pid, exe);
		return -1;
	}
	if (p == CTS_ELF_STATIC) {
		snprintf(err, errlen, "process %d runs %s, which is statically linked: there is no "
			 "shared libc to find its pthread entry points in", (int)pid, exe);
		return -1;
	}
	if (p != CTS_ELF_OK) {
		snprintf(err, errlen, "process %d: %s", (int)pid, why);
		return -1;
	}
	return 0;
}

/* Why PTRACE_SEIZE said EPERM, in one line. */
static void explain_eperm(pid_t pid, char *err, size_t errlen)
{
	long scope = -1;
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fscanf(f, "%ld", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	static const char *const why[] = {
		"classic rules: same user, or CAP_SYS_PTRACE",
		"restricted: only descendants, or a process that named us with PR_SET_PTRACER, "
		"unless we have CAP_SYS_PTRACE",
		"admin-only: CAP_SYS_PTRACE needed",
		"no attach: no process may attach, whatever its rights",
	};
	if (scope >= 0 && scope <= 3)
		snprintf(err, errlen, "ptrace refused for process %d (EPERM): kernel.yama.ptrace_scope "
			 "is %ld (%s)%s", (int)pid, scope, why[scope],
			 scope == 0 ? "; another user's or a non-dumpable process?" : "");
	else
		snprintf(err, errlen, "ptrace refused for process %d (EPERM): another user's or a "
			 "non-dumpable process, and no CAP_SYS_PTRACE", (int)pid);
}

/* ---- waiting ---------------------------------------------------------------- */

/* waitpid for any of our tracees, at most timeout_us (< 0: block). */
static pid_t wait_any(int *status, long timeout_us)
{
	pid_t r = waitpid(-1, status, __WALL | WNOHANG);
	if (r != 0 || timeout_us == 0)
		return r;
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	r = waitpid(-1, status, __WALL | WNOHANG);
	if (r == 0) {
		long us = timeout_us < 0 ? 100000 : timeout_us;
		struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
		sigtimedwait(&chld, NULL, &ts);
		r = waitpid(-1, status, __WALL | WNOHANG);
	}
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return r;
}

/* ---- threads ---------------------------------------------------------------- */

static struct thread *add_thread(struct att *a, pid_t tid)
{
	struct thread *th = cts_tr_new_thread(a->tr, tid);
	if (!th)
		return NULL;
	memset(X(a, th), 0, sizeof(struct att_th));
	return th;
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

static int interrupt(struct att *a, struct thread *th, enum intr why)
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
static int run_on(struct att *a, struct thread *th, enum th_state as)
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
static bool is_planted(const struct att *a, uint64_t addr)
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
				cts_mem_write(child, b->addr, &b->orig, 1);
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

static void stack_lines(struct att *a, struct thread *th, const char *indent);
static void stack_to(struct att *a, struct thread *th, const char *indent, FILE *f);
static void observe_kernel(struct att *a, const struct thread *th);
static void heap_free(struct att *a, struct thread *th);

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
	if (!b || !is_planted(a, addr)) {
		/* The program's own int3: its SIGTRAP, as without us. */
		X(a, th)->sig = SIGTRAP;
		if (a->detaching)
			return 0;
		return run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state);
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
		heap_free(a, th);
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
	observe_kernel(a, th); /* after its creator's clone */
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
	return run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
}

/* One stop, decoded and handled. 1 handled, 0 none came, -1 error. */
static int att_event(struct att *a, long timeout_us)
{
	int status;
	pid_t tid = wait_any(&status, timeout_us);
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
		if (ev.kind == CTS_WEV_EXITED || ev.kind == CTS_WEV_KILLED)
			return 1;
		long tgid = cts_proc_status_field(tid, "Tgid", NULL, 0);
		if (tgid != a->pid) {
			release_child(a, tid, false); /* a fork child, before its fork event */
			return 1;
		}
		/* A new thread's first stop before its clone event. */
		th = add_thread(a, tid);
		if (!th) {
			ptrace(PTRACE_DETACH, tid, 0, 0);
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
				snprintf(a->gone_how, sizeof(a->gone_how), "was killed by %s",
					 strsignal(ev.sig));
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
			if (b && !a->detaching && is_planted(a, at) && b->active)
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
		return run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
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
		observe_kernel(a, th); /* after its sender */
		return run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
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
		if (!cts_tr_by_tid(a->tr, ntid) && !add_thread(a, ntid) && !a->overflow) {
			/* Not detached now: it would run into our int3s. The kernel
			 * lets it go when cts-trace exits, after the bytes are back. */
			cts_error_msg("process %d created more threads than --max-threads: detaching",
				      (int)a->pid);
			a->overflow = true;
		}
		if (a->detaching)
			return 1;
		return run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
	}
	case CTS_WEV_FORK:
		x->stopped = true;
		foreign_child(a, (pid_t)ev.msg, (ev.status >> 16) == PTRACE_EVENT_VFORK);
		if (a->detaching)
			return 1;
		return run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
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
		return run_on(a, th, TH_OUTSIDE) == 0 ? 1 : -1;
	case CTS_WEV_WATCHPOINT:
		x->stopped = true;
		if (a->detaching)
			return 1;
		if (a->accesses) {
			enum th_state was = th->state;
			if (cts_access_watch_hit(a->tr, th) != 0)
				return -1;
			x->stopped = false;
			if (was != TH_HELD && was != TH_RUNNING)
				th->state = was;
			return 1;
		}
		return run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
	case CTS_WEV_SYSCALL:
		if (a->detaching) {
			x->stopped = true;
			return 1;
		}
		observe_kernel(a, th); /* --races: entry and exit alike */
		/* an interrupt that finds th in a system call reports the call's
		 * stop first: th is stopped now, as it asked */
		if (x->intr == INTR_PAUSE || x->intr == INTR_HOLD)
			return stop_event(a, th);
		/* fall through */
	case CTS_WEV_SECCOMP:
		x->stopped = true;
		if (a->detaching)
			return 1;
		return run_on(a, th, th->state == TH_HELD ? TH_RUNNING : th->state) == 0 ? 1 : -1;
	}
	return 1;
}

/* Wait until every thread we know is in a ptrace-stop (or gone). */
static int wait_all_stopped(struct att *a, double limit_s)
{
	double end = cts_tr_now_s() + limit_s;
	for (;;) {
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
		if (att_event(a, 10000) < 0)
			return -1;
	}
}

/* ---- seizing ---------------------------------------------------------------- */

static int list_tasks(pid_t pid, pid_t **out, size_t *n)
{
	char path[64];
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (*n >= cap) {
			size_t ncap = cts_grow_cap(cap, *n + 1);
			*out = cts_xgrow(*out, cap, ncap, sizeof(**out));
			cap = ncap;
		}
		(*out)[(*n)++] = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return 0;
}

static int cmp_pid(const void *p, const void *q)
{
	pid_t x = *(const pid_t *)p, y = *(const pid_t *)q;
	return (x > y) - (x < y);
}

/* Seize every thread: the leader first (it is thread 0), then the others
 * in tid order, re-reading the task list until a pass finds no new thread
 * (a thread created meanwhile by a seized one is attached by the kernel
 * and reports on its own). 0, -1 with err (bad input when *bad). */
static int seize_all(struct att *a, char *err, size_t errlen, bool *bad)
{
	const long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK |
			  PTRACE_O_TRACEVFORK | (a->cfg->races ? PTRACE_O_TRACESYSGOOD : 0);
	*bad = false;
	for (int pass = 0;; pass++) {
		pid_t *tids;
		size_t n;
		if (list_tasks(a->pid, &tids, &n) != 0 || n == 0) {
			free(tids);
			if (pass == 0) {
				*bad = true;
				snprintf(err, errlen, "no such process: %d", (int)a->pid);
			} else {
				snprintf(err, errlen, "process %d ended while attaching", (int)a->pid);
			}
			return -1;
		}
		qsort(tids, n, sizeof(*tids), cmp_pid);
		/* the leader first: thread 0 */
		for (size_t i = 0; i < n; i++)
			if (tids[i] == a->pid) {
				memmove(tids + 1, tids, i * sizeof(*tids));
				tids[0] = a->pid;
			}
		bool added = false;
		for (size_t i = 0; i < n; i++) {
			if (cts_tr_by_tid(a->tr, tids[i]))
				continue;
			char was = cts_proc_state(tids[i]);
			if (was == 'Z' || was == 'X')
				continue; /* a leader gone by pthread_exit: never stops again */
			if (ptrace(PTRACE_SEIZE, tids[i], 0, (void *)opts) != 0) {
				int e = errno;
				if (e == ESRCH)
					continue; /* gone meanwhile */
				if (e == EPERM && cts_proc_status_field(tids[i], "TracerPid", NULL, 0) == getpid()) {
					/* attached by the kernel already: a clone of a seized thread */
				} else if (pass == 0 && i == 0) {
					*bad = true;
					if (e == EPERM) {
						long t = cts_proc_status_field(a->pid, "TracerPid", NULL, 0);
						if (t > 0)
							snprintf(err, errlen, "process %d is already traced by "
								 "process %ld", (int)a->pid, t);
						else
							explain_eperm(a->pid, err, errlen);
					} else {
						snprintf(err, errlen, "cannot attach to process %d: %s",
							 (int)a->pid, strerror(e));
					}
					free(tids);
					return -1;
				} else {
					snprintf(err, errlen, "cannot attach to thread %d of process %d: %s",
						 (int)tids[i], (int)a->pid, strerror(e));
					free(tids);
					return -1;
				}
			}
			struct thread *th = add_thread(a, tids[i]);
			if (th)
				X(a, th)->was_stopped = was == 'T';
			if (!th) {
				snprintf(err, errlen, "process %d has more threads than --max-threads",
					 (int)a->pid);
				free(tids);
				return -1;
			}
			X(a, th)->intr = INTR_HOLD;
			if (ptrace(PTRACE_INTERRUPT, tids[i], 0, 0) != 0 && errno != ESRCH) {
				snprintf(err, errlen, "PTRACE_INTERRUPT %d: %s", (int)tids[i],
					 strerror(errno));
				free(tids);
				return -1;
			}
			added = true;
		}
		free(tids);
		if (!added && pass > 0)
			return 0;
		if (cts_tr_interrupted())
			return 0;
	}
}

/* After the seize: who is where. A thread asleep in a system call leaves
 * the schedule (it runs on, restarting the call); one in user code is held
 * where it is; one in a group-stop stays stopped. */
static int first_states(struct att *a)
{
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		struct att_th *x = X(a, th);
		if (th->state == TH_DEAD)
			continue;
		x->intr = INTR_NONE;
		if (cts_tr_getregs(th) != 0) {
			if (errno == ESRCH)
				continue;
			return -1;
		}
		th->handle = th->regs.fs_base;
		cts_event_init(&th->pending, th->num, CTS_OP_START);
		th->pending.pc = th->regs.rip;
		cts_tr_hold(a->tr, th, AT_START);
		if ((long)th->regs.orig_rax >= 0 && !x->sig && !x->jstop)
			th->state = TH_OUTSIDE; /* resumed once the text is ready */
	}
	return 0;
}

/* ---- diagnosis ---------------------------------------------------------------- */

enum wait_kind { W_NONE, W_MUTEX, W_RWLOCK, W_COND, W_JOIN, W_SEM, W_FUTEX, W_SYSCALL, W_STOPPED };

struct waitinfo {
	enum wait_kind kind;
	uint64_t obj;           /* the object (futex word for a raw futex) */
	int holder;             /* thread number it waits for, -1 none */
	pid_t holder_tid;       /* a tid that holds it but is no thread here */
	uint64_t at;            /* the first frame outside libc */
	long nr;
	uint32_t value;
};

static struct thread *by_tid_alive(struct att *a, pid_t tid)
{
	struct thread *t = tid > 0 ? cts_tr_by_tid(a->tr, tid) : NULL;
	return t && t->state != TH_DEAD ? t : NULL;
}

/* libc's blocking entry points by kind, and the program's code mappings:
 * what a stack scan looks for. */
static void scan_setup(struct att *a)
{
	static const struct { const char *name; int kind; } names[] = {
		{ "pthread_mutex_lock", W_MUTEX }, { "pthread_mutex_timedlock", W_MUTEX },
		{ "pthread_mutex_clocklock", W_MUTEX }, { "__pthread_mutex_cond_lock", W_MUTEX },
		{ "pthread_rwlock_rdlock", W_RWLOCK }, { "pthread_rwlock_wrlock", W_RWLOCK },
		{ "pthread_rwlock_timedrdlock", W_RWLOCK }, { "pthread_rwlock_timedwrlock", W_RWLOCK },
		{ "pthread_rwlock_clockrdlock", W_RWLOCK }, { "pthread_rwlock_clockwrlock", W_RWLOCK },
		{ "pthread_cond_wait", W_COND }, { "pthread_cond_timedwait", W_COND },
		{ "pthread_cond_clockwait", W_COND }, { "pthread_join", W_JOIN },
		{ "pthread_timedjoin_np", W_JOIN }, { "pthread_clockjoin_np", W_JOIN },
		{ "__pthread_clockjoin_ex", W_JOIN }, { "sem_wait", W_SEM },
		{ "sem_timedwait", W_SEM }, { "sem_clockwait", W_SEM },
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	const char *nm[N];
	uint64_t val[N], size[N];
	struct cts_mapping *maps;
	size_t n;
	char libc[256] = "";
	uint64_t base = 0;

	if (cts_maps_read(a->tr->pid, &maps, &n) != 0)
		return;
	a->maps = cts_xcalloc(n + 1, sizeof(*a->maps));
	for (size_t i = 0; i < n; i++) {
		const char *b = strrchr(maps[i].path, '/');
		b = b ? b + 1 : maps[i].path;
		if (!base && maps[i].off == 0 && (strncmp(b, "libc.so", 7) == 0 || strncmp(b, "libc-", 5) == 0)) {
			base = maps[i].lo;
			snprintf(libc, sizeof(libc), "%s", maps[i].path);
		}
		if (maps[i].perms[2] == 'x' && maps[i].path[0] == '/' && !cts_tr_in_libc(a->tr, maps[i].lo))
			a->maps[a->nmaps++] = maps[i];
	}
	free(maps);
	for (int i = 0; i < N; i++)
		nm[i] = names[i].name;
	snprintf(a->libc, sizeof(a->libc), "%s", libc);
	a->libc_base = base;
	if (!base || cts_elf_lookup(libc, nm, N, val, size) <= 0)
		return;
	a->fns = cts_xcalloc(N, sizeof(*a->fns));
	for (int i = 0; i < N; i++)
		if (val[i] && size[i])
			a->fns[a->nfns++] = (struct fnrange){ base + val[i], base + val[i] + size[i],
							      names[i].kind };
}

static bool in_own_code(const struct att *a, uint64_t pc)
{
	for (size_t i = 0; i < a->nmaps; i++)
		if (pc >= a->maps[i].lo && pc < a->maps[i].hi)
			return true;
	return false;
}

/* The kind of blocking call th is in, from the return addresses on its
 * stack (the first of libc's blocking entry points found above rsp), and
 * *at the first return address into the program's own code after it (the
 * call site). W_NONE when none is found. */
static int stack_scan(struct att *a, struct thread *th, uint64_t *at)
{
	uint64_t words[512];
	uint64_t sp = th->regs.rsp;
	size_t got = 0;
	int kind = W_NONE;
	/* page by page: the stack's end stops the read */
	while (got < 512) {
		size_t want = (4096 - ((sp + got * 8) & 4095)) / 8;
		if (want > 512 - got)
			want = 512 - got;
		if (!want || cts_mem_read(th->tid, sp + got * 8, words + got, want * 8) != 0)
			break;
		got += want;
	}
	*at = 0;
	size_t from = 0;
	for (size_t i = 0; i < got && kind == W_NONE; i++)
		for (int k = 0; k < a->nfns; k++)
			if (words[i] > a->fns[k].lo && words[i] <= a->fns[k].hi) {
				kind = a->fns[k].kind;
				from = i + 1;
			}
	for (size_t i = from; i < got && !*at; i++)
		if (in_own_code(a, words[i]))
			*at = words[i] - 1;
	if (!*at && !cts_tr_in_libc(a->tr, th->regs.rip))
		*at = th->regs.rip;
	return kind;
}

/* What th (stopped, registers read) is blocked on. */
static void what_blocks(struct att *a, struct thread *th, struct waitinfo *w)
{
	memset(w, 0, sizeof(*w));
	w->holder = -1;
	w->nr = -1;
	if (X(a, th)->jstop) {
		w->kind = W_STOPPED;
		return;
	}
	if (cts_tr_getregs(th) != 0 || (long)th->regs.orig_rax < 0)
		return;
	w->nr = (long)th->regs.orig_rax;
	int fn = stack_scan(a, th, &w->at);
	if (w->nr != SYS_futex) {
		w->kind = W_SYSCALL;
		return;
	}
	int op = (int)th->regs.rsi & FUTEX_CMD_MASK;
	if (op != FUTEX_WAIT && op != FUTEX_WAIT_BITSET && op != FUTEX_LOCK_PI &&
	    op != FUTEX_LOCK_PI2 && op != FUTEX_WAIT_REQUEUE_PI) {
		w->kind = W_NONE; /* a wake: on its way */
		return;
	}
	uint64_t f = th->regs.rdi;
	w->obj = f;
	cts_mem_read(th->tid, f, &w->value, 4);
	/* pthread_join waits on the joined thread's tid word (cleared and
	 * woken when it dies): a wait there is a join, whatever the stack says */
	for (int i = 0; i < a->tr->nlive && fn != W_MUTEX; i++) {
		struct thread *t = a->tr->live[i];
		if (t != th && t->state != TH_DEAD && t->handle && t->handle + GLIBC_TID_OFFSET == f &&
		    w->value == (uint32_t)t->tid)
			fn = W_JOIN;
	}
	if (fn == W_MUTEX) {
		uint32_t owner = 0;
		w->kind = W_MUTEX;
		if (cts_mem_read(th->tid, f + 8, &owner, 4) == 0 && owner) {
			struct thread *h = by_tid_alive(a, (pid_t)(owner & 0x3fffffff));
			if (h)
				w->holder = h->num;
			else
				w->holder_tid = (pid_t)(owner & 0x3fffffff);
		}
		return;
	}
	if (fn == W_RWLOCK) {
		/* the futex is __readers (0), __wrphase_futex (8) or __writers_futex (12);
		 * __cur_writer (24) names a writer that holds it */
		w->kind = W_RWLOCK;
		static const uint64_t offs[] = { 0, 8, 12 };
		for (size_t k = 0; k < 3; k++) {
			uint32_t wr = 0;
			if (cts_mem_read(th->tid, f - offs[k] + 24, &wr, 4) != 0 || !wr)
				continue;
			struct thread *h = by_tid_alive(a, (pid_t)wr);
			if (h && h != th) {
				w->obj = f - offs[k];
				w->holder = h->num;
				break;
			}
		}
		return;
	}
	if (fn == W_JOIN) {
		w->kind = W_JOIN;
		for (int i = 0; i < a->tr->nlive; i++) {
			struct thread *t = a->tr->live[i];
			if (t->state != TH_DEAD && t->handle && t->handle + GLIBC_TID_OFFSET == f) {
				w->holder = t->num;
				w->obj = t->handle;
			}
		}
		return;
	}
	if (fn == W_COND) {
		w->kind = W_COND;
		return;
	}
	if (fn == W_SEM) {
		w->kind = W_SEM;
		return;
	}
	w->kind = W_FUTEX;
}

/* libdw is slow to load libc's debug info (a third of a second): only for
 * what is printed, never for the diagnosis itself. */
static struct cts_sym *sym(struct att *a)
{
	if (!a->sym) {
		a->sym = cts_sym_new(a->tr->pid); /* a live thread: the leader may be a zombie */
		a->tr->sym = a->sym; /* lent: access.c's and the report's names */
	}
	return a->sym;
}

static void describe_pc(struct att *a, uint64_t pc, char *buf, size_t len)
{
	if (sym(a) && pc)
		cts_sym_format(a->sym, pc, buf, len);
	else
		snprintf(buf, len, "0x%" PRIx64, pc);
}

/* th's stack (stopped), into the bug's detail or, f given, onto f. */
static void stack_to(struct att *a, struct thread *th, const char *indent, FILE *f)
{
	uint64_t pcs[16];
	int n = sym(a) ? cts_sym_stack(a->sym, th->tid, pcs, 16) : 0;
	for (int i = 0; i < n; i++) {
		char where[256];
		cts_sym_format_frame(a->sym, pcs[i], i > 0, where, sizeof(where));
		if (f)
			fprintf(f, "%s#%d %s\n", indent, i, where);
		else
			detail(a, "%s#%d %s\n", indent, i, where);
	}
}

static void stack_lines(struct att *a, struct thread *th, const char *indent)
{
	stack_to(a, th, indent, NULL);
}

/* "mutex 0x.. held by thread 2", the launched runs' phrases. */
static void what_phrase(const struct waitinfo *w, char *buf, size_t len)
{
	char who[64];
	if (w->holder >= 0)
		snprintf(who, sizeof(who), "thread %d", w->holder);
	else if (w->holder_tid)
		snprintf(who, sizeof(who), "tid %d, no thread of the process any more",
			 (int)w->holder_tid);
	else
		snprintf(who, sizeof(who), "nobody (being handed over)");
	switch (w->kind) {
	case W_MUTEX:
		snprintf(buf, len, "mutex 0x%" PRIx64 " held by %s", w->obj, who);
		break;
	case W_RWLOCK:
		if (w->holder >= 0)
			snprintf(buf, len, "rwlock 0x%" PRIx64 " write-held by %s", w->obj, who);
		else
			snprintf(buf, len, "rwlock (futex word 0x%" PRIx64 ")", w->obj);
		break;
	case W_JOIN:
		if (w->holder >= 0)
			snprintf(buf, len, "thread %d to exit", w->holder);
		else
			snprintf(buf, len, "a thread to exit (futex word 0x%" PRIx64 ")", w->obj);
		break;
	case W_COND:
		snprintf(buf, len, "a signal on a condition variable (futex word 0x%" PRIx64 ")",
			 w->obj);
		break;
	case W_SEM:
		snprintf(buf, len, "semaphore 0x%" PRIx64 " (value %u)", w->obj, w->value);
		break;
	case W_FUTEX:
		snprintf(buf, len, "futex 0x%" PRIx64 " (value %u)", w->obj, w->value);
		break;
	case W_SYSCALL:
		if (strcmp(cts_syscall_name(w->nr), "syscall") == 0)
			snprintf(buf, len, "system call %ld to return", w->nr);
		else
			snprintf(buf, len, "system call %s to return", cts_syscall_name(w->nr));
		break;
	case W_STOPPED:
		snprintf(buf, len, "SIGCONT (stopped by job control)");
		break;
	case W_NONE:
		buf[0] = 0;
		break;
	}
}

static const char *kind_op(enum wait_kind k)
{
	switch (k) {
	case W_MUTEX: return cts_op_name(CTS_OP_LOCK);
	case W_RWLOCK: return "rwlock";
	case W_JOIN: return cts_op_name(CTS_OP_JOIN);
	case W_COND: return cts_op_name(CTS_OP_COND_WAIT);
	case W_SEM: return cts_op_name(CTS_OP_SEM_WAIT);
	case W_FUTEX: return cts_op_name(CTS_OP_FUTEX_WAIT);
	default: return "a system call";
	}
}

/* The diagnosis at attach for --report: one object per thread. */
static void diag_json(struct att *a, const struct waitinfo *w)
{
	char what[256], where[256];
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		const struct waitinfo *wi = &w[th->num];
		if (th->state == TH_DEAD)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "thread", json_integer(th->num));
		json_object_set_new(o, "tid", json_integer(th->tid));
		json_object_set_new(o, "blocked", json_boolean(wi->kind != W_NONE));
		if (wi->kind != W_NONE) {
			what_phrase(wi, what, sizeof(what));
			describe_pc(a, wi->at ? wi->at : th->regs.rip, where, sizeof(where));
			json_object_set_new(o, "in", cts_report_jstr(kind_op(wi->kind)));
			json_object_set_new(o, "location", cts_report_jstr(where));
			json_object_set_new(o, "waits_for", cts_report_jstr(what));
			json_object_set_new(o, "holder", wi->holder >= 0 ? json_integer(wi->holder) :
							 json_null());
		}
		json_array_append_new(a->diag, o);
	}
}

/* Every thread stopped: what each waits for, and a wait-for cycle among
 * lock waiters and joiners (a deadlock in progress: the bug). print: the
 * per-thread lines at -v or when there is a cycle. */
static bool diagnose(struct att *a, bool print)
{
	struct cts_tracer *tr = a->tr;
	int n = tr->nthreads;
	struct waitinfo *w = cts_xcalloc((size_t)n + 1, sizeof(*w));
	int *edge = cts_xcalloc((size_t)n + 1, sizeof(*edge));
	bool *seen = cts_xcalloc((size_t)n + 1, sizeof(*seen));
	bool cycle = false;

	for (int i = 0; i < n; i++)
		edge[i] = -1;
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *th = tr->live[i];
		if (th->state == TH_DEAD)
			continue;
		what_blocks(a, th, &w[th->num]);
		bool edged = w[th->num].kind == W_MUTEX || w[th->num].kind == W_RWLOCK ||
			     w[th->num].kind == W_JOIN;
		if (edged)
			edge[th->num] = w[th->num].holder;
	}
	if (a->diag && !a->controlling && !json_array_size(a->diag))
		diag_json(a, w);
	int start = -1;
	for (int s = 0; s < n && start < 0; s++) {
		if (edge[s] < 0)
			continue;
		memset(seen, 0, (size_t)n * sizeof(*seen));
		int t = s;
		while (t >= 0 && !seen[t]) {
			seen[t] = true;
			t = edge[t];
		}
		if (t == s)
			start = s;
	}
	cycle = start >= 0;
	if (cycle || print) {
		char what[256], where[256];
		size_t moff = 0;
		int listed = 0;
		char *m = a->bug_head;
		if (cycle) {
			a->bug = true;
			a->bug_kind = "deadlock";
			moff = (size_t)snprintf(m, sizeof(a->bug_head), "%s", a->controlling ?
						"deadlock:" : "deadlock (already in progress when cts "
						"attached):");
		}
		for (int i = 0; i < tr->nlive; i++) {
			struct thread *th = tr->live[i];
			struct waitinfo *wi = &w[th->num];
			if (th->state == TH_DEAD || wi->kind == W_NONE)
				continue;
			what_phrase(wi, what, sizeof(what));
			describe_pc(a, wi->at ? wi->at : th->regs.rip, where, sizeof(where));
			if (cycle)
				detail(a, "  thread %d blocked in %s at %s: waits for %s\n", th->num,
				       kind_op(wi->kind), where, what);
			else
				cts_error_msg("  thread %d (tid %d) blocked in %s at %s: waits for %s",
					      th->num, (int)th->tid, kind_op(wi->kind), where, what);
			if (cycle && moff < sizeof(a->bug_head))
				moff += (size_t)snprintf(m + moff, sizeof(a->bug_head) - moff,
							 "%s thread %d waits for %s",
							 listed++ ? ";" : "", th->num, what);
		}
		if (cycle) {
			detail(a, "  cycle: thread %d", start);
			for (int t = edge[start]; t != start; t = edge[t])
				detail(a, " -> thread %d", t);
			detail(a, " -> thread %d\n", start);
			int t = start;
			do {
				struct thread *h = cts_tr_by_num(tr, edge[t]);
				if (h) {
					detail(a, "  thread %d's stack (it holds what thread %d waits for):\n",
					       h->num, t);
					stack_lines(a, h, "    ");
				}
				t = edge[t];
			} while (t != start);
		}
	}
	free(w);
	free(edge);
	free(seen);
	return cycle;
}

/* ---- races ------------------------------------------------------------------- */

/* --races in a live process: models/race.c's detector over what is seen
 * from attach on, one event at a time in the order the tracer let it
 * happen (every thread is stopped at a breakpoint or runs free to its next
 * one, so that order is causal). Releases (unlock, post, signal) are
 * observed when the thread is let into them, acquires once the call has
 * returned (at the thread's next step): the detector sees them late, never
 * early, so it may miss a race but not invent an edge's absence. Every
 * system call stop (PTRACE_SYSCALL) acquires and releases the kernel: a
 * futex wake and its waiter, a pipe and its reader, a clone and the new
 * thread are ordered through it. docs/design.md, "Attach mode". */

static void race_line(struct att *a, const struct cts_race *r, bool sure, bool blind)
{
	struct cts_backend be = cts_tracer_backend(a->tr);
	struct cts_describer d = cts_backend_describer(&be);
	char var[160] = "", p1[256], p2[256], msg[sizeof(a->bug_head)];
	if (d.describe_data)
		d.describe_data(d.be, r->addr, var, sizeof(var));
	describe_pc(a, r->pc1, p1, sizeof(p1));
	describe_pc(a, r->pc2, p2, sizeof(p2));
	snprintf(msg, sizeof(msg), "data race on %s%s0x%" PRIx64 "%s (%u bytes): thread %d %s at %s "
		 "vs thread %d %s at %s%s", var, var[0] ? " (" : "", r->addr, var[0] ? ")" : "",
		 r->size, r->tid1, cts_op_name(r->op1), p1, r->tid2, cts_op_name(r->op2), p2,
		 sure ? "" : blind ? " (unsure: between the two accesses an int3 was lifted for "
		 "a step while a thread ran outside the schedule, which may have passed it unseen, "
		 "e.g. a free or an unlock; never a bug in attach mode)" :
		 " (unsure: both plain loads/stores, which a C11 atomic or a "
		 "hand-off cts cannot see compiles to as well; never a bug in attach mode)");
	fprintf(stderr, "cts-trace: %s%s\n", sure ? "" : "possible ", msg);
	struct thread *th = cts_tr_by_num(a->tr, r->tid2);
	bool bug = a->cfg->races == CTS_RACES_FAIL && sure && !a->bug;
	if (!bug && th && X(a, th)->stopped) {
		/* held before its access, which completed the race */
		fprintf(stderr, "  thread %d's stack at its %s:\n", r->tid2, cts_op_name(r->op2));
		stack_to(a, th, "    ", stderr);
	}
	if (bug) {
		a->bug = true;
		a->bug_kind = "race";
		snprintf(a->bug_head, sizeof(a->bug_head), "%s", msg);
		detail(a, "  thread %d's stack at its %s (held before it; the detach prints it):\n",
		       r->tid2, cts_op_name(r->op2));
		a->bug_th = th; /* held on its access: its stack is the access's */
	}
}

/* Decide the candidates so far (at once: a live process has no end of
 * run to wait for). A race with a non-atomic read-modify-write on one side
 * is sure; two plain moves may be a C11 atomic's, or data handed over by
 * a flag cts did not see: reported as unsure, never a bug. */
static void settle(struct att *a)
{
	int fresh = cts_race_flush(a->races);
	int n = cts_race_count(a->races);
	for (int i = n - (fresh > 0 ? fresh : 0); i < n; i++) {
		const struct cts_race *r = cts_race_get(a->races, i);
		bool blind = a->nblind && a->blind_last >= r->step1;
		bool sure = !r->plain && !blind;
		a->nsure += sure;
		a->nunsure += !sure;
		race_line(a, r, sure, blind && !r->plain);
	}
}

static void observe(struct att *a, const struct cts_event *ev)
{
	if (a->races && a->controlling && cts_race_observe(a->races, ev, a->obs_step++) > 0)
		settle(a);
}

/* A system call stop, a signal, a new thread: ordered through the kernel. */
static void observe_kernel(struct att *a, const struct thread *th)
{
	struct cts_event ev;
	cts_event_init(&ev, th->num, CTS_OP_IO);
	observe(a, &ev);
}

static bool is_acquire(cts_op op)
{
	switch (op) {
	case CTS_OP_LOCK: case CTS_OP_TRYLOCK: case CTS_OP_RDLOCK: case CTS_OP_WRLOCK:
	case CTS_OP_TRYRDLOCK: case CTS_OP_TRYWRLOCK: case CTS_OP_SEM_WAIT:
	case CTS_OP_SEM_TRYWAIT: case CTS_OP_JOIN:
		return true;
	default:
		return false;
	}
}

/* th is let into its pending operation: what the detector learns now, and
 * what it learns only at th's next step (an acquire, once returned). A
 * try-op or a timed one counts as acquired: one edge too many hides a race
 * at worst. */
static void observe_step(struct att *a, struct thread *th)
{
	struct att_th *x = X(a, th);
	if (!a->races)
		return;
	/* returned from the call that acquired: held at a breakpoint again,
	 * or preempted in the program's own code */
	if (x->has_acq && (th->at == AT_BREAKPOINT || in_own_code(a, th->pending.pc))) {
		x->has_acq = false;
		observe(a, &x->acq);
	}
	if (th->at == AT_START)
		return;
	struct cts_event ev = th->pending;
	ev.tid = th->num;
	ev.result = 0;
	switch (ev.op) {
	case CTS_OP_CREATE:
	case CTS_OP_BARRIER_WAIT:
		/* the clone, the barrier's futexes: through the kernel; the
		 * barrier's waiters leave by a wake, its last one acquires below */
		observe_kernel(a, th);
		if (ev.op == CTS_OP_BARRIER_WAIT) {
			cts_event_init(&x->acq, th->num, CTS_OP_IO);
			x->has_acq = true;
		}
		return;
	case CTS_OP_COND_WAIT:
		observe(a, &ev); /* releases the mutex */
		x->acq = ev;
		x->acq.op = CTS_OP_COND_REACQUIRE;
		x->has_acq = true;
		return;
	case CTS_OP_THREAD_EXIT:
	case CTS_OP_PROC_EXIT:
	case CTS_OP_CANCEL:
	case CTS_OP_BARRIER_INIT:
		return;
	default:
		break;
	}
	if (is_acquire(ev.op)) {
		ev.timed = false;
		x->acq = ev;
		x->has_acq = true;
		return;
	}
	observe(a, &ev);
}

/* ---- breakpoints -------------------------------------------------------------- */

static int cmp_u64(const void *p, const void *q)
{
	uint64_t x = *(const uint64_t *)p, y = *(const uint64_t *)q;
	return (x > y) - (x < y);
}

/* libc's entry points; with --races/--watch the program's own memory
 * instructions too (access.c's scan): the only int3s outside libc. */
static int plant_all(struct att *a)
{
	struct cts_tracer *tr = a->tr;
	int rc = 0;
	for (size_t i = 0; i < tr->bpcap && rc == 0; i++) {
		struct bp *b = &tr->bps[i];
		if (!b->addr || !b->active || (b->kind != BP_SYNC && b->kind != BP_ACCESS &&
						       !(b->kind == BP_LIBCALL && b->fn == -1)))
			continue;
		if (a->nplanted >= a->plcap) {
			size_t cap = cts_grow_cap(a->plcap, a->nplanted + 1);
			a->planted = cts_xgrow(a->planted, a->plcap, cap, sizeof(*a->planted));
			a->plcap = cap;
		}
		if ((rc = cts_tr_bp_plant(tr, b)) == 0)
			a->planted[a->nplanted++] = b->addr;
	}
	qsort(a->planted, a->nplanted, sizeof(*a->planted), cmp_u64);
	return rc;
}

/* --races/--watch: the program's memory instructions (access.c's scan,
 * planted with the rest), the watches resolved, debug registers armed
 * where they trap; every system call a stop for the race detector. */
static int setup_accesses(struct att *a)
{
	struct cts_tracer *tr = a->tr;
	sym(a); /* --watch SYM, and the races' variables */
	if (cts_access_setup(tr) != 0)
		return -1;
	a->accesses = true;
	tr->gate_access = tr->gate_libcalls = false; /* planted for the whole session */
	tr->access_armed = true;
	for (int i = 0; i < tr->nlive; i++)
		if (tr->live[i]->state != TH_DEAD && tr->live[i]->num != 0)
			cts_access_watch_thread(tr, tr->live[i]);
	if (a->cfg->races) {
		if (!(a->races = cts_race_new())) {
			snprintf(a->st.message, sizeof(a->st.message), "out of memory");
			return -1;
		}
		tr->trace_syscalls = true;
		/* a block freed and handed out again is new memory: libc's
		 * free and realloc forget its accesses (fn -1: attach's own) */
		static const char *const heap[] = { "free", "realloc", "reallocarray" };
		uint64_t val[3] = { 0 }, size[3];
		if (a->libc_base && cts_elf_lookup(a->libc, heap, 3, val, size) > 0)
			for (int i = 0; i < 3; i++)
				if (val[i] && !cts_tr_bp_find(tr, a->libc_base + val[i]))
					cts_tr_bp_add(tr, a->libc_base + val[i], BP_LIBCALL, -1);
	}
	return 0;
}

/* th entered free or realloc (not a step): the block's shadow memory is
 * forgotten, its size from glibc's chunk header (usable bytes: the size
 * field less its own word, and the prev_size word too for an mmapped
 * chunk). Forgetting can only hide a race. */
static void heap_free(struct att *a, struct thread *th)
{
	uint64_t p = th->regs.rdi, field = 0;
	if (!a->races || !p || cts_mem_read(th->tid, p - 8, &field, 8) != 0)
		return;
	uint64_t chunk = field & ~7ull, head = (field & 2) ? 16 : 8;
	if (chunk <= head || chunk > (1ull << 40))
		return;
	struct cts_event ev;
	cts_event_init(&ev, th->num, CTS_OP_ALLOC);
	ev.obj = p;
	ev.size = (uint32_t)(chunk - head > UINT32_MAX ? UINT32_MAX : chunk - head);
	observe(a, &ev);
}

/* Debug registers back to zero in every thread (--watch on hardware). */
static void clear_watches(struct att *a)
{
	if (!a->accesses || !cts_access_hw_watching(a->tr))
		return;
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		if (th->state != TH_DEAD && cts_hw_clear(th->tid, &th->hw) != 0 && errno != ESRCH)
			cts_error_msg("warning: cannot clear the debug registers of thread %d",
				      (int)th->tid);
	}
}

/* Text writes need a stopped thread of the process. */
static void restore_bytes(struct att *a)
{
	pid_t via = 0;
	for (int i = 0; i < a->tr->nlive && !via; i++)
		if (a->tr->live[i]->state != TH_DEAD && X(a, a->tr->live[i])->stopped &&
		    !X(a, a->tr->live[i])->listening)
			via = a->tr->live[i]->tid;
	for (size_t i = 0; i < a->nplanted; i++) {
		struct bp *b = cts_tr_bp_find(a->tr, a->planted[i]);
		if (!b)
			continue;
		if ((via && cts_mem_write(via, b->addr, &b->orig, 1) == 0) ||
		    cts_tr_bp_unplant(a->tr, b) == 0)
			continue;
		cts_error_msg("warning: could not restore the byte at 0x%" PRIx64 " of process %d",
			      b->addr, (int)a->pid);
	}
	a->nplanted = 0;
}

/* ---- detaching ---------------------------------------------------------------- */

/* A thread that hit one of our int3s (or finished a step over one) just
 * as an interrupt came reports the interrupt first, with the SIGTRAP still
 * pending: detached so, it would die of it. Such a thread runs on until it
 * takes the trap (as the breakpoint or step it is), which leaves it
 * stopped with rip rewound. */
static int consume_traps(struct att *a)
{
	for (int round = 0; round < 8; round++) {
		bool any = false;
		for (int i = 0; i < a->tr->nlive; i++) {
			struct thread *th = a->tr->live[i];
			struct att_th *x = X(a, th);
			struct cts_sigstate ss;
			if (th->state == TH_DEAD || !x->stopped || x->listening || x->sig)
				continue;
			th->regs_valid = false;
			if (cts_tr_getregs(th) != 0 || cts_proc_sigstate(th->tid, &ss) != 0 ||
			    !((ss.pnd >> (SIGTRAP - 1)) & 1))
				continue;
			if (!th->stepping_bp && !is_planted(a, th->regs.rip - 1))
				continue;
			x->intr = INTR_NONE;
			if (run_on(a, th, TH_RUNNING) != 0)
				return -1;
			any = true;
		}
		if (!any)
			return 0;
		if (wait_all_stopped(a, 5.0) != 0)
			return -1;
	}
	return 0;
}

/* Leave the process as it was: every thread brought to a ptrace-stop, the
 * int3 bytes put back, each thread's rip on a whole instruction, then
 * detached with the signal it stopped for (so none is lost or added). A
 * thread in a group-stop stays stopped: the kernel keeps the stop of a
 * process in group-stop across the detach. */
static int detach_all(struct att *a)
{
	int rc = 0;
	a->detaching = true;
	if (a->gone)
		return 0;
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		if (th->state != TH_DEAD && interrupt(a, th, INTR_DETACH) != 0)
			rc = -1;
	}
	if (wait_all_stopped(a, 5.0) != 0) {
		cts_error_msg("warning: not every thread of process %d stopped for the detach: %s",
			      (int)a->pid, strerror(errno));
		rc = -1;
	}
	if (a->gone)
		return rc;
	if (consume_traps(a) != 0)
		rc = -1;
	if (a->bug_th && a->bug_th->state != TH_DEAD)
		stack_lines(a, a->bug_th, "    ");
	restore_bytes(a);
	clear_watches(a);
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		if (th->state == TH_DEAD)
			continue;
		/* A thread stopped before its step over a breakpoint finished is
		 * on the instruction itself, whose byte is back: consistent. */
		th->stepping_bp = 0;
		if (cts_tr_flush_regs(th) != 0)
			rc = -1;
		int sig = X(a, th)->sig;
		if (ptrace(PTRACE_DETACH, th->tid, 0, (void *)(long)sig) != 0 && errno != ESRCH) {
			cts_error_msg("warning: PTRACE_DETACH of thread %d: %s", (int)th->tid,
				      strerror(errno));
			rc = -1;
		}
		X(a, th)->stopped = false;
	}
	return rc;
}

/* ---- control ------------------------------------------------------------------ */

#define PREEMPT_S 0.02   /* a thread running this long without an operation is preempted */
#define IDLE_DIAG_S 0.2  /* every thread asleep this long: look for a deadlock */

static void log_step(struct att *a, struct thread *th)
{
	if (!a->log)
		return;
	fprintf(a->log, "%" PRIu64 " %d %d %s 0x%" PRIx64 " 0x%" PRIx64 "\n", a->steps, th->num,
		(int)th->tid, th->at == AT_START ? "resume" : cts_op_name(th->pending.op),
		th->pending.obj, th->pending.pc);
}

static void open_log(struct att *a)
{
	const char *dir = a->cfg->out_dir ? a->cfg->out_dir : "cts-out";
	mkdir(dir, 0777);
	for (int k = 1; k < 10000; k++) {
		snprintf(a->log_path, sizeof(a->log_path), "%s/attach-%d-%d.txt", dir, (int)a->pid, k);
		FILE *f = fopen(a->log_path, "wx");
		if (f) {
			a->log = f;
			fprintf(f, "# cts-trace -p %d (%s): the schedule observed, one step a line:\n"
				"# step thread tid operation object pc. A live process cannot be "
				"replayed from its start: this is for reading, not for --replay.\n",
				(int)a->pid, a->exe);
			return;
		}
		if (errno != EEXIST)
			break;
	}
	cts_error_msg("warning: cannot write the observed schedule in %s", dir);
	a->log_path[0] = 0;
}

/* Every thread asleep for a while: stop them all, look for a cycle, let
 * the ones paused for it go on. */
static int idle_check(struct att *a)
{
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		if (X(a, th)->jstop)
			return 0; /* stopped by job control: not ours to judge */
		if (th->state != TH_DEAD && !X(a, th)->stopped && interrupt(a, th, INTR_PAUSE) != 0)
			return -1;
	}
	if (wait_all_stopped(a, 2.0) != 0)
		return a->gone ? 0 : -1;
	if (a->gone || diagnose(a, false))
		return 0;
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		if (th->state != TH_DEAD && X(a, th)->paused && run_on(a, th, th->state) != 0)
			return -1;
	}
	return 0;
}

static bool time_up(struct att *a, double t0)
{
	return a->cfg->time_limit > 0 && cts_tr_now_s() - t0 >= a->cfg->time_limit;
}

/* Run th from its visible operation to its next one (or out of the
 * schedule: asleep in the kernel, preempted, gone). */
static int step(struct att *a, struct thread *th)
{
	a->steps++;
	if (th->at != AT_START && th->pending.op > 0 && th->pending.op < CTS_OP__COUNT)
		a->ops[th->pending.op]++;
	log_step(a, th);
	observe_step(a, th);
	if (a->bug)
		return 0; /* --races fail: held before its racing access */
	a->cur = th;
	int rc;
	if (th->at == AT_BREAKPOINT && cts_op_is_access(th->pending.op)) {
		X(a, th)->stopped = false;
		rc = cts_access_execute(a->tr, th, &th->pending);
	} else if (th->at == AT_BREAKPOINT) {
		X(a, th)->stopped = false;
		rc = cts_tr_step_over_at(a->tr, th, th->bp_addr);
	} else {
		rc = run_on(a, th, TH_RUNNING);
	}
	if (rc != 0)
		return errno == ESRCH ? 0 : -1;
	X(a, th)->stopped = false;
	double t0 = cts_tr_now_s();
	bool preempting = false;
	while (a->cur == th && th->state == TH_RUNNING && !a->gone && !a->bug) {
		if (cts_tr_interrupted())
			return 0;
		int r = att_event(a, 1000);
		if (r < 0)
			return -1;
		if (r > 0 || a->cur != th || th->state != TH_RUNNING)
			continue;
		char c = cts_proc_state(th->tid);
		if (c == 'S' || c == 'D') {
			th->state = TH_OUTSIDE; /* asleep in the kernel: out of the schedule */
			break;
		}
		if (!preempting && cts_tr_now_s() - t0 > PREEMPT_S) {
			preempting = true;
			if (interrupt(a, th, INTR_HOLD) != 0)
				return -1;
		}
	}
	if (a->cur == th)
		a->cur = NULL;
	return 0;
}

static int control(struct att *a, struct cts_strategy *s)
{
	struct cts_tracer *tr = a->tr;
	double t0 = cts_tr_now_s(), idle_since = 0;
	bool *alive = NULL, *enabled = NULL, *outside = NULL;
	struct cts_event *pending = NULL;
	size_t cap = 0;
	int last = -1, rc = 0;

	if (s->ops->begin_run && !s->ops->begin_run(s, 0))
		return 0;
	while (!a->gone && !a->bug && !a->overflow && !cts_tr_interrupted() && !time_up(a, t0)) {
		int n = tr->nthreads, held = 0;
		if ((size_t)n > cap) {
			size_t ncap = cts_grow_cap(cap, (size_t)n);
			alive = cts_xgrow(alive, cap, ncap, sizeof(*alive));
			enabled = cts_xgrow(enabled, cap, ncap, sizeof(*enabled));
			outside = cts_xgrow(outside, cap, ncap, sizeof(*outside));
			pending = cts_xgrow(pending, cap, ncap, sizeof(*pending));
			cap = ncap;
		}
		memset(alive, 0, (size_t)n * sizeof(*alive));
		memset(enabled, 0, (size_t)n * sizeof(*enabled));
		memset(outside, 0, (size_t)n * sizeof(*outside));
		for (int i = 0; i < tr->nlive; i++) {
			struct thread *th = tr->live[i];
			int k = th->num;
			alive[k] = th->state != TH_DEAD;
			enabled[k] = th->state == TH_HELD && !X(a, th)->jstop;
			outside[k] = alive[k] && !enabled[k];
			pending[k] = th->pending;
			held += enabled[k];
		}
		/* events that came meanwhile (threads back from the kernel) */
		int r = att_event(a, held ? 0 : 5000);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r > 0) {
			idle_since = 0;
			continue;
		}
		if (!held) {
			double t = cts_tr_now_s();
			if (!idle_since)
				idle_since = t;
			else if (t - idle_since > IDLE_DIAG_S) {
				idle_since = 0;
				if (idle_check(a) != 0) {
					rc = -1;
					break;
				}
			}
			continue;
		}
		idle_since = 0;
		struct cts_sched_point pt = {
			.step = a->steps, .nthreads = n, .alive = alive, .enabled = enabled,
			.pending = pending, .outside = outside, .last = last,
		};
		int t = s->ops->choose(s, &pt);
		if (t < 0 || t >= n || !enabled[t])
			t = cts_sched_nth_enabled(&pt, 0);
		struct thread *th = cts_tr_by_num(tr, t);
		if (!th)
			continue;
		struct cts_event done = th->pending;
		if (step(a, th) != 0) {
			rc = -1;
			break;
		}
		if (s->ops->executed)
			s->ops->executed(s, &pt, &done);
		last = t;
		cts_tr_free_reaped(tr);
	}
	if (s->ops->end_run) {
		struct cts_run_summary sum = { .run = 0, .steps = a->steps, .bug = a->bug };
		s->ops->end_run(s, &sum);
	}
	free(alive);
	free(enabled);
	free(outside);
	free(pending);
	return rc;
}

/* ---- the session -------------------------------------------------------------- */

static void print_bug(struct att *a)
{
	fprintf(stderr, "cts-trace: BUG (%s) in process %d (%s): %s\n", a->bug_kind, (int)a->pid,
		a->exe, a->bug_head);
	if (a->bug_detail)
		fputs(a->bug_detail, stderr);
}

/* --report: the launch-mode schema (docs/report-format.md) with one run,
 * no replayable schedule, and an "attach" object: the pid, the diagnosis
 * at attach, the schedule observed and why it cannot be replayed. */
static int write_report(struct att *a, struct cts_report_out *out, int status)
{
	struct cts_explore_result res = {
		.runs = 1, .steps = a->steps, .elapsed = cts_tr_now_s() - a->t_start,
		.internal_error = status == EXIT_INTERNAL,
	};
	struct cts_bug bug = { .kind = CTS_BUG_NONE, .tid = -1, .hits = 1 };
	char desc[128], err[512], exe_link[64];
	snprintf(res.unseen, sizeof(res.unseen), "attach mode: what process %d did before cts "
		 "attached and after it detached; %s", (int)a->pid, a->accesses ?
		 "memory accesses inside libraries" : "plain memory accesses");
	snprintf(res.error, sizeof(res.error), "%s", a->error[0] ? a->error : "internal error");
	memcpy(res.ops, a->ops, sizeof(res.ops));
	if (a->bug) {
		static const struct { const char *name; enum cts_bug_kind kind; } kinds[] = {
			{ "crash", CTS_BUG_CRASH }, { "assert", CTS_BUG_ASSERT },
			{ "deadlock", CTS_BUG_DEADLOCK }, { "race", CTS_BUG_RACE },
		};
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strcmp(a->bug_kind, kinds[i].name) == 0)
				bug.kind = kinds[i].kind;
		bug.steps = a->steps;
		bug.tid = a->bug_th ? a->bug_th->num : -1;
		snprintf(bug.message, sizeof(bug.message), "%s", a->bug_head);
		snprintf(bug.detail, sizeof(bug.detail), "%s", a->bug_detail ? a->bug_detail : "");
		res.bugs = &bug;
		res.nbugs = 1;
	}
	if (strcmp(a->cfg->strategy, "pct") == 0)
		snprintf(desc, sizeof(desc), "pct seed=%" PRIu64 " depth=%d", a->cfg->seed,
			 a->cfg->depth);
	else
		snprintf(desc, sizeof(desc), "%s seed=%" PRIu64, a->cfg->strategy, a->cfg->seed);
	json_t *att = json_object();
	json_object_set_new(att, "pid", json_integer(a->pid));
	json_object_set_new(att, "time_limit", json_real(a->cfg->time_limit));
	json_object_set_new(att, "threads", json_integer(a->tr ? a->tr->nlive : 0));
	json_object_set_new(att, "diagnosis", a->diag ? json_incref(a->diag) : json_array());
	json_object_set_new(att, "schedule_observed", a->log && a->steps ?
			    cts_report_jstr(a->log_path) : json_null());
	json_object_set_new(att, "replayable", json_false());
	json_object_set_new(att, "note", cts_report_jstr(
		"a live process cannot be replayed from its start: the schedule observed is for "
		"reading, not for --replay"));
	json_object_set_new(att, "ended", a->gone ? cts_report_jstr(a->gone_how) : json_null());
	/* --races: sure ones (a non-atomic RMW on a side) and unsure ones (two plain moves) */
	json_object_set_new(att, "races_sure", a->races ? json_integer(a->nsure) : json_null());
	json_object_set_new(att, "races_unsure", a->races ? json_integer(a->nunsure) : json_null());
	json_object_set_new(att, "blind_steps", a->races ? json_integer((json_int_t)a->nblind) : json_null());
	/* the arguments from /proc/PID/cmdline, while the process is there */
	char cmd[4096], *argv[64] = { a->exe };
	snprintf(exe_link, sizeof(exe_link), "/proc/%d/cmdline", (int)a->pid);
	FILE *f = fopen(exe_link, "re");
	size_t len = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
	if (f)
		fclose(f);
	cmd[len] = 0;
	int argc = 0;
	for (size_t i = 0; i < len && argc < 62; i += strlen(cmd + i) + 1)
		if (argc++ > 0)
			argv[argc - 1] = cmd + i;
	argv[argc > 0 ? argc : 1] = NULL;
	/* the launch report's tracer counters: what attach mode counts of them */
	json_t *stats = a->tr ? cts_tracer_stats_json(a->tr) : json_object();
	struct cts_backend be = cts_tracer_backend(a->tr);
	struct cts_describer d = cts_backend_describer(&be);
	json_t *watch = a->tr && a->accesses ? cts_tracer_watch_json(a->tr) : NULL;
	res.races = a->races;
	struct cts_report_info ri = {
		.program = a->exe, .argv = argv, .strategy = desc,
		.mode = a->cfg->races ? "break" : "sync", .races = cts_cli_races_name(a->cfg->races),
		.seed = a->cfg->seed, .self = "cts-trace", .attach_json = att,
		.backend_json = stats, .backend = a->tr ? &d : NULL, .watch_json = watch,
		.interrupted = cts_tr_interrupted(),
	};
	int rc = cts_report_write(out, &ri, &res, err, sizeof(err));
	json_decref(watch);
	json_decref(stats);
	json_decref(att);
	if (rc != 0)
		cts_error_msg("%s", err);
	return rc;
}

static int attach_run(const struct attach_cfg *cfg)
{
	struct att a = { .cfg = cfg, .pid = cfg->pid, .t_start = cts_tr_now_s() };
	struct cts_report_out *report = NULL;
	char err[768];
	int status = EXIT_CLEAN;
	bool bad = false, seized = false;
	struct cts_strategy *strat = NULL;

	if (check_target(&a.pid, a.exe, sizeof(a.exe), err, sizeof(err)) != 0) {
		cts_error_msg("%s", err);
		return EXIT_USAGE;
	}
	struct cts_strategy_config scfg = {
		.seed = cfg->seed, .depth = cfg->depth, .max_steps = cfg->max_steps,
	};
	strat = cts_strategy_create(cfg->strategy, &scfg, err, sizeof(err));
	if (!strat) {
		cts_error_msg("%s", err);
		return EXIT_USAGE;
	}
	/* checked before the process is touched */
	if (cfg->report) {
		if (!(report = cts_report_open(cfg->report, err, sizeof(err)))) {
			cts_error_msg("%s", err);
			cts_strategy_destroy(strat);
			return EXIT_USAGE;
		}
		a.diag = json_array();
	}
	a.model = cts_objmodel_new(true);
	char exe_link[64];
	snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int)a.pid);
	/* --races: break mode's access breakpoints, every shared access a step */
	struct cts_tracer_config tcfg = {
		.path = a.exe, .mode = cfg->races ? CTS_MODE_BREAK : CTS_MODE_SYNC, .symbolize = true,
		.watch = cfg->watch, .nwatch = cfg->nwatch, .watch_backend = cfg->watch_backend,
	};
	a.tr = cts_tracer_new(&tcfg, a.model, err, sizeof(err));
	if (!a.tr) {
		cts_error_msg("%s", err);
		status = EXIT_INTERNAL;
		goto out;
	}
	a.tr->st = &a.st;
	a.st.status = CTS_RUN_ACTIVE;
	a.st.max_threads = (int)cfg->max_threads;
	a.tr->pid = a.pid;

	int srs = seize_all(&a, err, sizeof(err), &bad);
	seized = a.tr->nlive > 0;
	if (srs != 0) {
		cts_error_msg("%s", err);
		status = bad ? EXIT_USAGE : EXIT_INTERNAL;
		goto out;
	}
	if (wait_all_stopped(&a, 5.0) != 0 && !a.gone) {
		cts_error_msg("process %d: not every thread stopped: %s", (int)a.pid, strerror(errno));
		status = EXIT_INTERNAL;
		goto out;
	}
	if (a.gone) {
		cts_error_msg("process %d %s while attaching", (int)a.pid,
			      a.gone_how[0] ? a.gone_how : "ended");
		status = EXIT_CLEAN;
		goto out;
	}
	if (cts_tr_interrupted()) {
		status = EXIT_INTERRUPTED;
		goto out;
	}
	/* Memory goes through a live thread (the leader may be a zombie). */
	if (!cts_tr_by_tid(a.tr, a.pid) && a.tr->nlive)
		a.tr->pid = a.tr->live[0]->tid;
	if (first_states(&a) != 0) {
		cts_error_msg("process %d: cannot read registers: %s", (int)a.pid, strerror(errno));
		status = EXIT_INTERNAL;
		goto out;
	}
	/* libc: its ranges, entry points and a symbolizer (needs threads stopped) */
	if (cts_tr_setup_libc(a.tr) != 0) {
		cts_error_msg("process %d: %s", (int)a.pid, a.st.message);
		status = a.st.bad_input ? EXIT_USAGE : EXIT_INTERNAL;
		a.st.status = CTS_RUN_ACTIVE;
		goto out;
	}
	scan_setup(&a);

	int jstopped = 0;
	for (int i = 0; i < a.tr->nlive; i++)
		jstopped += X(&a, a.tr->live[i])->jstop;
	if (cts_verbosity >= 1)
		cts_error_msg("attached to process %d (%s): %d thread%s%s", (int)a.pid, a.exe,
			      a.tr->nlive, a.tr->nlive == 1 ? "" : "s",
			      jstopped ? ", stopped by job control" : "");
	if (diagnose(&a, cts_verbosity >= 2)) {
		status = EXIT_BUG;
		goto out;
	}
	if (jstopped == a.tr->nlive) {
		if (cts_verbosity >= 1)
			cts_error_msg("process %d is stopped (job control): diagnosed only, left "
				      "stopped", (int)a.pid);
		goto out;
	}
	if ((cfg->races || cfg->nwatch) && setup_accesses(&a) != 0) {
		cts_error_msg("process %d: %s", (int)a.pid, a.st.message);
		status = a.st.bad_input ? EXIT_USAGE : EXIT_INTERNAL;
		goto out;
	}
	/* int3s in the text only from now on, until the detach */
	if (plant_all(&a) != 0) {
		cts_error_msg("process %d: cannot write breakpoints: %s", (int)a.pid, strerror(errno));
		status = EXIT_INTERNAL;
		goto out;
	}
	for (int i = 0; i < a.tr->nlive; i++) {
		struct thread *th = a.tr->live[i];
		struct att_th *x = X(&a, th);
		if (x->jstop) {
			x->listening = true;
			th->state = TH_OUTSIDE;
			if (ptrace(PTRACE_LISTEN, th->tid, 0, 0) == 0)
				x->stopped = false;
			else
				x->listening = false;
		} else if (th->state == TH_OUTSIDE && run_on(&a, th, TH_OUTSIDE) != 0) {
			status = EXIT_INTERNAL;
			goto out;
		}
	}
	open_log(&a);
	a.controlling = true;
	if (cts_verbosity >= 1)
		cts_error_msg("controlling process %d with %s%s", (int)a.pid, cfg->strategy,
			      cfg->time_limit > 0 ? "" : " until a bug, its end or ^C");
	if (control(&a, strat) != 0 && !a.gone) {
		cts_error_msg("process %d: control failed: %s", (int)a.pid, strerror(errno));
		status = EXIT_INTERNAL;
	}
	if (a.bug) {
		status = EXIT_BUG;
	} else if (a.gone) {
		cts_error_msg("process %d %s while attached", (int)a.pid, a.gone_how);
	} else if (cts_tr_interrupted() && status == EXIT_CLEAN) {
		status = EXIT_INTERRUPTED;
	}
out:
	if (seized && detach_all(&a) != 0 && status != EXIT_BUG)
		status = EXIT_INTERNAL;
	if (a.bug)
		print_bug(&a);
	if (a.log) {
		fclose(a.log);
		if (!a.steps)
			unlink(a.log_path); /* nothing was scheduled: nothing to read */
		if (cts_verbosity >= 1 && a.steps)
			cts_error_msg("%" PRIu64 " steps under control; schedule observed: %s (a live "
				      "process cannot be replayed from its start)", a.steps,
				      a.log_path);
	}
	if (seized && cts_verbosity >= 1 && !a.gone)
		cts_error_msg("detached from process %d", (int)a.pid);
	/* a write error says more than "clean" only */
	if (report && write_report(&a, report, status) != 0 && status == EXIT_CLEAN)
		status = EXIT_USAGE;
	json_decref(a.diag);
	cts_race_free(a.races);
	if (a.tr) {
		a.tr->pid = 0; /* not ours to kill */
		a.tr->sym = NULL; /* a.sym's, freed below */
		cts_tracer_free(a.tr);
	}
	if (a.sym)
		cts_sym_free(a.sym);
	if (a.model)
		cts_objmodel_free(a.model);
	cts_strategy_destroy(strat);
	cts_run_state_free(&a.st);
	free(a.x);
	free(a.planted);
	free(a.bug_detail);
	free(a.fns);
	free(a.maps);
	return status;
}

int cts_attach_main(const struct cts_cli *cli)
{
	char err[256];
	/* which options go with -p: tracer/cli.c's table */
	if (cts_cli_check(cli, err, sizeof(err)) != 0) {
		cts_error_msg("%s", err);
		return EXIT_USAGE;
	}
	struct attach_cfg cfg = {
		.pid = (pid_t)cli->attach_pid, .time_limit = cli->time_limit,
		.strategy = cli->strategy, .seed = cli->seed, .depth = (int)cli->depth,
		.max_steps = cli->max_steps, .max_threads = cli->max_threads,
		.out_dir = cli->out_dir, .report = cli->report,
		.races = cli->races > 0 ? cli->races : CTS_RACES_OFF,
		.watch = cli->watch, .nwatch = cli->nwatch, .watch_backend = cli->watch_backend,
	};
	/* CTS_ATTACH_CYCLES=N: N sessions in a row, each a whole attach,
	 * control and detach, without N start-ups of cts-trace (the attach
	 * test's 1,000 cycles); the first status that is not 0 ends them. */
	/* A closed stderr or report pipe must not kill cts-trace while the
	 * process holds its int3s: the write fails, the detach still runs. */
	signal(SIGPIPE, SIG_IGN);
	const char *cyc = getenv("CTS_ATTACH_CYCLES");
	long cycles = cyc ? strtol(cyc, NULL, 10) : 1;
	int status = EXIT_CLEAN;
	for (long i = 0; i < (cycles > 0 ? cycles : 1) && status == EXIT_CLEAN; i++)
		status = attach_run(&cfg);
	return status;
}
