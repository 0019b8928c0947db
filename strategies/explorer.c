#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "models/race.h"
#include "models/schedule.h"
#include "strategies/explorer.h"

static volatile sig_atomic_t interrupted;

void cts_explore_interrupt(void)
{
	interrupted = 1;
}

static const char *const bug_names[] = {
	[CTS_BUG_NONE] = "none",         [CTS_BUG_CRASH] = "crash",
	[CTS_BUG_ASSERT] = "assert",     [CTS_BUG_DEADLOCK] = "deadlock",
	[CTS_BUG_LIVELOCK] = "livelock", [CTS_BUG_TIMEOUT] = "timeout",
	[CTS_BUG_EXIT] = "exit-status",  [CTS_BUG_RACE] = "race",
	[CTS_BUG_DIVERGED] = "divergence",
};

const char *cts_bug_kind_name(enum cts_bug_kind k)
{
	return (unsigned)k < sizeof(bug_names) / sizeof(bug_names[0]) ? bug_names[k] : "?";
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
	struct cts_schedule *sched;
	struct cts_run_state *st;
	bool alive[CTS_MAX_THREADS];
	bool enabled[CTS_MAX_THREADS];
	bool outside[CTS_MAX_THREADS];
	int noutside;
	struct cts_event pending[CTS_MAX_THREADS];
	double start, last_progress;
	bool progress_shown;
	/* spin detection: consecutive reads of one unchanged location */
	uint64_t spin_addr[CTS_MAX_THREADS], spin_val[CTS_MAX_THREADS];
	uint32_t spin_count[CTS_MAX_THREADS];
};

/* A thread that re-read the same location and value this many times in a row
 * is spinning: it cannot make progress until someone writes there, so it
 * yields to every other enabled thread, as a fair scheduler would. */
#define SPIN_LIMIT 3

/* Nothing can run but a timed wait could give up, and a thread is in the
 * kernel: how long it gets to come back first (time is not modelled; a
 * call that returns this soon is taken to come before any timeout). */
#define OUTSIDE_GRACE_S 0.05

/* What a spinning thread re-reads: a location, or a library call site whose
 * reads (strcmp's two strings) hash to ev->value; 0 for other events. */
static uint64_t spin_key(const struct cts_event *ev)
{
	return ev->op == CTS_OP_READ ? ev->obj : ev->op == CTS_OP_LIB_READ ? ev->pc : 0;
}

static void spin_observe(struct explorer *x, const struct cts_event *ev)
{
	int t = ev->tid;
	if (spin_key(ev)) {
		if (x->spin_count[t] && x->spin_addr[t] == spin_key(ev) && x->spin_val[t] == ev->value) {
			x->spin_count[t]++;
		} else {
			x->spin_addr[t] = spin_key(ev);
			x->spin_val[t] = ev->value;
			x->spin_count[t] = 1;
		}
		return;
	}
	x->spin_count[t] = 0;
	if (!cts_op_is_write(ev->op) && ev->op != CTS_OP_FUTEX_WAKE)
		return;
	/* A store where someone spins lets the spinner go again. */
	uint64_t size = ev->size ? ev->size : 4;
	for (int u = 0; u < x->st->nthreads; u++)
		if (x->spin_count[u] && x->spin_addr[u] < ev->obj + size &&
		    ev->obj < x->spin_addr[u] + 8)
			x->spin_count[u] = 0;
}

static bool spinning(const struct explorer *x, int t)
{
	return x->spin_count[t] >= SPIN_LIMIT && spin_key(&x->pending[t]) == x->spin_addr[t];
}

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

/* Every live thread is blocked: say who waits for what, and the cycle. */
static void describe_deadlock(struct explorer *x, struct cts_bug *bug)
{
	struct cts_run_state *st = x->st;
	int waits_for[CTS_MAX_THREADS];
	char what[160], where[256];
	size_t off = 0, moff = 0;

	moff = appendf(bug->message, sizeof(bug->message), moff, "deadlock:");
	for (int t = 0; t < st->nthreads; t++) {
		waits_for[t] = -1;
		if (!st->t[t].alive)
			continue;
		const struct cts_event *p = &st->t[t].pending;
		if (p->op == CTS_OP_FUTEX_WAIT && st->t[t].blocked)
			snprintf(what, sizeof(what), "futex 0x%" PRIx64 " (no wake pending)", p->obj);
		else if (p->op == CTS_OP_IO_RETURN && cts_syscall_waits_signal((long)p->value))
			snprintf(what, sizeof(what), "a signal in %s (asleep in the kernel; every "
				 "signal that would wake it was sent and taken already)",
				 cts_syscall_name((long)p->value));
		else if (p->op == CTS_OP_IO_RETURN)
			snprintf(what, sizeof(what), "%s on fd %" PRIu64 " (asleep in the kernel on a "
				 "pipe or eventfd only the program's own threads use)",
				 cts_syscall_name((long)p->value), p->obj);
		else
			waits_for[t] = cts_objmodel_blocker(x->model, p, what, sizeof(what));
		describe_pc(x, p->pc, where, sizeof(where));
		off = appendf(bug->detail, sizeof(bug->detail), off,
			      "  thread %d blocked in %s at %s: waits for %s", t,
			      cts_op_name(p->op), where, what);
		if (waits_for[t] >= 0 && (p->op == CTS_OP_LOCK || p->op == CTS_OP_COND_REACQUIRE ||
					  p->op == CTS_OP_WRLOCK || p->op == CTS_OP_RDLOCK)) {
			uint64_t m = p->op == CTS_OP_COND_REACQUIRE ? p->obj2 : p->obj;
			uint64_t at = cts_objmodel_acquired_at(x->model, m);
			if (at) {
				describe_pc(x, at, where, sizeof(where));
				off = appendf(bug->detail, sizeof(bug->detail), off,
					      " (taken at %s)", where);
			}
		}
		off = appendf(bug->detail, sizeof(bug->detail), off, "\n");
		moff = appendf(bug->message, sizeof(bug->message), moff, "%s thread %d waits for %s",
			       moff > 10 ? ";" : "", t, what);
	}
	/* Follow waits-for edges from each thread until one repeats. */
	for (int s = 0; s < st->nthreads; s++) {
		bool seen[CTS_MAX_THREADS] = { false };
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

static void save_schedule(struct explorer *x, struct cts_bug *bug)
{
	const struct cts_explorer_config *cfg = x->cfg;
	if (!cfg->out_dir)
		return;
	mkdir_p(cfg->out_dir);
	cts_schedule_set(&x->sched->bug, bug->message);
	/* KIND-N.sched with the first free N: never over another run's file. */
	if (cts_schedule_save_new(x->sched, cfg->out_dir, cts_bug_kind_name(bug->kind),
				  bug->schedule_path, sizeof(bug->schedule_path)) != 0) {
		cts_perror_msg("cannot save a schedule in %s", cfg->out_dir);
		bug->schedule_path[0] = 0;
	}
}

static void clear_progress(struct explorer *x)
{
	if (x->progress_shown) {
		fprintf(x->cfg->log, "\r\033[K");
		x->progress_shown = false;
	}
}

static void show_progress(struct explorer *x, bool force)
{
	double t = now();
	if (!x->cfg->progress || (!force && t - x->last_progress < 0.25))
		return;
	x->last_progress = t;
	double el = t - x->start;
	fprintf(x->cfg->log, "\r\033[K[cts] runs %" PRIu64 "  steps %" PRIu64 "  %.0f runs/s  bugs %d",
		x->res->runs, x->res->steps, el > 0 ? (double)x->res->runs / el : 0.0,
		x->res->nbugs);
	if (x->cfg->time_limit > 0)
		fprintf(x->cfg->log, "  %.0f/%.0fs", el, x->cfg->time_limit);
	else if (x->cfg->runs)
		fprintf(x->cfg->log, "  (of %" PRIu64 ")", x->cfg->runs);
	fflush(x->cfg->log);
	x->progress_shown = true;
}

static void report_bug(struct explorer *x, const struct cts_bug *bug)
{
	FILE *log = x->cfg->log;
	if (x->cfg->quiet)
		return;
	clear_progress(x);
	if (bug->kind == CTS_BUG_DIVERGED) {
		/* Not a bug of the program: the schedule does not fit it. */
		fprintf(log, "cts-trace: %s\n", bug->message);
		fflush(log);
		return;
	}
	fprintf(log, "cts-trace: BUG (%s) in run %" PRIu64 " after %" PRIu64 " steps: %s\n",
		cts_bug_kind_name(bug->kind), bug->run, bug->steps, bug->message);
	if (bug->detail[0])
		fputs(bug->detail, log);
	if (bug->schedule_path[0]) {
		fprintf(log, "  schedule: %s\n", bug->schedule_path);
		fprintf(log, "  replay:   %s --replay %s\n", x->cfg->self ? x->cfg->self : "cts-trace",
			bug->schedule_path);
	}
	fflush(log);
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
	save_schedule(x, bug);
	res->bugs = cts_xrealloc(res->bugs, ((size_t)res->nbugs + 1) * sizeof(*res->bugs));
	res->bugs[res->nbugs++] = *bug;
	report_bug(x, bug);
	return true;
}

static void judge_end(struct explorer *x, struct cts_bug *bug)
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
		snprintf(bug->message, sizeof(bug->message), "thread %d: %s", st->fault_tid,
			 st->message);
		break;
	case CTS_RUN_TIMEOUT:
		bug->kind = CTS_BUG_TIMEOUT;
		snprintf(bug->message, sizeof(bug->message), "%s",
			 st->message[0] ? st->message : "run timed out");
		break;
	default:
		break;
	}
}

static void race_bug(struct explorer *x, struct cts_bug *bug, const struct cts_race *r)
{
	char a[256], b[256], var[160] = "";
	describe_pc(x, r->pc1, a, sizeof(a));
	describe_pc(x, r->pc2, b, sizeof(b));
	if (x->backend->ops->describe_data)
		x->backend->ops->describe_data(x->backend->be, r->addr, var, sizeof(var));
	bug->kind = CTS_BUG_RACE;
	bug->tid = r->tid2;
	snprintf(bug->message, sizeof(bug->message),
		 "data race on %s%s0x%" PRIx64 "%s (%u bytes): thread %d %s at %s vs thread %d %s at %s",
		 var, var[0] ? " (" : "", r->addr, var[0] ? ")" : "", r->size, r->tid1,
		 cts_op_name(r->op1), a, r->tid2, cts_op_name(r->op2), b);
}

static void report_race(struct explorer *x, const struct cts_race *r)
{
	struct cts_bug tmp = { 0 };
	if (x->cfg->quiet)
		return;
	race_bug(x, &tmp, r);
	clear_progress(x);
	fprintf(x->cfg->log, "cts-trace: %s (run %" PRIu64 ")\n", tmp.message, r->run);
}

/* Fill the views for the strategy; returns how many threads may run. */
static int collect(struct explorer *x, bool *give_up)
{
	struct cts_run_state *st = x->st;
	int n = 0;

	*give_up = false;
	x->noutside = 0;
	for (int t = 0; t < st->nthreads; t++) {
		x->alive[t] = st->t[t].alive;
		x->pending[t] = st->t[t].pending;
		x->outside[t] = x->alive[t] && st->t[t].outside;
		x->noutside += x->outside[t];
		x->enabled[t] = x->alive[t] && !st->t[t].blocked &&
				cts_objmodel_enabled(x->model, &st->t[t].pending);
		n += x->enabled[t];
	}
	/* Spinning threads step aside while anyone else can run. */
	int spinners = 0;
	for (int t = 0; t < st->nthreads; t++)
		spinners += x->enabled[t] && spinning(x, t);
	if (spinners && spinners < n) {
		for (int t = 0; t < st->nthreads; t++) {
			if (x->enabled[t] && spinning(x, t)) {
				x->enabled[t] = false;
				n--;
			}
		}
	}
	if (n)
		return n;
	/* Nobody can move: timed waits give up, as they would after their timeout. */
	for (int t = 0; t < st->nthreads; t++) {
		if (x->alive[t] && x->pending[t].timed) {
			x->enabled[t] = true;
			n++;
		}
	}
	*give_up = n > 0;
	return n;
}

static int one_run(struct explorer *x, uint64_t run, struct cts_bug *bug, bool *aborted)
{
	const struct cts_explorer_config *cfg = x->cfg;
	struct cts_run_state *st = x->st;
	struct cts_strategy *s = x->strategy;
	uint64_t step = 0;
	int last = -1;

	cts_objmodel_reset(x->model);
	if (x->races)
		cts_race_begin_run(x->races, run);
	cts_schedule_clear_steps(x->sched);
	memset(st, 0, sizeof(*st));
	memset(x->spin_count, 0, sizeof(x->spin_count));
	if (x->backend->ops->start(x->backend->be, st) != 0) {
		snprintf(x->res->error, sizeof(x->res->error), "%s", st->message);
		x->res->bad_input = st->bad_input;
		return -1;
	}
	while (st->status == CTS_RUN_ACTIVE) {
		bool give_up;
		int n = collect(x, &give_up);
		if ((n == 0 || give_up) && x->noutside && x->backend->ops->wait) {
			/* Threads in the kernel may still come back: wait for them
			 * (briefly if a timed wait could give up instead). */
			int w = x->backend->ops->wait(x->backend->be, st, give_up ? OUTSIDE_GRACE_S : 0);
			if (w < 0) {
				snprintf(x->res->error, sizeof(x->res->error), "%s", st->message);
				return -1;
			}
			if (w > 0 || st->status != CTS_RUN_ACTIVE)
				continue;
		}
		if (n == 0) {
			bug->kind = CTS_BUG_DEADLOCK;
			describe_deadlock(x, bug);
			break;
		}
		if (step >= cfg->max_steps) {
			bug->kind = CTS_BUG_LIVELOCK;
			snprintf(bug->message, sizeof(bug->message),
				 "step budget of %" PRIu64 " exhausted (possible livelock)", cfg->max_steps);
			*aborted = true;
			break;
		}
		struct cts_sched_point pt = {
			.step = step, .nthreads = st->nthreads, .alive = x->alive,
			.enabled = x->enabled, .pending = x->pending, .last = last,
			.outside = x->outside,
		};
		if (cts_verbosity >= 3) {
			char en[CTS_MAX_THREADS + 1], pend[96];
			int i;
			for (i = 0; i < st->nthreads; i++)
				en[i] = x->enabled[i] ? 'E' : x->alive[i] ? (st->t[i].blocked ? 'b' : 'd') : '-';
			en[i] = 0;
			cts_debug_msg("run %" PRIu64 " step %" PRIu64 " threads %s", run, step, en);
			for (i = 0; i < st->nthreads; i++)
				if (x->alive[i])
					cts_debug_msg("  thread %d: %s%s", i,
						      cts_event_str(&x->pending[i], pend, sizeof(pend)),
						      x->pending[i].op == CTS_OP_COND_REACQUIRE &&
						      x->pending[i].value ? " (on the mutex)" : "");
		}
		int c = s->ops->choose(s, &pt);
		if (c == CTS_CHOOSE_WAIT && x->noutside && x->backend->ops->wait) {
			if (x->backend->ops->wait(x->backend->be, st, 0) < 0) {
				snprintf(x->res->error, sizeof(x->res->error), "%s", st->message);
				return -1;
			}
			continue;
		}
		if (c == CTS_CHOOSE_WAIT)
			c = CTS_CHOOSE_DIVERGED; /* a backend that cannot wait */
		if (c == CTS_CHOOSE_DIVERGED) {
			bug->kind = CTS_BUG_DIVERGED;
			snprintf(bug->message, sizeof(bug->message), "replay diverged: %s",
				 s->ops->diverged ? s->ops->diverged(s) : "schedule does not match");
			*aborted = true;
			break;
		}
		if (c == CTS_CHOOSE_STOP) {
			*aborted = true;
			break;
		}
		if (c < 0 || c >= st->nthreads || !x->enabled[c]) {
			snprintf(x->res->error, sizeof(x->res->error),
				 "strategy %s chose thread %d, which cannot run", s->ops->name, c);
			return -1;
		}
		cts_schedule_add(x->sched, c, x->pending[c].op, x->pending[c].obj);
		struct cts_event done = x->pending[c];
		if (x->backend->ops->step(x->backend->be, st, c, give_up, &done) != 0) {
			snprintf(x->res->error, sizeof(x->res->error), "%s", st->message);
			x->res->bad_input = st->bad_input;
			return -1;
		}
		cts_objmodel_apply(x->model, &done);
		spin_observe(x, &done);
		s->ops->executed(s, &pt, &done);
		int fresh = x->races ? cts_race_observe(x->races, &done, step) : 0;
		if (fresh > 0) {
			int nr = cts_race_count(x->races);
			for (int i = nr - fresh; i < nr; i++) {
				const struct cts_race *r = cts_race_get(x->races, i);
				report_race(x, r);
				if (cfg->races == 2 && bug->kind == CTS_BUG_NONE)
					race_bug(x, bug, r);
			}
		}
		step++;
		last = c;
		if (bug->kind == CTS_BUG_RACE)
			break;
	}
	if (st->status == CTS_RUN_INTERRUPTED) {
		*aborted = true;
		interrupted = 1;
	}
	if (bug->kind == CTS_BUG_NONE)
		judge_end(x, bug);
	if (st->status == CTS_RUN_ERROR) {
		snprintf(x->res->error, sizeof(x->res->error), "%s", st->message);
		return -1;
	}
	bug->run = run;
	bug->steps = step;
	return 0;
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
	if (cfg->races)
		x.races = cts_race_new();
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

	for (uint64_t run = 0;; run++) {
		if (interrupted)
			break;
		if (cfg->runs && run >= cfg->runs)
			break;
		if (cfg->time_limit > 0 && now() - x.start >= cfg->time_limit)
			break;
		if (!strategy->ops->begin_run(strategy, run))
			break;
		struct cts_bug bug = { .kind = CTS_BUG_NONE, .tid = -1 };
		bool aborted = false;
		int r = one_run(&x, run, &bug, &aborted);
		backend->ops->stop(backend->be, x.st);
		if (r != 0) {
			res->internal_error = true;
			rc = -1;
			break;
		}
		struct cts_run_summary sum = {
			.run = run, .steps = bug.steps, .bug = bug.kind != CTS_BUG_NONE,
			.aborted = aborted,
		};
		strategy->ops->end_run(strategy, &sum);
		res->runs++;
		res->steps += bug.steps;
		if (bug.kind != CTS_BUG_NONE) {
			record_bug(&x, &bug);
			if (cfg->stop_on_bug || bug.kind == CTS_BUG_DIVERGED)
				break;
		} else if (cfg->verbose && !cfg->quiet) {
			clear_progress(&x);
			fprintf(cfg->log, "run %" PRIu64 ": %" PRIu64 " steps, exit %d\n", run, bug.steps,
				x.st->exit_code);
		}
		show_progress(&x, false);
	}
	clear_progress(&x);
	res->exhausted = !res->internal_error && strategy->ops->complete(strategy);
	/* Exhausted only covers what the backend showed: say what it could not. */
	int unseen = backend->ops->unseen ?
		     backend->ops->unseen(backend->be, res->unseen, sizeof(res->unseen)) : 0;
	res->complete = res->exhausted && unseen == 0;
	res->elapsed = now() - x.start;
	res->races = x.races; /* for the report */
	cts_schedule_free(x.sched);
	free(x.st);
	return rc;
}

void cts_explore_result_free(struct cts_explore_result *res)
{
	free(res->bugs);
	res->bugs = NULL;
	res->nbugs = 0;
	cts_race_free(res->races);
	res->races = NULL;
}
