/* Attach mode (`cts-trace -p PID`): checking the target, seizing every
 * thread, the int3s planted and restored, and the detach that leaves the
 * process as it was on every exit path; the session around them, run by
 * a tracing process cts-trace forks (so that a SIGKILL of cts-trace still
 * ends in that detach). No seccomp filter is loaded (it could never be removed) and
 * nothing is modelled: a thread let into an operation that sleeps in the
 * kernel leaves the schedule (as TH_OUTSIDE threads do in launched runs)
 * and comes back at its next breakpoint; the live memory, not a model,
 * says who holds what. docs/design.md, "Attach mode". */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "models/race.h"
#include "models/report.h"
#include "models/symbolize.h"
#include "strategies/strategy.h"
#include "tracer/access.h"
#include "tracer/attach.h"
#include "tracer/attach_int.h"
#include "tracer/cli.h"
#include "tracer/elf.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/tracer.h"

enum { EXIT_CLEAN = 0, EXIT_BUG = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3, EXIT_INTERRUPTED = 130 };

void cts_att_detail(struct att *a, const char *fmt, ...)
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

/* cts-trace as the user started it, when the tracing is done by a child of
 * it (see run_supervised); 0 otherwise. */
static pid_t supervisor;

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

static void explain_eperm(pid_t pid, char *err, size_t errlen);

/* Every check that can be made before touching the process. 0, or -1 with
 * one line in err (bad input: exit 2). *pid may become the thread group's. */
static int check_target(pid_t *pidp, uint64_t max_threads, char *exe, size_t exelen, char *err,
			size_t errlen)
{
	pid_t pid = *pidp;
	char state[64] = "", path[96], tracer_comm[64];

	if (pid == getpid() || pid == supervisor) {
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
	if (pid == getpid() || pid == supervisor) {
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
		cts_proc_comm((pid_t)tracer, tracer_comm, sizeof(tracer_comm));
		snprintf(err, errlen, "process %d is already traced by process %ld (%s): a process "
			 "has one tracer at a time", (int)pid, tracer,
			 tracer_comm[0] ? tracer_comm : "?");
		return -1;
	}
	if (nthreads > 0 && (uint64_t)nthreads > max_threads) {
		snprintf(err, errlen, "process %d has %ld threads, more than --max-threads %" PRIu64,
			 (int)pid, nthreads, max_threads);
		return -1;
	}
	/* A thread of its own can be traced by another tracer (strace -p TID). */
	pid_t *ttids;
	size_t ntt;
	if (cts_proc_tasks(pid, &ttids, &ntt) == 0) {
		for (size_t i = 0; i < ntt && tracer <= 0; i++) {
			tracer = cts_proc_status_field(ttids[i], "TracerPid", NULL, 0);
			if (tracer > 0) {
				cts_proc_comm((pid_t)tracer, tracer_comm, sizeof(tracer_comm));
				snprintf(err, errlen, "thread %d of process %d is already traced by "
					 "process %ld (%s): a process has one tracer at a time",
					 (int)ttids[i], (int)pid, tracer,
					 tracer_comm[0] ? tracer_comm : "?");
			}
		}
		free(ttids);
		if (tracer > 0)
			return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, exelen - 1);
	if (n <= 0 && errno == ENOENT && nthreads > 1) {
		/* the leader left by pthread_exit: another thread's view */
		pid_t *tids;
		size_t nt;
		if (cts_proc_tasks(pid, &tids, &nt) == 0)
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

/* ---- seizing ---------------------------------------------------------------- */

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
		if (cts_proc_tasks(a->pid, &tids, &n) != 0 || n == 0) {
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
					long t = e == EPERM ? cts_proc_status_field(tids[i], "TracerPid",
										    NULL, 0) : 0;
					*bad = t > 0; /* traced since check_target looked */
					if (t > 0)
						snprintf(err, errlen, "thread %d of process %d is already "
							 "traced by process %ld: a process has one tracer "
							 "at a time", (int)tids[i], (int)a->pid, t);
					else
						snprintf(err, errlen, "cannot attach to thread %d of "
							 "process %d: %s", (int)tids[i], (int)a->pid,
							 strerror(e));
					free(tids);
					return -1;
				}
			}
			struct thread *th = cts_att_add_thread(a, tids[i]);
			if (th)
				X(a, th)->was_stopped = was == 'T';
			if (!th) {
				*bad = true; /* README: more than --max-threads is exit 2 */
				snprintf(err, errlen, "process %d has more threads than --max-threads %d",
					 (int)a->pid, a->st.max_threads);
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
		if ((via && cts_tr_bp_write_to(via, b, false) == 0) ||
		    cts_tr_bp_unplant(a->tr, b) == 0)
			continue;
		cts_error_msg("warning: could not restore the byte at 0x%" PRIx64 " of process %d",
			      b->addr, (int)a->pid);
	}
	a->nplanted = 0;
}

/* ---- detaching ---------------------------------------------------------------- */

/* A thread that hit one of our int3s, finished a step over one or made
 * an access a debug register watches just as an interrupt came reports
 * the interrupt first, with the SIGTRAP still pending: detached so, it
 * would die of it (a watchpoint's: attach_interrupt.t saw attach_spawn
 * killed so after a ^C). Such a thread runs on until it takes the
 * SIGTRAP, which stops it again before any instruction: a breakpoint's
 * leaves rip rewound, a step's or a watchpoint's is dropped, any other
 * (a SIGTRAP sent to it) is delivered by the detach. */
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
			x->intr = INTR_NONE;
			if (cts_att_run_on(a, th, TH_RUNNING) != 0)
				return -1;
			any = true;
		}
		if (!any)
			return 0;
		if (cts_att_wait_all_stopped(a, 5.0, false) != 0)
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
		if (th->state != TH_DEAD && cts_att_interrupt(a, th, INTR_DETACH) != 0)
			rc = -1;
	}
	if (cts_att_wait_all_stopped(a, 5.0, false) != 0) {
		cts_error_msg("warning: not every thread of process %d stopped for the detach: %s",
			      (int)a->pid, strerror(errno));
		rc = -1;
	}
	if (a->gone)
		return rc;
	if (consume_traps(a) != 0)
		rc = -1;
	if (a->bug_th && a->bug_th->state != TH_DEAD)
		cts_att_stack_lines(a, a->bug_th, "    ");
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
	if (cts_att_release_extra(a, 5.0) != 0)
		rc = -1;
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
	json_t *code = a->tr ? cts_tracer_code_json(a->tr) : NULL;
	res.races = a->races;
	struct cts_report_info ri = {
		.program = a->exe, .argv = argv, .strategy = desc,
		.mode = a->cfg->races ? "break" : "sync", .races = cts_cli_races_name(a->cfg->races),
		.seed = a->cfg->seed, .self = "cts-trace", .attach_json = att,
		.backend_json = stats, .backend = a->tr ? &d : NULL, .watch_json = watch,
		.code_json = code, .interrupted = cts_tr_interrupted(),
	};
	int rc = cts_report_write(out, &ri, &res, err, sizeof(err));
	json_decref(watch);
	json_decref(code);
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

	if (check_target(&a.pid, cfg->max_threads, a.exe, sizeof(a.exe), err, sizeof(err)) != 0) {
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
	/* the observed schedule's file too: it is the session's one output */
	if (cts_att_open_log(&a, err, sizeof(err)) != 0) {
		cts_error_msg("%s", err);
		cts_report_discard(report);
		json_decref(a.diag);
		cts_strategy_destroy(strat);
		return EXIT_USAGE;
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

	cts_att_ticker_start(&a);
	int srs = seize_all(&a, err, sizeof(err), &bad);
	seized = a.tr->nlive > 0;
	if (srs != 0) {
		cts_error_msg("%s", err);
		status = bad ? EXIT_USAGE : EXIT_INTERNAL;
		goto out;
	}
	/* 15 s: a process that keeps creating threads, seized on a loaded
	 * machine; ^C goes straight to the detach, which waits for them */
	if (cts_att_wait_all_stopped(&a, 15.0, true) != 0 && !a.gone && !cts_tr_interrupted()) {
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
	cts_att_scan_setup(&a);

	int jstopped = 0;
	for (int i = 0; i < a.tr->nlive; i++)
		jstopped += X(&a, a.tr->live[i])->jstop;
	if (cts_verbosity >= 1)
		cts_error_msg("attached to process %d (%s): %d thread%s%s", (int)a.pid, a.exe,
			      a.tr->nlive, a.tr->nlive == 1 ? "" : "s",
			      jstopped ? ", stopped by job control" : "");
	if (cts_att_diagnose(&a, cts_verbosity >= 2)) {
		status = EXIT_BUG;
		goto out;
	}
	if (jstopped == a.tr->nlive) {
		if (cts_verbosity >= 1)
			cts_error_msg("process %d is stopped (job control): diagnosed only, left "
				      "stopped", (int)a.pid);
		goto out;
	}
	if ((cfg->races || cfg->nwatch) && cts_att_setup_accesses(&a) != 0) {
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
		} else if (th->state == TH_OUTSIDE && cts_att_run_on(&a, th, TH_OUTSIDE) != 0) {
			status = EXIT_INTERNAL;
			goto out;
		}
	}
	a.controlling = true;
	if (cts_verbosity >= 1)
		cts_error_msg("controlling process %d with %s%s", (int)a.pid, cfg->strategy,
			      cfg->time_limit > 0 ? "" : " until a bug, its end or ^C");
	if (cts_att_control(&a, strat) != 0 && !a.gone) {
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
	cts_att_ticker_stop(&a);
	if (a.bug)
		print_bug(&a);
	if (a.log) {
		fclose(a.log);
		if (!a.steps) {
			unlink(a.log_path); /* nothing was scheduled: nothing to read */
			if (a.out_created)
				rmdir(a.cfg->out_dir ? a.cfg->out_dir : "cts-out");
		}
		if (cts_verbosity >= 1 && a.steps)
			cts_error_msg("%" PRIu64 " steps under control; schedule observed: %s (a live "
				      "process cannot be replayed from its start)", a.steps,
				      a.log_path);
	}
	if (seized && cts_verbosity >= 1 && !a.gone && !bad) /* bad input: its one line */
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
	free(a.extra);
	free(a.bug_detail);
	free(a.fns);
	free(a.maps);
	return status;
}

/* ---- the tracing process -------------------------------------------------------- */

/* SIGKILL of cts-trace must not cost the process anything, and nothing can
 * run in a process killed so: the kernel detaches its tracees and they run
 * at once, a thread held at a breakpoint on the int3 itself, before any
 * other process could put the byte back. So the tracer is not the process
 * the user holds: cts-trace forks the tracing process, in a session of its
 * own (a kill of cts-trace's process group misses it) and named cts-attach
 * (killall cts-trace misses it too), and waits for it, passing on SIGINT,
 * SIGTERM and SIGHUP. Killed, cts-trace's death is the tracing process's
 * SIGUSR2 (PR_SET_PDEATHSIG): an interrupt, so the ordinary detach runs.
 * docs/design.md, "Attach mode", "SIGKILL of cts-trace". */
static volatile sig_atomic_t orphaned;
static volatile pid_t tracing_pid;

static void on_orphaned(int sig)
{
	(void)sig;
	orphaned = 1;
	cts_tracer_interrupt();
}

static void pass_on(int sig)
{
	if (tracing_pid > 0)
		kill(tracing_pid, sig);
}

static int run_sessions(const struct attach_cfg *cfg)
{
	/* CTS_ATTACH_CYCLES=N: N sessions in a row, each a whole attach,
	 * control and detach, without N start-ups of cts-trace (the attach
	 * test's 1,000 cycles); the first status that is not 0 ends them. */
	const char *cyc = getenv("CTS_ATTACH_CYCLES");
	long cycles = cyc ? strtol(cyc, NULL, 10) : 1;
	int status = EXIT_CLEAN;
	for (long i = 0; i < (cycles > 0 ? cycles : 1) && status == EXIT_CLEAN; i++)
		status = attach_run(cfg);
	return status;
}

/* The child: the sessions, and a word if cts-trace died meanwhile. */
static int tracing_child(const struct attach_cfg *cfg, pid_t parent)
{
	struct sigaction sa = { .sa_handler = on_orphaned };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	setsid();
	prctl(PR_SET_NAME, "cts-attach", 0, 0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0) != 0 || getppid() != parent)
		on_orphaned(SIGUSR2); /* dead before the death signal was armed */
	int status = run_sessions(cfg);
	if (orphaned && cts_verbosity >= 1)
		cts_error_msg("killed (pid %d): the tracing process (pid %d) detached from process "
			      "%d, its text restored", (int)parent, (int)getpid(), (int)cfg->pid);
	return status;
}

/* cts-trace itself: the tracing process's exit status is ours. */
static int run_supervised(const struct attach_cfg *cfg)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t block, old;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&block, sigs[i]);
	/* Held until the child's pid is known; one that came earlier has set
	 * the interrupt flag, which the child inherits. */
	sigprocmask(SIG_BLOCK, &block, &old);
	fflush(NULL);
	pid_t self = getpid();
	pid_t child = fork();
	if (child < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		cts_error_msg("warning: cannot fork the tracing process (%s): tracing from "
			      "cts-trace itself, so a SIGKILL of it would leave int3s in process %d",
			      strerror(errno), (int)cfg->pid);
		return run_sessions(cfg);
	}
	if (child == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		supervisor = self;
		return tracing_child(cfg, self);
	}
	tracing_pid = child;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction cur, sa = { .sa_handler = pass_on };
		sigemptyset(&sa.sa_mask);
		if (sigaction(sigs[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	int st;
	while (waitpid(child, &st, 0) < 0) {
		if (errno != EINTR) {
			cts_error_msg("waiting for the tracing process %d: %s", (int)child,
				      strerror(errno));
			return EXIT_INTERNAL;
		}
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	cts_error_msg("the tracing process %d was killed by SIG%s: process %d may be left with "
		      "int3s in its text", (int)child, sigabbrev_np(WTERMSIG(st)) ?
		      sigabbrev_np(WTERMSIG(st)) : "?", (int)cfg->pid);
	return EXIT_INTERNAL;
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
	/* A closed stderr or report pipe must not kill cts-trace while the
	 * process holds its int3s: the write fails, the detach still runs. */
	signal(SIGPIPE, SIG_IGN);
	return run_supervised(&cfg);
}
