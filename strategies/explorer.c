#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "models/coverage.h"
#include "models/error.h"
#include "models/htab.h"
#include "models/objmodel.h"
#include "models/pages.h"
#include "models/race.h"
#include "models/schedule.h"
#include "strategies/active.h"
#include "strategies/explorer.h"
#include "strategies/minimize.h"
#include "models/timeline.h"
#include "strategies/spin.h"
#include "strategies/tiles.h"
#include "strategies/split.h"

/* Restarts of a systematic search for loads learned as busy-waits. */
#define MAX_SPIN_RESTARTS 16

extern char **environ;

static volatile sig_atomic_t interrupted;

void cts_explore_interrupt(void)
{
	interrupted = 1;
}

bool cts_explore_interrupted(void)
{
	return interrupted;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Everything one exploration carries from run to run. */
struct explorer {
	const struct cts_explorer_config *cfg;
	struct cts_backend *backend;
	struct cts_objmodel *model;
	struct cts_strategy *strategy;
	struct cts_explore_result *res;
	struct cts_race_detector *races;
	struct cts_pages *pages;   /* the ownership estimate, with the race detector */
	struct cts_pages *lines;   /* the same on 64-byte lines */
	bool own_conflict, line_conflict; /* this run: the estimate would void it */
	/* Each thread's events of the run: the race detector's epoch of its
	 * n-th (cts_run_state.ordered, for the tracer's line ownership). */
	struct cts_race_detector *clocks; /* cfg->clocks: the runs' happens-before only */
	struct ev_epochs { uint32_t *ep; size_t n, cap; } *evep;
	size_t nevep;
	struct cts_schedule *sched;
	struct cts_run_state *st;
	struct cts_spin *spin;
	/* Per thread number, grown with the run's threads (fit_threads). */
	size_t tcap;
	bool *alive;
	bool *enabled;
	bool *outside;
	int noutside;
	bool *spinning;  /* held back: their next step changes nothing */
	struct cts_event *pending;
	/* Threads alive at the last collect, ascending: a step looks at these
	 * and the ones created since (seen = nthreads then), not at every
	 * thread the run ever created. */
	int *live, nlive, seen;
	/* Every live thread spins or is blocked: the spinners take turns, one
	 * at a time, to show whether they ever move on (confirm counts their
	 * steps that changed nothing). */
	bool confirming;
	/* steps that held a spinner back without proof while others ran */
	uint64_t unproven_holds;
	uint32_t *confirm;
	/* the backend was told (native_call) that the thread waits at its
	 * pending operation */
	bool *told;
	/* The spinners have all had SPIN_CONFIRM turns while a thread is in the
	 * kernel: the run loop waits for it before the next turn. */
	bool spin_wait;
	double start, last_progress;
	/* The run's start; whether its time ran out inside one step that took
	 * at least half of it (a thread looping on what it may use unseen). */
	double run_t0;
	bool step_stuck;
	bool progress_shown;
	/* The run's record, one per step, that the minimizer and a bug's
	 * reports (JSON, SARIF, timeline) all read through rec_index: every
	 * step when bugs are minimized, else the last CTS_BUG_TRACE (a ring). */
	struct cts_event *rec_ev;  /* the executed event, ev.tid its thread */
	bool *rec_pre;             /* the step was a preemption */
	size_t reccap;
	bool rec_whole;            /* indexed by step, not step % CTS_BUG_TRACE */
	uint64_t preempts;
	/* A bug's report run (the minimized run re-run last): each step's call
	 * stack, by step, innermost frame first. */
	bool want_stacks;
	struct cts_bug_stack *stacks;
	size_t stackcap;
	struct cts_bug_stack *pstacks;  /* by thread: where it stood at the end */
	int npstacks;
	/* A report run's thread creations and allocations with their stacks:
	 * where a race's threads were created and its heap block allocated. */
	struct origin *origins;
	int norigins;
	size_t origcap;
	/* The run's new races (indexes in the detector), explained and printed
	 * after it by explain_races; plain_note: one was plain (the footnote). */
	int fresh_from, nfresh;
	struct cts_sched_step *race_steps; /* the schedule of the run that found them */
	size_t nrace_steps;
	/* A report run asks the backend, after step probes[i].step, for the heap
	 * block holding probes[i].addr (an allocation it did not see). */
	struct probe *probes;
	int nprobes;
	bool plain_note;
	bool minimizing;  /* a candidate's run: counted nowhere */
	bool out_of_time; /* --time ran out inside a run: it was cut, unjudged */
	bool cut_by_signal; /* an interrupt cut the run or its --check: unjudged */
	bool held_early;  /* cfg->hold: the run stopped at hold_step */
	bool inc_hidden_said;
	/* Repeats made alone (cfg->quiet_repeats, docs/design.md): the plain
	 * accesses alone_tid executed since its last other event while every
	 * other live thread waited on something only it can end, each with
	 * alone_writes as it was then; a repeat runs without a step. */
	struct cts_htab *alone_seen;
	int alone_tid;
	uint64_t alone_writes;
	uint64_t run_quiet;        /* this run's repeats made without a step */
};

/* A repeat is the same instruction on the same bytes, the same kind. */
struct alone_key {
	uint64_t pc, addr;
	uint32_t size, op;
};

struct probe {
	uint64_t step, addr;
	uint64_t start, size;     /* the block, start 0 if none */
};

struct origin {
	int tid;                  /* the creating or allocating thread */
	uint64_t step;
	struct cts_event ev;      /* CREATE (target) or ALLOC (obj, size) */
	struct cts_bug_stack stack;
};

/* Nothing can run but a timed wait could give up, and a thread is in the
 * kernel: how long it gets to come back first (time is not modelled; a
 * call that returns this soon is taken to come before any timeout). */
#define OUTSIDE_GRACE_S 0.05

/* Steps each spinner must take, all changing nothing, while every other
 * live thread spins or is blocked, before a run is judged a livelock. The
 * state hashes already prove no progress; the extra turns give state outside
 * the program's memory (a child process, the kernel) time to show. */
#define SPIN_CONFIRM 100
/* Inconclusive runs reported with a warning line; later ones are counted. */
#define INC_SHOWN 3

static void describe_pc(struct explorer *x, uint64_t pc, char *buf, size_t len)
{
	buf[0] = 0;
	if (x->backend->ops->describe_pc)
		x->backend->ops->describe_pc(x->backend->be, pc, buf, len);
	if (!buf[0])
		snprintf(buf, len, "0x%" PRIx64, pc);
}

static size_t appendf(char *buf, size_t len, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t appendf(char *buf, size_t len, size_t off, const char *fmt, ...)
{
	va_list ap;
	if (off >= len)
		return off;
	va_start(ap, fmt);
	int n = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return off;
	return off + (size_t)n < len ? off + (size_t)n : len - 1;
}

/* The wait-for edge and phrase of a thread the object model (or a futex
 * park) blocks; -1 when no single thread is to blame. */
static int blocked_line(struct explorer *x, int t, char *what, size_t wlen, char *detail,
			size_t dlen, size_t *off)
{
	const struct cts_event *p = &x->st->t[t].pending;
	char where[256];
	int waits_for = -1;

	if (p->op == CTS_OP_FUTEX_WAIT && x->st->t[t].blocked)
		snprintf(what, wlen, "futex 0x%" PRIx64 " (no wake pending)", p->obj);
	else if (p->op == CTS_OP_IO_RETURN && cts_syscall_waits_signal((long)p->value))
		snprintf(what, wlen, "a signal in %s (asleep in the kernel; every signal that "
			 "would wake it was sent and taken already)", cts_syscall_name((long)p->value));
	else if (p->op == CTS_OP_IO_RETURN)
		snprintf(what, wlen, "%s on fd %" PRIu64 " (asleep in the kernel on a pipe or "
			 "eventfd only the program's own threads use)",
			 cts_syscall_name((long)p->value), p->obj);
	else
		waits_for = cts_objmodel_blocker(x->model, p, what, wlen);
	describe_pc(x, p->pc, where, sizeof(where));
	*off = appendf(detail, dlen, *off, "  thread %d blocked in %s at %s: waits for %s", t,
		       cts_op_name(p->op), where, what);
	if (waits_for >= 0 && (p->op == CTS_OP_LOCK || p->op == CTS_OP_COND_REACQUIRE ||
			       p->op == CTS_OP_WRLOCK || p->op == CTS_OP_RDLOCK)) {
		uint64_t m = p->op == CTS_OP_COND_REACQUIRE ? p->obj2 : p->obj;
		uint64_t at = cts_objmodel_acquired_at(x->model, m);
		if (at) {
			describe_pc(x, at, where, sizeof(where));
			*off = appendf(detail, dlen, *off, " (taken at %s)", where);
		}
	}
	*off = appendf(detail, dlen, *off, "\n");
	return waits_for;
}

/* "flag (0x4040a0)" or "0x4040a0". */
static void describe_var(struct explorer *x, uint64_t addr, char *buf, size_t len)
{
	char var[160] = "";
	if (x->backend->ops->describe_data)
		x->backend->ops->describe_data(x->backend->be, addr, var, sizeof(var));
	if (var[0])
		snprintf(buf, len, "%s (0x%" PRIx64 ")", var, addr);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
}

/* A value as the program would print it: small negative numbers signed. */
static void describe_value(uint64_t v, uint32_t size, char *buf, size_t len)
{
	unsigned bits = size && size < 8 ? size * 8 : 64;
	uint64_t sign = 1ull << (bits - 1);
	if ((v & sign) && bits < 64)
		v |= ~((sign << 1) - 1);   /* sign-extend */
	if ((int64_t)v < 0 && (int64_t)v > -65536)
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* A spinning thread: where it spins, on what, and who changed that last. */
static void spin_line(struct explorer *x, int t, char *what, size_t wlen, char *detail,
		      size_t dlen, size_t *off)
{
	int n, shown = 0;
	const struct cts_spin_loc *loc = cts_spin_locs(x->spin, t, &n);
	char var[200], where[256], val[32];
	size_t woff = 0;

	const struct cts_event *p = &x->st->t[t].pending;
	what[0] = 0;
	for (int i = 0; i < n; i++) {
		/* Read once on the way, not spun on; unless the held re-read
		 * is of it (held at its second read: spin.c). */
		if (loc[i].reads < 2 && !(p->obj == loc[i].addr && p->pc == loc[i].pc))
			continue;
		describe_var(x, loc[i].addr, var, sizeof(var));
		describe_pc(x, loc[i].pc, where, sizeof(where));
		describe_value(loc[i].value, loc[i].size, val, sizeof(val));
		woff = appendf(what, wlen, woff, "%s%s = %s", shown++ ? " and " : "", var, val);
		*off = appendf(detail, dlen, *off, "  thread %d spins at %s: re-reads %s = %s"
			       " (%u times unchanged); ", t, where, var, val, loc[i].reads);
		int wt;
		uint64_t wpc, wstep;
		if (cts_spin_last_change(x->spin, loc[i].addr, &wt, &wpc, &wstep)) {
			describe_pc(x, wpc, where, sizeof(where));
			*off = appendf(detail, dlen, *off,
				       "last changed by thread %d at %s (step %" PRIu64 ")\n", wt, where,
				       wstep);
		} else {
			*off = appendf(detail, dlen, *off, "never changed in this run\n");
		}
	}
	if (!shown) {
		describe_pc(x, x->st->t[t].pending.pc, where, sizeof(where));
		snprintf(what, wlen, "nothing it reads (yields at %s)", where);
		*off = appendf(detail, dlen, *off, "  thread %d spins: yields at %s\n", t, where);
	}
}

/* Every live thread is blocked, or (kind LIVELOCK) blocked or spinning
 * without progress: say who waits for what, and the cycle. */
static void describe_stuck(struct explorer *x, struct cts_bug *bug)
{
	struct cts_run_state *st = x->st;
	int *waits_for = cts_xcalloc((size_t)st->nthreads + 1, sizeof(*waits_for));
	bool *seen = cts_xcalloc((size_t)st->nthreads + 1, sizeof(*seen));
	char what[400];
	size_t off = 0, moff = 0;
	const char *head = bug->kind == CTS_BUG_LIVELOCK ? "livelock:" : "deadlock:";

	moff = appendf(bug->message, sizeof(bug->message), moff, "%s", head);
	for (int t = 0; t < st->nthreads; t++) {
		waits_for[t] = -1;
		if (!st->t[t].alive)
			continue;
		bool spins = x->spinning[t];
		if (spins)
			spin_line(x, t, what, sizeof(what), bug->detail, sizeof(bug->detail), &off);
		else
			waits_for[t] = blocked_line(x, t, what, sizeof(what), bug->detail,
						    sizeof(bug->detail), &off);
		moff = appendf(bug->message, sizeof(bug->message), moff, "%s thread %d %s %s",
			       moff > strlen(head) ? ";" : "", t, spins ? "spins on" : "waits for",
			       what);
	}
	/* Follow waits-for edges from each thread until one repeats. */
	for (int s = 0; s < st->nthreads; s++) {
		if (waits_for[s] < 0)
			continue;
		memset(seen, 0, (size_t)st->nthreads * sizeof(*seen));
		int t = s;
		while (t >= 0 && t < st->nthreads && !seen[t]) {
			seen[t] = true;
			t = waits_for[t];
		}
		if (t != s)
			continue;
		off = appendf(bug->detail, sizeof(bug->detail), off, "  cycle: thread %d", s);
		for (t = waits_for[s]; t != s; t = waits_for[t])
			off = appendf(bug->detail, sizeof(bug->detail), off, " -> thread %d", t);
		off = appendf(bug->detail, sizeof(bug->detail), off, " -> thread %d\n", s);
		break;
	}
	free(waits_for);
	free(seen);
	bug->tid = -1;
}

static void mkdir_p(const char *dir)
{
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0777);
			*p = '/';
		}
	}
	mkdir(tmp, 0777);
}

/* What a replay needs to see this run's events: the backend's hot lines. */
static void set_hot_lines(struct explorer *x)
{
	char *h = x->backend->ops->hot_lines ? x->backend->ops->hot_lines(x->backend->be) : NULL;
	cts_schedule_set(&x->sched->hot_lines, h);
	free(h);
}

/* Save the current run's schedule as OUT/NAME-N.sched with the first free N
 * (never over another run's file); "" when not saved. */
static void save_schedule(struct explorer *x, const char *name, const char *what, char *path,
			  size_t len)
{
	const struct cts_explorer_config *cfg = x->cfg;
	path[0] = 0;
	if (!cfg->out_dir)
		return;
	mkdir_p(cfg->out_dir);
	cts_schedule_set(&x->sched->bug, what);
	set_hot_lines(x);
	if (cts_schedule_save_new(x->sched, cfg->out_dir, name, path, len) != 0) {
		cts_perror_msg("cannot save a schedule in %s", cfg->out_dir);
		path[0] = 0;
	}
}

/* The exploration whose status line is on the terminal, for messages of
 * other modules (cts_set_status_clear). */
static struct explorer *progress_owner;

static void clear_progress(struct explorer *x);

static void clear_owner(void)
{
	if (progress_owner)
		clear_progress(progress_owner);
}

static void clear_progress(struct explorer *x)
{
	if (x->progress_shown) {
		fprintf(x->cfg->log, "\r\033[K");
		x->progress_shown = false;
	}
}

/* One status line, redrawn at most PROGRESS_HZ times a second and kept
 * under 80 columns so that erasing it never leaves a wrapped half behind. */
#define PROGRESS_HZ 4

static void show_progress(struct explorer *x, bool force)
{
	double t = now();
	if (!x->cfg->progress || (!force && t - x->last_progress < 1.0 / PROGRESS_HZ))
		return;
	x->last_progress = t;
	double el = t - x->start;
	char line[160];
	size_t off = appendf(line, sizeof(line), 0, "[cts] %s %" PRIu64 " (%.0f/s)  bugs %d",
			     x->cfg->systematic ? "schedules" : "runs", x->res->runs,
			     el > 0 ? (double)x->res->runs / el : 0.0, x->res->nbugs);
	if (x->res->ninconclusive)
		off = appendf(line, sizeof(line), off, "  inconclusive %" PRIu64,
			      x->res->ninconclusive);
	off = appendf(line, sizeof(line), off, "  %.0fs", el);
	if (x->cfg->time_limit > 0)
		off = appendf(line, sizeof(line), off, ", %.0fs left",
			      x->cfg->time_limit > el ? x->cfg->time_limit - el : 0.0);
	else if (x->cfg->runs)
		off = appendf(line, sizeof(line), off, " (of %" PRIu64 " runs)", x->cfg->runs);
	if (off > 79)
		line[79] = 0;
	fprintf(x->cfg->log, "\r\033[K%s", line);
	fflush(x->cfg->log);
	x->progress_shown = true;
}

/* The command that replays a schedule (with the --check it needs). */
static void replay_cmd(struct explorer *x, const struct cts_bug *bug, char *buf, size_t len)
{
	size_t off = appendf(buf, len, 0, "%s", x->cfg->self ? x->cfg->self : "cts-trace");
	if (bug->kind == CTS_BUG_CHECK) {
		off = appendf(buf, len, off, " --check '");
		for (const char *c = x->cfg->check; *c; c++)
			off = *c == '\'' ? appendf(buf, len, off, "'\\''") :
					   appendf(buf, len, off, "%c", *c);
		off = appendf(buf, len, off, "'");
	}
	appendf(buf, len, off, " --replay %s", bug->schedule_path);
}

static void report_bug(struct explorer *x, const struct cts_bug *bug)
{
	FILE *log = x->cfg->log;
	char cmd[1600];
	if (x->cfg->quiet && bug->kind == CTS_BUG_DIVERGED)
		return;
	clear_progress(x);
	if (bug->kind == CTS_BUG_DIVERGED) {
		/* Not a bug of the program: the schedule does not fit it. */
		fprintf(log, "cts-trace: %s\n", bug->message);
		fflush(log);
		return;
	}
	/* With --jobs each distinct bug is printed by the first worker that
	 * finds it: merged, it is one bug (kind and message, as merge.c). */
	const char *kind = cts_bug_kind_name(bug->kind);
	if (x->cfg->split &&
	    !cts_split_first_print(x->cfg->split, cts_htab_hash(kind, strlen(kind)) *
				   UINT64_C(0x9e3779b97f4a7c15) ^
				   cts_htab_hash(bug->message, strlen(bug->message))))
		return;
	fprintf(log, "cts-trace: BUG (%s) in run %" PRIu64 " after %" PRIu64 " steps: %s\n",
		kind, bug->run, bug->steps, bug->message);
	if (x->cfg->quiet) { /* -q: the verdict, one line */
		fflush(log);
		return;
	}
	if (bug->headline[0])
		fprintf(log, "  %s\n", bug->headline);
	if (bug->detail[0])
		fputs(bug->detail, log);
	if (bug->schedule_path[0]) {
		replay_cmd(x, bug, cmd, sizeof(cmd));
		fprintf(log, "  schedule: %s\n", bug->schedule_path);
		fprintf(log, "  replay:   %s\n", cmd);
		if (bug->timeline_path[0])
			fprintf(log, "  timeline: %s\n", bug->timeline_path);
		if (bug->orig_path[0] && bug->threads < bug->original_threads)
			fprintf(log, "  minimized to %" PRIu64 " preemption%s and %d thread%s; the original "
				"(%" PRIu64 " and %d) is %s\n", bug->preemptions,
				bug->preemptions == 1 ? "" : "s", bug->threads,
				bug->threads == 1 ? "" : "s", bug->original_preemptions,
				bug->original_threads, bug->orig_path);
		else if (bug->orig_path[0])
			fprintf(log, "  minimized to %" PRIu64 " preemption%s; the original (%" PRIu64
				") is %s\n", bug->preemptions, bug->preemptions == 1 ? "" : "s",
				bug->original_preemptions, bug->orig_path);
		if (bug->replay_note[0])
			fprintf(log, "  warning:  %s\n", bug->replay_note);
	}
	if (bug->instance[0])
		fprintf(log, "  instance: %s (--instance re-searches it alone)\n", bug->instance);
	fflush(log);
}

/* Event n (from 1) of thread `earlier` happens before tid's current point:
 * it was executed, and its epoch is within tid's clock. */
static bool run_ordered(void *arg, int earlier, uint32_t n, int tid)
{
	const struct explorer *x = arg;
	if (earlier < 0 || (size_t)earlier >= x->nevep || !n || n > x->evep[earlier].n)
		return false;
	return cts_race_ordered(x->clocks, earlier, x->evep[earlier].ep[n - 1], tid);
}

/* Ops whose effect on the clocks is known before they run: an enabled
 * thread's lock, join or semaphore wait succeeds. */
static bool acquires_for_sure(cts_op op)
{
	switch (op) {
	case CTS_OP_LOCK: case CTS_OP_RDLOCK: case CTS_OP_WRLOCK: case CTS_OP_JOIN:
	case CTS_OP_COND_REACQUIRE: case CTS_OP_SEM_WAIT:
		return true;
	default:
		return false;
	}
}

static void note_epoch(struct explorer *x, int tid)
{
	if (tid < 0)
		return;
	if ((size_t)tid >= x->nevep) {
		size_t n = x->nevep ? x->nevep * 2 : 16;
		while (n <= (size_t)tid)
			n *= 2;
		x->evep = cts_xrealloc(x->evep, n * sizeof(*x->evep));
		memset(x->evep + x->nevep, 0, (n - x->nevep) * sizeof(*x->evep));
		x->nevep = n;
	}
	struct ev_epochs *e = &x->evep[tid];
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		e->ep = cts_xrealloc(e->ep, e->cap * sizeof(*e->ep));
	}
	e->ep[e->n++] = cts_race_epoch(x->clocks, tid);
}

/* The backend could not start or go on with the run: its message is the
 * result's error (bad_input: the program or its input, not cts). */
static int backend_failed(struct explorer *x)
{
	snprintf(x->res->error, sizeof(x->res->error), "%s", x->st->message);
	x->res->bad_input = x->st->bad_input;
	return -1;
}

static int one_run(struct explorer *x, uint64_t run, struct cts_bug *bug,
		   struct cts_inconclusive *inc, bool *aborted);
static void keep_trace(struct explorer *x, struct cts_bug *bug);

/* ---- the run's record ------------------------------------------------------ */

static size_t rec_index(const struct explorer *x, uint64_t step)
{
	return x->rec_whole ? (size_t)step : (size_t)(step % CTS_BUG_TRACE);
}

static void record_step(struct explorer *x, uint64_t step, const struct cts_event *done, int c,
			bool preempt)
{
	size_t i = rec_index(x, step);
	if (i >= x->reccap) {
		size_t cap = x->rec_whole ? cts_grow_cap(x->reccap, i + 1) : CTS_BUG_TRACE;
		x->rec_ev = cts_xgrow(x->rec_ev, x->reccap, cap, sizeof(*x->rec_ev));
		x->rec_pre = cts_xgrow(x->rec_pre, x->reccap, cap, sizeof(*x->rec_pre));
		x->reccap = cap;
	}
	x->rec_ev[i] = *done;
	x->rec_ev[i].tid = c;
	x->rec_pre[i] = preempt;
}

/* Held thread c's call stack: its pending op's pc, then each caller's call
 * site (return address - 1), as far as the backend unwinds. */
static void fill_stack(struct explorer *x, int c, struct cts_bug_stack *s)
{
	uint64_t ret[CTS_STACK_MAX - 1];
	memset(s, 0, sizeof(*s));
	s->pc[s->n++] = x->pending[c].pc;
	int k = x->backend->ops->stack(x->backend->be, c, CTS_STACK_MAX - 1, ret);
	for (int i = 0; i < k && ret[i]; i++)
		s->pc[s->n++] = ret[i] - 1;
}

/* A creation or allocation of a report run, with its stack (taken at the step). */
static void add_origin(struct explorer *x, uint64_t step, int c, const struct cts_event *done)
{
	if ((size_t)x->norigins >= x->origcap) {
		size_t cap = cts_grow_cap(x->origcap, (size_t)x->norigins + 1);
		x->origins = cts_xgrow(x->origins, x->origcap, cap, sizeof(*x->origins));
		x->origcap = cap;
	}
	struct origin *o = &x->origins[x->norigins++];
	o->tid = c;
	o->step = step;
	o->ev = *done;
	o->stack = step < x->stackcap ? x->stacks[step] : (struct cts_bug_stack){ 0 };
}

static void take_stack(struct explorer *x, uint64_t step, int c)
{
	if (step >= x->stackcap) {
		size_t cap = cts_grow_cap(x->stackcap, (size_t)step + 1);
		x->stacks = cts_xgrow(x->stacks, x->stackcap, cap, sizeof(*x->stacks));
		x->stackcap = cap;
	}
	fill_stack(x, c, &x->stacks[step]);
}

/* Where each live thread stands at the end of the report run, while it is
 * still held (a deadlock's blocked threads; a dead process gives pcs only). */
static void take_pending_stacks(struct explorer *x)
{
	free(x->pstacks);
	x->npstacks = x->st->nthreads;
	x->pstacks = cts_xcalloc((size_t)x->npstacks + 1, sizeof(*x->pstacks));
	for (int i = 0; i < x->nlive; i++)
		if (x->alive[x->live[i]])
			fill_stack(x, x->live[i], &x->pstacks[x->live[i]]);
	/* A crashed or asserting thread stands at its fault, not at a next step. */
	struct cts_run_state *st = x->st;
	if ((st->status == CTS_RUN_SIGNALED || st->status == CTS_RUN_ASSERT) &&
	    st->fault_tid >= 0 && st->fault_tid < x->npstacks && st->fault_pc &&
	    x->pstacks[st->fault_tid].n)
		x->pstacks[st->fault_tid].pc[0] = st->fault_pc;
}

/* The stacks of a bug's re-run, once its trace has them: no later bug's
 * trace may take them. */
static void drop_stacks(struct explorer *x)
{
	free(x->stacks);
	free(x->pstacks);
	x->stacks = x->pstacks = NULL;
	x->stackcap = 0;
	x->npstacks = 0;
	x->norigins = 0;
}

/* ---- --minimize (strategies/minimize.h) ---------------------------------- */

struct min_ctx {
	struct explorer *x;
	const struct cts_bug *target;
};

/* The run just done, as minimize.c sees runs (the record is whole). */
static void run_as_min(struct explorer *x, struct cts_min_run *out)
{
	size_t n = x->sched->n;
	out->n = n;
	out->tids = cts_xmalloc((n ? n : 1) * sizeof(*out->tids));
	out->preempt = cts_xcalloc(n ? n : 1, sizeof(*out->preempt));
	out->ev = cts_xcalloc(n ? n : 1, sizeof(*out->ev));
	for (size_t i = 0; i < n; i++) {
		out->tids[i] = x->sched->steps[i].tid;
		if (i < x->reccap) {
			out->preempt[i] = x->rec_pre[i];
			out->ev[i] = x->rec_ev[i];
		}
	}
}

/* A candidate run: the guide strategy in place of the exploration's, no
 * race detector (its races would be reported), nothing counted. */
static int min_try(void *ctx, const int *tids, size_t n, struct cts_min_run *out)
{
	struct min_ctx *m = ctx;
	struct explorer *x = m->x;
	struct cts_strategy *saved = x->strategy, *g = cts_min_guide_create(tids, n);
	struct cts_race_detector *races = x->races;
	struct cts_bug bug = { .kind = CTS_BUG_NONE, .tid = -1 };
	struct cts_inconclusive inc = { 0 };
	bool aborted = false;

	if (interrupted) {
		cts_strategy_destroy(g);
		return -1;
	}
	x->strategy = g;
	x->races = NULL;
	x->minimizing = true;
	g->ops->begin_run(g, 0);
	int r = one_run(x, x->res->runs, &bug, &inc, &aborted);
	if (x->want_stacks)
		take_pending_stacks(x);
	x->backend->ops->stop(x->backend->be, x->st);
	out->infeasible = g->ops->diverged(g)[0] != 0;
	x->strategy = saved;
	x->races = races;
	x->minimizing = false;
	cts_strategy_destroy(g);
	if (r != 0)
		return -1;
	out->same_bug = bug.kind == m->target->kind && strcmp(bug.message, m->target->message) == 0;
	out->clean = bug.kind == CTS_BUG_NONE && !inc.kind && !aborted;
	run_as_min(x, out);
	return 0;
}

/* PAIR_THREAD "thread 1's read of counter at counter.c:17", PAIR_OWN "its
 * read of ...", PAIR_WAIT "thread 1 busy-waits on flag at spin.c:9" */
enum pair_form { PAIR_THREAD, PAIR_OWN, PAIR_WAIT };

static void pair_words(struct explorer *x, const struct cts_event *e, enum pair_form form,
		       char *buf, size_t len)
{
	char where[256], var[200] = "";
	describe_pc(x, e->pc, where, sizeof(where));
	/* "inc+0x3 (counter.c:17)": the source line alone when there is one
	 * ("fn_1159+0xc (prog)" names a module, and stays whole). */
	char *open = strrchr(where, '('), *close = open ? strchr(open, ')') : NULL;
	if (open && close && memchr(open, ':', (size_t)(close - open))) {
		*close = 0;
		memmove(where, open + 1, strlen(open + 1) + 1);
	}
	if (cts_op_is_range(e->op) && x->backend->ops->describe_data)
		x->backend->ops->describe_data(x->backend->be, e->obj, var, sizeof(var));
	if (form == PAIR_OWN)
		snprintf(buf, len, "its %s%s%s at %s", cts_op_name(e->op), var[0] ? " of " : "", var,
			 where);
	else if (form == PAIR_WAIT)
		snprintf(buf, len, "thread %d busy-waits on %s at %s", e->tid,
			 var[0] ? var : "it", where);
	else
		snprintf(buf, len, "thread %d's %s%s%s at %s", e->tid, cts_op_name(e->op),
			 var[0] ? " of " : "", var, where);
}

/* The critical pair is a read, another thread's write of the location,
 * and the reader's next read of it at the same place: a poll that failed
 * and the one that saw the write, "between thread 0's read of flag and its
 * read of flag" says nothing; the reader waits for the write. */
static bool busy_wait_pair(const struct cts_event *p)
{
	return p[0].op == CTS_OP_READ && cts_op_is_write(p[1].op) && p[2].op == CTS_OP_READ &&
	       p[2].obj == p[0].obj && p[2].pc == p[0].pc;
}

/* Minimize the new bug's run in place: afterwards x->sched, the record and
 * the thread tables are those of the minimized run, re-run last (with call
 * stacks). The original steps are left in *orig_steps for saving beside it. */
static void minimize_bug(struct explorer *x, struct cts_bug *bug, struct cts_sched_step **orig_steps,
			 size_t *orig_n)
{
	struct min_ctx ctx = { x, bug };
	struct cts_min_config mcfg = { x->cfg->min_runs, bug->tid };
	struct cts_min_run orig, again;
	struct cts_min_result res;

	*orig_n = x->sched->n;
	*orig_steps = cts_xmalloc((*orig_n ? *orig_n : 1) * sizeof(**orig_steps));
	memcpy(*orig_steps, x->sched->steps, *orig_n * sizeof(**orig_steps));
	run_as_min(x, &orig);
	bug->original_preemptions = cts_min_run_preemptions(&orig);
	if (cts_verbosity >= 2)
		cts_error_msg("minimizing the schedule of run %" PRIu64 " (%zu steps, at most %d "
			      "replays)", bug->run, *orig_n, x->cfg->min_runs);
	cts_minimize(&orig, &mcfg, min_try, &ctx, &res);
	if (res.pair[0] >= 0) {
		char a[400], b[400], c[400] = "";
		bug->pair[0] = res.best.ev[res.pair[0]];
		bug->pair[1] = res.best.ev[res.pair[1]];
		bug->pair_step[0] = (uint64_t)res.pair[0];
		bug->pair_step[1] = (uint64_t)res.pair[1];
		bug->npair = 2;
		pair_words(x, &bug->pair[1], PAIR_THREAD, b, sizeof(b));
		if (res.pair_after >= 0) {
			bug->pair[2] = res.best.ev[res.pair_after];
			bug->pair_step[2] = (uint64_t)res.pair_after;
			bug->npair = 3;
			bool wait = busy_wait_pair(bug->pair);
			pair_words(x, &bug->pair[0], wait ? PAIR_WAIT : PAIR_THREAD, a, sizeof(a));
			pair_words(x, &bug->pair[2], PAIR_OWN, c, sizeof(c));
			if (wait)
				snprintf(bug->headline, sizeof(bug->headline),
					 "the bug happens when %s comes while %s (written before "
					 "thread %d's first read there, the run is clean)", b, a,
					 bug->pair[0].tid);
			else
				snprintf(bug->headline, sizeof(bug->headline),
					 "the bug happens when %s comes between %s and %s", b, a, c);
		} else {
			pair_words(x, &bug->pair[0], PAIR_THREAD, a, sizeof(a));
			snprintf(bug->headline, sizeof(bug->headline),
				 "the bug happens when %s comes after %s (the other order runs clean)",
				 b, a);
		}
	}
	/* The minimized run once more, so the reports draw it with its call
	 * stacks (when nothing ran, x->sched is still the original's). */
	memset(&again, 0, sizeof(again));
	x->want_stacks = x->backend->ops->stack != NULL;
	int rr = (res.runs || x->want_stacks) ? min_try(&ctx, res.best.tids, res.best.n, &again) : -1;
	x->want_stacks = false;
	if (rr == 0 && again.same_bug) {
		bug->minimized = again.n != *orig_n ||
				 memcmp(x->sched->steps, *orig_steps, *orig_n * sizeof(**orig_steps));
		bug->steps = again.n;
		bug->threads = cts_min_run_threads(&again);
		bug->original_threads = res.original_threads;
		free(bug->trace);
		keep_trace(x, bug);
	} else if (res.runs || rr == 0) {
		/* Interrupted, or not the same bug again (the program does not repeat
		 * itself): the original schedule and its trace, kept from before. */
		cts_schedule_clear_steps(x->sched);
		for (size_t i = 0; i < *orig_n; i++)
			cts_schedule_add(x->sched, (*orig_steps)[i].tid, (*orig_steps)[i].op,
					 (*orig_steps)[i].obj);
		bug->npair = 0;
		bug->headline[0] = 0;
	}
	drop_stacks(x);
	cts_min_run_free(&again);
	cts_min_result_free(&res);
	if (cts_verbosity >= 2)
		cts_error_msg("minimized in %d replay%s%s: %" PRIu64 " preemption%s (was %" PRIu64
			      "), %d thread%s scheduled (was %d)",
			      res.runs, res.runs == 1 ? "" : "s", res.cut ? " (budget spent)" : "",
			      bug->preemptions, bug->preemptions == 1 ? "" : "s",
			      bug->original_preemptions, bug->threads, bug->threads == 1 ? "" : "s",
			      bug->original_threads);
}

/* A bug left as it was found (--no-minimize, a race, a --check verdict):
 * its schedule once more with call stacks, so that its timeline shows them
 * as a minimized bug's does. The re-run replaces the trace only when it
 * followed every step (replay is exact); otherwise the trace stays as found. */
static void stack_bug(struct explorer *x, struct cts_bug *bug)
{
	struct min_ctx ctx = { x, bug };
	struct cts_min_run again;
	size_t n = x->sched->n;
	struct cts_sched_step *steps = cts_xmalloc((n ? n : 1) * sizeof(*steps));
	int *tids = cts_xmalloc((n ? n : 1) * sizeof(*tids));

	memcpy(steps, x->sched->steps, n * sizeof(*steps));
	for (size_t i = 0; i < n; i++)
		tids[i] = steps[i].tid;
	memset(&again, 0, sizeof(again));
	x->want_stacks = true;
	int rr = min_try(&ctx, tids, n, &again);
	x->want_stacks = false;
	if (rr == 0 && !again.infeasible && again.n == n) {
		free(bug->trace);
		keep_trace(x, bug);
	} else {  /* the schedule saved is the one found */
		cts_schedule_clear_steps(x->sched);
		for (size_t i = 0; i < n; i++)
			cts_schedule_add(x->sched, steps[i].tid, steps[i].op, steps[i].obj);
	}
	drop_stacks(x);
	cts_min_run_free(&again);
	free(tids);
	free(steps);
}

/* Save the original schedule beside the minimized KIND-N.sched as KIND-N.orig.sched. */
static void save_original(struct explorer *x, struct cts_bug *bug, struct cts_sched_step *steps,
			  size_t n)
{
	size_t len = strlen(bug->schedule_path);
	if (!bug->minimized || len < 6 || len + 6 >= sizeof(bug->orig_path))
		return;
	snprintf(bug->orig_path, sizeof(bug->orig_path), "%.*s.orig.sched", (int)(len - 6),
		 bug->schedule_path);
	struct cts_sched_step *keep = x->sched->steps;
	size_t keep_n = x->sched->n;
	x->sched->steps = steps;
	x->sched->n = n;
	set_hot_lines(x);
	if (cts_schedule_save(x->sched, bug->orig_path) != 0) {
		cts_perror_msg("cannot save %s", bug->orig_path);
		bug->orig_path[0] = 0;
	}
	x->sched->steps = keep;
	x->sched->n = keep_n;
}

static void replay_cmd(struct explorer *x, const struct cts_bug *bug, char *buf, size_t len);

/* KIND-N.html beside KIND-N.sched (models/timeline.h). */
static void write_timeline(struct explorer *x, struct cts_bug *bug)
{
	size_t len = strlen(bug->schedule_path);
	char cmd[1600];
	/* Interrupted: the schedule is saved and replays; its timeline waits
	 * (its source lines can load a library's debug information first:
	 * seconds under load, after the user asked to stop). */
	if (len < 6 || len + 1 > sizeof(bug->timeline_path) || interrupted)
		return;
	snprintf(bug->timeline_path, sizeof(bug->timeline_path), "%.*s.html", (int)(len - 6),
		 bug->schedule_path);
	replay_cmd(x, bug, cmd, sizeof(cmd));
	struct cts_describer d = cts_backend_describer(x->backend);
	if (cts_timeline_write(bug->timeline_path, bug, &d, cmd) != 0) {
		cts_perror_msg("cannot write %s", bug->timeline_path);
		bug->timeline_path[0] = 0;
	}
}

static bool minimizable(const struct cts_explorer_config *cfg, enum cts_bug_kind k)
{
	/* A --check or race verdict needs what candidate runs leave out. */
	return cfg->minimize && cfg->out_dir && k != CTS_BUG_DIVERGED && k != CTS_BUG_CHECK &&
	       k != CTS_BUG_RACE && k != CTS_BUG_NONE;
}

/* Is step i drawn: among the last CTS_BUG_TRACE, or within
 * CTS_BUG_CONTEXT of one of the bug's own steps (the critical pair, a
 * race's accesses) while the run's record still holds it? */
static bool step_drawn(const struct explorer *x, const struct cts_bug *bug, uint64_t i)
{
	if (i + CTS_BUG_TRACE >= bug->steps)
		return true;
	if (!x->rec_whole)
		return false; /* the ring holds the last steps only */
	for (int k = 0; k < bug->npair && k < 3; k++)
		if (i + CTS_BUG_CONTEXT >= bug->pair_step[k] && i <= bug->pair_step[k] + CTS_BUG_CONTEXT)
			return true;
	return false;
}

/* The bug's run as its reports draw it: its last steps and those around
 * its own steps, then where each live thread stood (blocked or not) when it
 * ended. */
static void keep_trace(struct explorer *x, struct cts_bug *bug)
{
	uint64_t first = bug->steps > CTS_BUG_TRACE ? bug->steps - CTS_BUG_TRACE : 0;
	size_t cap = (size_t)(bug->steps - first) + (size_t)x->nlive + 1 +
		     (size_t)(3 * (2 * CTS_BUG_CONTEXT + 1));
	int n = 0;

	bug->preemptions = x->preempts;
	bug->trace = cts_xcalloc(cap, sizeof(*bug->trace));
	for (int k = 0; k < bug->npair && k < 3; k++) {
		uint64_t lo = bug->pair_step[k] > CTS_BUG_CONTEXT ? bug->pair_step[k] - CTS_BUG_CONTEXT : 0;
		if (lo < first)
			first = lo;
	}
	for (uint64_t i = first; i < bug->steps; i++) {
		if (!step_drawn(x, bug, i))
			continue;
		struct cts_bug_step *b = &bug->trace[n++];
		size_t k = rec_index(x, i);
		b->ev = x->rec_ev[k];
		b->step = i;
		b->preempt = x->rec_pre[k];
		if (i < x->stackcap)
			b->stack = x->stacks[i];
	}
	int last_tid = n ? bug->trace[n - 1].ev.tid : -1; /* the last executed step's */
	bool has_site = (bug->kind == CTS_BUG_CRASH || bug->kind == CTS_BUG_ASSERT) &&
			bug->tid >= 0 && bug->site_pc && (size_t)bug->tid < x->tcap;
	bool site_in = false;
	for (int i = 0; i < x->nlive; i++)
		site_in |= x->live[i] == bug->tid;
	for (int i = 0; i < x->nlive + (has_site && !site_in); i++) {
		int t = i < x->nlive ? x->live[i] : bug->tid; /* the failing thread, always */
		bool site = has_site && t == bug->tid;
		if (!site && (!x->alive[t] || (t == last_tid && !(bug->kind == CTS_BUG_DEADLOCK ||
								   bug->kind == CTS_BUG_LIVELOCK))))
			continue; /* the last step's thread stands where it ended, not at a next step */
		struct cts_bug_step *p = &bug->trace[n++];
		p->ev = x->pending[t];
		p->ev.tid = t;
		p->step = bug->steps;
		p->pending = true;
		p->blocked = !site && !x->enabled[t] && !x->spinning[t];
		if (t < x->npstacks)
			p->stack = x->pstacks[t];
		if (site) {
			/* the fault or the assert's call, not the op the thread would do next */
			p->site = true;
			p->ev.pc = bug->site_pc;
			p->ev.obj = 0;
			if (!p->stack.n)
				p->stack = (struct cts_bug_stack){ .n = 1, .pc = { bug->site_pc } };
		}
	}
	bug->ntrace = n;
}

/* One saved schedule replayed cfg->verify_replays times by a fresh
 * cts-trace: how many ended with the bug (it stops at the first that did
 * not, whose account is left in why). */
static int replays_of(struct explorer *x, const char *path, const struct cts_bug *bug,
		      char *why, size_t len)
{
	int ok = 0;
	why[0] = 0;
	while (ok < x->cfg->verify_replays && !interrupted &&
	       x->cfg->verify(x->cfg, path, bug, why, len) == 1)
		ok++;
	return ok;
}

/* Never leave a schedule that does not replay under the name printed for
 * it: a minimized one that fails its replays gives way to the original
 * (renamed over it, with the original's trace and counts); a schedule that
 * fails, with nothing better to fall back on, stays with a note saying so. */
static void verify_saved(struct explorer *x, struct cts_bug *bug, struct cts_bug *found)
{
	const struct cts_explorer_config *cfg = x->cfg;
	char why[600];

	if (!cfg->verify || cfg->verify_replays <= 0 || !bug->schedule_path[0] ||
	    bug->kind == CTS_BUG_DIVERGED || interrupted)
		return;
	int ok = replays_of(x, bug->schedule_path, bug, why, sizeof(why));
	if (ok == cfg->verify_replays || interrupted) {
		bug->replays_ok = ok;
		return;
	}
	if (bug->minimized && bug->orig_path[0]) {
		char mwhy[600];
		int mok = ok;
		snprintf(mwhy, sizeof(mwhy), "%s", why);
		ok = replays_of(x, bug->orig_path, bug, why, sizeof(why));
		if (rename(bug->orig_path, bug->schedule_path) != 0) {
			cts_perror_msg("cannot rename %s", bug->orig_path);
			return;
		}
		cts_debug_msg("the minimized schedule replayed the bug %d time%s of %d (%s): "
			      "the original is saved instead", mok, mok == 1 ? "" : "s",
			      cfg->verify_replays, mwhy);
		bug->steps = found->steps;
		bug->preemptions = bug->original_preemptions;
		bug->threads = bug->original_threads;
		bug->minimized = false;
		bug->orig_path[0] = 0;
		bug->npair = 0;
		bug->headline[0] = 0;
		free(bug->trace);
		bug->trace = found->trace;
		bug->ntrace = found->ntrace;
		found->trace = NULL;
		snprintf(bug->replay_note, sizeof(bug->replay_note),
			 "the minimized schedule did not replay (%d of %d: %s); this is the "
			 "original", mok, cfg->verify_replays, mwhy);
		if (ok == cfg->verify_replays || interrupted) {
			bug->replays_ok = ok;
			return;
		}
	}
	bug->replays_ok = ok;
	size_t n = strlen(bug->replay_note);
	snprintf(bug->replay_note + n, sizeof(bug->replay_note) - n,
		 "%sthis schedule does NOT reproduce the bug: %d of %d replays did (%s)",
		 n ? "; " : "", ok, cfg->verify_replays, why);
}

/* Threads with a step in the run's schedule. */
static int sched_threads(const struct explorer *x)
{
	bool *seen = cts_xcalloc((size_t)x->st->nthreads + 1, sizeof(*seen));
	int n = 0;
	for (size_t i = 0; i < x->sched->n; i++) {
		int t = x->sched->steps[i].tid;
		if (t >= 0 && t < x->st->nthreads && !seen[t]) {
			seen[t] = true;
			n++;
		}
	}
	free(seen);
	return n;
}

/* Keep one entry per distinct bug; true if this one is new. */
static bool record_bug(struct explorer *x, struct cts_bug *bug)
{
	struct cts_explore_result *res = x->res;
	for (int i = 0; i < res->nbugs; i++) {
		if (res->bugs[i].kind == bug->kind && strcmp(res->bugs[i].message, bug->message) == 0) {
			res->bugs[i].hits++;
			return false;
		}
	}
	bug->hits = 1;
	if (x->cfg->instance &&
	    cts_instance_format(x->cfg->instance, bug->instance, sizeof(bug->instance)) >=
	    (int)sizeof(bug->instance))
		bug->instance[0] = 0;   /* too long to quote here: the schedule file has it */
	struct cts_sched_step *orig = NULL;
	size_t norig = 0;
	bug->original_preemptions = x->preempts;
	bug->threads = bug->original_threads = sched_threads(x);
	keep_trace(x, bug);
	struct cts_bug found = *bug;  /* as found, should the minimized one not replay */
	found.trace = NULL;
	if (minimizable(x->cfg, bug->kind)) {
		found.trace = cts_xmalloc(((size_t)bug->ntrace + 1) * sizeof(*found.trace));
		memcpy(found.trace, bug->trace, (size_t)bug->ntrace * sizeof(*found.trace));
		minimize_bug(x, bug, &orig, &norig);
	} else if (x->cfg->out_dir && bug->kind != CTS_BUG_DIVERGED && x->backend->ops->stack) {
		stack_bug(x, bug);
	}
	save_schedule(x, cts_bug_kind_name(bug->kind), bug->message, bug->schedule_path,
		      sizeof(bug->schedule_path));
	save_original(x, bug, orig, norig);
	free(orig);
	verify_saved(x, bug, &found);
	free(found.trace);
	write_timeline(x, bug);
	res->bugs = cts_xrealloc(res->bugs, ((size_t)res->nbugs + 1) * sizeof(*res->bugs));
	res->bugs[res->nbugs++] = *bug;
	report_bug(x, bug);
	return true;
}

/* A run without a verdict: counted, the first ones listed with a schedule
 * and a warning line. Never a bug. */
static void record_inconclusive(struct explorer *x, struct cts_inconclusive *inc)
{
	struct cts_explore_result *res = x->res;
	FILE *log = x->cfg->log;
	char what[600];

	res->ninconclusive++;
	if (res->nlisted >= CTS_INCONCLUSIVE_LISTED)
		return;
	snprintf(what, sizeof(what), "inconclusive: %s", inc->reason);
	save_schedule(x, "inconclusive", what, inc->schedule_path,
		      sizeof(inc->schedule_path));
	res->inconclusive = cts_xrealloc(res->inconclusive,
					 ((size_t)res->nlisted + 1) * sizeof(*res->inconclusive));
	res->inconclusive[res->nlisted++] = *inc;
	if (x->cfg->quiet)
		return;
	clear_progress(x);
	if (res->nlisted <= INC_SHOWN) {
		fprintf(log, "cts-trace: warning: run %" PRIu64 " inconclusive after %" PRIu64
			" steps: %s\n", inc->run, inc->steps, inc->reason);
		if (inc->schedule_path[0])
			fprintf(log, "  schedule: %s\n", inc->schedule_path);
	} else if (!x->inc_hidden_said) {
		x->inc_hidden_said = true;
		fprintf(log, "cts-trace: warning: more inconclusive runs; counted, not shown\n");
	}
	fflush(log);
}

static void judge_end(struct explorer *x, struct cts_bug *bug, struct cts_inconclusive *inc)
{
	struct cts_run_state *st = x->st;
	char where[256];

	switch (st->status) {
	case CTS_RUN_EXITED:
		if (x->cfg->fail_on_exit && st->exit_code != 0) {
			bug->kind = CTS_BUG_EXIT;
			if (st->exit_sig)
				snprintf(bug->message, sizeof(bug->message), "program %s signal %d (%s)",
					 st->exit_sig_self ? "killed itself by" : "ended by",
					 st->exit_sig, strsignal(st->exit_sig));
			else
				snprintf(bug->message, sizeof(bug->message),
					 "program exited with status %d", st->exit_code);
		}
		break;
	case CTS_RUN_SIGNALED:
		bug->kind = CTS_BUG_CRASH;
		bug->tid = st->fault_tid;
		bug->site_pc = st->fault_pc;
		describe_pc(x, st->fault_pc, where, sizeof(where));
		snprintf(bug->message, sizeof(bug->message), "thread %d killed by %s at %s",
			 st->fault_tid, strsignal(st->sig), where);
		if (st->sig == SIGSEGV || st->sig == SIGBUS)
			snprintf(bug->message + strlen(bug->message),
				 sizeof(bug->message) - strlen(bug->message),
				 " (address 0x%" PRIx64 ")", st->fault_addr);
		snprintf(bug->detail, sizeof(bug->detail), "%s", st->message);
		break;
	case CTS_RUN_ASSERT:
		bug->kind = CTS_BUG_ASSERT;
		bug->tid = st->fault_tid;
		bug->site_pc = st->fault_pc;
		snprintf(bug->site_file, sizeof(bug->site_file), "%s", st->assert_file);
		bug->site_line = st->assert_line;
		snprintf(bug->message, sizeof(bug->message), "thread %d: %s", st->fault_tid,
			 st->message);
		break;
	case CTS_RUN_TIMEOUT:
		/* Slow is not wrong: only a deadlock or a proven livelock is a bug. */
		inc->kind = CTS_INC_TIMEOUT;
		snprintf(inc->reason, sizeof(inc->reason), "%s; no deadlock or livelock seen",
			 st->message[0] ? st->message : "run timed out");
		break;
	default:
		break;
	}
}

static void race_bug(struct explorer *x, struct cts_bug *bug, const struct cts_race *r)
{
	char a[256], b[256], var[200];
	describe_pc(x, r->pc1, a, sizeof(a));
	describe_pc(x, r->pc2, b, sizeof(b));
	describe_var(x, r->addr, var, sizeof(var));
	bug->kind = CTS_BUG_RACE;
	bug->tid = r->tid2;
	/* The two accesses are the bug's own steps: the timeline draws them
	 * however long the run, and marks them. */
	bug->npair = 2;
	bug->pair[0] = (struct cts_event){ .tid = r->tid1, .op = r->op1, .obj = r->addr,
					   .pc = r->pc1, .size = r->size, .target = -1 };
	bug->pair[1] = (struct cts_event){ .tid = r->tid2, .op = r->op2, .obj = r->addr,
					   .pc = r->pc2, .size = r->size, .target = -1 };
	bug->pair_step[0] = r->step1;
	bug->pair_step[1] = r->step2;
	bug->site_pc = r->pc2;
	snprintf(bug->message, sizeof(bug->message),
		 "data race on %s (%u bytes): thread %d %s at %s vs thread %d %s at %s", var,
		 r->size, r->tid1, cts_op_name(r->op1), a, r->tid2, cts_op_name(r->op2), b);
}

/* The note a plain race's line points to, once, at the end. */
#define PLAIN_NOTE "* plain loads/stores: not a race if the variable is a C11 atomic, whose " \
		   "loads and stores x86 compiles to the same moves"

static void print_stack(struct explorer *x, const struct cts_bug_stack *s)
{
	for (int k = 0; k < s->n; k++) {
		char where[512];
		describe_pc(x, s->pc[k], where, sizeof(where));
		fprintf(x->cfg->log, "    #%d %s\n", k, where);
	}
}

static void print_created(struct explorer *x, int tid, int parent, const struct cts_bug_stack *s)
{
	if (tid == 0)
		fprintf(x->cfg->log, "  thread 0 is the main thread\n");
	else if (parent < 0)
		fprintf(x->cfg->log, "  thread %d: its creation was not seen\n", tid);
	else {
		fprintf(x->cfg->log, "  thread %d created by thread %d at:\n", tid, parent);
		print_stack(x, s);
	}
}

/* A race as ThreadSanitizer says it: the one-line summary, then the access
 * and the previous one with their stacks, what the memory is, and where
 * each thread was created (when a replay of its run gave them). */
static void report_race(struct explorer *x, const struct cts_race *r)
{
	struct cts_bug tmp = { 0 };
	const struct cts_race_detail *d = &r->detail;
	FILE *log = x->cfg->log;
	char var[200] = "";

	if (x->cfg->quiet)
		return;
	race_bug(x, &tmp, r);
	clear_progress(x);
	fprintf(log, "cts-trace: %s (run %" PRIu64 ")%s\n", tmp.message, r->run,
		r->plain ? " *" : "");
	x->plain_note |= r->plain;
	if (!d->known)
		return;
	fprintf(log, "  %s of %u bytes by thread %d:\n", cts_op_name(r->op2), r->size, r->tid2);
	print_stack(x, &d->stack2);
	fprintf(log, "  previous %s by thread %d:\n", cts_op_name(r->op1), r->tid1);
	print_stack(x, &d->stack1);
	if (x->backend->ops->describe_data)
		x->backend->ops->describe_data(x->backend->be, r->addr, var, sizeof(var));
	if (var[0]) {
		fprintf(log, "  location: global %s (0x%" PRIx64 ")\n", var, r->addr);
	} else if (d->block && d->alloc_tid >= 0) {
		fprintf(log, "  location: heap block of %" PRIu64 " bytes at 0x%" PRIx64 " (offset %"
			PRIu64 "), allocated by thread %d at:\n", d->block_size, d->block,
			r->addr - d->block, d->alloc_tid);
		print_stack(x, &d->alloc);
	} else if (d->block) {
		fprintf(log, "  location: heap block of %" PRIu64 " bytes at 0x%" PRIx64 " (offset %"
			PRIu64 "), allocated where cts does not see allocations (while one thread "
			"ran alone, or in a library)\n", d->block_size, d->block, r->addr - d->block);
	} else {
		fprintf(log, "  location: 0x%" PRIx64 ", neither a global nor a block of the main "
			"heap\n", r->addr);
	}
	print_created(x, r->tid2, d->parent2, &d->created2);
	if (r->tid1 != r->tid2)
		print_created(x, r->tid1, d->parent1, &d->created1);
}

/* Who created thread tid in the report run, and the call's stack. */
static void find_creation(const struct explorer *x, int tid, int *parent, struct cts_bug_stack *s)
{
	*parent = -1;
	for (int i = 0; i < x->norigins; i++)
		if (x->origins[i].ev.op == CTS_OP_CREATE && x->origins[i].ev.target == tid) {
			*parent = x->origins[i].tid;
			*s = x->origins[i].stack;
		}
}

/* The last allocation before step that holds addr; else the block the
 * backend found there (probe), its allocation unseen. */
static void find_block(const struct explorer *x, uint64_t addr, uint64_t step,
		       const struct probe *probe, struct cts_race_detail *d)
{
	if (probe->start) {
		d->block = probe->start;
		d->block_size = probe->size;
		d->alloc_tid = -1;
	}
	for (int i = 0; i < x->norigins; i++) {
		const struct origin *o = &x->origins[i];
		if (o->ev.op == CTS_OP_ALLOC && o->step < step && o->ev.size &&
		    addr >= o->ev.obj && addr - o->ev.obj < o->ev.size) {
			d->block = o->ev.obj;
			d->block_size = o->ev.size;
			d->alloc_tid = o->tid;
			d->alloc = o->stack;
		}
	}
}

/* Race i's detail from the report replay just run (again: its steps). */
static void race_detail(struct explorer *x, int i, const struct cts_min_run *again,
			const struct probe *probe)
{
	const struct cts_race *r = cts_race_get(x->races, i);
	struct cts_race_detail d = { .known = true, .alloc_tid = -1 };
	if (!r || r->step1 >= again->n || r->step2 >= again->n ||
	    again->tids[r->step1] != r->tid1 || again->tids[r->step2] != r->tid2 ||
	    r->step2 >= x->stackcap || r->step1 >= x->stackcap)
		return; /* the replay went elsewhere */
	d.stack1 = x->stacks[r->step1];
	d.stack2 = x->stacks[r->step2];
	find_creation(x, r->tid1, &d.parent1, &d.created1);
	find_creation(x, r->tid2, &d.parent2, &d.created2);
	find_block(x, r->addr, r->step1, probe, &d);
	cts_race_set_detail(x->races, i, &d);
}

/* The run that found races from..from+n-1: its schedule (x->race_steps)
 * once more with call stacks (a candidate's run: nothing counted, no race
 * detector, the backend muted), asking for the heap block at each race's
 * first access; each race's detail taken from it. x->sched is left as it
 * was. */
static void race_replay(struct explorer *x, int from, int n)
{
	struct cts_bug none = { .kind = CTS_BUG_NONE, .tid = -1 };
	struct min_ctx ctx = { x, &none };
	struct cts_min_run again;
	size_t ns = x->nrace_steps, nkeep = x->sched->n;
	struct cts_sched_step *steps = cts_xmalloc((nkeep ? nkeep : 1) * sizeof(*steps));
	int *tids = cts_xmalloc((ns ? ns : 1) * sizeof(*tids));

	memcpy(steps, x->sched->steps, nkeep * sizeof(*steps));
	for (size_t i = 0; i < ns; i++)
		tids[i] = x->race_steps[i].tid;
	memset(&again, 0, sizeof(again));
	x->nprobes = n;
	x->probes = cts_xcalloc((size_t)n, sizeof(*x->probes));
	for (int i = 0; i < n; i++) {
		const struct cts_race *r = cts_race_get(x->races, from + i);
		x->probes[i] = (struct probe){ .step = r ? r->step1 : UINT64_MAX,
					       .addr = r ? r->addr : 0 };
	}
	x->want_stacks = true;
	if (x->backend->ops->mute)
		x->backend->ops->mute(x->backend->be, true);
	int rr = min_try(&ctx, tids, ns, &again);
	if (x->backend->ops->mute)
		x->backend->ops->mute(x->backend->be, false);
	x->want_stacks = false;
	for (int i = 0; rr == 0 && i < n; i++)
		race_detail(x, from + i, &again, &x->probes[i]);
	cts_schedule_clear_steps(x->sched);
	for (size_t i = 0; i < nkeep; i++)
		cts_schedule_add(x->sched, steps[i].tid, steps[i].op, steps[i].obj);
	drop_stacks(x);
	cts_min_run_free(&again);
	free(x->probes);
	x->probes = NULL;
	x->nprobes = 0;
	free(tids);
	free(steps);
}

/* The run just done found races (x->nfresh from x->fresh_from): their
 * details from a replay of it, then each printed. Not for races caught in
 * the act: their steps are not the run's (the catch keeps both stacks
 * itself). */
static void explain_races(struct explorer *x)
{
	int from = x->fresh_from, n = x->nfresh;
	x->nfresh = 0;
	if (n <= 0)
		return;
	if (x->backend->ops->stack && x->nrace_steps && !interrupted && !x->cfg->races_catch)
		race_replay(x, from, n);
	for (int i = from; i < from + n; i++)
		report_race(x, cts_race_get(x->races, i));
}

/* Which threads the strategy may choose. Spinners step aside while any
 * other thread can run; when every live thread spins or is blocked, timed
 * waits give up first, then the spinners take turns one at a time, and once
 * each proved SPIN_CONFIRM times in a row that it cannot move on, the run is
 * a livelock. Returns how many may run (0: deadlock or *livelock). */
static void fit_threads(struct explorer *x, int n)
{
	if ((size_t)n <= x->tcap)
		return;
	size_t cap = cts_grow_cap(x->tcap, (size_t)n);
	x->alive = cts_xgrow(x->alive, x->tcap, cap, sizeof(*x->alive));
	x->enabled = cts_xgrow(x->enabled, x->tcap, cap, sizeof(*x->enabled));
	x->outside = cts_xgrow(x->outside, x->tcap, cap, sizeof(*x->outside));
	x->spinning = cts_xgrow(x->spinning, x->tcap, cap, sizeof(*x->spinning));
	x->pending = cts_xgrow(x->pending, x->tcap, cap, sizeof(*x->pending));
	x->confirm = cts_xgrow(x->confirm, x->tcap, cap, sizeof(*x->confirm));
	x->told = cts_xgrow(x->told, x->tcap, cap, sizeof(*x->told));
	x->live = cts_xgrow(x->live, x->tcap, cap, sizeof(*x->live));
	x->tcap = cap;
}

static void free_threads(struct explorer *x)
{
	free(x->alive);
	free(x->enabled);
	free(x->outside);
	free(x->spinning);
	free(x->pending);
	free(x->confirm);
	free(x->told);
	free(x->live);
}

/* A new run: no thread seen yet. */
static void clear_threads(struct explorer *x)
{
	if (x->tcap) {
		memset(x->alive, 0, x->tcap * sizeof(*x->alive));
		memset(x->enabled, 0, x->tcap * sizeof(*x->enabled));
		memset(x->outside, 0, x->tcap * sizeof(*x->outside));
		memset(x->spinning, 0, x->tcap * sizeof(*x->spinning));
		memset(x->confirm, 0, x->tcap * sizeof(*x->confirm));
		memset(x->told, 0, x->tcap * sizeof(*x->told));
	}
	x->nlive = x->seen = 0;
}

/* The threads that may be alive now, ascending, into x->live: the ones alive
 * last time and the ones created since; the dead are cleared once. */
static void update_live(struct explorer *x)
{
	struct cts_run_state *st = x->st;
	int k = 0;

	fit_threads(x, st->nthreads);
	for (int i = 0; i < x->nlive; i++) {
		int t = x->live[i];
		if (st->t[t].alive)
			x->live[k++] = t;
		else
			x->alive[t] = x->enabled[t] = x->outside[t] = x->spinning[t] = false;
	}
	for (int t = x->seen; t < st->nthreads; t++)
		if (st->t[t].alive)
			x->live[k++] = t;
	x->nlive = k;
	x->seen = st->nthreads;
}

/* Does natively a thread make a futex wait at op (a pthread call cts holds
 * while it cannot go on)? */
static bool waits_in_kernel(cts_op op)
{
	switch (op) {
	case CTS_OP_LOCK: case CTS_OP_RDLOCK: case CTS_OP_WRLOCK: case CTS_OP_COND_REACQUIRE:
	case CTS_OP_SEM_WAIT: case CTS_OP_JOIN: case CTS_OP_RESUME:
		return true;
	default:
		return false;
	}
}

/* The program has seccomp filters of its own: a thread that now waits at
 * its pending pthread call would natively be in a futex wait, which cts
 * never lets it make; the backend applies the filters to that call, once
 * per wait. 0, 1 (the run ended), -1 (cannot apply: res->error). */
static int native_waits(struct explorer *x)
{
	struct cts_run_state *st = x->st;
	update_live(x);
	for (int i = 0; i < x->nlive; i++) {
		int t = x->live[i];
		const struct cts_thread_view *v = &st->t[t];
		if (x->told[t] || !v->alive || v->blocked || v->outside ||
		    !waits_in_kernel(v->pending.op) || cts_objmodel_enabled(x->model, &v->pending))
			continue;
		x->told[t] = true;
		int r = x->backend->ops->native_call(x->backend->be, st, t, false);
		if (r != 0)
			return r;
		update_live(x);
	}
	return 0;
}

/* Does done (about to run) release what another thread is blocked on, so
 * that natively it makes a futex wake? */
static bool wakes_waiter(struct explorer *x, const struct cts_event *done)
{
	struct cts_run_state *st = x->st;
	if (done->op != CTS_OP_UNLOCK && done->op != CTS_OP_RWUNLOCK && done->op != CTS_OP_SEM_POST)
		return false;
	for (int i = 0; i < x->nlive; i++) {
		int t = x->live[i];
		const struct cts_event *p = &st->t[t].pending;
		uint64_t obj = p->op == CTS_OP_COND_REACQUIRE ? p->obj2 : p->obj;
		if (t != done->tid && st->t[t].alive && waits_in_kernel(p->op) &&
		    p->op != CTS_OP_JOIN && obj == done->obj && !cts_objmodel_enabled(x->model, p))
			return true;
	}
	return false;
}

/* Do some blocked threads wait for each other in a cycle (each for a mutex
 * or rwlock another of them holds, or for another of them to exit)? */
static bool blocked_cycle(struct explorer *x)
{
	struct cts_run_state *st = x->st;
	int n = st->nthreads;
	int *to = cts_xcalloc((size_t)n + 1, sizeof(*to));
	char what[200];
	bool cycle = false;

	for (int t = 0; t < n; t++) {
		to[t] = -1;
		if (x->alive[t] && !x->enabled[t] && !x->spinning[t] && !x->outside[t] &&
		    !x->pending[t].timed)
			to[t] = cts_objmodel_blocker(x->model, &x->pending[t], what, sizeof(what));
	}
	/* Follow each chain at most n edges: a chain that long repeats. */
	for (int s = 0; s < n && !cycle; s++) {
		int t = s, k = 0;
		while (t >= 0 && t < n && k <= n) {
			t = to[t];
			k++;
		}
		cycle = k > n;
	}
	free(to);
	return cycle;
}

static int collect(struct explorer *x, bool *give_up, bool *livelock)
{
	struct cts_run_state *st = x->st;
	int n = 0, spinners = 0;

	*give_up = *livelock = false;
	x->spin_wait = false;
	x->noutside = 0;
	update_live(x);
	for (int i = 0; i < x->nlive; i++) {
		int t = x->live[i];
		x->alive[t] = st->t[t].alive;
		x->pending[t] = st->t[t].pending;
		x->outside[t] = x->alive[t] && st->t[t].outside;
		x->noutside += x->outside[t];
		x->spinning[t] = false;
		x->enabled[t] = x->alive[t] && !st->t[t].blocked &&
				cts_objmodel_enabled(x->model, &st->t[t].pending);
		if (!x->enabled[t])
			continue;
		struct cts_spin_loc *loc;
		if (cts_spin_stuck(x->spin, &x->pending[t], &loc)) {
			x->spinning[t] = true;
			x->enabled[t] = false;
			spinners++;
			/* A location someone busy-waits on is a synchronization variable. */
			if (loc && !loc->marked && x->races) {
				loc->marked = true;
				cts_race_sync_location(x->races, loc->addr, loc->size);
			}
		} else {
			n++;
		}
	}
	/* --races catch: a thread held at a sampled access steps aside while
	 * another thread can run (never when none can: no false deadlock). */
	int undeferred = 0;
	for (int i = 0; i < x->nlive; i++)
		undeferred += x->enabled[x->live[i]] && !st->t[x->live[i]].deferred;
	for (int i = 0; undeferred && i < x->nlive; i++) {
		int t = x->live[i];
		if (x->enabled[t] && st->t[t].deferred) {
			x->enabled[t] = false;
			n--;
		}
	}
	if (n && spinners) {
		/* A hold without proof (sync mode, where the stores that end a
		 * wait are invisible; code cts does not trace) may prune orders
		 * where the spinner went first: no longer a complete search. */
		for (int i = 0; i < x->nlive; i++) {
			int t = x->live[i];
			if (x->spinning[t] && !cts_spin_proven(x->spin, t)) {
				x->unproven_holds++;
				break;
			}
		}
	}
	if (n) {
		if (x->confirming)
			memset(x->confirm, 0, x->tcap * sizeof(*x->confirm));
		x->confirming = false;
		return n;
	}
	/* Nobody can move: timed waits give up, as they would after their timeout. */
	for (int i = 0; i < x->nlive; i++) {
		int t = x->live[i];
		if (x->alive[t] && x->pending[t].timed && !x->spinning[t]) {
			x->enabled[t] = true;
			n++;
		}
	}
	*give_up = n > 0;
	/* Holding a spinner without proof is what let them give up; it has
	 * done its work. A thread that keeps re-reading what others read
	 * while it makes progress unseen (an interpreter holding its lock,
	 * its stores on lines it owns) must run on now: held, it could never
	 * reach the request to let go that the waiter just posted. */
	for (int i = 0; *give_up && spinners && i < x->nlive; i++) {
		int t = x->live[i];
		if (x->spinning[t] && !cts_spin_proven(x->spin, t))
			cts_spin_release(x->spin, t);
	}
	if (n || !spinners)
		return n;
	/* Threads that wait for each other in a cycle never move, whatever the
	 * spinners do: a deadlock, with no turns to take and no proof to wait
	 * for (a barrier's waiter still spinning while two released threads
	 * block on each other's mutex, tests/programs/spinbar_deadlock). */
	if (blocked_cycle(x))
		return 0;
	bool proven = x->backend->ops->thread_state != NULL, confirmed = true;
	int pick = -1;
	for (int i = 0; i < x->nlive; i++) {
		int t = x->live[i];
		if (!x->spinning[t])
			continue;
		confirmed = confirmed && x->confirm[t] >= SPIN_CONFIRM;
		proven = proven && cts_spin_proven(x->spin, t);
		if (pick < 0 || x->confirm[t] < x->confirm[pick])
			pick = t;
	}
	if (proven && confirmed) {
		/* With a thread in the kernel the run loop first waits for it: a
		 * livelock only if it cannot come back. */
		*livelock = true;
		return 0;
	}
	/* A thread in the kernel may write what the spinners wait for, or sleep
	 * until they move on (a signal thread in sigwait that main wakes at its
	 * exit): the spinners take turns, which are steps, and once they have
	 * all had their turns the run loop waits for the kernel between turns. */
	x->spin_wait = confirmed && x->noutside;
	x->confirming = true;
	x->spinning[pick] = false;
	x->enabled[pick] = true;
	return 1;
}

static void debug_point(struct explorer *x, uint64_t run, uint64_t step)
{
	struct cts_run_state *st = x->st;
	char *en = cts_xmalloc((size_t)st->nthreads + 1), pend[96];
	int i;
	for (i = 0; i < st->nthreads; i++)
		en[i] = x->enabled[i] ? 'E' : x->spinning[i] ? 's' :
			x->alive[i] ? (st->t[i].blocked ? 'b' : 'd') : '-';
	en[i] = 0;
	cts_debug_msg("run %" PRIu64 " step %" PRIu64 " threads %s%s", run, step, en,
		      x->confirming ? " (all spin: taking turns)" : "");
	free(en);
	for (i = 0; i < st->nthreads; i++) {
		if (!x->alive[i])
			continue;
		char where[160] = "";
		if (x->pending[i].pc && x->backend->ops->describe_pc)
			x->backend->ops->describe_pc(x->backend->be, x->pending[i].pc, where,
						     sizeof(where));
		cts_debug_msg("  thread %d: %s%s%s%s", i,
			      cts_event_str(&x->pending[i], pend, sizeof(pend)),
			      x->pending[i].op == CTS_OP_COND_REACQUIRE &&
			      x->pending[i].value ? " (on the mutex)" : "",
			      *where ? " at " : "", where);
	}
}

/* Races found this run become final at its end, once every variable the run
 * showed to be a synchronization variable is known. */
static void settle_races(struct explorer *x, struct cts_bug *bug)
{
	if (x->cfg->races_catch && x->backend->ops->caught)
		x->backend->ops->caught(x->backend->be, x->races);
	int fresh = cts_race_flush(x->races);
	int nr = cts_race_count(x->races);
	x->fresh_from = nr - (fresh > 0 ? fresh : 0);
	x->nfresh = fresh > 0 ? fresh : 0;   /* printed by explain_races */
	if (x->nfresh) { /* kept apart: minimizing a bug of this run replaces x->sched */
		free(x->race_steps);
		x->nrace_steps = x->sched->n;
		x->race_steps = cts_xmalloc((x->sched->n ? x->sched->n : 1) *
					    sizeof(*x->race_steps));
		memcpy(x->race_steps, x->sched->steps, x->sched->n * sizeof(*x->race_steps));
	}
	for (int i = x->fresh_from; i < nr; i++) {
		const struct cts_race *r = cts_race_get(x->races, i);
		if (x->cfg->races == 2 && bug->kind == CTS_BUG_NONE)
			race_bug(x, bug, r);
	}
}

/* ---- the ownership estimate (docs/design.md, "Break mode on memory
 * ownership"): what the page states would make of each visible plain
 * access, with the race detector's clocks for the hand-offs. */

static bool own_ordered(void *arg, int earlier, uint32_t epoch, int tid)
{
	return cts_race_ordered(arg, earlier, epoch, tid);
}

static void own_estimate(struct explorer *x, const struct cts_event *e)
{
	/* plain accesses and library-call ranges; not atomics (synchronization),
	 * allocations or frees */
	if (!cts_op_is_range(e->op) || e->op == CTS_OP_ATOMIC || e->op == CTS_OP_ALLOC ||
	    e->op == CTS_OP_FREE)
		return;
	bool write = cts_op_is_write(e->op);
	if (!x->pages || x->minimizing || !e->obj || cts_race_is_sync(x->races, e->obj, e->size))
		return;
	uint32_t epoch = cts_race_epoch(x->races, e->tid);
	uint64_t len = e->size ? e->size : 1;
	if (cts_pages_access(x->pages, e->tid, e->obj, len, write, epoch) == CTS_PAGE_CONFLICT &&
	    !x->own_conflict) {
		x->own_conflict = true;
		x->res->own.void_runs++;
	}
	if (cts_pages_access(x->lines, e->tid, e->obj, len, write, epoch) == CTS_PAGE_CONFLICT &&
	    !x->line_conflict) {
		x->line_conflict = true;
		x->res->own.line_void_runs++;
	}
}

/* ---- repeats made alone ---------------------------------------------------- */

/* Can t alone move until it makes an event other than a plain access? Every
 * other live thread waits, untimed, on what only a step can end (a lock
 * held, a join, a condition variable, a semaphore, a parked futex wait):
 * none spins, none is in the kernel, none stepped aside. Then whatever the
 * others do next is ordered after t's next release (docs/design.md,
 * "Repeats made alone"). */
static bool alone(const struct explorer *x, int t)
{
	if (!x->alone_seen || t < 0 || !x->enabled[t] || x->noutside)
		return false;
	for (int i = 0; i < x->nlive; i++) {
		int u = x->live[i];
		if (u != t && x->alive[u] &&
		    (x->enabled[u] || x->spinning[u] || x->outside[u] || x->pending[u].timed ||
		     x->st->t[u].deferred))
			return false;
	}
	return true;
}

/* A plain load or store, not on what the detectors take for a sync variable. */
static bool plain_access(const struct explorer *x, const struct cts_event *e)
{
	return (e->op == CTS_OP_READ || e->op == CTS_OP_WRITE) && e->obj &&
	       !cts_race_is_sync(x->clocks, e->obj, e->size) &&
	       !cts_race_is_sync(x->races, e->obj, e->size);
}

static struct alone_key alone_key(const struct cts_event *e)
{
	struct alone_key k = { .pc = e->pc, .addr = e->obj, .size = e->size,
			       .op = (uint32_t)e->op };
	return k;
}

/* At almost every step while no thread is alone: an empty table costs
 * nothing, a clear costs the table's capacity, so a big one goes. */
static void alone_reset(struct explorer *x, int t)
{
	size_t n = cts_htab_count(x->alone_seen);
	if (n > 256) {
		cts_htab_free(x->alone_seen);
		x->alone_seen = cts_htab_new(sizeof(struct alone_key), sizeof(uint64_t));
	} else if (n) {
		cts_htab_clear(x->alone_seen);
	}
	x->alone_tid = t;
	x->alone_writes = 0;
}

/* A run makes at most this many repeats without a step per step of its
 * budget: then they are steps again, so that a loop no other thread can end
 * still meets --max-steps (with --timeout 0 nothing else would end it). */
#define QUIET_PER_STEP 64

/* May t's pending access run without a step? t has been alone since it made
 * the same access, and, for a load, stored something since: a load repeated
 * with no store between may be a busy-wait, which spin.c must see. */
static bool quiet_repeat(const struct explorer *x, int t)
{
	if (t != x->alone_tid || !alone(x, t) || !plain_access(x, &x->pending[t]) ||
	    x->run_quiet / QUIET_PER_STEP >= x->cfg->max_steps)
		return false;
	struct alone_key k = alone_key(&x->pending[t]);
	const uint64_t *w = cts_htab_get(x->alone_seen, &k);
	return w && (x->pending[t].op == CTS_OP_WRITE || *w != x->alone_writes);
}

/* t executed e (its pending event before the step), alone (al) or not. */
static void alone_note(struct explorer *x, int t, const struct cts_event *e, bool al)
{
	if (!x->alone_seen)
		return;
	bool plain = al && plain_access(x, e);
	if (!plain || t != x->alone_tid)
		alone_reset(x, al ? t : -1);
	if (!plain)
		return;
	x->alone_writes += e->op == CTS_OP_WRITE;
	struct alone_key k = alone_key(e);
	*(uint64_t *)cts_htab_put(x->alone_seen, &k, NULL) = x->alone_writes;
}

/* The run's time ran out in a step that began at t_step: half the run or
 * more in it, and nothing hidden in its second half, is a loop that shows
 * nothing, not a slow thread whose hidden accesses kept coming (GNU sort). */
static void timed_out_in(struct explorer *x, double t_step)
{
	double t = now();
	x->step_stuck = t - t_step >= (t - x->run_t0) / 2 &&
			x->st->hid_at < t_step + (t - t_step) / 2;
}

/* Thread t's pending repeat, run without a step: no decision, nothing for
 * the strategy or the detectors (the first of it showed them all it can);
 * the clocks count it, as the backend's epochs do. */
static int quiet_step(struct explorer *x, int t, uint64_t step)
{
	struct cts_run_state *st = x->st;
	struct cts_event was = x->pending[t], done = was;
	x->told[t] = false;
	double t_step = now();
	if (x->backend->ops->step(x->backend->be, st, t, false, &done) != 0)
		return -1;
	if (st->status == CTS_RUN_TIMEOUT)
		timed_out_in(x, t_step);
	if (st->relearn)
		return 0;
	x->run_quiet++;
	if (!x->minimizing)
		x->res->quiet_repeats++;
	if (x->clocks) {
		note_epoch(x, t);
		cts_race_observe(x->clocks, &done, step);
	}
	alone_note(x, t, &was, true);
	return 0;
}

/* The run hid events it should have shown: void. */
static void run_void(struct explorer *x, struct cts_bug *bug, uint64_t step, bool *aborted)
{
	*aborted = true;
	if (!x->cfg->relearn && !x->minimizing) {
		bug->kind = CTS_BUG_DIVERGED;
		snprintf(bug->message, sizeof(bug->message), "replay diverged: step %" PRIu64
			 ": a write to memory the recorded run read without a scheduling point "
			 "(its hot lines differ)", step);
	}
}

static int one_run(struct explorer *x, uint64_t run, struct cts_bug *bug,
		   struct cts_inconclusive *inc, bool *aborted)
{
	const struct cts_explorer_config *cfg = x->cfg;
	struct cts_run_state *st = x->st;
	struct cts_strategy *s = x->strategy;
	uint64_t step = 0;
	int last = -1;

	cts_objmodel_reset(x->model);
	cts_coverage_begin_run(cfg->coverage);
	if (x->races)
		cts_race_begin_run(x->races, run + x->cfg->run_base);
	if (x->pages && !x->minimizing) {
		cts_pages_begin_run(x->pages);
		cts_pages_begin_run(x->lines);
		x->own_conflict = x->line_conflict = false;
	}
	cts_schedule_clear_steps(x->sched);
	cts_run_state_reset(st);
	st->max_threads = x->cfg->max_threads;
	for (size_t i = 0; i < x->nevep; i++)
		x->evep[i].n = 0;
	if (x->clocks) {
		cts_race_begin_run(x->clocks, run);
		st->ordered = run_ordered;
		st->ordered_arg = x;
	}
	cts_spin_reset(x->spin);
	clear_threads(x);
	x->confirming = false;
	x->cut_by_signal = false;
	if (cfg->instance)
		cts_instance_begin_run(cfg->instance);
	x->preempts = 0;
	x->norigins = 0;
	x->run_t0 = now();
	x->step_stuck = false;
	if (x->alone_seen)
		alone_reset(x, -1);
	x->run_quiet = 0;
	if (x->backend->ops->start(x->backend->be, st) != 0)
		return backend_failed(x);
	while (st->status == CTS_RUN_ACTIVE) {
		bool give_up, livelock;
		if (cfg->hold && step == cfg->hold_step && run == 0) {
			x->held_early = true; /* --stop-at: the program is handed over as it is */
			*aborted = true;
			break;
		}
		/* --time bounds the session, a long run too (a clock read every
		 * 64 steps); a minimization's replays are bounded by count. */
		if (cfg->time_limit > 0 && !x->minimizing && !((step + x->run_quiet) & 63) &&
		    now() - x->start >= cfg->time_limit) {
			x->out_of_time = true;
			*aborted = true;
			break;
		}
		if (st->own_filters && x->backend->ops->native_call) {
			if (native_waits(x) < 0)
				return backend_failed(x);
			if (st->status != CTS_RUN_ACTIVE)
				break;
		}
		int n = collect(x, &give_up, &livelock);
		if ((n == 0 || give_up || x->spin_wait) && x->noutside && x->backend->ops->wait) {
			/* Threads in the kernel may still come back: wait for them
			 * (briefly if a timed wait could give up instead). */
			if (cts_verbosity >= 3)
				debug_point(x, run, step);
			int w = x->backend->ops->wait(x->backend->be, st, give_up ? OUTSIDE_GRACE_S : 0);
			if (w < 0) {
				snprintf(x->res->error, sizeof(x->res->error), "%s", st->message);
				return -1;
			}
			if (w > 0 || st->status != CTS_RUN_ACTIVE)
				continue;
		}
		if (n == 1 && quiet_repeat(x, last)) {
			if (quiet_step(x, last, step) != 0)
				return backend_failed(x);
			if (st->relearn) {
				run_void(x, bug, step, aborted);
				break;
			}
			continue;
		}
		if (n == 0) {
			bug->kind = livelock ? CTS_BUG_LIVELOCK : CTS_BUG_DEADLOCK;
			describe_stuck(x, bug);
			if (s->ops->stuck) {
				struct cts_sched_point fin = {
					.step = step, .nthreads = st->nthreads, .alive = x->alive,
					.enabled = x->enabled, .pending = x->pending, .last = last,
					.outside = x->outside, .spinning = x->spinning,
					.live = x->live, .nlive = x->nlive,
					.instance = cfg->instance != NULL,
				};
				s->ops->stuck(s, &fin);
			}
			break;
		}
		if (step >= cfg->max_steps) {
			inc->kind = CTS_INC_STEPS;
			snprintf(inc->reason, sizeof(inc->reason),
				 "step budget of %" PRIu64 " exhausted; no deadlock or livelock seen%s",
				 cfg->max_steps, x->confirming ?
				 " (every live thread was spinning or blocked, but cts could not prove "
				 "that the spinners make no progress)" : " (raise --max-steps)");
			*aborted = true;
			break;
		}
		struct cts_sched_point pt = {
			.step = step, .nthreads = st->nthreads, .alive = x->alive,
			.enabled = x->enabled, .pending = x->pending, .last = last,
			.outside = x->outside,
			.spinning = x->spinning,
			.live = x->live, .nlive = x->nlive,
			.instance = cfg->instance != NULL,
			.restricted = cfg->instance &&
				      cts_instance_restrict(cfg->instance, last, x->enabled, x->live,
							    x->nlive, st->nthreads),
			.quiet = x->run_quiet,
		};
		if (cts_verbosity >= 3)
			debug_point(x, run, step);
		int c = s->ops->choose(s, &pt);
		const char *why = NULL;
		if (c == CTS_CHOOSE_WAIT && x->noutside && x->backend->ops->wait) {
			/* The wait ends at a thread's return, the run's timeout or
			 * ^C/SIGTERM; 0 with the run still active: nothing can
			 * bring the thread back, so the schedule cannot go on. */
			int w = x->backend->ops->wait(x->backend->be, st, 0);
			if (w < 0) {
				snprintf(x->res->error, sizeof(x->res->error), "%s", st->message);
				return -1;
			}
			if (w > 0 || st->status != CTS_RUN_ACTIVE)
				continue;
			why = "the schedule has a thread come back from the kernel, but nothing "
			      "can wake it here";
		}
		if (c == CTS_CHOOSE_WAIT)
			c = CTS_CHOOSE_DIVERGED; /* a backend that cannot wait, or no use */
		if (c == CTS_CHOOSE_DIVERGED) {
			bug->kind = CTS_BUG_DIVERGED;
			if (why)
				snprintf(bug->message, sizeof(bug->message), "replay diverged: step %"
					 PRIu64 ": %s", step, why);
			else
				snprintf(bug->message, sizeof(bug->message), "replay diverged: %s",
					 s->ops->diverged ? s->ops->diverged(s) :
					 "schedule does not match");
			*aborted = true;
			break;
		}
		if (c == CTS_CHOOSE_STOP) {
			*aborted = true;
			if (!x->minimizing && cfg->relearn && x->backend->ops->pending_conflict &&
			    x->backend->ops->pending_conflict(x->backend->be, st))
				st->relearn = true;
			break;
		}
		if (c == CTS_CHOOSE_END) {
			inc->kind = CTS_INC_STEPS;
			snprintf(inc->reason, sizeof(inc->reason), "%s",
				 s->ops->diverged ? s->ops->diverged(s) : "the schedule ends here");
			*aborted = true;
			break;
		}
		if (c < 0 || c >= st->nthreads || !x->enabled[c]) {
			snprintf(x->res->error, sizeof(x->res->error),
				 "strategy %s chose thread %d, which cannot run", s->ops->name, c);
			return -1;
		}
		cts_schedule_add(x->sched, c, x->pending[c].op, x->pending[c].obj);
		if (x->want_stacks)
			take_stack(x, step, c);
		struct cts_event done = x->pending[c];
		cts_coverage_pending(cfg->coverage, c, &done);
		bool preempt = last >= 0 && last != c && last < st->nthreads && x->enabled[last];
		/* An acquisition the chosen thread is sure to make is in the clocks
		 * before it runs on to its next stop: its accesses after it are
		 * then ordered after what it acquired (line ownership's
		 * hand-offs, tracer/own.h). */
		bool clocked = x->clocks && acquires_for_sure(done.op);
		if (clocked) {
			note_epoch(x, c);
			cts_race_observe(x->clocks, &done, step);
		}
		if (st->own_filters && x->backend->ops->native_call && wakes_waiter(x, &done)) {
			if (x->backend->ops->native_call(x->backend->be, st, c, true) < 0)
				return backend_failed(x);
			if (st->status != CTS_RUN_ACTIVE)
				break;
		}
		x->told[c] = false;
		bool al = alone(x, c);
		double t_step = now();
		if (x->backend->ops->step(x->backend->be, st, c, give_up, &done) != 0)
			return backend_failed(x);
		if (st->status == CTS_RUN_TIMEOUT)
			timed_out_in(x, t_step);
		if (st->relearn) {
			run_void(x, bug, step, aborted);
			break;
		}
		alone_note(x, c, &x->pending[c], al);
		cts_objmodel_apply(x->model, &done);
		struct cts_spin_step sp;
		cts_spin_executed(x->spin, &done, step, &sp);
		if (x->confirming) {
			if (sp.silent)
				x->confirm[c]++;
			else
				memset(x->confirm, 0, x->tcap * sizeof(*x->confirm));
		}
		cts_coverage_event(cfg->coverage, &done);
		s->ops->executed(s, &pt, &done);
		if (cfg->instance)
			cts_instance_executed(cfg->instance, c, &done);
		record_step(x, step, &done, c, preempt);
		if (x->want_stacks && (done.op == CTS_OP_CREATE || done.op == CTS_OP_ALLOC))
			add_origin(x, step, c, &done);
		for (int k = 0; x->want_stacks && k < x->nprobes; k++)
			if (x->probes[k].step == step && x->backend->ops->heap_block &&
			    x->backend->ops->heap_block(x->backend->be, x->probes[k].addr,
							&x->probes[k].start, &x->probes[k].size) != 0)
				x->probes[k].start = 0;
		x->preempts += preempt;
		if ((unsigned)done.op < CTS_OP__COUNT && !x->minimizing)
			x->res->ops[done.op]++;
		if (x->clocks && !clocked) { /* the same stream as the detector's, in every run */
			if (sp.spin_exit)
				cts_race_sync_location(x->clocks, sp.exit_addr, sp.exit_size);
			note_epoch(x, c);
			cts_race_observe(x->clocks, &done, step);
		}
		if (x->races) {
			/* The read that ends a busy-wait reads from the write that
			 * ended it: ad hoc synchronization (Tian et al., ISSTA 2008). */
			if (sp.spin_exit)
				cts_race_sync_location(x->races, sp.exit_addr, sp.exit_size);
			if (!cfg->races_catch) {
				own_estimate(x, &done);
				cts_race_observe(x->races, &done, step);
			}
		}
		step++;
		last = c;
		if (!(step & 4095))
			show_progress(x, false); /* a long run moves the line too */
	}
	if (st->status == CTS_RUN_INTERRUPTED) {
		*aborted = true;
		interrupted = 1;
		x->cut_by_signal = true;
	}
	if (st->relearn) {
		bug->run = inc->run = run + cfg->run_base;
		bug->steps = inc->steps = step;
		return 0;   /* nothing to judge: the program was stopped mid-way */
	}
	if (x->races)
		settle_races(x, bug);
	if (bug->kind == CTS_BUG_NONE && !inc->kind)
		judge_end(x, bug, inc);
	if (bug->kind != CTS_BUG_NONE)
		inc->kind = 0;
	if (st->status == CTS_RUN_ERROR) {
		snprintf(x->res->error, sizeof(x->res->error), "%s", st->message);
		return -1;
	}
	bug->run = inc->run = run + cfg->run_base;
	bug->steps = inc->steps = step;
	return 0;
}

/* How a --check command ended, when it gave no exit status of its own. */
enum {
	CHECK_ERROR = -1,     /* could not run (errno) */
	CHECK_TIMEOUT = -2,   /* ran out of --timeout */
	CHECK_STOPPED = -3,   /* stopped itself (SIGSTOP, SIGTSTP...) */
	CHECK_NO_TIME = -4,   /* --time ran out */
	CHECK_CUT = -5,       /* interrupted */
};

static pid_t spawn_check(struct explorer *x, uint64_t run, int out_fd)
{
	char status_var[64], run_var[64];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	size_t nenv = 0;

	snprintf(status_var, sizeof(status_var), "CTS_EXIT_STATUS=%d", x->st->exit_code);
	snprintf(run_var, sizeof(run_var), "CTS_RUN=%" PRIu64, run);
	while (environ[nenv])
		nenv++;
	char **env = cts_xcalloc(nenv + 3, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < nenv; i++)
		if (strncmp(environ[i], "CTS_EXIT_STATUS=", 16) && strncmp(environ[i], "CTS_RUN=", 8))
			env[k++] = environ[i];
	env[k++] = status_var;
	env[k++] = run_var;
	char *argv[] = { "sh", "-c", (char *)x->cfg->check, NULL };
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
	/* Its own process group: what it leaves behind is killed with it, and
	 * a ^C at the terminal reaches cts-trace, which does so. */
	posix_spawnattr_t sa;
	posix_spawnattr_init(&sa);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&sa, 0);
	/* In the run's files (isolated runs: its overlays), which the
	 * command inherits. */
	const struct cts_backend_ops *ops = x->backend->ops;
	int rc = ops->run_fs && ops->run_fs(x->backend->be, true) != 0 ? errno : 0;
	if (rc == 0) {
		rc = posix_spawn(&pid, "/bin/sh", &fa, &sa, argv, env);
		if (ops->run_fs)
			ops->run_fs(x->backend->be, false);
	}
	posix_spawnattr_destroy(&sa);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return pid;
}

/* One read of the command's output into out (what does not fit is
 * dropped): the bytes read, 0 at its end, -1 if none now (or an error). */
static ssize_t read_check_output(int fd, char *out, size_t outlen, size_t *off)
{
	char buf[4096];
	ssize_t got = read(fd, buf, sizeof(buf));
	for (ssize_t i = 0; i < got && *off + 1 < outlen; i++)
		out[(*off)++] = buf[i];
	return got;
}

/* --check: the user's command judges the run's output. Its exit status
 * (0-255, 128+N for a signal) and the first lines it printed, or a
 * CHECK_* outcome. It runs in a process group of its own, within the run's
 * --timeout (0: none) and what is left of --time; the group is killed when
 * the command exits, stops itself or runs out of time, so nothing it
 * started stays in the group, and a child it left holding its output is
 * never waited for: once the command has exited, what the pipe holds is
 * read and the rest dropped. */
static int run_check(struct explorer *x, uint64_t run, char *out, size_t outlen)
{
	const struct cts_explorer_config *cfg = x->cfg;
	int fds[2];
	size_t off = 0;
	double t0 = now(), limit = cfg->check_timeout > 0 ? cfg->check_timeout : -1;
	bool session = false;

	out[0] = 0;
	if (cfg->time_limit > 0) {
		double left = cfg->time_limit - (t0 - x->start);
		if (left <= 0)
			return CHECK_NO_TIME;
		if (limit < 0 || left < limit) {
			limit = left;
			session = true;
		}
	}
	if (pipe2(fds, O_CLOEXEC) != 0)
		return CHECK_ERROR;
	pid_t pid = spawn_check(x, run, fds[1]);
	int saved = errno;
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		errno = saved;
		return CHECK_ERROR;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	int outcome = 0;
	bool eof = false;
	long tick_ms = 1;
	for (;;) {
		if (interrupted) {
			outcome = CHECK_CUT; /* the user is waiting: no verdict */
			break;
		}
		/* Exited or stopped? WNOWAIT keeps the zombie, and with it the
		 * group's id, until the group is killed below. */
		siginfo_t si = { 0 };
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid) {
			if (si.si_code == CLD_STOPPED) {
				outcome = CHECK_STOPPED;
				break;
			}
			/* What it wrote before it exited is in the pipe (at
			 * most the pipe's size); what a child it left writes
			 * later is not waited for. */
			ssize_t got = 1;
			for (size_t drained = 0; !eof && got > 0 && drained < 65536; drained += (size_t)got)
				got = read_check_output(fds[0], out, outlen, &off);
			break;
		}
		double el = now() - t0;
		if (limit >= 0 && el >= limit) {
			outcome = session ? CHECK_NO_TIME : CHECK_TIMEOUT;
			break;
		}
		/* A tick, not a bare wait: an interrupt that came just before
		 * the poll would not wake it, nor does the command's exit. */
		long wait_ms = 100;
		if (eof) { /* its output is closed: only its exit is awaited */
			wait_ms = tick_ms;
			tick_ms = tick_ms < 64 ? 2 * tick_ms : 100;
		}
		if (limit >= 0 && (limit - el) * 1000 < wait_ms)
			wait_ms = (long)((limit - el) * 1000) + 1;
		struct pollfd pfd = { .fd = eof ? -1 : fds[0], .events = POLLIN };
		if (poll(&pfd, 1, (int)wait_ms) > 0 && !eof &&
		    read_check_output(fds[0], out, outlen, &off) == 0)
			eof = true;
	}
	out[off] = 0;
	close(fds[0]);
	kill(-pid, SIGKILL); /* what it left in its group; itself unless it exited */
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return CHECK_ERROR;
	if (outcome != 0)
		return outcome;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void check_run(struct explorer *x, uint64_t run, struct cts_bug *bug,
		      struct cts_inconclusive *inc)
{
	char out[2048];
	int rc = run_check(x, run, out, sizeof(out));
	if (rc == CHECK_CUT || interrupted) {
		x->cut_by_signal = true;
		return;
	}
	if (rc == CHECK_NO_TIME) { /* the session is over: the run is not judged */
		x->out_of_time = true;
		return;
	}
	if (rc == CHECK_TIMEOUT || rc == CHECK_STOPPED) {
		/* No verdict: slow or stopped is not wrong output. */
		inc->kind = CTS_INC_CHECK;
		if (rc == CHECK_TIMEOUT)
			snprintf(inc->reason, sizeof(inc->reason), "the --check command did not end "
				 "within --timeout %g s; killed with its process group",
				 x->cfg->check_timeout);
		else
			snprintf(inc->reason, sizeof(inc->reason), "the --check command stopped itself; "
				 "killed with its process group");
		return;
	}
	if (rc == 0)
		return;
	bug->kind = CTS_BUG_CHECK;
	bug->tid = -1;
	if (rc < 0) {
		snprintf(bug->message, sizeof(bug->message), "--check command could not run: %s",
			 strerror(errno));
		return;
	}
	snprintf(bug->message, sizeof(bug->message),
		 "--check command failed with status %d after the program exited with status %d",
		 rc, x->st->exit_code);
	size_t off = 0;
	for (const char *line = out; *line && off + 1 < sizeof(bug->detail);) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		off = appendf(bug->detail, sizeof(bug->detail), off, "  check: %.*s\n", (int)len,
			      line);
		line += len + (nl != NULL);
	}
}

/* Active testing (strategies/active.h): what the strategy made happen in
 * this run. Each finding is said with its statements; with a bug, the bug
 * leads and the findings join its detail (they are what led to it);
 * without one, the run's schedule is saved so the finding replays. Not a
 * bug by itself: a confirmed race fails the run only with --races fail,
 * through the race detector, which sees the same race. */
static void active_run(struct explorer *x, uint64_t run, struct cts_bug *bug)
{
	const struct cts_active_finding *f;
	int n = cts_active_end(x->strategy, bug->kind == CTS_BUG_DEADLOCK, &f);
	size_t off = strlen(bug->detail);
	for (int i = 0; i < n; i++) {
		char a[256], b[256], c[256], var[200], line[1200], path[512] = "";
		describe_pc(x, f[i].pc1, a, sizeof(a));
		describe_pc(x, f[i].pc2, b, sizeof(b));
		describe_pc(x, f[i].pc3, c, sizeof(c));
		describe_var(x, f[i].addr, var, sizeof(var));
		switch (f[i].kind) {
		case CTS_SUSPECT_RACE:
			snprintf(line, sizeof(line), "race confirmed on %s: thread %d at %s and thread "
				 "%d at %s were both about to access it (step %" PRIu64 ", suspect %d)%s",
				 var, f[i].tid1, a, f[i].tid2, b, f[i].step, f[i].suspect, f[i].plain ?
				 " (plain loads/stores: not a race if the variable is a C11 atomic)" : "");
			break;
		case CTS_SUSPECT_ATOMICITY:
			snprintf(line, sizeof(line), "atomicity violation on %s: thread %d read it at "
				 "%s under a lock, thread %d wrote it at %s after the lock was released, "
				 "then thread %d wrote it at %s without reading it again (suspect %d)",
				 var, f[i].tid1, a, f[i].tid2, b, f[i].tid1, c, f[i].suspect);
			break;
		case CTS_SUSPECT_DEADLOCK:
			snprintf(line, sizeof(line), "deadlock cycle confirmed (suspect %d)",
				 f[i].suspect);
			break;
		default:
			snprintf(line, sizeof(line), "breakpoint %d reached by thread %d at %s and "
				 "thread %d at %s (step %" PRIu64 ")", f[i].suspect, f[i].tid1, a,
				 f[i].tid2, b, f[i].step);
			break;
		}
		if (bug->kind != CTS_BUG_NONE) {
			off = appendf(bug->detail, sizeof(bug->detail), off, "  active: %s\n", line);
			continue;
		}
		if (f[i].kind != CTS_SUSPECT_DEADLOCK)
			save_schedule(x, cts_suspect_kind_name(f[i].kind), line, path, sizeof(path));
		if (!x->cfg->quiet) {
			clear_progress(x);
			fprintf(x->cfg->log, "cts-trace: active: %s (run %" PRIu64 ")%s%s\n", line, run,
				path[0] ? "; schedule " : "", path);
		}
	}
}

/* --coverage: the run's row of metrics and bugs so far. */
static void coverage_row(struct explorer *x, uint64_t run, bool bug)
{
	if (!x->cfg->coverage)
		return;
	cts_coverage_end_run(x->cfg->coverage, run, (uint64_t)x->res->nbugs, bug);
	if (x->cfg->verbose && !x->cfg->quiet) {
		clear_progress(x);
		cts_coverage_print(x->cfg->coverage, x->cfg->log, true);
	}
}

/* --gdb, --core: the run's program, alive where it stopped, goes to
 * cfg->on_hold. 0, or -1 with res->error (bad_input: nothing to hand over). */
static int hold_run(struct explorer *x, const struct cts_bug *bug)
{
	const struct cts_explorer_config *cfg = x->cfg;
	struct cts_run_state *st = x->st;
	struct cts_explore_result *res = x->res;
	bool bad = false;
	if (st->status == CTS_RUN_EXITED || st->status == CTS_RUN_ERROR ||
	    !x->backend->ops->release) {
		res->bad_input = st->status == CTS_RUN_EXITED;
		bool race = bug->kind == CTS_BUG_RACE && bug->npair >= 2;
		if (st->status == CTS_RUN_EXITED)
			snprintf(res->error, sizeof(res->error), "the program exited after %"
				 PRIu64 " steps, before the stop: there is no process to hand over "
				 "(--stop-at %" PRIu64 " stops before %s)", bug->steps,
				 race ? bug->pair_step[1] : bug->steps ? bug->steps - 1 : 0,
				 race ? "the race's second access" : "its last step");
		else
			snprintf(res->error, sizeof(res->error), "%s", st->status == CTS_RUN_ERROR ?
				 st->message : "this backend cannot hand its program over");
		return -1;
	}
	pid_t *tids = cts_xcalloc((size_t)st->nthreads + 1, sizeof(*tids));
	int pid = x->backend->ops->release(x->backend->be, st, tids);
	if (pid < 0) {
		snprintf(res->error, sizeof(res->error), "cannot hand the program over: %s",
			 st->message);
		free(tids);
		return -1;
	}
	struct cts_hold_point h = {
		.pid = pid, .nthreads = st->nthreads, .tids = tids, .focus = bug->tid,
		.step = bug->steps, .early = x->held_early, .bug = bug,
		.sig = st->status == CTS_RUN_SIGNALED ? st->sig : 0,
	};
	int rc = cfg->on_hold(cfg->hold_ctx, &h, res->error, sizeof(res->error), &bad);
	res->bad_input = rc != 0 && bad;
	free(tids);
	return rc;
}

void cts_explore_result_discard_runs(struct cts_explore_result *res)
{
	res->discarded += res->runs;
	res->runs = res->steps = res->ncut = 0;
	memset(res->ops, 0, sizeof(res->ops));
}

/* The search begins again (a void run taught it shared lines): what its
 * runs so far counted goes, they are discarded. What they found (bugs,
 * races, inconclusive runs) happened in runs that were not void, and
 * stays. */
static void begin_again(struct explorer *x)
{
	cts_explore_result_discard_runs(x->res);
	x->unproven_holds = 0;
}

int cts_explore(const struct cts_explorer_config *cfg, struct cts_backend *backend,
		struct cts_objmodel *model, struct cts_strategy *strategy,
		struct cts_explore_result *res)
{
	struct explorer x = {
		.cfg = cfg, .backend = backend, .model = model, .strategy = strategy, .res = res,
	};
	int rc = 0;

	memset(res, 0, sizeof(*res));
	interrupted = 0;
	x.start = now();
	x.sched = cts_schedule_new();
	x.st = cts_xcalloc(1, sizeof(*x.st));
	x.spin = cts_spin_new(backend->ops->thread_state, backend->be);
	x.rec_whole = cfg->minimize && cfg->out_dir;
	if (cfg->progress) {
		progress_owner = &x;
		cts_set_status_clear(clear_owner);
	}
	if (cfg->races)
		x.races = cfg->race_detector ? cfg->race_detector : cts_race_new();
	if (cfg->clocks)
		x.clocks = cts_race_new();
	if (cfg->quiet_repeats)
		x.alone_seen = cts_htab_new(sizeof(struct alone_key), sizeof(uint64_t));
	if (x.races && !cfg->races_catch) {
		x.pages = cts_pages_new(own_ordered, x.races);
		x.lines = cts_pages_new_unit(own_ordered, x.races, 6);
		res->own.estimated = true;
	}
	cts_schedule_set(&x.sched->program, cfg->program);
	if (cfg->argv && cfg->argv[0]) {
		int argc = 0;
		while (cfg->argv[argc + 1])
			argc++;
		cts_schedule_set_args(x.sched, argc, cfg->argv + 1);
	}
	cts_schedule_set(&x.sched->mode, cfg->mode);
	cts_schedule_set(&x.sched->strategy, cfg->strategy_desc);
	if (cfg->options)
		cts_schedule_copy_options(x.sched, cfg->options);
	if (cfg->instance) {
		int len = cts_instance_format(cfg->instance, NULL, 0);
		char *spec = cts_xmalloc((size_t)len + 1);
		cts_instance_format(cfg->instance, spec, (size_t)len + 1);
		cts_schedule_set(&x.sched->instance, len ? spec : NULL);
		free(spec);
	}
	/* A strategy's model-only search between runs ends at an interrupt. */
	strategy->cfg.interrupt = &interrupted;
	/* Statements with calling contexts come from the backend. */
	if (backend->ops->context && !strategy->cfg.context) {
		strategy->cfg.context = backend->ops->context;
		strategy->cfg.context_ctx = backend->be;
	}

	for (uint64_t n = 0, run = 0;; n++, run = n) {
		if (interrupted)
			break;
		/* --jobs, --shard: the run numbers (or subtrees) this process takes */
		if (cfg->split && !cts_split_next_run(cfg->split, cfg->runs, n, res->runs, &run))
			break;
		if (!cfg->split && cfg->runs && run >= cfg->runs)
			break;
		if (cfg->time_limit > 0 && now() - x.start >= cfg->time_limit)
			break;
		if (!strategy->ops->begin_run(strategy, run))
			break;
		struct cts_bug bug = { .kind = CTS_BUG_NONE, .tid = -1 };
		struct cts_inconclusive inc = { 0 };
		bool aborted = false;
		uint64_t ops_before[CTS_OP__COUNT];  /* a void run's operations do not count */
		memcpy(ops_before, res->ops, sizeof(ops_before));
		int r = one_run(&x, run, &bug, &inc, &aborted);
		if (r == 0 && cfg->hold && n == 0 && !x.out_of_time && !x.cut_by_signal &&
		    bug.kind != CTS_BUG_DIVERGED && hold_run(&x, &bug) != 0)
			r = -1;
		backend->ops->stop(backend->be, x.st);
		if (r != 0) {
			res->internal_error = true;
			rc = -1;
			break;
		}
		if (x.out_of_time) { /* cut by --time mid-way: neither judged nor counted */
			memcpy(res->ops, ops_before, sizeof(ops_before));
			break;
		}
		/* A run whose time ran out inside one step that hid accesses,
		 * nothing hidden in the step's second half, may loop on what it
		 * does unseen (a flag polled on a line it owns, the thread that
		 * would write it never scheduled): once, every access becomes
		 * visible. Not for a run that ran out of steps, spent its time
		 * across many, or kept hiding accesses: it was slow, and would
		 * be slower with every access a step. */
		bool everything = inc.kind == CTS_INC_TIMEOUT && x.step_stuck && !bug.kind &&
				  x.st->hid_reads;
		if ((x.st->relearn || everything) && cfg->relearn && backend->ops->relearn) {
			/* Run it again seeing more: the search so far saw fewer
			 * events than the program has, so it begins again, from
			 * its first run, on the bigger learned set: every run a
			 * search counts shows the same set, the one its report
			 * and schedules record, whatever order (one process,
			 * workers, shards) met the lines. Each time a line turns
			 * hot for good: finitely many times. */
			backend->ops->relearn(backend->be, everything);
			memcpy(res->ops, ops_before, sizeof(ops_before));
			res->relearned++;
			cts_debug_msg("run %" PRIu64 " thrown away after %" PRIu64 " steps: %s; the "
				      "search begins again", run, bug.steps, x.st->relearn ?
				      "it hid an access another thread's conflicts with" :
				      "inconclusive while it hid accesses: every access visible from now on");
			if (cfg->relearn_ends) {
				res->relearn_ended = true;
				break;
			}
			if (cfg->split && !cts_split_restart(cfg->split)) {
				/* --jobs: the workers share one queue, so they all
				 * begin again, on the union of their learned sets:
				 * the parent forks them anew (tracer/jobs.h). */
				cts_split_learned(cfg->split);
				break;
			}
			begin_again(&x);
			if (strategy->ops->restart)
				strategy->ops->restart(strategy);
			n = UINT64_MAX; /* the loop's n++ makes it run 0 again */
			continue;
		}
		/* The run learned a busy-wait load while it replayed its prefix
		 * (a libgomp spin that ran a whole slice under load): from then
		 * on the prefix shows reads its recording did not, so it cannot
		 * replay. That says nothing about the program: the run is void
		 * and run again, and the search begins again on the larger set
		 * of events, as after a run that learned a load (below). Its
		 * output so far, with --output, stays in the stream. */
		if (bug.kind == CTS_BUG_DIVERGED && x.st->learned && strategy->ops->restart &&
		    !cfg->split && res->spin_restarts < MAX_SPIN_RESTARTS) {
			memcpy(res->ops, ops_before, sizeof(ops_before));
			strategy->ops->restart(strategy);
			res->spin_restarts++;
			cts_debug_msg("run %" PRIu64 " learned a busy-wait load and diverged from its "
				      "prefix: void, the search begins again", run);
			n--;
			continue;
		}
		/* The program is gone and its files are in place: judge its output. */
		bool run_inc = inc.kind != 0; /* not its check's: the run itself went to its end */
		if (cfg->check && bug.kind == CTS_BUG_NONE && !inc.kind && !aborted &&
		    x.st->status == CTS_RUN_EXITED)
			check_run(&x, run, &bug, &inc);
		/* Cut by an interrupt or --time, or its --check was: neither
		 * judged nor counted, not as a schedule done nor as the search's
		 * cut (a race seen before it is a bug all the same). */
		if ((x.cut_by_signal || x.out_of_time) && bug.kind == CTS_BUG_NONE) {
			memcpy(res->ops, ops_before, sizeof(ops_before));
			break;
		}
		if (cts_strategy_is_active(strategy))
			active_run(&x, run, &bug);
		struct cts_run_summary sum = {
			.run = run, .steps = bug.steps, .bug = bug.kind != CTS_BUG_NONE,
			.aborted = aborted || run_inc, .quiet = x.run_quiet,
		};
		strategy->ops->end_run(strategy, &sum);
		/* The run learned a busy-wait load mid-way: from now on every run
		 * shows reads that this one's start did not, so the prefixes a
		 * systematic search took from it (and its earlier runs) would no
		 * longer replay. The run stands (it ran as recorded); the search
		 * begins again on the larger set of events. Each load is learned
		 * once, and the count is capped as a guard. */
		if (x.st->learned && strategy->ops->restart && !cfg->split && !bug.kind &&
		    res->spin_restarts < MAX_SPIN_RESTARTS) {
			strategy->ops->restart(strategy);
			res->spin_restarts++;
			cts_debug_msg("run %" PRIu64 " learned a busy-wait load: the search begins again",
				      run);
		}
		/* a walk run (its owner counts and judges it), or past -n's total */
		if (cfg->split && !cts_split_count_run(cfg->split, cfg->runs)) {
			explain_races(&x);
			continue;
		}
		if (bug.kind == CTS_BUG_NONE)
			explain_races(&x);
		res->runs++;
		res->steps += bug.steps;
		if (bug.kind == CTS_BUG_NONE)
			coverage_row(&x, run, false);
		if (bug.kind != CTS_BUG_NONE) {
			bool stop = cfg->stop_on_bug || bug.kind == CTS_BUG_DIVERGED;
			/* the other workers stop now, not after this bug's minimization */
			if (stop && cfg->split)
				cts_split_found_bug(cfg->split);
			record_bug(&x, &bug);
			explain_races(&x);  /* after record_bug, which reads the run's record */
			coverage_row(&x, run, true);  /* after its bug is counted */
			if (stop)
				break;
		} else if (inc.kind) {
			record_inconclusive(&x, &inc);
		} else if (aborted) {
			/* Killed before its end: no exit status, no output to judge. */
			res->ncut++;
			if (cfg->verbose && !cfg->quiet) {
				clear_progress(&x);
				fprintf(cfg->log, "run %" PRIu64 ": %" PRIu64 " steps, cut by the search "
					"(its schedules from here on are covered by other runs)\n", run,
					bug.steps);
			}
		} else if (cfg->verbose && !cfg->quiet) {
			clear_progress(&x);
			fprintf(cfg->log, "run %" PRIu64 ": %" PRIu64 " steps, exit %d\n", run, bug.steps,
				x.st->exit_code);
		}
		show_progress(&x, false);
	}
	explain_races(&x);  /* a run cut short: its races still said */
	clear_progress(&x); /* the summary line takes its place */
	if (x.plain_note && !cfg->quiet)
		fprintf(cfg->log, "cts-trace: %s\n", PLAIN_NOTE);
	if (progress_owner == &x) {
		cts_set_status_clear(NULL);
		progress_owner = NULL;
	}
	/* A run cut by an interrupt or --time may be the last one begun: its
	 * schedule was not searched to the end, so nothing is exhausted. */
	res->exhausted = !res->internal_error && !interrupted && !x.out_of_time &&
			 strategy->ops->complete(strategy);
	/* Exhausted only covers what the backend showed: say what it could not. */
	int unseen = backend->ops->unseen ?
		     backend->ops->unseen(backend->be, res->unseen, sizeof(res->unseen)) : 0;
	if (x.unproven_holds) {
		size_t off = strlen(res->unseen), len = sizeof(res->unseen);
		snprintf(res->unseen + off, len - off, "%s%" PRIu64 " step%s held a spinning thread back "
			 "without proof that it waited (in sync mode its loop's stores are invisible), "
			 "so orders where it ran first were not all explored",
			 off ? "; " : "", x.unproven_holds, x.unproven_holds == 1 ? "" : "s");
		unseen++;
	}
	res->complete = res->exhausted && unseen == 0;
	res->elapsed = now() - x.start;
	res->races = cfg->race_detector ? NULL : x.races; /* for the report */
	if (x.pages) {
		struct cts_pages_stats ps;
		cts_pages_get_stats(x.pages, &ps);
		res->own.accesses = ps.accesses;
		res->own.native = ps.native;
		res->own.visible = ps.visible;
		res->own.handoffs = ps.handoffs;
		res->own.pages_learned = cts_pages_learned(x.pages, NULL, 0);
		cts_pages_get_stats(x.lines, &ps);
		res->own.line_native = ps.native;
		res->own.lines_learned = cts_pages_learned(x.lines, NULL, 0);
		cts_pages_free(x.pages);
		cts_pages_free(x.lines);
	}
	cts_spin_free(x.spin);
	free(x.rec_ev);
	free(x.rec_pre);
	drop_stacks(&x);
	for (size_t i = 0; i < x.nevep; i++)
		free(x.evep[i].ep);
	free(x.evep);
	cts_race_free(x.clocks);
	cts_htab_free(x.alone_seen);
	free(x.origins);
	free(x.race_steps);
	cts_schedule_free(x.sched);
	cts_run_state_free(x.st);
	free(x.st);
	free_threads(&x);
	return rc;
}

void cts_explore_result_free(struct cts_explore_result *res)
{
	for (int i = 0; i < res->nbugs; i++)
		free(res->bugs[i].trace);
	free(res->bugs);
	res->bugs = NULL;
	res->nbugs = 0;
	cts_race_free(res->races);
	res->races = NULL;
	free(res->inconclusive);
	res->inconclusive = NULL;
	res->nlisted = 0;
}

char *cts_explore_ops_str(const struct cts_explore_result *res, char *buf, size_t len)
{
	bool done[CTS_OP__COUNT] = { false };
	size_t off = 0;

	buf[0] = 0;
	for (;;) {
		int best = -1;
		for (int op = 1; op < CTS_OP__COUNT; op++)
			if (!done[op] && res->ops[op] && (best < 0 || res->ops[op] > res->ops[best]))
				best = op;
		if (best < 0)
			break;
		done[best] = true;
		off = appendf(buf, len, off, "%s%s %" PRIu64, off ? ", " : "",
			      cts_op_name((cts_op)best), res->ops[best]);
	}
	if (!off)
		appendf(buf, len, 0, "none");
	return buf;
}
