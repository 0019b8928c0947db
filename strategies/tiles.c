/* Tilings and instances (strategies/tiles.h). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "models/error.h"
#include "models/htab.h"
#include "models/race.h"
#include "strategies/explorer.h"
#include "strategies/split.h"
#include "strategies/strategy.h"
#include "strategies/tiles.h"

/* One thread's selected tiles, ascending. */
struct sel {
	bool all;
	uint32_t n;
	uint64_t *tiles;
};

/* A step the learner keeps for cts_instance_hot. */
struct rec {
	int tid;
	cts_op op;
	uint64_t point, obj, obj2;
	uint32_t size;
};

struct cts_instance {
	bool learner;      /* allows everything, learns points */
	uint32_t tile;
	int nsel;
	struct sel *sel;
	/* This run: points each thread has executed, and whether the thread
	 * that ran last has just yielded. */
	size_t cap;
	uint64_t *points;
	bool last_yield;
	/* Most points per thread over the runs. */
	int nmax;
	uint64_t *maxpts;
	/* The learner's steps that touch objects, for cts_instance_hot. */
	struct rec *recs;
	size_t nrecs, reccap;
};

static struct cts_instance *instance_new(uint32_t tile, int nsel)
{
	struct cts_instance *in = cts_xcalloc(1, sizeof(*in));
	in->tile = tile;
	in->nsel = nsel;
	in->sel = nsel ? cts_xcalloc((size_t)nsel, sizeof(*in->sel)) : NULL;
	return in;
}

struct cts_instance *cts_instance_learner(void)
{
	struct cts_instance *in = instance_new(1, 0);
	in->learner = true;
	return in;
}

void cts_instance_free(struct cts_instance *in)
{
	if (!in)
		return;
	for (int i = 0; i < in->nsel; i++)
		free(in->sel[i].tiles);
	free(in->sel);
	free(in->points);
	free(in->maxpts);
	free(in->recs);
	free(in);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A decimal number of at most 10 digits starting at *p. */
static bool parse_num(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;
	while (*s >= '0' && *s <= '9' && digits < 10) {
		v = v * 10 + (uint64_t)(*s++ - '0');
		digits++;
	}
	if (!digits || (*s >= '0' && *s <= '9'))
		return false;
	*p = s;
	*out = v;
	return true;
}

#define SPEC_MAX_THREADS 65536

struct cts_instance *cts_instance_parse(const char *spec, char *err, size_t errlen)
{
	const char *p = spec;
	uint64_t t;
	if (strncmp(p, "t=", 2) != 0 || (p += 2, !parse_num(&p, &t)) || t == 0 ||
	    t > UINT32_MAX || *p != ':') {
		snprintf(err, errlen, "--instance '%.64s': expected t=TILE:SEL/SEL/... with TILE a "
			 "positive number (e.g. t=4:0.2/1/-)", spec);
		return NULL;
	}
	p++;
	int n = 1;
	for (const char *q = p; *q; q++)
		n += *q == '/';
	if (n > SPEC_MAX_THREADS) {
		snprintf(err, errlen, "--instance: more than %d threads", SPEC_MAX_THREADS);
		return NULL;
	}
	struct cts_instance *in = instance_new((uint32_t)t, n);
	for (int i = 0; i < n; i++) {
		struct sel *s = &in->sel[i];
		if (*p == '*' || *p == '-') {
			s->all = *p++ == '*';
		} else {
			for (;;) {
				uint64_t v;
				if (!parse_num(&p, &v)) {
					snprintf(err, errlen, "--instance '%.64s': thread %d: expected tile "
						 "numbers joined by '.', '-' (none) or '*' (all)", spec, i);
					cts_instance_free(in);
					return NULL;
				}
				s->tiles = cts_xrealloc(s->tiles, (s->n + 1) * sizeof(*s->tiles));
				s->tiles[s->n++] = v;
				if (*p != '.')
					break;
				p++;
			}
			qsort(s->tiles, s->n, sizeof(*s->tiles), cmp_u64);
			for (uint32_t k = 1; k < s->n; k++)
				if (s->tiles[k] == s->tiles[k - 1]) {
					snprintf(err, errlen, "--instance '%.64s': thread %d selects tile %"
						 PRIu64 " twice", spec, i, s->tiles[k]);
					cts_instance_free(in);
					return NULL;
				}
		}
		if (*p != (i + 1 < n ? '/' : 0)) {
			snprintf(err, errlen, "--instance '%.64s': unexpected '%c' in thread %d's tiles",
				 spec, *p, i);
			cts_instance_free(in);
			return NULL;
		}
		p++;
	}
	return in;
}

/* Appends as snprintf would, counting what did not fit. */
static size_t put(char *buf, size_t len, size_t off, const char *text)
{
	size_t k = strlen(text);
	if (off < len)
		snprintf(buf + off, len - off, "%s", text);
	return off + k;
}

int cts_instance_format(const struct cts_instance *in, char *buf, size_t len)
{
	char num[32];
	if (len)
		buf[0] = 0;
	if (in->learner)
		return 0;   /* not an instance: no restriction */
	snprintf(num, sizeof(num), "t=%" PRIu32 ":", in->tile);
	size_t off = put(buf, len, 0, num);
	for (int i = 0; i < in->nsel; i++) {
		const struct sel *s = &in->sel[i];
		if (i)
			off = put(buf, len, off, "/");
		if (s->all || !s->n)
			off = put(buf, len, off, s->all ? "*" : "-");
		for (uint32_t k = 0; k < s->n && !s->all; k++) {
			snprintf(num, sizeof(num), "%s%" PRIu64, k ? "." : "", s->tiles[k]);
			off = put(buf, len, off, num);
		}
	}
	return (int)off;
}

bool cts_instance_may_preempt(const struct cts_instance *in, int thread, uint64_t point)
{
	if (in->learner)
		return true;
	if (thread < 0 || thread >= in->nsel)
		return false;
	const struct sel *s = &in->sel[thread];
	if (s->all)
		return true;
	uint64_t tile = point / in->tile;
	return s->n && bsearch(&tile, s->tiles, s->n, sizeof(*s->tiles), cmp_u64) != NULL;
}

static void fit(struct cts_instance *in, int thread)
{
	if ((size_t)thread < in->cap)
		return;
	size_t cap = cts_grow_cap(in->cap, (size_t)thread + 1);
	in->points = cts_xgrow(in->points, in->cap, cap, sizeof(*in->points));
	in->cap = cap;
}

void cts_instance_begin_run(struct cts_instance *in)
{
	if (in->cap)
		memset(in->points, 0, in->cap * sizeof(*in->points));
	in->last_yield = false;
}

bool cts_instance_restrict(struct cts_instance *in, int last, bool *enabled, const int *live,
			   int nlive, int nthreads)
{
	if (last < 0 || last >= nthreads || !enabled[last] || in->last_yield)
		return false;
	fit(in, last);
	if (cts_instance_may_preempt(in, last, in->points[last]))
		return false;
	bool held = false;
	for (int i = 0; i < (live ? nlive : nthreads); i++) {
		int t = live ? live[i] : i;
		if (t != last && enabled[t]) {
			enabled[t] = false;
			held = true;
		}
	}
	return held;
}

/* Steps that touch an object another thread may touch too. */
static bool touches(const struct cts_event *ev)
{
	if (ev->op == CTS_OP_ALLOC && !ev->obj)
		return false;
	return cts_op_is_kernel(ev->op) || cts_op_is_sync(ev->op) || cts_op_is_range(ev->op);
}

void cts_instance_executed(struct cts_instance *in, int thread, const struct cts_event *ev)
{
	if (thread < 0)
		return;
	fit(in, thread);
	if (in->learner && touches(ev)) {
		if (in->nrecs == in->reccap) {
			size_t cap = cts_grow_cap(in->reccap, in->nrecs + 1);
			in->recs = cts_xgrow(in->recs, in->reccap, cap, sizeof(*in->recs));
			in->reccap = cap;
		}
		in->recs[in->nrecs++] = (struct rec){ .tid = thread, .op = ev->op,
			.point = in->points[thread], .obj = ev->obj, .obj2 = ev->obj2,
			.size = ev->size };
	}
	in->points[thread]++;
	in->last_yield = ev->op == CTS_OP_YIELD;
	if (thread >= in->nmax) {
		in->maxpts = cts_xgrow(in->maxpts, (size_t)in->nmax, (size_t)thread + 1,
				       sizeof(*in->maxpts));
		in->nmax = thread + 1;
	}
	if (in->points[thread] > in->maxpts[thread])
		in->maxpts[thread] = in->points[thread];
}

int cts_instance_points(const struct cts_instance *in, const uint64_t **points)
{
	*points = in->maxpts;
	return in->nmax;
}

/* ---- hot tiles ---- */

#define KERNEL_KEY 1     /* every kernel operation meets every other one */
#define MAX_WORDS 64     /* words of a range looked at (a long copy: its start) */

/* The objects a step touches, as 8-byte words (a mutex's or futex's word is
 * its object); whether it counts as a write. */
static int rec_keys(const struct rec *r, uint64_t *keys, bool *write)
{
	int n = 0;
	*write = true;
	if (cts_op_is_kernel(r->op)) {
		keys[n++] = KERNEL_KEY;
	} else if (cts_op_is_sync(r->op)) {
		keys[n++] = r->obj & ~7ull;
		if (r->obj2 && (r->obj2 & ~7ull) != keys[0])
			keys[n++] = r->obj2 & ~7ull;
	} else {
		*write = cts_op_is_write(r->op);
		uint64_t end = r->obj + (r->size ? r->size : 1);
		for (uint64_t w = r->obj & ~7ull; w < end && n < MAX_WORDS; w += 8)
			keys[n++] = w;
	}
	return n;
}

/* Who touched a word: the first thread and whether there were more; the
 * same for writers. */
struct toucher {
	int first, firstw;
	bool multi, multiw, hasw;
};

int cts_instance_hot(const struct cts_instance *in, uint32_t tile, uint64_t ***hot,
		     uint64_t **nhot)
{
	int n = in->nmax;
	uint64_t keys[MAX_WORDS];
	bool w;
	struct cts_htab *h = cts_htab_new(sizeof(uint64_t), sizeof(struct toucher));
	for (size_t i = 0; i < in->nrecs; i++) {
		const struct rec *r = &in->recs[i];
		int nk = rec_keys(r, keys, &w);
		for (int k = 0; k < nk; k++) {
			bool added;
			struct toucher *t = cts_htab_put(h, &keys[k], &added);
			if (added)
				t->first = r->tid;
			t->multi |= t->first != r->tid;
			if (w && !t->hasw)
				t->firstw = r->tid, t->hasw = true;
			t->multiw |= w && t->firstw != r->tid;
		}
	}
	*hot = n ? cts_xcalloc((size_t)n, sizeof(**hot)) : NULL;
	*nhot = n ? cts_xcalloc((size_t)n, sizeof(**nhot)) : NULL;
	size_t *cap = n ? cts_xcalloc((size_t)n, sizeof(*cap)) : NULL;
	for (size_t i = 0; i < in->nrecs; i++) {
		const struct rec *r = &in->recs[i];
		if (r->tid >= n)
			continue;
		bool conflict = false;
		int nk = rec_keys(r, keys, &w);
		for (int k = 0; k < nk && !conflict; k++) {
			const struct toucher *t = cts_htab_get(h, &keys[k]);
			bool other = t->multi || t->first != r->tid;
			bool other_w = t->multiw || (t->hasw && t->firstw != r->tid);
			conflict = w ? other : other_w;
		}
		uint64_t tl = r->point / tile, *m = &(*nhot)[r->tid];
		if (!conflict || (*m && (*hot)[r->tid][*m - 1] == tl))
			continue;   /* points come in order: a tile once */
		if (*m == cap[r->tid]) {
			size_t c = cts_grow_cap(cap[r->tid], *m + 1);
			(*hot)[r->tid] = cts_xgrow((*hot)[r->tid], cap[r->tid], c, sizeof(uint64_t));
			cap[r->tid] = c;
		}
		(*hot)[r->tid][(*m)++] = tl;
	}
	free(cap);
	cts_htab_free(h);
	return n;
}

/* ---- families ---- */

/* Tiles thread may choose from: all of its tiles, or its hot ones. */
static uint64_t ntiles(const struct cts_tiling *f, int thread)
{
	if (f->hot)
		return f->nhot[thread];
	uint64_t n = f->points[thread];
	return n / f->tile + (n % f->tile != 0);
}

/* The tile of choice k (0 <= k < ntiles) of thread. */
static uint64_t tile_of(const struct cts_tiling *f, int thread, uint64_t k)
{
	return f->hot ? f->hot[thread][k] : k;
}

/* C(n, k), UINT64_MAX when larger. */
static uint64_t binom(uint64_t n, uint64_t k)
{
	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	unsigned __int128 r = 1;
	for (uint64_t j = 1; j <= k; j++) {
		r = r * (n - k + j) / j;   /* exact: a product of j consecutive numbers over j! */
		if (r > UINT64_MAX)
			return UINT64_MAX;
	}
	return (uint64_t)r;
}

/* Choices for one thread: 1 when it has at most z tiles (all of them). */
static uint64_t thread_choices(const struct cts_tiling *f, int thread)
{
	uint64_t m = ntiles(f, thread);
	return m <= f->z ? 1 : binom(m, f->z);
}

uint64_t cts_tiling_count(const struct cts_tiling *f)
{
	unsigned __int128 c = 1;
	for (int j = 0; j < f->nthreads; j++) {
		c *= thread_choices(f, j);
		if (c > UINT64_MAX)
			return UINT64_MAX;
	}
	return (uint64_t)c;
}

/* Thread j of a new instance when it has at most z tiles. */
static bool take_all(const struct cts_tiling *f, struct sel *s, int j)
{
	uint64_t n = f->points[j], all = n / f->tile + (n % f->tile != 0);
	if (all <= f->z) {
		s->all = all > 0;   /* as the paper: it costs no instance */
		return true;
	}
	uint64_t m = ntiles(f, j);
	if (m > f->z)
		return false;
	s->n = (uint32_t)m;   /* all its hot tiles, not every tile */
	s->tiles = m ? cts_xcalloc(m, sizeof(*s->tiles)) : NULL;
	for (uint64_t k = 0; k < m; k++)
		s->tiles[k] = f->hot[j][k];
	return true;
}

struct cts_instance *cts_tiling_nth(const struct cts_tiling *f, uint64_t i)
{
	struct cts_instance *in = instance_new(f->tile, f->nthreads);
	for (int j = 0; j < f->nthreads; j++) {
		struct sel *s = &in->sel[j];
		if (take_all(f, s, j))
			continue;
		uint64_t m = ntiles(f, j), c = thread_choices(f, j), r = i % c;
		i /= c;
		/* Unrank r among the z-subsets of 0..m-1 in lexicographic order. */
		s->n = f->z;
		s->tiles = cts_xcalloc(f->z, sizeof(*s->tiles));
		uint64_t next = 0;
		for (uint32_t pos = 0; pos < f->z; pos++) {
			for (;; next++) {
				uint64_t with = binom(m - next - 1, f->z - pos - 1);
				if (r < with)
					break;
				r -= with;
			}
			s->tiles[pos] = tile_of(f, j, next++);
		}
	}
	return in;
}

struct cts_instance *cts_tiling_draw(const struct cts_tiling *f, uint64_t seed, uint64_t i)
{
	struct cts_instance *in = instance_new(f->tile, f->nthreads);
	struct cts_rng rng;
	uint64_t mix = seed;
	cts_splitmix64(&mix);
	cts_rng_seed(&rng, mix ^ (i * 0xD1B54A32D192ED03ull));
	for (int j = 0; j < f->nthreads; j++) {
		struct sel *s = &in->sel[j];
		if (take_all(f, s, j))
			continue;
		/* Floyd's sampling: z distinct tiles of m, uniformly. */
		uint64_t m = ntiles(f, j);
		s->tiles = cts_xcalloc(f->z, sizeof(*s->tiles));
		for (uint64_t k = m - f->z; k < m; k++) {
			uint64_t r = cts_rng_below(&rng, k + 1);
			bool have = false;
			for (uint32_t q = 0; q < s->n && !have; q++)
				have = s->tiles[q] == r;
			s->tiles[s->n++] = have ? k : r;
		}
		for (uint32_t q = 0; q < s->n; q++)
			s->tiles[q] = tile_of(f, j, s->tiles[q]);
		qsort(s->tiles, s->n, sizeof(*s->tiles), cmp_u64);
	}
	return in;
}

/* ---- --instances ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Add one exploration's result to the total; runs are numbered on. */
static void merge(struct cts_explore_result *tot, struct cts_explore_result *part)
{
	tot->runs += part->runs;
	tot->steps += part->steps;
	for (int i = 0; i < part->nbugs; i++) {
		struct cts_bug *b = &part->bugs[i];
		int k;
		for (k = 0; k < tot->nbugs; k++)
			if (tot->bugs[k].kind == b->kind && strcmp(tot->bugs[k].message, b->message) == 0)
				break;
		if (k < tot->nbugs) {
			tot->bugs[k].hits += b->hits;
			continue;
		}
		tot->bugs = cts_xrealloc(tot->bugs, ((size_t)tot->nbugs + 1) * sizeof(*tot->bugs));
		tot->bugs[tot->nbugs++] = *b;
		b->trace = NULL; /* the total owns it now */
	}
	tot->ninconclusive += part->ninconclusive;
	tot->relearned += part->relearned;
	tot->discarded += part->discarded;
	tot->spin_restarts += part->spin_restarts;
	tot->quiet_repeats += part->quiet_repeats;
	tot->ncut += part->ncut;
	for (size_t op = 0; op < sizeof(tot->ops) / sizeof(tot->ops[0]); op++)
		tot->ops[op] += part->ops[op];
	for (int i = 0; i < part->nlisted && tot->nlisted < CTS_INCONCLUSIVE_LISTED; i++) {
		tot->inconclusive = cts_xrealloc(tot->inconclusive, ((size_t)tot->nlisted + 1) *
						 sizeof(*tot->inconclusive));
		tot->inconclusive[tot->nlisted++] = part->inconclusive[i];
	}
	if (!tot->unseen[0])
		snprintf(tot->unseen, sizeof(tot->unseen), "%s", part->unseen);
	if (part->internal_error) {
		tot->internal_error = true;
		tot->bad_input = part->bad_input;
		snprintf(tot->error, sizeof(tot->error), "%s", part->error);
	}
	cts_explore_result_free(part);
}

/* Hot instances searched before the uniform draws, at most. */
#define HOT_MAX 4096

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* i -> (a i + b) mod n with a prime to n: each of 0..n-1 once, in an order
 * drawn from seed (lexicographic order would vary the last thread's tiles
 * first). */
static uint64_t shuffle(uint64_t seed, uint64_t i, uint64_t n)
{
	uint64_t mix = seed ^ 0x9E3779B97F4A7C15ull;
	uint64_t a = cts_splitmix64(&mix) % n, b = cts_splitmix64(&mix) % n;
	while (gcd(a ? a : n, n) != 1)
		a = (a + 1) % n;
	return (uint64_t)(((unsigned __int128)a * i + b) % n);
}

/* One search: a fresh strategy over cfg (its instance set by the caller). */
static int search_one(const struct cts_instances_config *ic, uint64_t seed,
		      const struct cts_explorer_config *cfg, struct cts_backend *backend,
		      struct cts_objmodel *model, struct cts_explore_result *part)
{
	struct cts_strategy_config sc = *ic->scfg;
	char err[256];
	sc.seed = seed;
	sc.split = NULL; /* an instance is one work item, searched whole */
	struct cts_strategy *s = cts_strategy_create(ic->strategy, &sc, err, sizeof(err));
	if (!s) {
		memset(part, 0, sizeof(*part));
		part->internal_error = true;
		snprintf(part->error, sizeof(part->error), "%s", err);
		return -1;
	}
	int rc = cts_explore(cfg, backend, model, s, part);
	cts_strategy_destroy(s);
	return rc;
}

/* The search so far counted the events of a smaller learned set (a void
 * run taught the tracer shared lines, cts_run_state.relearn): its runs are
 * discarded, as a one-process search's are when it begins again; what they
 * found stays. */
static void begin_again(struct cts_explore_result *res, struct cts_instances_stats *stats)
{
	cts_explore_result_discard_runs(res);
	stats->points = 0;
	stats->searched = stats->exhausted = stats->nlist = 0;
}

int cts_explore_instances(const struct cts_instances_config *ic,
			  const struct cts_explorer_config *cfg, struct cts_backend *backend,
			  struct cts_objmodel *model, struct cts_explore_result *res,
			  struct cts_instances_stats *stats)
{
	struct cts_explorer_config c = *cfg;
	struct cts_explore_result part;
	double start = now_s();
	int rc;

	memset(res, 0, sizeof(*res));
	memset(stats, 0, sizeof(*stats));
	/* One race detector for every instance: a race is reported once, with
	 * the runs of all instances that saw it. */
	if (cfg->races)
		res->races = c.race_detector = cts_race_new();
	/* Under a split the explorer gets it only to stop at once when this
	 * process finds a bug or another one did (a CTS_WORK_INSTANCE split
	 * hands out no runs: an instance's search is whole). */
	struct cts_split *split = cfg->split;
	/* A void run ends its search here: the points and the tiling are of
	 * the events the learned set shows, so the whole search begins again. */
	c.relearn_ends = cfg->relearn;
	uint64_t *points = NULL;
	uint64_t **hot = NULL, *nhot = NULL;
	int n = 0;
	/* The first run, unrestricted, counts each thread's points. Under a
	 * split every process makes it; one counts and judges it (the others
	 * neither report nor stop the search at a bug in it). */
again:;
	bool judge = !split || cts_split_first(split);
	struct cts_instance *learn = cts_instance_learner();
	c.instance = learn;
	c.runs = 1;
	if (!judge) /* nor does it feed the race detector */
		c.quiet = true, c.verbose = false, c.split = NULL, c.races = 0;
	rc = search_one(ic, ic->scfg->seed, &c, backend, model, &part);
	c.quiet = cfg->quiet, c.verbose = cfg->verbose, c.split = split, c.races = cfg->races;
	bool relearned = part.relearn_ended;
	bool stop = cts_explore_interrupted() || (part.nbugs && cfg->stop_on_bug) ||
		    (split && cts_split_stopped(split));
	if (judge) {
		merge(res, &part);
	} else {
		stats->walk_runs += part.runs;
		cts_explore_result_free(&part);
	}
	if (relearned && rc == 0 && !stop) {
		/* every process learns the same from the same first run */
		cts_instance_free(learn);
		begin_again(res, stats);
		goto again;
	}
	const uint64_t *pts;
	n = cts_instance_points(learn, &pts);
	points = n ? cts_xcalloc((size_t)n, sizeof(*points)) : NULL;
	for (int j = 0; j < n; j++) {
		points[j] = pts[j];
		stats->points += pts[j];
	}
	uint64_t nhot_all = 0;
	if (!ic->uniform && n)
		cts_instance_hot(learn, ic->tile, &hot, &nhot);
	for (int j = 0; j < n && hot; j++)
		nhot_all += nhot[j];
	cts_instance_free(learn);
	struct cts_tiling fam = { .tile = ic->tile, .z = ic->z, .nthreads = n, .points = points };
	struct cts_tiling hfam = fam;
	hfam.hot = hot;
	hfam.nhot = nhot;
	/* The hot family first (in order when it is small), then the paper's
	 * uniform draws; no hot instance when the first run showed no conflict. */
	uint64_t hcount = nhot_all ? cts_tiling_count(&hfam) : 0;
	stats->hot = hcount < HOT_MAX ? hcount : HOT_MAX;
	stats->nthreads = n;
	stats->family = cts_tiling_count(&fam);
	if (c.log && !c.quiet && judge) {
		fprintf(c.log, "cts-trace: instances: first run: %d thread%s, %" PRIu64 " points; "
			"tiles of %" PRIu32 " points, %" PRIu32 " per thread: %s%" PRIu64 " instances\n",
			n, n == 1 ? "" : "s", stats->points, ic->tile, ic->z,
			stats->family == UINT64_MAX ? "more than " : "", stats->family);
		if (!ic->uniform)
			fprintf(c.log, "cts-trace: instances: %" PRIu64 " tiles hold conflicting "
				"steps: the first %" PRIu64 " instances choose among them%s\n",
				nhot_all, stats->hot, hcount > HOT_MAX ? " (drawn)" : "");
	}

	c.runs = cfg->runs;
	relearned = false;
	for (uint64_t next = 0; rc == 0 && !res->internal_error && !stop; next++) {
		if (res->nbugs && cfg->stop_on_bug)
			break;
		uint64_t i = next;
		struct cts_work_item it;
		if (split) {
			if (!cts_split_next_item(split, ic->count, &it))
				break;
			i = it.index;
		} else if (i >= ic->count) {
			break;
		}
		if (cfg->time_limit > 0) {
			double left = cfg->time_limit - (now_s() - start);
			if (left <= 0)
				break;
			c.time_limit = left;
		}
		struct cts_instance *in =
			i >= stats->hot ? cts_tiling_draw(&fam, ic->seed, i - stats->hot) :
			hcount > HOT_MAX ? cts_tiling_draw(&hfam, ic->seed, i) :
			cts_tiling_nth(&hfam, shuffle(ic->seed, i, hcount));
		c.instance = in;
		if (c.log && cts_verbosity >= 2) {
			char spec[256];
			cts_instance_format(in, spec, sizeof(spec));
			fprintf(c.log, "cts-trace: instance %" PRIu64 ": %s%s\n", i, spec,
				cts_instance_format(in, NULL, 0) >= (int)sizeof(spec) ? "..." : "");
		}
		/* Seeds differ per instance, so random and pct draw afresh in each. */
		c.run_base = res->runs;
		uint64_t mix = ic->scfg->seed ^ (i + 1);
		rc = search_one(ic, cts_splitmix64(&mix), &c, backend, model, &part);
		relearned = part.relearn_ended;
		if (!relearned) {
			stats->searched++;
			stats->exhausted += part.exhausted;
			stats->list = cts_xrealloc(stats->list, (stats->nlist + 1) * sizeof(*stats->list));
			stats->list[stats->nlist++] = i;
		}
		if (part.nbugs && !stats->found_in[0]) {
			stats->found_index = i;
			if (cts_instance_format(in, stats->found_in, sizeof(stats->found_in)) >=
			    (int)sizeof(stats->found_in))
				stats->found_in[0] = 0;
		}
		merge(res, &part);
		cts_instance_free(in);
		if (cts_explore_interrupted() || relearned)
			break;
	}
	for (int j = 0; j < n && hot; j++)
		free(hot[j]);
	free(hot);
	free(nhot);
	hot = NULL;
	nhot = NULL;
	if (relearned && rc == 0 && !res->internal_error && !cts_explore_interrupted() &&
	    !(res->nbugs && cfg->stop_on_bug)) {
		if (split && !cts_split_restart(split)) {
			/* --jobs: every worker begins again on the union of the
			 * learned sets (tracer/jobs.h), as in a split search */
			cts_split_learned(split);
		} else {
			free(points);
			points = NULL;
			begin_again(res, stats);
			cts_debug_msg("instances: a run learned shared lines: the first run and "
				      "the instances begin again");
			goto again;
		}
	}
	stats->thread_points = points;
	res->elapsed = now_s() - start;
	res->exhausted = res->complete = false;
	return rc;
}

void cts_instances_stats_fini(struct cts_instances_stats *stats)
{
	free(stats->thread_points);
	stats->thread_points = NULL;
	free(stats->list);
	stats->list = NULL;
	stats->nlist = 0;
}

json_t *cts_instances_json(const struct cts_instances_config *ic,
			   const struct cts_instances_stats *stats)
{
	json_t *list = json_array(), *pts = json_array();
	for (uint64_t k = 0; k < stats->nlist; k++)
		json_array_append_new(list, json_integer((json_int_t)stats->list[k]));
	for (int j = 0; j < stats->nthreads; j++)
		json_array_append_new(pts, json_integer((json_int_t)stats->thread_points[j]));
	json_t *o = json_pack("{sIsIsIsIsisIsosIsIso}", "tile", (json_int_t)ic->tile,
			      "tiles_per_thread", (json_int_t)ic->z, "drawn", (json_int_t)ic->count,
			      "seed", (json_int_t)ic->seed, "threads", stats->nthreads,
			      "points", (json_int_t)stats->points,
			      "family", stats->family == UINT64_MAX ? json_null() :
					json_integer((json_int_t)stats->family),
			      "searched", (json_int_t)stats->searched,
			      "exhausted", (json_int_t)stats->exhausted,
			      "bug_instance", stats->found_in[0] ? json_string(stats->found_in) :
					      json_null());
	json_object_set_new(o, "bug_index", stats->found_in[0] ?
			    json_integer((json_int_t)stats->found_index) : json_null());
	json_object_set_new(o, "thread_points", pts);
	json_object_set_new(o, "searched_instances", list);
	json_object_set_new(o, "walk_runs", json_integer((json_int_t)stats->walk_runs));
	json_object_set_new(o, "tile_pick", json_string(ic->uniform ? "uniform" : "conflicts"));
	json_object_set_new(o, "hot", json_integer((json_int_t)stats->hot));
	return o;
}
