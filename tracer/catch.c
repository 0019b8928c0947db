/* --races catch: races caught in the act with data breakpoints (catch.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "disasm/disasm.h"
#include "models/error.h"
#include "models/report.h"
#include "models/race.h"
#include "models/symbolize.h"
#include "strategies/strategy.h"
#include "tracer/access.h"
#include "tracer/catch.h"
#include "tracer/elf.h"
#include "tracer/proc.h"

/* Caught pairs kept with their stacks for the report. */
#define MAX_SHOWN 32
#define STACK_MAX 8
/* Windows one sampled site opens per run: then it rests until the next
 * run (DataCollider moves a breakpoint on once it fired), so a hot loop
 * costs a few windows, not one per iteration. */
#define SITE_WINDOWS 4
/* Windows open at once, as DataCollider pauses threads on several CPUs
 * (one debug register each on the hardware path). */
#define MAX_WINDOWS 4
/* Catch-breakpoint hits in one step of a non-holder before it is held. */
#define SPIN_HITS 256

struct site {
	uint64_t pc;
	bool fixed;         /* rip-relative without index: the address is known */
	uint64_t ea;
	uint32_t size;
};

struct window {
	bool open;
	int holder;
	cts_op op;
	uint64_t pc, addr, before;
	uint32_t size;
	int left;                  /* steps of the others still to wait */
	int slot;                  /* debug register, -1: access breakpoints */
	bool caught;               /* a conflicting access was seen */
};

struct shown {
	struct cts_race r;
	char where[2][STACK_MAX][160];
	int depth[2];
};

struct cts_catch {
	struct cts_disasm *dis;
	unsigned want, window;     /* sites to sample (0 = all), steps per window */
	uint64_t seed;
	bool scanned, hw;
	struct site *sites;
	size_t nsites, capsites;
	uint64_t *sample;          /* sampled pcs, sorted */
	uint8_t *opened;           /* windows each opened this run */
	size_t nsample;
	/* windows: a holder held before its access to [addr, addr+size); one
	 * more is being opened (at the end of the step that reached it) */
	struct window win[MAX_WINDOWS + 1];
	bool opening;
	int step_hits;             /* hits by the running thread this step */
	uint64_t *armed;           /* breakpoints the windows activated */
	size_t narmed, caparmed;
	/* this run's catches, for the detector */
	struct cts_race *caught;
	int ncaught, capcaught;
	struct shown shown[MAX_SHOWN];
	int nshown;
	uint64_t windows, catches, value_changes, run;
};

int cts_catch_init(struct cts_tracer *tr, char *err, size_t errlen)
{
	if (!tr->cfg.catch_races)
		return 0;
	struct cts_catch *c = cts_xcalloc(1, sizeof(*c));
	c->dis = cts_disasm_new();
	if (!c->dis) {
		snprintf(err, errlen, "cannot initialise capstone");
		free(c);
		return -1;
	}
	c->want = tr->cfg.catch_sites;
	c->window = tr->cfg.catch_window ? tr->cfg.catch_window : 8;
	c->seed = tr->cfg.catch_seed;
	tr->ct = c;
	return 0;
}

void cts_catch_fini(struct cts_tracer *tr)
{
	struct cts_catch *c = tr->ct;
	if (!c)
		return;
	cts_disasm_free(c->dis);
	free(c->sites);
	free(c->sample);
	free(c->opened);
	free(c->armed);
	free(c->caught);
	free(c);
	tr->ct = NULL;
}

/* ---- sites ------------------------------------------------------------------ */

struct scan_arg {
	struct cts_catch *c;
	struct cts_tracer *tr;
	uint64_t base, lowest;
};

/* Plain accesses only: locked instructions and exchanges are the
 * synchronization DataCollider leaves out. */
static void site_one(const struct cts_insn *in, void *arg)
{
	struct cts_catch *c = arg;
	if (in->is_branch || in->is_call || in->is_ret || in->is_syscall || in->lock ||
	    in->access == CTS_ACC_ATOMIC || in->access == CTS_ACC_UNKNOWN ||
	    in->access == CTS_ACC_STACK)
		return;
	if (c->nsites == c->capsites) {
		c->capsites = c->capsites ? c->capsites * 2 : 256;
		c->sites = cts_xrealloc(c->sites, c->capsites * sizeof(*c->sites));
	}
	struct site *s = &c->sites[c->nsites++];
	s->pc = in->pc;
	s->fixed = in->rip_rel && !in->index && in->access != CTS_ACC_STRING;
	s->ea = s->fixed ? in->pc + in->len + (uint64_t)in->disp : 0;
	s->size = in->size ? in->size : 1;
}

static void scan_range(uint64_t vaddr, uint64_t size, void *arg)
{
	struct scan_arg *s = arg;
	uint64_t lo = s->base - s->lowest + vaddr;
	uint8_t *code = cts_xmalloc(size);
	if (cts_mem_read(s->tr->pid, lo, code, size) == 0)
		cts_disasm_scan(s->c->dis, lo, code, size, CTS_SCAN_SHARED, site_one, s->c);
	free(code);
}

/* The program's own functions only (--trace-lib is break mode's). */
static int find_sites(struct cts_tracer *tr)
{
	struct cts_mapping *maps = NULL;
	size_t n = 0;
	struct scan_arg s = { .c = tr->ct, .tr = tr };

	if (cts_maps_read(tr->pid, &maps, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (maps[i].off != 0 || strcmp(maps[i].path, tr->cfg.path) != 0)
			continue;
		s.base = maps[i].lo;
		if (cts_elf_code_ranges(maps[i].path, &s.lowest, scan_range, &s, NULL) < 0)
			cts_error_msg("warning: cannot read the code of %s", maps[i].path);
		break;
	}
	free(maps);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Index of pc in the sample, -1 if it is not sampled. */
static long sample_index(const struct cts_catch *c, uint64_t pc)
{
	const uint64_t *p = bsearch(&pc, c->sample, c->nsample, sizeof(pc), cmp_u64);
	return p ? p - c->sample : -1;
}

/* The same sites on every run of an exploration (and its replays): a
 * partial Fisher-Yates shuffle from the recorded seed. */
static void choose_sample(struct cts_catch *c)
{
	size_t k = c->want && c->want < c->nsites ? c->want : c->nsites;
	size_t *idx = cts_xmalloc((c->nsites ? c->nsites : 1) * sizeof(*idx));
	uint64_t st = c->seed;

	for (size_t i = 0; i < c->nsites; i++)
		idx[i] = i;
	for (size_t i = 0; i < k; i++) {
		size_t j = i + (size_t)(cts_splitmix64(&st) % (c->nsites - i));
		size_t t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
	c->sample = cts_xmalloc((k ? k : 1) * sizeof(*c->sample));
	for (size_t i = 0; i < k; i++)
		c->sample[i] = c->sites[idx[i]].pc;
	c->nsample = k;
	qsort(c->sample, k, sizeof(*c->sample), cmp_u64);
	c->opened = cts_xcalloc(k ? k : 1, 1);
	free(idx);
}

int cts_catch_setup(struct cts_tracer *tr)
{
	struct cts_catch *c = tr->ct;
	if (!c)
		return 0;
	if (!c->scanned) {
		if (find_sites(tr) != 0)
			return -1;
		choose_sample(c);
		c->scanned = true;
		c->hw = cts_access_hw_traps(tr);
		if (tr->cfg.watch_backend == CTS_WATCH_HARDWARE && !c->hw) {
			snprintf(tr->st->message, sizeof(tr->st->message), "--watch-backend hardware: "
				 "debug registers do not trap on this machine");
			tr->st->status = CTS_RUN_ERROR;
			tr->st->bad_input = true;
			return -1;
		}
		if (cts_verbosity >= 2)
			fprintf(stderr, "cts-trace: races catch: %zu of %zu plain access sites "
				"sampled, window %u steps, %s\n", c->nsample, c->nsites, c->window,
				c->hw ? "debug registers" : "access breakpoints (debug registers "
				"do not trap on this machine)");
	}
	for (size_t i = 0; i < c->nsample; i++)
		cts_tr_bp_add(tr, c->sample[i], BP_ACCESS, 0);
	return 0;
}

/* ---- the windows ------------------------------------------------------------ */

static bool conflicts(const struct window *w, cts_op other)
{
	if (other == CTS_OP_ATOMIC)
		return false; /* the other side is synchronization */
	return w->op != CTS_OP_READ || other != CTS_OP_READ;
}

/* Frame 0 is the access itself: a thread stopped by a trap stands past it,
 * one stopped by an int3 one byte into it. */
static int stack_of(struct cts_tracer *tr, struct thread *th, char (*out)[160], uint64_t pc)
{
	uint64_t pcs[STACK_MAX];
	int n = tr->sym ? cts_sym_stack(tr->sym, th->tid, pcs, STACK_MAX) : -1;
	if (n < 1)
		n = 1;
	pcs[0] = pc;
	for (int i = 0; i < n; i++) {
		if (tr->sym)
			cts_sym_format_frame(tr->sym, pcs[i], i > 0, out[i], sizeof(out[i]));
		else
			snprintf(out[i], sizeof(out[i]), "0x%" PRIx64, pcs[i]);
	}
	return n;
}

/* th's access (op at pc on [addr, addr+size)) while w's holder waited. */
static void record(struct cts_tracer *tr, struct window *w, struct thread *th, cts_op op,
		   uint64_t pc, uint64_t addr, uint32_t size)
{
	struct cts_catch *c = tr->ct;
	uint64_t lo = addr > w->addr ? addr : w->addr;
	uint64_t hi = addr + size < w->addr + w->size ? addr + size : w->addr + w->size;
	if (lo >= hi || th->num == w->holder || !conflicts(w, op))
		return;
	struct cts_race r = {
		.addr = lo, .size = (uint32_t)(hi - lo),
		.tid1 = th->num, .op1 = op, .pc1 = pc,
		.tid2 = w->holder, .op2 = w->op, .pc2 = w->pc,
		.plain = (op == CTS_OP_READ || op == CTS_OP_WRITE) &&
			 (w->op == CTS_OP_READ || w->op == CTS_OP_WRITE),
	};
	w->caught = true;
	for (int i = 0; i < c->ncaught; i++)
		if (c->caught[i].pc1 == pc && c->caught[i].pc2 == w->pc)
			return;
	c->catches++;
	if (c->ncaught == c->capcaught) {
		c->capcaught = c->capcaught ? c->capcaught * 2 : 8;
		c->caught = cts_xrealloc(c->caught, (size_t)c->capcaught * sizeof(*c->caught));
	}
	c->caught[c->ncaught++] = r;
	for (int i = 0; i < c->nshown; i++)
		if (c->shown[i].r.pc1 == pc && c->shown[i].r.pc2 == w->pc)
			return;
	if (c->nshown == MAX_SHOWN)
		return;
	/* New pair: both stacks now, while both threads stand where they raced. */
	struct shown *s = &c->shown[c->nshown++];
	s->r = r;
	s->depth[0] = stack_of(tr, th, s->where[0], pc);
	struct thread *holder = cts_tr_by_num(tr, w->holder);
	if (holder) {
		s->depth[1] = stack_of(tr, holder, s->where[1], w->pc);
	} else {   /* reaped meanwhile (a held thread is not: defensive) */
		snprintf(s->where[1][0], sizeof(s->where[1][0]), "0x%" PRIx64, w->pc);
		s->depth[1] = 1;
	}
	/* A candidate: on a synchronization variable it is dropped at the end
	 * of the run, as in report mode; the race report is the verdict. */
	if (cts_verbosity >= 2) {
		fprintf(stderr, "cts-trace: races catch: caught thread %d %s at %s while thread %d "
			"was held before its %s at %s\n", th->num, cts_op_name(op), s->where[0][0],
			w->holder, cts_op_name(w->op), s->where[1][0]);
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < s->depth[k]; i++)
				fprintf(stderr, "    thread %d #%d %s\n", k ? w->holder : th->num, i,
					s->where[k][i]);
	}
}

static bool holds(const struct cts_catch *c, int tid)
{
	for (int i = 0; i < MAX_WINDOWS; i++)
		if (c->win[i].open && c->win[i].holder == tid)
			return true;
	return false;
}

static int free_window(const struct cts_catch *c)
{
	for (int i = 0; i < MAX_WINDOWS; i++)
		if (!c->win[i].open)
			return i;
	return -1;
}

bool cts_catch_access(struct cts_tracer *tr, struct thread *th, const struct bp *b,
		      const struct cts_event *ev)
{
	struct cts_catch *c = tr->ct;
	if (!c || tr->cfg.mode != CTS_MODE_SYNC || holds(c, th->num))
		return false;
	bool any = false;
	for (int i = 0; i < MAX_WINDOWS; i++) {
		struct window *w = &c->win[i];
		if (!w->open)
			continue;
		any = true;
		if (w->slot < 0)
			record(tr, w, th, ev->op, ev->pc, ev->obj, ev->size);
	}
	long si = b ? sample_index(c, b->addr) : -1;
	if (si >= 0 && !c->opening && c->opened[si] < SITE_WINDOWS && free_window(c) >= 0 &&
	    ev->op != CTS_OP_ATOMIC && cts_access_live_threads(tr) >= 2) {
		if (++c->opened[si] >= SITE_WINDOWS) {
			/* Rests for the rest of the run; the holder steps over it as usual. */
			struct bp *rb = cts_tr_bp_find(tr, b->addr);
			if (rb && rb->active) {
				rb->active = false;
				cts_tr_bp_unplant(tr, rb);
			}
		}
		struct window *w = &c->win[MAX_WINDOWS];
		*w = (struct window){ .holder = th->num, .op = ev->op, .pc = ev->pc,
				      .addr = ev->obj, .size = ev->size, .slot = -1 };
		c->opening = true;
		return true;
	}
	/* A thread going round catch breakpoints may be waiting for a holder
	 * (the spin probe stops at breakpoints): end its step at a sampled
	 * site, or after a while, so the windows run out. */
	return any && b && (si >= 0 || ++c->step_hits > SPIN_HITS);
}

void cts_catch_trap(struct cts_tracer *tr, struct thread *th, int slot, const struct cts_attr *at)
{
	struct cts_catch *c = tr->ct;
	static const cts_op ops[] = { CTS_OP_READ, CTS_OP_WRITE, CTS_OP_RMW, CTS_OP_ATOMIC };
	/* In doubt (not attributed, address not recomputed): no race. */
	if (!c || !at->exact || !at->addr || at->kind > CTS_ATTR_ATOMIC)
		return;
	for (int i = 0; i < MAX_WINDOWS; i++)
		if (c->win[i].open && c->win[i].slot == slot)
			record(tr, &c->win[i], th, ops[at->kind], at->pc, at->addr,
			       at->size ? at->size : 1);
}

void cts_catch_moved(struct cts_tracer *tr, struct thread *th, cts_op op, uint64_t pc,
		     uint64_t addr, uint32_t size)
{
	struct cts_catch *c = tr->ct;
	for (int i = 0; c && i < MAX_WINDOWS; i++)
		if (c->win[i].open && c->win[i].slot >= 0)
			record(tr, &c->win[i], th, op, pc, addr, size);
}

/* The aligned 1/2/4/8 bytes a debug register can watch around the access. */
static bool hw_range(uint64_t addr, uint32_t size, uint64_t *lo, unsigned *len)
{
	for (unsigned l = 1; l <= 8; l *= 2) {
		uint64_t a = addr & ~(uint64_t)(l - 1);
		if (a + l >= addr + size) {
			*lo = a;
			*len = l;
			return true;
		}
	}
	return false;
}

/* Fallback: an int3 on every site that may touch w's bytes. */
static void arm_breakpoints(struct cts_tracer *tr, const struct window *w)
{
	struct cts_catch *c = tr->ct;
	for (size_t i = 0; i < c->nsites; i++) {
		const struct site *s = &c->sites[i];
		if (s->fixed && (s->ea >= w->addr + w->size || w->addr >= s->ea + s->size))
			continue; /* its address is known and elsewhere */
		struct bp *b = cts_tr_bp_find(tr, s->pc);
		if (b && b->active)
			continue; /* sampled, learned, --watch's or armed: planted already */
		if (!b)
			b = cts_tr_bp_add(tr, s->pc, BP_ACCESS, 0);
		b->active = true;
		if (cts_tr_bp_plant(tr, b) != 0) {
			b->active = false;
			continue;
		}
		if (c->narmed == c->caparmed) {
			c->caparmed = c->caparmed ? c->caparmed * 2 : 256;
			c->armed = cts_xrealloc(c->armed, c->caparmed * sizeof(*c->armed));
		}
		c->armed[c->narmed++] = s->pc;
	}
}

static void disarm_breakpoints(struct cts_tracer *tr, bool planted)
{
	struct cts_catch *c = tr->ct;
	for (size_t i = 0; i < c->narmed; i++) {
		struct bp *b = cts_tr_bp_find(tr, c->armed[i]);
		if (b && b->active) {
			b->active = false;
			if (planted)
				cts_tr_bp_unplant(tr, b);
		}
	}
	c->narmed = 0;
}

static void open_window(struct cts_tracer *tr)
{
	struct cts_catch *c = tr->ct;
	struct window *w = &c->win[MAX_WINDOWS];
	struct thread *t = cts_tr_by_num(tr, w->holder);
	int i = free_window(c);
	c->opening = false;
	if (i < 0 || !t || t->state != TH_HELD || !cts_op_is_access(t->pending.op) ||
	    t->pending.obj != w->addr)
		return;
	if (w->size <= 8)
		cts_mem_read(t->tid, w->addr, &w->before, w->size);
	uint64_t lo;
	unsigned len;
	if (c->hw && hw_range(w->addr, w->size, &lo, &len))
		w->slot = cts_access_hw_arm(tr, lo, len,
					    w->op == CTS_OP_READ ? CTS_HW_WRITE : CTS_HW_RW);
	if (w->slot < 0)
		arm_breakpoints(tr, w);
	w->open = true;
	w->left = (int)c->window;
	c->win[i] = *w;
	c->windows++;
	tr->st->t[w->holder].deferred = true;
}

static void close_window(struct cts_tracer *tr, struct window *w)
{
	struct cts_catch *c = tr->ct;
	struct thread *t = cts_tr_by_num(tr, w->holder);
	w->open = false;
	tr->st->t[w->holder].deferred = false;
	if (w->slot >= 0) {
		cts_access_hw_disarm(tr, w->slot);
	} else {
		/* The others' breakpoints stay: re-arm what they need. */
		disarm_breakpoints(tr, true);
		for (int i = 0; i < MAX_WINDOWS; i++)
			if (c->win[i].open && c->win[i].slot < 0)
				arm_breakpoints(tr, &c->win[i]);
	}
	uint64_t after = 0;
	if (w->size <= 8 && t && t->state == TH_HELD &&
	    cts_mem_read(t->tid, w->addr, &after, w->size) == 0 && after != w->before &&
	    !w->caught) {
		/* Changed by someone no breakpoint saw: untraced code or the kernel. */
		c->value_changes++;
		if (cts_verbosity >= 2) {
			char where[256];
			if (tr->sym)
				cts_sym_format(tr->sym, w->pc, where, sizeof(where));
			else
				snprintf(where, sizeof(where), "0x%" PRIx64, w->pc);
			fprintf(stderr, "cts-trace: races catch: 0x%" PRIx64 " changed from %" PRIu64
				" to %" PRIu64 " while thread %d was held before its %s at %s, by code "
				"cts does not trace (a library or the kernel): not reported\n", w->addr,
				w->before, after, w->holder, cts_op_name(w->op), where);
		}
	}
}

void cts_catch_run_start(struct cts_tracer *tr)
{
	struct cts_catch *c = tr->ct;
	if (!c)
		return;
	/* The process is gone: only the table needs undoing (the fork server
	 * must not receive the windows' breakpoints). */
	disarm_breakpoints(tr, false);
	for (int i = 0; i < MAX_WINDOWS; i++) {
		if (c->win[i].open && c->win[i].slot >= 0)
			cts_access_hw_disarm(tr, c->win[i].slot);
		c->win[i].open = false;
	}
	c->opening = false;
	c->ncaught = 0;
	c->run++;
	/* Rested sites wake up before the fork server is synced. */
	for (size_t i = 0; i < c->nsample; i++) {
		struct bp *b = cts_tr_bp_find(tr, c->sample[i]);
		if (b && c->opened[i] >= SITE_WINDOWS)
			b->active = true;
		c->opened[i] = 0;
	}
	for (int i = 0; i < tr->st->nthreads; i++)
		tr->st->t[i].deferred = false;
}

void cts_catch_before_step(struct cts_tracer *tr, int tid)
{
	struct cts_catch *c = tr->ct;
	if (!c)
		return;
	c->step_hits = 0;
	/* A holder runs: nobody else could, or the strategy had to pick it. */
	for (int i = 0; i < MAX_WINDOWS; i++)
		if (c->win[i].open && c->win[i].holder == tid)
			close_window(tr, &c->win[i]);
	/* A thread held at its access since before a window opened passed its
	 * breakpoint already: the access it makes now is checked here (armed
	 * debug registers see it trap). A second look at one checked at its
	 * hit is harmless: pairs are kept once. */
	struct thread *th = cts_tr_by_num(tr, tid);
	if (!th || th->state != TH_HELD || !cts_op_is_access(th->pending.op))
		return;
	for (int i = 0; i < MAX_WINDOWS; i++)
		if (c->win[i].open && c->win[i].slot < 0)
			record(tr, &c->win[i], th, th->pending.op, th->pending.pc, th->pending.obj,
			       th->pending.size);
}

void cts_catch_after_step(struct cts_tracer *tr, int tid)
{
	struct cts_catch *c = tr->ct;
	if (!c)
		return;
	for (int i = 0; i < MAX_WINDOWS; i++) {
		struct window *w = &c->win[i];
		const struct thread *h = w->open ? cts_tr_by_num(tr, w->holder) : NULL;
		if (w->open && (!h || h->state == TH_DEAD ||
				(tid != w->holder && --w->left <= 0)))
			close_window(tr, w);
	}
	if (c->opening && tr->st->status == CTS_RUN_ACTIVE)
		open_window(tr);
	c->opening = false;
}

void cts_catch_caught(struct cts_tracer *tr, struct cts_race_detector *d)
{
	struct cts_catch *c = tr->ct;
	if (!c)
		return;
	for (int i = 0; i < c->ncaught; i++)
		cts_race_add(d, &c->caught[i]);
	c->ncaught = 0;
}

static bool reported(const struct cts_race_detector *d, const struct cts_race *r)
{
	for (int i = 0; d && i < cts_race_count(d); i++) {
		const struct cts_race *x = cts_race_get(d, i);
		if (x->pc1 == r->pc1 && x->pc2 == r->pc2)
			return true;
		if (x->pc1 == r->pc2 && x->pc2 == r->pc1)
			return true;
	}
	return false;
}

json_t *cts_catch_json(const struct cts_tracer *tr, const struct cts_race_detector *d)
{
	const struct cts_catch *c = tr->ct;
	if (!c)
		return NULL;
	json_t *o = json_object(), *list = json_array();
	json_object_set_new(o, "backend", json_string(c->hw ? "hardware" : "breakpoints"));
	json_object_set_new(o, "sites", json_integer((json_int_t)c->nsites));
	json_object_set_new(o, "sampled", json_integer((json_int_t)c->nsample));
	json_object_set_new(o, "window_steps", json_integer(c->window));
	json_object_set_new(o, "windows", json_integer((json_int_t)c->windows));
	json_object_set_new(o, "catches", json_integer((json_int_t)c->catches));
	json_object_set_new(o, "untraced_value_changes", json_integer((json_int_t)c->value_changes));
	for (int i = 0; i < c->nshown; i++) {
		const struct shown *s = &c->shown[i];
		json_t *e = json_object();
		for (int k = 0; k < 2; k++) {
			json_t *a = json_object(), *st = json_array();
			char pc[32];
			snprintf(pc, sizeof(pc), "0x%" PRIx64, k ? s->r.pc2 : s->r.pc1);
			json_object_set_new(a, "thread", json_integer(k ? s->r.tid2 : s->r.tid1));
			json_object_set_new(a, "op", json_string(cts_op_name(k ? s->r.op2 : s->r.op1)));
			json_object_set_new(a, "pc", json_string(pc));
			for (int f = 0; f < s->depth[k]; f++)
				json_array_append_new(st, cts_report_jstr(s->where[k][f]));
			json_object_set_new(a, "stack", st);
			json_object_set_new(e, k ? "held" : "caught", a);
		}
		char addr[32];
		snprintf(addr, sizeof(addr), "0x%" PRIx64, s->r.addr);
		json_object_set_new(e, "address", json_string(addr));
		json_object_set_new(e, "size", json_integer(s->r.size));
		json_object_set_new(e, "reported", json_boolean(reported(d, &s->r)));
		json_array_append_new(list, e);
	}
	json_object_set_new(o, "caught", list);
	return o;
}
