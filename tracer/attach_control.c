/* Attach mode: the control loop, one thread at a time between libc
 * entry-point breakpoints, and the log of the schedule observed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "models/error.h"
#include "strategies/strategy.h"
#include "tracer/access.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/attach_int.h"

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

int cts_att_open_log(struct att *a, char *err, size_t errlen)
{
	const char *dir = a->cfg->out_dir ? a->cfg->out_dir : "cts-out";
	if (mkdir(dir, 0777) == 0) {
		a->out_created = true;
	} else if (errno != EEXIST) {
		snprintf(err, errlen, "--out %s: cannot create it: %s", dir, strerror(errno));
		return -1;
	}
	for (int k = 1; k < 10000; k++) {
		snprintf(a->log_path, sizeof(a->log_path), "%s/attach-%d-%d.txt", dir, (int)a->pid, k);
		FILE *f = fopen(a->log_path, "wx");
		if (f) {
			a->log = f;
			fprintf(f, "# cts-trace -p %d (%s): the schedule observed, one step a line:\n"
				"# step thread tid operation object pc. A live process cannot be "
				"replayed from its start: this is for reading, not for --replay.\n",
				(int)a->pid, a->exe);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	snprintf(err, errlen, "--out %s: cannot write the observed schedule there: %s", dir,
		 strerror(errno));
	a->log_path[0] = 0;
	return -1;
}

/* Every thread asleep for a while: stop them all, look for a cycle, let
 * the ones paused for it go on. */
static int idle_check(struct att *a)
{
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		if (X(a, th)->jstop)
			return 0; /* stopped by job control: not ours to judge */
		if (th->state != TH_DEAD && !X(a, th)->stopped && cts_att_interrupt(a, th, INTR_PAUSE) != 0)
			return -1;
	}
	/* interrupted: the control loop ends, the detach takes the paused ones */
	if (cts_att_wait_all_stopped(a, 2.0, true) != 0)
		return a->gone || cts_tr_interrupted() ? 0 : -1;
	if (a->gone || cts_att_diagnose(a, false))
		return 0;
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		if (th->state != TH_DEAD && X(a, th)->paused && cts_att_run_on(a, th, th->state) != 0)
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
int cts_att_step(struct att *a, struct thread *th)
{
	a->steps++;
	if (th->at != AT_START && th->pending.op > 0 && th->pending.op < CTS_OP__COUNT)
		a->ops[th->pending.op]++;
	log_step(a, th);
	cts_att_observe_step(a, th);
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
		rc = cts_att_run_on(a, th, TH_RUNNING);
	}
	if (rc != 0)
		return errno == ESRCH ? 0 : -1;
	X(a, th)->stopped = false;
	double t0 = cts_tr_now_s();
	bool preempting = false;
	while (a->cur == th && th->state == TH_RUNNING && !a->gone && !a->bug) {
		if (cts_tr_interrupted())
			return 0;
		int r = cts_att_event(a, 1000);
		if (r < 0)
			return -1;
		if (a->cur != th || th->state != TH_RUNNING)
			continue;
		/* by the clock, whatever stops come meanwhile: a thread whose
		 * watch hits stream in (not steps) is preempted too */
		if (!preempting && cts_tr_now_s() - t0 > PREEMPT_S) {
			preempting = true;
			if (cts_att_interrupt(a, th, INTR_HOLD) != 0)
				return -1;
		}
		if (r > 0)
			continue;
		char c = cts_proc_state(th->tid);
		if (c == 'S' || c == 'D') {
			th->state = TH_OUTSIDE; /* asleep in the kernel: out of the schedule */
			break;
		}
	}
	if (a->cur == th)
		a->cur = NULL;
	return 0;
}

int cts_att_control(struct att *a, struct cts_strategy *s)
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
		int r = cts_att_event(a, held ? 0 : 5000);
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
		if (cts_att_step(a, th) != 0) {
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
