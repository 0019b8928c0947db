/* The naive stateful search with Petri-net state matching (stateful.h):
 * the run machinery (replay a transition sequence, then run on freely while
 * the model learns from every step) and the search over markings (Fig. 5). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "models/error.h"
#include "strategies/stateful.h"
#include "strategies/unfold.h"

/* ---- bit sets over threads, sized by the marking's thread count ---- */

static size_t bs_words(int nthreads)
{
	return (size_t)(nthreads + 63) / 64;
}

static bool bs_has(const uint64_t *b, size_t nw, int t)
{
	return t >= 0 && (size_t)t / 64 < nw && (b[t / 64] >> (t % 64)) & 1;
}

static void bs_add(uint64_t *b, int t)
{
	b[t / 64] |= 1ull << (t % 64);
}

/* ---- the naive search's stack ---- */

enum { PH_ENTER, PH_CHECK, PH_EXPAND };

struct frame {
	uint32_t mark;     /* stored marking id */
	int phase;
	int chosen;        /* thread fired towards the next frame */
	size_t nw;
	uint64_t *done, *sleep, *only;  /* only: on a revisit, the threads left to explore */
	uint64_t *stub;    /* the sweep: the stubborn set's enabled threads */
	bool use_only, use_stub;
	uint32_t runs, last_unknown;
};

/* Per stored marking: explored with which sleep set; a run ended there. */
struct vinfo {
	bool visited, run_end;
	size_t sleep_off, nw;
};

struct ustrat;
static bool advance(struct ustrat *s);
static bool dfs_advance(struct ustrat *s);
static void restart(struct ustrat *s);

struct ustrat {
	struct cts_strategy base;
	struct cts_strategy_ops ops;
	struct cts_petri *net;
	enum cts_petri_keying keying;
	struct cts_pmark *cur, *tmp;
	/* the run */
	int *target;
	size_t ntarget, tcap;
	bool started, exhausted, incomplete;
	bool diverged;         /* the run could not follow its target */
	bool stutter;          /* the run stopped at a held-back spinner's step... */
	uint64_t stutter_at;   /* ...this one of the target */
	uint64_t executed;
	int last_tid;          /* the thread of the run's last step */
	uint64_t msteps;       /* steps of this run the model counts */
	int *steps;            /* their threads (the unfolding's stateless count) */
	size_t stepcap;
	double t0;             /* when the search began (cfg.time_limit) */
	/* naive */
	struct frame *stack;
	size_t depth, cap;
	struct vinfo *vi;
	size_t vicap;
	uint64_t *sleeps;
	size_t nsleeps, sleepcap;
	struct cts_petri_search_stats st;
	char why[512];
	/* the unfolding search (unfold.h), then the sweep for dead markings */
	struct cts_unf *unf;
	int unf_width;         /* cts_petri_width the prefix was built for, 0 none yet */
	bool cutoffs, sweeping;
	bool full_sweep;       /* no stubborn sets in the sweep (CTS_UNF_SWEEP=full, tests) */
	bool soft;             /* the target's last step is left out if it cannot run */
};

#define MAX_RESTARTS 16

/* ---- runs ---- */

static int diverge(struct ustrat *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int diverge(struct ustrat *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	cts_debug_msg("petri: %s", s->why);
	/* Not the explorer's divergence (that ends the whole search): the model
	 * was wrong here, so this run stops and the search starts over. */
	s->incomplete = true;
	s->diverged = true;
	return CTS_CHOOSE_STOP;
}

static bool u_begin(struct cts_strategy *base, uint64_t run)
{
	struct ustrat *s = (struct ustrat *)base;
	(void)run;
	if (s->started && !advance(s)) {
		s->exhausted = true;
		return false;
	}
	s->started = true;
	cts_pmark_free(s->cur);
	s->cur = cts_pmark_new(s->net);
	s->executed = 0;
	s->msteps = 0;
	s->stutter = false;
	s->diverged = false;
	return true;
}

static int u_choose(struct cts_strategy *base, const struct cts_sched_point *pt)
{
	struct ustrat *s = (struct ustrat *)base;
	uint64_t k = pt->step;

	/* the threads gone first: who lives decides what the others do next */
	for (int pass = 0; pass < 2; pass++)
		for (int t = 0; t < pt->nthreads; t++)
			if (pt->alive[t] == (pass == 1))
				cts_petri_see(s->net, s->cur, t, pt->alive[t], &pt->pending[t],
					      pt->enabled[t], pt->spinning && pt->spinning[t],
					      pt->outside && pt->outside[t]);
	for (int t = 0; t < pt->nthreads; t++)
		if (pt->alive[t] && pt->enabled[t] &&
		    cts_petri_skips(s->net, s->cur, t, pt->pending[t].op))
			return t;   /* not a step of the model */
	k = s->msteps;
	if (s->soft && k + 1 == s->ntarget) {
		/* an optional last step: the thread whose transition is wanted */
		int t = s->target[k];
		const struct cts_event *want = cts_petri_next_op(s->net, s->cur, t);
		if (t < 0 || t >= pt->nthreads || !pt->alive[t] || !pt->enabled[t] ||
		    (want && (want->op != pt->pending[t].op || want->obj != pt->pending[t].obj)))
			k = s->ntarget;  /* run freely */
	}
	if (k < s->ntarget) {
		int t = s->target[k];
		const struct cts_event *want = cts_petri_next_op(s->net, s->cur, t);
		char w[96], g[96];
		if (t < 0 || t >= pt->nthreads || !pt->alive[t] || !want)
			return diverge(s, "step %" PRIu64 ": thread %d is not there", k, t);
		if (want->op != pt->pending[t].op || (want->obj != pt->pending[t].obj &&
						       want->op != CTS_OP_ALLOC))
			return diverge(s, "step %" PRIu64 ": thread %d was modelled doing '%s' but does '%s'",
				       k, t, cts_event_str(want, w, sizeof(w)),
				       cts_event_str(&pt->pending[t], g, sizeof(g)));
		if (!pt->enabled[t] && pt->outside && pt->outside[t])
			return CTS_CHOOSE_WAIT;
		if (!pt->enabled[t] && pt->spinning && pt->spinning[t]) {
			/* The explorer holds t back: its step is a stutter that changes
			 * nothing, so everything after it is reached without it too
			 * (docs/systematic.md "Spinning threads"). Drop this branch. */
			s->stutter = true;
			s->stutter_at = k;
			return CTS_CHOOSE_STOP;
		}
		if (!pt->enabled[t])
			return diverge(s, "step %" PRIu64 ": thread %d ('%s') is not enabled", k, t,
				       cts_event_str(want, w, sizeof(w)));
		return t;
	}
	/* Free: first a step the model has not seen from here (EXTENDMODEL
	 * learns most that way), else keep running the last thread. */
	for (int t = 0; t < pt->nthreads; t++)
		if (pt->enabled[t] && cts_petri_status(s->net, s->cur, t) == CTS_PS_UNKNOWN)
			return t;
	if (pt->last >= 0 && pt->last < pt->nthreads && pt->enabled[pt->last])
		return pt->last;
	int t = cts_sched_nth_enabled(pt, 0);
	return t >= 0 ? t : diverge(s, "step %" PRIu64 ": nothing can run", k);
}

static void u_executed(struct cts_strategy *base, const struct cts_sched_point *pt,
		       const struct cts_event *ev)
{
	struct ustrat *s = (struct ustrat *)base;
	(void)pt;
	if (!cts_petri_skips(s->net, s->cur, ev->tid, ev->op)) {
		if (s->unf && !s->cutoffs) {
			if (s->msteps == s->stepcap) {
				s->stepcap = s->stepcap ? 2 * s->stepcap : 256;
				s->steps = cts_xrealloc(s->steps, s->stepcap * sizeof(*s->steps));
			}
			s->steps[s->msteps] = ev->tid;
		}
		s->msteps++;
	}
	cts_petri_executed(s->net, s->cur, ev);
	s->executed++;
	s->last_tid = ev->tid;
	if (ev->op == CTS_OP_PROC_EXIT)
		cts_petri_run_ended(s->net, s->cur, ev->tid);
}

static struct vinfo *vinfo(struct ustrat *s, uint32_t id)
{
	if (id >= s->vicap) {
		size_t nc = s->vicap ? s->vicap * 2 : 1024;
		while (nc <= id)
			nc *= 2;
		s->vi = cts_xrealloc(s->vi, nc * sizeof(*s->vi));
		memset(s->vi + s->vicap, 0, (nc - s->vicap) * sizeof(*s->vi));
		s->vicap = nc;
	}
	return &s->vi[id];
}

static void u_end_run(struct cts_strategy *base, const struct cts_run_summary *sum)
{
	struct ustrat *s = (struct ustrat *)base;
	s->st.runs++;
	cts_debug_msg("petri: run %" PRIu64 " ended after %" PRIu64 " of %zu target steps%s%s%s",
		      sum->run, s->msteps, s->ntarget, s->stutter ? " (stutter)" : "",
		      sum->aborted ? " (aborted)" : "", s->diverged ? " (diverged)" : "");
	struct cts_petri_stats ps;
	cts_petri_get_stats(s->net, &ps);
	if ((ps.conflicts || s->diverged) && s->st.restarts < MAX_RESTARTS) {
		/* The run contradicted the model: in break mode the tracer learns
		 * new shared access points as it goes, so a thread's visible
		 * operations can change from one run to the next. Start over with
		 * a fresh model; the runs so far only cost time. */
		s->st.restarts++;
		restart(s);
		return;
	}
	if (s->sweeping)
		s->st.sweep_runs++;
	else if (s->unf && !s->cutoffs)
		cts_unf_ran(s->unf, s->steps, s->msteps);
	if (s->stutter) {
		s->st.stutters++;
		if (s->unf && !s->sweeping)
			cts_unf_stutter(s->unf, s->stutter_at);
		return;
	}
	if (sum->aborted) {
		/* step budget, timeout, divergence: this part is not covered */
		s->incomplete = true;
		return;
	}
	if (s->msteps + s->soft < s->ntarget) {
		s->incomplete = true;
		snprintf(s->why, sizeof(s->why), "a run ended before reaching its target marking");
	}
	bool fresh;
	uint32_t id = cts_petri_store(s->net, s->cur, &fresh);
	vinfo(s, id)->run_end = true;   /* a crash, a deadlock or the exit: confirmed here */
	if (s->unf) {
		/* An oracle fired right after the last step (an assert, a crash):
		 * that thread's place is where runs end, so the unfolding extends
		 * no configuration past it (a deadlock leaves it a next step). */
		if (sum->bug)
			cts_petri_run_ended(s->net, s->cur, s->last_tid);
		cts_unf_run_ended(s->unf, id);
	}
}

static void push_frame(struct ustrat *s, uint32_t mark, int nthreads, const uint64_t *sleep);
static void pop_frame(struct ustrat *s);

/* Forget the model and the search: begin again at the initial marking. */
static void restart(struct ustrat *s)
{
	while (s->depth)
		pop_frame(s);
	enum cts_petri_keying k = s->keying;
	cts_petri_free(s->net);
	s->net = cts_petri_new(k, s->unf != NULL);
	if (s->unf) {
		cts_unf_free(s->unf);
		s->unf = cts_unf_new(s->cutoffs);
		s->unf_width = 0;
		s->sweeping = false;
		s->soft = false;
	}
	memset(s->vi, 0, s->vicap * sizeof(*s->vi));
	s->nsleeps = 0;
	s->incomplete = false;
	s->st.markings = s->st.terminals = 0;
	cts_pmark_free(s->tmp);
	cts_pmark_free(s->cur);
	s->cur = NULL;
	s->tmp = cts_pmark_new(s->net);
	bool fresh;
	if (!s->unf)
		push_frame(s, cts_petri_store(s->net, s->tmp, &fresh), 1, NULL);
	s->started = false;
	s->ntarget = 0;
}

/* The explorer's restart (strategy.h): the tracer shows more events from
 * now on (a learned shared line or busy-wait load), so the model of the
 * runs so far is of another program. The search begins again, and counts
 * from zero as the explorer's runs do. */
static void u_restart(struct cts_strategy *base)
{
	struct ustrat *s = (struct ustrat *)base;
	uint64_t restarts = s->st.restarts;
	restart(s);
	memset(&s->st, 0, sizeof(s->st));
	s->st.restarts = restarts;
	s->exhausted = false;
	s->why[0] = 0;
}

static bool u_complete(const struct cts_strategy *base)
{
	const struct ustrat *s = (const struct ustrat *)base;
	struct cts_petri_stats ps;
	cts_petri_get_stats(s->net, &ps);
	struct cts_unf_stats us = { 0 };
	if (s->unf)
		cts_unf_get_stats(s->unf, &us);
	return s->exhausted && !s->incomplete && ps.conflicts == 0 && !us.incomplete;
}

static const char *u_diverged(const struct cts_strategy *base)
{
	return ((const struct ustrat *)base)->why;
}

/* ---- naive stateful search (Fig. 5) ---- */

static uint64_t *fr_alloc(size_t nw)
{
	return cts_xcalloc(nw ? nw : 1, sizeof(uint64_t));
}

static void push_frame(struct ustrat *s, uint32_t mark, int nthreads, const uint64_t *sleep)
{
	if (s->depth == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->stack = cts_xrealloc(s->stack, s->cap * sizeof(*s->stack));
	}
	struct frame *f = &s->stack[s->depth++];
	memset(f, 0, sizeof(*f));
	f->mark = mark;
	f->phase = PH_ENTER;
	f->chosen = -1;
	f->nw = bs_words(nthreads);
	f->done = fr_alloc(f->nw);
	f->sleep = fr_alloc(f->nw);
	f->only = fr_alloc(f->nw);
	f->stub = fr_alloc(f->nw);
	if (sleep)
		memcpy(f->sleep, sleep, f->nw * sizeof(uint64_t));
}

static void pop_frame(struct ustrat *s)
{
	struct frame *f = &s->stack[--s->depth];
	free(f->done);
	free(f->sleep);
	free(f->only);
	free(f->stub);
}

/* The sequence S of Fig. 5: the choices of the frames below the top. */
static void target_from_stack(struct ustrat *s)
{
	s->ntarget = 0;
	if (s->depth > s->tcap) {
		s->tcap = s->depth * 2;
		s->target = cts_xrealloc(s->target, s->tcap * sizeof(*s->target));
	}
	for (size_t i = 0; i + 1 < s->depth; i++)
		s->target[s->ntarget++] = s->stack[i].chosen;
}

/* Sleep sets and state matching (Godefroid's condition): a marking seen
 * before is cut only if it was explored with a sleep set contained in this
 * one; otherwise the threads asleep then but awake now are explored. */
static bool enter(struct ustrat *s, struct frame *f)
{
	struct vinfo *v = vinfo(s, f->mark);
	struct cts_petri_stats ps;
	cts_petri_get_stats(s->net, &ps);
	if (v->visited && !ps.nomatch) {
		uint64_t *stored = &s->sleeps[v->sleep_off];
		bool subset = true;
		for (size_t i = 0; i < v->nw && i < f->nw; i++) {
			f->only[i] = stored[i] & ~f->sleep[i];
			subset = subset && !f->only[i];
			stored[i] &= f->sleep[i];
		}
		if (subset) {
			s->st.terminals++;
			return false;
		}
		f->use_only = true;
		return true;
	}
	if (!v->visited) {
		s->st.markings++;
		v->visited = true;
		if (s->nsleeps + f->nw > s->sleepcap) {
			s->sleepcap = s->sleepcap ? s->sleepcap * 2 : 4096;
			while (s->nsleeps + f->nw > s->sleepcap)
				s->sleepcap *= 2;
			s->sleeps = cts_xrealloc(s->sleeps, s->sleepcap * sizeof(*s->sleeps));
		}
		v = vinfo(s, f->mark);
		v->sleep_off = s->nsleeps;
		v->nw = f->nw;
		memcpy(&s->sleeps[s->nsleeps], f->sleep, f->nw * sizeof(uint64_t));
		s->nsleeps += f->nw;
	}
	return true;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The unfolding search first (Fig. 6); once its prefix is complete, a
 * model-only sweep over the markings for dead ones (deadlocks, livelocks:
 * the unfolding alone does not promise to reach them), each confirmed by a
 * real run. */
static bool advance(struct ustrat *s)
{
	if (!s->unf)
		return dfs_advance(s);
	int width = cts_petri_width(s->net);
	if (s->unf_width && width != s->unf_width) {
		/* a run showed a thread the model did not know: every write of the
		 * prefix (and of the sweep) sets one copy too few; build it again */
		cts_debug_msg("unfold: %d threads known now, %d before: the prefix starts again",
			      width, s->unf_width);
		while (s->depth)
			pop_frame(s);
		cts_unf_free(s->unf);
		s->unf = cts_unf_new(s->cutoffs);
		s->sweeping = false;
		s->st.widenings++;
	}
	s->unf_width = width;
	if (!s->sweeping) {
		struct cts_unf_run r;
		double dl = s->base.cfg.time_limit > 0 ? s->t0 + s->base.cfg.time_limit : 0;
		if (cts_unf_advance(s->unf, s->net, &r, dl, s->base.cfg.interrupt)) {
			if (r.n > s->tcap) {
				s->tcap = r.n * 2;
				s->target = cts_xrealloc(s->target, s->tcap * sizeof(*s->target));
			}
			memcpy(s->target, r.tids, r.n * sizeof(*r.tids));
			s->ntarget = r.n;
			s->soft = r.soft;
			return true;
		}
		struct cts_unf_stats us;
		cts_unf_get_stats(s->unf, &us);
		if (us.incomplete && (strstr(us.why, "time limit") || strstr(us.why, "interrupted")))
			return false;
		s->sweeping = true;
		s->soft = false;
		bool fresh;
		cts_petri_load(s->net, 0, s->tmp);
		struct cts_pmark *m0 = cts_pmark_new(s->net);
		push_frame(s, cts_petri_store(s->net, m0, &fresh), 1, NULL);
		cts_pmark_free(m0);
	}
	return dfs_advance(s);
}

/* Runs the DFS until it needs a test run (true, s->target set) or is done. */
static bool dfs_advance(struct ustrat *s)
{
	uint64_t iter = 0;
	if (s->stutter) {
		/* frame stutter_at chose the held-back step: leave its subtree */
		while (s->depth > s->stutter_at + 1)
			pop_frame(s);
	}
	while (s->depth > 0) {
		/* A model-only walk can last seconds between two runs: the
		 * user's interrupt is seen at once, the clock every 64 steps. */
		const volatile sig_atomic_t *stop = s->base.cfg.interrupt;
		if (stop && *stop) {
			s->incomplete = true;
			snprintf(s->why, sizeof(s->why), "interrupted");
			return false;
		}
		if ((++iter & 63) == 0 && s->base.cfg.time_limit > 0 &&
		    now_s() - s->t0 > s->base.cfg.time_limit) {
			s->incomplete = true;  /* --time ran out inside the model */
			snprintf(s->why, sizeof(s->why), "the time limit ran out");
			return false;
		}
		struct frame *f = &s->stack[s->depth - 1];
		cts_petri_load(s->net, f->mark, s->tmp);
		if (f->phase == PH_ENTER) {
			if (!enter(s, f)) {
				pop_frame(s);
				continue;
			}
			f->phase = PH_CHECK;
		}
		if (f->phase == PH_CHECK && vinfo(s, f->mark)->run_end) {
			pop_frame(s);  /* a run ended here: a crash, a deadlock or the exit */
			continue;
		}
		if (f->phase == PH_CHECK) {
			int en, alive;
			uint32_t u = cts_petri_unknowns(s->net, s->tmp, &en, &alive);
			/* EXTENDMODEL: a run to this marking, while runs still teach something */
			bool need = u > 0 || (en == 0 && alive > 0 && !vinfo(s, f->mark)->run_end &&
					      !cts_petri_terminal(s->net, s->tmp));
			if (need && (f->runs == 0 || u < f->last_unknown)) {
				cts_debug_msg("petri: run to marking %u at depth %zu: %u threads unknown, "
					      "%d enabled, %d live", f->mark, s->depth - 1, u, en, alive);
				f->runs++;
				f->last_unknown = u;
				target_from_stack(s);
				return true;
			}
			if (need) {
				s->incomplete = true;
				snprintf(s->why, sizeof(s->why),
					 "runs to a marking did not tell what its threads do next");
			}
			f->phase = PH_EXPAND;
			if (s->sweeping && !s->full_sweep) {
				/* only dead markings matter here: a stubborn set keeps
				 * every one reachable (Valmari) */
				int nt = cts_pmark_nthreads(s->tmp);
				uint8_t *ex = cts_xcalloc((size_t)nt + 1, 1);
				cts_petri_stubborn(s->net, s->tmp, ex);
				for (int t = 0; t < nt && (size_t)t / 64 < f->nw; t++)
					if (ex[t])
						bs_add(f->stub, t);
				free(ex);
				f->use_stub = true;
			}
		}
		/* the next enabled thread not yet explored here and not asleep */
		int nt = cts_pmark_nthreads(s->tmp), pick = -1;
		for (int t = 0; t < nt && pick < 0; t++) {
			if (bs_has(f->done, f->nw, t) || bs_has(f->sleep, f->nw, t))
				continue;
			if (f->use_only && !bs_has(f->only, f->nw, t))
				continue;
			if (f->use_stub && !bs_has(f->stub, f->nw, t))
				continue;
			if (cts_petri_status(s->net, s->tmp, t) == CTS_PS_ENABLED)
				pick = t;
		}
		if (pick < 0) {
			pop_frame(s);
			continue;
		}
		cts_debug_msg("petri: depth %zu marking %u: fire thread %d", s->depth - 1, f->mark, pick);
		/* the child's sleep set: asleep or explored here, independent of pick */
		uint64_t *cs = fr_alloc(f->nw);
		for (int t = 0; t < nt; t++)
			if ((bs_has(f->sleep, f->nw, t) || bs_has(f->done, f->nw, t)) && t != pick &&
			    cts_petri_status(s->net, s->tmp, t) == CTS_PS_ENABLED &&
			    cts_petri_independent(s->net, s->tmp, t, pick))
				bs_add(cs, t);
		bs_add(f->done, pick);
		f->chosen = pick;
		cts_petri_fire(s->net, s->tmp, pick);
		bool fresh;
		uint32_t id = cts_petri_store(s->net, s->tmp, &fresh);
		int cnt = cts_pmark_nthreads(s->tmp);
		uint64_t *csl = fr_alloc(bs_words(cnt));
		memcpy(csl, cs, (f->nw < bs_words(cnt) ? f->nw : bs_words(cnt)) * sizeof(uint64_t));
		free(cs);
		push_frame(s, id, cnt, csl);
		free(csl);
	}
	return false;
}

/* ---- creation ---- */

static void u_destroy(struct cts_strategy *base)
{
	struct ustrat *s = (struct ustrat *)base;
	while (s->depth)
		pop_frame(s);
	free(s->stack);
	free(s->vi);
	free(s->sleeps);
	free(s->target);
	free(s->steps);
	cts_pmark_free(s->cur);
	cts_pmark_free(s->tmp);
	cts_petri_free(s->net);
	cts_unf_free(s->unf);
	free(s);
}

static struct ustrat *u_new(const struct cts_strategy_config *cfg, enum cts_petri_keying keying,
			    bool unfold)
{
	struct ustrat *s = cts_xcalloc(1, sizeof(*s));
	s->ops = (struct cts_strategy_ops){
		.name = "dfs",
		.begin_run = u_begin,
		.choose = u_choose,
		.executed = u_executed,
		.end_run = u_end_run,
		.complete = u_complete,
		.diverged = u_diverged,
		.restart = u_restart,
		.destroy = u_destroy,
	};
	s->base.ops = &s->ops;
	s->base.cfg = *cfg;
	s->keying = keying;
	s->t0 = now_s();
	s->net = cts_petri_new(keying, unfold);
	s->tmp = cts_pmark_new(s->net);
	return s;
}

struct cts_strategy *cts_petri_dfs_create(const struct cts_strategy_config *cfg,
					  enum cts_petri_keying keying)
{
	struct ustrat *s = u_new(cfg, keying, false);
	bool fresh;
	struct cts_pmark *m0 = cts_pmark_new(s->net);
	push_frame(s, cts_petri_store(s->net, m0, &fresh), 1, NULL);
	cts_pmark_free(m0);
	return &s->base;
}

struct cts_strategy *cts_petri_unfold_create(const struct cts_strategy_config *cfg,
					     enum cts_petri_keying keying, bool cutoffs)
{
	struct ustrat *s = u_new(cfg, keying, true);
	s->ops.name = "unfold";
	s->cutoffs = cutoffs;
	const char *sw = getenv("CTS_UNF_SWEEP");
	s->full_sweep = sw && strcmp(sw, "full") == 0;
	s->unf = cts_unf_new(cutoffs);
	return &s->base;
}

bool cts_petri_search_stats(const struct cts_strategy *base, struct cts_petri_search_stats *out)
{
	if (!base || base->ops->destroy != u_destroy)
		return false;
	const struct ustrat *s = (const struct ustrat *)base;
	struct cts_petri_stats ps;
	cts_petri_get_stats(s->net, &ps);
	*out = s->st;
	out->places = ps.places;
	out->transitions = ps.transitions;
	out->bytes = ps.bytes + s->vicap * sizeof(*s->vi) + s->sleepcap * 8 +
		     s->cap * sizeof(*s->stack);
	out->conflicts = ps.conflicts;
	out->nomatch = ps.nomatch;
	out->complete = u_complete(base);
	snprintf(out->why, sizeof(out->why), "%s", ps.why[0] ? ps.why : s->why);
	if (s->unf) {
		struct cts_unf_stats us;
		cts_unf_get_stats(s->unf, &us);
		out->unfold = true;
		out->sweep_markings = s->st.markings;
		out->markings = us.markings;
		out->sweep_terminals = s->st.terminals;
		out->terminals = us.cutoffs;
		out->events = us.events;
		out->conditions = us.conditions;
		/* without cut-offs every event of the prefix was executed by a
		 * run before the sweep: the stateless tester's test executions */
		out->stateless_tests = s->cutoffs ? 0 : s->st.runs - s->st.sweep_runs;
		out->bytes += us.bytes;
		if (!out->why[0] || us.incomplete)
			snprintf(out->why, sizeof(out->why), "%s", us.why[0] ? us.why : s->why);
	}
	return true;
}
