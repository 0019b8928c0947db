/* The unfolding of the Petri-net model with cut-offs (unfold.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "models/error.h"
#include "strategies/unfold.h"

enum { E_EXT, E_ADDED, E_CUTOFF, E_DROPPED };

struct cond {
	uint32_t comp, place, depth;
	int32_t parent;    /* the condition of the same component before, -1 initial */
	int32_t producer;  /* -1: initial */
	int32_t child, sibling; /* the conditions whose parent this is: a list */
	int32_t pos;       /* index in byc[comp], -1 not there (initial, or dropped) */
};

struct u32v {
	uint32_t *v;
	size_t n, cap;
};

struct lt {
	uint32_t level, trans;
};

struct event {
	int tid;
	bool exit;         /* a thread's end: replayed as late as it can be */
	uint8_t state, runs, pe_tries;
	uint32_t trans, mark, npre, size, level, label, last_unknown;
	uint32_t *pre;     /* preset conditions, ascending */
	uint32_t *post;    /* the place each preset component gets */
	uint32_t *postc;   /* the conditions made for them once added */
	uint64_t *cut;     /* (comp << 32 | cond), by comp: of [•e] while an extension,
	                    * of [e] once added; initial conditions left out */
	uint32_t ncut;
	uint32_t *parikh;  /* the transitions of [e], ascending */
	struct lt *foata;  /* [e]'s Foata normal form once the order needed it */
	uint64_t hash;
};

struct cts_unf {
	bool cutoffs, incomplete;
	bool scan_pe;      /* the straightforward possible extensions (CTS_UNF_PE=scan) */
	struct cts_petri *net;
	struct cts_pmark *m0, *mk, *mf;
	struct cond *conds;
	size_t nconds, condcap;
	/* The co-relation (Khomenko & Koutny): co[b], ascending, the non-initial
	 * conditions concurrent with b, kept up to date as events are added. An
	 * initial condition is concurrent with b when [•b] never touched its
	 * component, which b's cut tells: such pairs are not stored. */
	struct u32v *co;
	uint64_t nco;      /* entries in all co lists */
	struct event *ev;
	size_t nev, evcap;
	int32_t *initc;    /* comp -> its initial condition, -1 none yet */
	uint32_t *cmark;   /* comp -> stamp, to see each needed component once */
	uint8_t *inS;      /* comp -> the co-set being grown has a condition of it */
	uint32_t cgen;
	uint32_t *need;    /* the components a transition touches (pe_resolve) */
	size_t needcap;
	struct u32v *byc;  /* comp -> conditions usable for extensions */
	size_t ncomp;
	uint32_t *heap;    /* extensions, ERV-least first */
	size_t nheap, heapcap;
	uint32_t *slots;   /* dedupe of events: id + 1 */
	size_t nslots;
	uint8_t *visited;  /* by stored marking id */
	size_t nvisited;
	uint32_t *stamp;   /* by event, for walking configurations */
	size_t stampcap;
	uint32_t gen;
	uint32_t nadded;
	int maxt;          /* threads seen in the markings of added events */
	/* events whose extensions wait for runs, and the runs */
	struct u32v redo;
	struct {
		int *tids;
		uint32_t *evs;
		size_t n;
		bool soft;
	} *runs;
	size_t nruns, runcap, runhead;
	int *target;
	uint32_t *tevents;
	size_t ntarget, tcap;
	bool boot;         /* the extensions of the initial state are found */
	uint32_t cur_e;    /* the event being extended (-1: the initial state) */
	bool pe_unknown;
	uint64_t cutcount, markings, dropped, iter;
	bool late;            /* out_of_time saw the deadline pass */
	/* without cut-offs, once the prefix is complete: runs until every event
	 * was executed by one (cover) */
	uint64_t cover_runs;  /* runs queued for that */
	bool covered;         /* every event was */
	struct u32v ran;      /* the threads of the runs' steps, each run ended by
	                       * UINT32_MAX (cts_unf_ran), replayed from ran_pos on */
	size_t ran_pos;
	uint32_t *cover_order; /* added events by label, the next one at cover_next */
	size_t ncover, cover_next;
	uint8_t *executed;    /* by event: some run executed it */
	double deadline;
	const volatile sig_atomic_t *stop;
	char why[160];
};

#define MAX_TRIES 3

static void note(struct cts_unf *u, const char *why)
{
	u->incomplete = true;
	if (!u->why[0])
		snprintf(u->why, sizeof(u->why), "%s", why);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The deadline passed or the user interrupted: the search unwinds. The
 * clock is read every 64 calls, the flag at each. */
static bool out_of_time(struct cts_unf *u)
{
	if (u->late || (u->stop && *u->stop))
		return true;
	/* once seen, the deadline stays passed: the search unwinds at once, not
	 * one call in 64 while the rest go on */
	u->late = (++u->iter & 63) == 0 && u->deadline > 0 && now_s() > u->deadline;
	return u->late;
}

static void u32_push(struct u32v *a, uint32_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 8;
		a->v = cts_xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = x;
}

struct cts_unf *cts_unf_new(bool cutoffs)
{
	struct cts_unf *u = cts_xcalloc(1, sizeof(*u));
	u->cutoffs = cutoffs;
	u->cur_e = UINT32_MAX;
	const char *pe = getenv("CTS_UNF_PE");
	u->scan_pe = pe && strcmp(pe, "scan") == 0;
	return u;
}

void cts_unf_free(struct cts_unf *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nev; i++) {
		free(u->ev[i].pre);
		free(u->ev[i].post);
		free(u->ev[i].postc);
		free(u->ev[i].cut);
		free(u->ev[i].parikh);
		free(u->ev[i].foata);
	}
	for (size_t i = 0; i < u->ncomp; i++)
		free(u->byc[i].v);
	for (size_t i = 0; i < u->nconds; i++)
		free(u->co[i].v);
	free(u->co);
	for (size_t i = 0; i < u->nruns; i++) {
		free(u->runs[i].tids);
		free(u->runs[i].evs);
	}
	free(u->runs);
	free(u->redo.v);
	free(u->ran.v);
	free(u->cover_order);
	free(u->executed);
	free(u->byc);
	free(u->initc);
	free(u->cmark);
	free(u->inS);
	free(u->need);
	free(u->conds);
	free(u->ev);
	free(u->heap);
	free(u->slots);
	free(u->visited);
	free(u->stamp);
	free(u->target);
	free(u->tevents);
	cts_pmark_free(u->m0);
	cts_pmark_free(u->mk);
	cts_pmark_free(u->mf);
	free(u);
}

/* ---- conditions ---- */

static void comps_grow(struct cts_unf *u, uint32_t comp)
{
	if (comp < u->ncomp)
		return;
	size_t nc = u->ncomp ? u->ncomp : 64;
	while (nc <= comp)
		nc *= 2;
	u->initc = cts_xrealloc(u->initc, nc * sizeof(*u->initc));
	u->byc = cts_xrealloc(u->byc, nc * sizeof(*u->byc));
	u->cmark = cts_xgrow(u->cmark, u->ncomp, nc, sizeof(*u->cmark));
	u->inS = cts_xgrow(u->inS, u->ncomp, nc, sizeof(*u->inS));
	for (size_t i = u->ncomp; i < nc; i++) {
		u->initc[i] = -1;
		memset(&u->byc[i], 0, sizeof(u->byc[i]));
	}
	u->ncomp = nc;
}

static uint32_t cond_new(struct cts_unf *u, uint32_t comp, uint32_t place, int32_t parent,
			 int32_t producer)
{
	if (u->nconds == u->condcap) {
		size_t nc = u->condcap ? u->condcap * 2 : 1024;
		u->conds = cts_xrealloc(u->conds, nc * sizeof(*u->conds));
		u->co = cts_xgrow(u->co, u->condcap, nc, sizeof(*u->co));
		u->condcap = nc;
	}
	uint32_t id = (uint32_t)u->nconds++;
	u->conds[id] = (struct cond){ .comp = comp, .place = place, .parent = parent,
				      .producer = producer, .child = -1, .sibling = -1, .pos = -1,
				      .depth = parent < 0 ? 0 : u->conds[parent].depth + 1 };
	if (parent >= 0) {
		u->conds[id].sibling = u->conds[parent].child;
		u->conds[parent].child = (int32_t)id;
	}
	return id;
}

/* The initial condition of comp (made on first use: the net's components
 * appear as runs show them). */
static uint32_t init_cond(struct cts_unf *u, uint32_t comp)
{
	comps_grow(u, comp);
	if (u->initc[comp] < 0) {
		uint32_t c = cond_new(u, comp, cts_pmark_place(u->net, u->m0, comp), -1, -1);
		u->initc[comp] = (int32_t)c;
	}
	return (uint32_t)u->initc[comp];
}

/* a is b or comes before it on their component's chain. */
static bool is_anc(const struct cts_unf *u, uint32_t a, uint32_t b)
{
	while (u->conds[b].depth > u->conds[a].depth)
		b = (uint32_t)u->conds[b].parent;
	return a == b;
}

static uint32_t cut_comp(uint64_t x)
{
	return (uint32_t)(x >> 32);
}

static uint32_t cut_cond(uint64_t x)
{
	return (uint32_t)x;
}

/* The condition of comp in cut, or its initial one. */
static uint32_t cut_find(struct cts_unf *u, const uint64_t *cut, size_t n, uint32_t comp)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cut_comp(cut[mid]) == comp)
			return cut_cond(cut[mid]);
		if (cut_comp(cut[mid]) < comp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return init_cond(u, comp);
}

/* The cut of the union of two configurations into out (room for na + nb);
 * false when they conflict (some component's histories branch apart). */
static bool cut_merge(const struct cts_unf *u, const uint64_t *a, size_t na, const uint64_t *b,
		      size_t nb, uint64_t *out, size_t *nout)
{
	size_t i = 0, j = 0, k = 0;
	while (i < na || j < nb) {
		if (j == nb || (i < na && cut_comp(a[i]) < cut_comp(b[j]))) {
			out[k++] = a[i++];
		} else if (i == na || cut_comp(b[j]) < cut_comp(a[i])) {
			out[k++] = b[j++];
		} else {
			uint32_t x = cut_cond(a[i]), y = cut_cond(b[j]);
			if (is_anc(u, x, y))
				out[k++] = b[j];
			else if (is_anc(u, y, x))
				out[k++] = a[i];
			else
				return false;
			i++;
			j++;
		}
	}
	*nout = k;
	return true;
}

/* ---- the co-relation ---- */

/* Does the cut name comp (did an event of its configuration touch it)? */
static bool cut_has(const uint64_t *cut, size_t n, uint32_t comp)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cut_comp(cut[mid]) == comp)
			return true;
		if (cut_comp(cut[mid]) < comp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool u32_has(const struct u32v *a, uint32_t x)
{
	size_t lo = 0, hi = a->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (a->v[mid] == x)
			return true;
		if (a->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The cut of [•b] (of its producer's local configuration), empty for an
 * initial condition. */
static const uint64_t *cond_cut(const struct cts_unf *u, uint32_t b, size_t *n)
{
	int32_t p = u->conds[b].producer;
	*n = p >= 0 ? u->ev[p].ncut : 0;
	return p >= 0 ? u->ev[p].cut : NULL;
}

/* A condition of an event dropped since (a held-back spinner's step). */
static bool cond_dead(const struct cts_unf *u, uint32_t b)
{
	return u->conds[b].producer >= 0 && u->conds[b].pos < 0;
}

/* a co b: some reachable cut holds both (distinct components; neither's
 * history consumes the other; no conflict). */
static bool is_co(const struct cts_unf *u, uint32_t a, uint32_t b)
{
	if (a == b || u->conds[a].comp == u->conds[b].comp)
		return false;
	bool ia = u->conds[a].producer < 0, ib = u->conds[b].producer < 0;
	size_t n;
	const uint64_t *c;
	if (ia && ib)
		return true;
	if (ia || ib) {
		c = cond_cut(u, ia ? b : a, &n);
		return !cut_has(c, n, u->conds[ia ? a : b].comp);
	}
	return u->co[a].n <= u->co[b].n ? u32_has(&u->co[a], b) : u32_has(&u->co[b], a);
}

/* ---- configurations ---- */

static void stamp_next(struct cts_unf *u)
{
	if (u->stampcap < u->nev) {
		size_t nc = u->nev * 2;
		u->stamp = cts_xrealloc(u->stamp, nc * sizeof(*u->stamp));
		memset(u->stamp + u->stampcap, 0, (nc - u->stampcap) * sizeof(*u->stamp));
		u->stampcap = nc;
	}
	if (++u->gen == 0) {
		memset(u->stamp, 0, u->stampcap * sizeof(*u->stamp));
		u->gen = 1;
	}
}

/* The events of the configuration whose cut is given (every event of it
 * made one of the chains that end there), into out. */
static void config_events(struct cts_unf *u, const uint64_t *cut, size_t n, struct u32v *out)
{
	stamp_next(u);
	out->n = 0;
	for (size_t i = 0; i < n; i++) {
		int32_t p = u->conds[cut_cond(cut[i])].producer;
		if (p >= 0 && u->stamp[p] != u->gen) {
			u->stamp[p] = u->gen;
			u32_push(out, (uint32_t)p);
		}
	}
	for (size_t k = 0; k < out->n; k++) {
		const struct event *e = &u->ev[out->v[k]];
		for (uint32_t i = 0; i < e->npre; i++) {
			int32_t p = u->conds[e->pre[i]].producer;
			if (p >= 0 && u->stamp[p] != u->gen) {
				u->stamp[p] = u->gen;
				u32_push(out, (uint32_t)p);
			}
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Parikh vectors as ascending lists, compared lexicographically on the
 * vectors (transitions in id order): at the first transition the two
 * counts differ, more of it is greater. */
static int parikh_cmp(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		if (a[i] != b[j])
			return a[i] < b[j] ? 1 : -1;
		i++;
		j++;
	}
	return i < na ? 1 : j < nb ? -1 : 0;
}

/* the (comp << 32 | cond) pairs sort by comp: compare the whole words */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_lt(const void *a, const void *b)
{
	const struct lt *x = a, *y = b;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->trans < y->trans ? -1 : x->trans > y->trans;
}

/* [e] as (level, transition), sorted: its Foata normal form, e->size long.
 * A configuration never changes, so it is made once. */
static const struct lt *foata(struct cts_unf *u, uint32_t e)
{
	if (u->ev[e].foata)
		return u->ev[e].foata;
	struct u32v evs = { 0 };
	config_events(u, u->ev[e].cut, u->ev[e].ncut, &evs);
	if (u->ev[e].state != E_ADDED)  /* its cut is still [•e]'s */
		u32_push(&evs, e);
	struct lt *f = cts_xmalloc((evs.n + 1) * sizeof(*f));
	for (size_t i = 0; i < evs.n; i++)
		f[i] = (struct lt){ u->ev[evs.v[i]].level, u->ev[evs.v[i]].trans };
	qsort(f, evs.n, sizeof(*f), cmp_lt);
	free(evs.v);
	u->ev[e].foata = f;
	return f;
}

/* The ERV adequate order on local configurations: size, then Parikh
 * vector, then Foata normal form (level by level, each as a Parikh vector:
 * a level's transitions are ascending in the normal form). */
static int erv_cmp(struct cts_unf *u, uint32_t a, uint32_t b)
{
	const struct event *x = &u->ev[a], *y = &u->ev[b];
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	int c = parikh_cmp(x->parikh, x->size, y->parikh, y->size);
	if (c)
		return c;
	size_t n = x->size;
	const struct lt *f = foata(u, a), *g = foata(u, b);
	size_t i = 0, j = 0;
	while (!c && i < n && j < n) {
		uint32_t l = f[i].level < g[j].level ? f[i].level : g[j].level;
		size_t i2 = i, j2 = j;
		while (i2 < n && f[i2].level == l)
			i2++;
		while (j2 < n && g[j2].level == l)
			j2++;
		/* parikh_cmp over the two levels' transitions */
		size_t p = i, q = j;
		while (!c && p < i2 && q < j2) {
			if (f[p].trans != g[q].trans)
				c = f[p].trans < g[q].trans ? 1 : -1;
			p++;
			q++;
		}
		if (!c)
			c = p < i2 ? 1 : q < j2 ? -1 : 0;
		i = i2;
		j = j2;
	}
	return c ? c : a < b ? -1 : a > b;
}

/* ---- the extensions' heap ---- */

static void heap_push(struct cts_unf *u, uint32_t e)
{
	if (u->nheap == u->heapcap) {
		u->heapcap = u->heapcap ? u->heapcap * 2 : 256;
		u->heap = cts_xrealloc(u->heap, u->heapcap * sizeof(*u->heap));
	}
	size_t i = u->nheap++;
	u->heap[i] = e;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (erv_cmp(u, u->heap[i], u->heap[p]) >= 0)
			break;
		uint32_t t = u->heap[i];
		u->heap[i] = u->heap[p];
		u->heap[p] = t;
		i = p;
	}
}

static void heap_pop(struct cts_unf *u)
{
	u->heap[0] = u->heap[--u->nheap];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < u->nheap && erv_cmp(u, u->heap[l], u->heap[m]) < 0)
			m = l;
		if (r < u->nheap && erv_cmp(u, u->heap[r], u->heap[m]) < 0)
			m = r;
		if (m == i)
			break;
		uint32_t t = u->heap[i];
		u->heap[i] = u->heap[m];
		u->heap[m] = t;
		i = m;
	}
}

/* ---- events ---- */

static uint64_t ev_hash(int tid, uint32_t trans, const uint32_t *pre, uint32_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)tid << 32 ^ trans;
	for (uint32_t i = 0; i < n; i++) {
		h ^= pre[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 31;
	}
	return h ? h : 1;
}

static void slots_grow(struct cts_unf *u)
{
	size_t ns = u->nslots ? u->nslots * 2 : 1024;
	uint32_t *s = cts_xcalloc(ns, sizeof(*s));
	for (size_t e = 0; e < u->nev; e++) {
		size_t i = (size_t)u->ev[e].hash & (ns - 1);
		while (s[i])
			i = (i + 1) & (ns - 1);
		s[i] = (uint32_t)e + 1;
	}
	free(u->slots);
	u->slots = s;
	u->nslots = ns;
}

/* Is there an event already with this thread, transition and preset? */
static bool ev_known(const struct cts_unf *u, uint64_t h, int tid, uint32_t trans,
		     const uint32_t *pre, uint32_t n)
{
	if (!u->nslots)
		return false;
	for (size_t i = (size_t)h & (u->nslots - 1); u->slots[i]; i = (i + 1) & (u->nslots - 1)) {
		const struct event *e = &u->ev[u->slots[i] - 1];
		if (e->hash == h && e->tid == tid && e->trans == trans && e->npre == n &&
		    memcmp(e->pre, pre, n * sizeof(*pre)) == 0)
			return true;
	}
	return false;
}

/* The marking of the configuration with this cut into u->mk. */
static void cut_marking(struct cts_unf *u, const uint64_t *cut, size_t n)
{
	cts_pmark_copy(u->mk, u->m0);
	for (size_t i = 0; i < n; i++)
		cts_pmark_set(u->net, u->mk, cut_comp(cut[i]), u->conds[cut_cond(cut[i])].place);
}

/* A new extension: tid fires its transition at u->mk (the marking of the
 * co-set S's configuration, cut given) consuming S. */
static void ev_add_ext(struct cts_unf *u, int tid, const uint32_t *S, size_t nS,
		       const uint64_t *cut, size_t ncut)
{
	uint32_t trans = cts_petri_key(u->net, u->mk, tid) - 1;
	uint32_t *pre = cts_xmalloc(nS * sizeof(*pre));
	memcpy(pre, S, nS * sizeof(*pre));
	qsort(pre, nS, sizeof(*pre), cmp_u32);
	uint64_t h = ev_hash(tid, trans, pre, (uint32_t)nS);
	if (ev_known(u, h, tid, trans, pre, (uint32_t)nS)) {
		free(pre);
		return;
	}
	cts_pmark_copy(u->mf, u->mk);
	if (!cts_petri_fire(u->net, u->mf, tid)) {
		free(pre);
		return;
	}
	if (u->nev == u->evcap) {
		u->evcap = u->evcap ? u->evcap * 2 : 1024;
		u->ev = cts_xrealloc(u->ev, u->evcap * sizeof(*u->ev));
	}
	uint32_t id = (uint32_t)u->nev++;
	struct event *e = &u->ev[id];
	memset(e, 0, sizeof(*e));
	const struct cts_event *op = cts_petri_next_op(u->net, u->mk, tid);
	e->exit = op && op->op == CTS_OP_THREAD_EXIT;
	e->tid = tid;
	e->trans = trans;
	e->state = E_EXT;
	e->label = UINT32_MAX;
	e->pre = pre;
	e->npre = (uint32_t)nS;
	e->hash = h;
	e->post = cts_xmalloc(nS * sizeof(*e->post));
	for (size_t i = 0; i < nS; i++)
		e->post[i] = cts_pmark_place(u->net, u->mf, u->conds[pre[i]].comp);
	bool fresh;
	e->mark = cts_petri_store(u->net, u->mf, &fresh);
	e->cut = cts_xmalloc((ncut + 1) * sizeof(*e->cut));
	memcpy(e->cut, cut, ncut * sizeof(*cut));
	e->ncut = (uint32_t)ncut;
	for (size_t i = 0; i < nS; i++) {
		int32_t p = u->conds[pre[i]].producer;
		if (p >= 0 && u->ev[p].level + 1 > e->level)
			e->level = u->ev[p].level + 1;
	}
	if (!e->level)
		e->level = 1;
	struct u32v evs = { 0 };
	config_events(u, cut, ncut, &evs);
	e = &u->ev[id];
	e->size = (uint32_t)evs.n + 1;
	e->parikh = cts_xmalloc(e->size * sizeof(*e->parikh));
	for (size_t i = 0; i < evs.n; i++)
		e->parikh[i] = u->ev[evs.v[i]].trans;
	e->parikh[evs.n] = trans;
	qsort(e->parikh, e->size, sizeof(*e->parikh), cmp_u32);
	free(evs.v);
	if ((u->nev + 1) * 2 > u->nslots)
		slots_grow(u);
	else {
		size_t i = (size_t)h & (u->nslots - 1);
		while (u->slots[i])
			i = (i + 1) & (u->nslots - 1);
		u->slots[i] = id + 1;
	}
	heap_push(u, id);
}

/* ---- possible extensions ---- */

struct pe {
	int tid;
	uint32_t must;    /* an event whose postset the co-set must use, UINT32_MAX none */
	uint32_t *S;
	size_t nS, capS;
};

static bool uses_must(const struct cts_unf *u, const struct pe *p)
{
	if (p->must == UINT32_MAX)
		return true;
	for (size_t i = 0; i < p->nS; i++)
		if (u->conds[p->S[i]].producer == (int32_t)p->must)
			return true;
	return false;
}

/* Asks for a run to the configuration with this cut, then tid's step. */
static void want_run(struct cts_unf *u, const uint64_t *cut, size_t ncut, int tid)
{
	struct u32v evs = { 0 };
	config_events(u, cut, ncut, &evs);
	/* in the order they were added: causes first */
	for (size_t i = 1; i < evs.n; i++)
		for (size_t j = i; j > 0 && u->ev[evs.v[j - 1]].label > u->ev[evs.v[j]].label; j--) {
			uint32_t t = evs.v[j];
			evs.v[j] = evs.v[j - 1];
			evs.v[j - 1] = t;
		}
	/* A thread's end waits for the first step that depends on it: the
	 * steps concurrent with it ran while that thread lived (whether a
	 * thread runs alone changes what the tracer shows of it). */
	struct u32v ord = { 0 }, pend = { 0 }, past = { 0 };
	for (size_t i = 0; i < evs.n; i++) {
		const struct event *x = &u->ev[evs.v[i]];
		if (x->exit) {
			u32_push(&pend, evs.v[i]);
			continue;
		}
		if (pend.n) {
			config_events(u, x->cut, x->ncut, &past);
			for (size_t j = 0; j < pend.n; j++) {
				bool dep = false;
				for (size_t k = 0; k < past.n && !dep; k++)
					dep = past.v[k] == pend.v[j];
				if (dep) {
					u32_push(&ord, pend.v[j]);
					pend.v[j--] = pend.v[--pend.n];
				}
			}
		}
		u32_push(&ord, evs.v[i]);
	}
	for (size_t j = 0; j < pend.n; j++)
		u32_push(&ord, pend.v[j]);
	free(pend.v);
	free(past.v);
	free(evs.v);
	evs = ord;
	if (u->nruns == u->runcap) {
		u->runcap = u->runcap ? u->runcap * 2 : 16;
		u->runs = cts_xrealloc(u->runs, u->runcap * sizeof(*u->runs));
	}
	int *tids = cts_xmalloc((evs.n + 1) * sizeof(*tids));
	for (size_t i = 0; i < evs.n; i++)
		tids[i] = u->ev[evs.v[i]].tid;
	tids[evs.n] = tid;
	size_t n = evs.n;
	u32_push(&evs, UINT32_MAX);  /* room for one more step */
	u->runs[u->nruns].tids = tids;
	u->runs[u->nruns].evs = evs.v;
	u->runs[u->nruns].n = n;
	u->runs[u->nruns].soft = tid >= 0;
	if (tid >= 0)
		cts_debug_msg("unfold: run to a co-set's configuration (%zu events), then thread %d",
			      n, tid);
	u->nruns++;
	u->pe_unknown = true;
}

static void pe_resolve(struct cts_unf *u, struct pe *p, const uint64_t *cut, size_t ncut);
static uint8_t visited(struct cts_unf *u, uint32_t mark, bool set);

/* The cut of the configuration with cut `cut` and [•b] into *m (freed by the
 * caller); false when they conflict or when [•b] consumes a condition of S. */
static bool pe_merge(struct cts_unf *u, const struct pe *p, const uint64_t *cut, size_t ncut,
		     uint32_t b, uint64_t **m, size_t *nm)
{
	size_t npc;
	const uint64_t *pc = cond_cut(u, b, &npc);
	*m = cts_xmalloc((ncut + npc + 1) * sizeof(**m));
	bool ok = cut_merge(u, cut, ncut, pc, npc, *m, nm);
	/* nothing of [•b] consumes a condition of S */
	for (size_t i = 0; ok && i < p->nS; i++)
		ok = cut_find(u, *m, *nm, u->conds[p->S[i]].comp) == p->S[i];
	return ok;
}

/* b can join the co-set S: concurrent with each of its conditions, and (when
 * S must come to use a condition of the new event's postset and does not yet)
 * some condition of that postset is b or concurrent with b and all of S. */
static bool co_with(const struct cts_unf *u, const struct pe *p, uint32_t b)
{
	for (size_t i = 0; i < p->nS; i++)
		if (!is_co(u, b, p->S[i]))
			return false;
	if (p->must == UINT32_MAX || uses_must(u, p))
		return true;
	const struct event *e = &u->ev[p->must];
	for (uint32_t j = 0; j < e->npre; j++) {
		uint32_t c = e->postc[j];
		bool ok = c == b || is_co(u, c, b);
		for (size_t i = 0; ok && i < p->nS; i++)
			ok = is_co(u, c, p->S[i]);
		if (ok)
			return true;
	}
	return false;
}

static void pe_try(struct cts_unf *u, struct pe *p, uint32_t b, const uint64_t *m, size_t nm)
{
	if (p->nS == p->capS) {
		p->capS = p->capS ? p->capS * 2 : 16;
		p->S = cts_xrealloc(p->S, p->capS * sizeof(*p->S));
	}
	p->S[p->nS++] = b;
	u->inS[u->conds[b].comp] = 1;
	pe_resolve(u, p, m, nm);
	u->inS[u->conds[b].comp] = 0;
	p->nS--;
}

/* The order the straightforward search tries conditions in: byc's, the
 * initial condition last. */
static uint64_t pe_rank(const struct cts_unf *u, uint32_t b)
{
	return u->conds[b].pos >= 0 ? (uint64_t)u->conds[b].pos : UINT64_MAX;
}

static int cmp_rank(const void *a, const void *b, void *arg)
{
	const struct cts_unf *u = arg;
	uint64_t x = pe_rank(u, *(const uint32_t *)a), y = pe_rank(u, *(const uint32_t *)b);
	return x < y ? -1 : x > y;
}

/* The conditions of comp that extend the co-set S, found with the
 * co-relation. They form a subtree of comp's condition tree rooted at the
 * configuration's condition of comp: a condition's children are made by
 * events that consumed it, so their histories contain its history, and a
 * child concurrent with S (and with a usable condition of the new event's
 * postset) has a parent that is too. The walk stops at the first condition
 * that is not; only the candidates' configurations are merged. They are tried
 * in the straightforward search's order, so both find the same events in
 * the same order. */
static void pe_branch_co(struct cts_unf *u, struct pe *p, const uint64_t *cut, size_t ncut,
			 uint32_t comp)
{
	struct u32v stack = { 0 }, cand = { 0 };
	u32_push(&stack, cut_find(u, cut, ncut, comp));
	while (stack.n) {
		uint32_t b = stack.v[--stack.n];
		if (!co_with(u, p, b))
			continue;
		if (!cond_dead(u, b))
			u32_push(&cand, b);
		for (int32_t c = u->conds[b].child; c >= 0; c = u->conds[c].sibling)
			u32_push(&stack, (uint32_t)c);
	}
	if (cand.n > 1)
		qsort_r(cand.v, cand.n, sizeof(*cand.v), cmp_rank, u);
	for (size_t k = 0; k < cand.n; k++) {
		uint64_t *m;
		size_t nm;
		if (pe_merge(u, p, cut, ncut, cand.v[k], &m, &nm))
			pe_try(u, p, cand.v[k], m, nm);
		else
			cts_debug_msg("unfold: condition %u is co with the co-set but does not merge",
				      cand.v[k]);
		free(m);
	}
	free(stack.v);
	free(cand.v);
}

/* Try each condition of comp that is co with S (so the co-set grows). */
static void pe_branch(struct cts_unf *u, struct pe *p, const uint64_t *cut, size_t ncut,
		      uint32_t comp)
{
	if (!u->scan_pe) {
		pe_branch_co(u, p, cut, ncut, comp);
		return;
	}
	uint32_t ic = init_cond(u, comp);
	size_t nb = u->byc[comp].n;
	for (size_t k = 0; k <= nb; k++) {
		uint32_t b = k == nb ? ic : u->byc[comp].v[k];
		/* b must lie on or after the configuration's condition of comp */
		if (!is_anc(u, cut_find(u, cut, ncut, comp), b))
			continue;
		uint64_t *m;
		size_t nm;
		if (pe_merge(u, p, cut, ncut, b, &m, &nm))
			pe_try(u, p, b, m, nm);
		free(m);
	}
}

/* The co-set S so far (its configuration's cut given): what tid's next
 * transition touches at that marking decides which component comes next. */
static void pe_resolve(struct cts_unf *u, struct pe *p, const uint64_t *cut, size_t ncut)
{
	if (out_of_time(u))
		return;
	cut_marking(u, cut, ncut);
	if (cts_petri_terminal(u->net, u->mk))
		return;
	enum cts_pstatus st = cts_petri_status(u->net, u->mk, p->tid);
	if (st == CTS_PS_GONE)
		return;
	size_t nneed;
	if (!u->needcap) {
		u->needcap = 256;
		u->need = cts_xmalloc(u->needcap * sizeof(*u->need));
	}
	if (!cts_petri_next_op(u->net, u->mk, p->tid)) {
		u->need[0] = cts_petri_thread_comp(u->net, p->tid);
		nneed = 1;
	} else {
		for (;;) {
			/* (the process's exit reads every component of the marking) */
			nneed = cts_petri_inputs(u->net, u->mk, p->tid, u->need, u->needcap);
			size_t no = 0;
			if (nneed <= u->needcap && st == CTS_PS_ENABLED)
				no = cts_petri_outputs(u->net, u->mk, p->tid, u->need + nneed,
						       u->needcap - nneed);
			if (nneed + no <= u->needcap) {
				nneed += no;
				break;
			}
			u->needcap = 2 * (nneed + no);
			u->need = cts_xrealloc(u->need, u->needcap * sizeof(*u->need));
		}
	}
	/* the components in the order the transition names them, each once:
	 * the first one S has no condition of comes next (the recursion below
	 * uses u->need no more) */
	size_t distinct = 0;
	if (++u->cgen == 0) {
		memset(u->cmark, 0, u->ncomp * sizeof(*u->cmark));
		u->cgen = 1;
	}
	uint32_t gen = u->cgen;
	for (size_t i = 0; i < nneed; i++) {
		uint32_t c = u->need[i];
		comps_grow(u, c);
		if (u->cmark[c] == gen)
			continue;
		u->cmark[c] = gen;
		distinct++;
		if (!u->inS[c]) {
			pe_branch(u, p, cut, ncut, c);
			return;
		}
	}
	if (distinct != p->nS || !uses_must(u, p))
		return;  /* S holds a component the transition does not touch */
	if (st == CTS_PS_ENABLED) {
		ev_add_ext(u, p->tid, p->S, p->nS, cut, ncut);
		return;
	}
	bool fresh;
	if (st == CTS_PS_UNKNOWN && !(visited(u, cts_petri_store(u->net, u->mk, &fresh), false) & 2))
		want_run(u, cut, ncut, p->tid);  /* unless a run ended there */
}

/* POSSIBLEEXTENSIONS(e): every thread, every condition of its component as
 * the start of a co-set. */
static void pe_all(struct cts_unf *u, uint32_t must)
{
	struct pe p = { .must = must };
	int maxt = u->maxt;
	/* A co-set that uses a condition of e• has [e] in its configuration:
	 * search the configurations that contain [e] only. */
	const uint64_t *c0 = must != UINT32_MAX ? u->ev[must].cut : NULL;
	size_t n0 = must != UINT32_MAX ? u->ev[must].ncut : 0;
	for (int t = 0; t < maxt; t++) {
		uint32_t tc = cts_petri_thread_comp(u->net, t);
		p.tid = t;
		p.nS = 0;
		pe_branch(u, &p, c0, n0, tc);
	}
	free(p.S);
}

/* ---- adding events (Fig. 6, lines 12-16) ---- */

static uint8_t visited(struct cts_unf *u, uint32_t mark, bool set)
{
	if (mark >= u->nvisited) {
		size_t nc = u->nvisited ? u->nvisited * 2 : 1024;
		while (nc <= mark)
			nc *= 2;
		u->visited = cts_xrealloc(u->visited, nc);
		memset(u->visited + u->nvisited, 0, nc - u->nvisited);
		u->nvisited = nc;
	}
	uint8_t was = u->visited[mark];
	if (set)
		u->visited[mark] |= 1;
	return was;
}

/* The co-relation for the conditions e just made (Khomenko & Koutny's
 * update): a condition is concurrent with every c of e• iff it is
 * concurrent with every condition of •e; then co(c) is that set and the
 * rest of e•, and c joins the list of each of them. New conditions have the
 * highest ids, so every list stays ascending. */
static void co_add(struct cts_unf *u, uint32_t id)
{
	const struct event *e = &u->ev[id];
	struct u32v ce = { 0 };
	int32_t best = -1;
	for (uint32_t i = 0; i < e->npre; i++) {
		uint32_t b = e->pre[i];
		if (u->conds[b].producer >= 0 && (best < 0 || u->co[b].n < u->co[best].n))
			best = (int32_t)b;
	}
	/* candidates: co(best), or (every condition of •e initial) all of them */
	size_t ncand = best >= 0 ? u->co[best].n : u->nconds - e->npre;
	for (size_t k = 0; k < ncand; k++) {
		uint32_t d = best >= 0 ? u->co[best].v[k] : (uint32_t)k;
		if (u->conds[d].producer < 0 || cond_dead(u, d))
			continue;
		bool ok = true;
		size_t nd;
		const uint64_t *kd = cond_cut(u, d, &nd);
		for (uint32_t i = 0; ok && i < e->npre; i++) {
			uint32_t b = e->pre[i];
			if ((int32_t)b == best)
				continue;
			if (u->conds[b].producer < 0)
				ok = !cut_has(kd, nd, u->conds[b].comp);
			else
				ok = u32_has(&u->co[b], d);
		}
		if (ok)
			u32_push(&ce, d);
	}
	for (uint32_t i = 0; i < e->npre; i++) {
		struct u32v *l = &u->co[e->postc[i]];
		l->cap = ce.n + e->npre;
		l->v = cts_xmalloc(l->cap * sizeof(*l->v));
		if (ce.n)
			memcpy(l->v, ce.v, ce.n * sizeof(*l->v));
		l->n = ce.n;
		for (uint32_t j = 0; j < e->npre; j++)
			if (j != i)
				l->v[l->n++] = e->postc[j];
	}
	for (size_t k = 0; k < ce.n; k++)
		for (uint32_t i = 0; i < e->npre; i++)
			u32_push(&u->co[ce.v[k]], e->postc[i]);
	u->nco += 2 * (uint64_t)ce.n * e->npre + (uint64_t)e->npre * (e->npre - 1);
	free(ce.v);
}

static void add_event(struct cts_unf *u, uint32_t id)
{
	struct event *e = &u->ev[id];
	struct cts_petri_stats ps;
	cts_petri_get_stats(u->net, &ps);
	e->label = u->nadded++;
	if (u->cutoffs && !ps.nomatch && (visited(u, e->mark, false) & 1)) {
		e->state = E_CUTOFF;
		u->cutcount++;
		return;
	}
	if (!(visited(u, e->mark, true) & 1))
		u->markings++;
	e->state = E_ADDED;
	/* the conditions it makes, and the cut of [e] */
	uint32_t *postc = cts_xmalloc(e->npre * sizeof(*postc));
	for (uint32_t i = 0; i < e->npre; i++) {
		uint32_t comp = u->conds[u->ev[id].pre[i]].comp;
		postc[i] = cond_new(u, comp, u->ev[id].post[i], (int32_t)u->ev[id].pre[i],
				    (int32_t)id);
	}
	e = &u->ev[id];
	e->postc = postc;
	uint64_t *pc = cts_xmalloc(e->npre * sizeof(*pc));
	for (uint32_t i = 0; i < e->npre; i++)
		pc[i] = (uint64_t)u->conds[postc[i]].comp << 32 | postc[i];
	qsort(pc, e->npre, sizeof(*pc), cmp_u64);
	uint64_t *full = cts_xmalloc((e->ncut + e->npre + 1) * sizeof(*full));
	size_t nf;
	if (!cut_merge(u, e->cut, e->ncut, pc, e->npre, full, &nf))
		cts_debug_msg("unfold: event %u: its cut does not merge", id);
	free(pc);
	free(e->cut);
	e->cut = full;
	e->ncut = (uint32_t)nf;
	for (uint32_t i = 0; i < e->npre; i++) {
		struct u32v *l = &u->byc[u->conds[postc[i]].comp];
		u->conds[postc[i]].pos = (int32_t)l->n;
		u32_push(l, postc[i]);
	}
	co_add(u, id);
}

static int cmp_label(const void *a, const void *b, void *arg)
{
	const struct cts_unf *u = arg;
	uint32_t x = u->ev[*(const uint32_t *)a].label, y = u->ev[*(const uint32_t *)b].label;
	return x < y ? -1 : x > y;
}

/* The event of the prefix thread t's step makes at the configuration with
 * this cut (at most one: the marking fixes the transition), UINT32_MAX none. */
static uint32_t step_event(struct cts_unf *u, const uint64_t *cut, size_t ncut, int t)
{
	uint32_t b = cut_find(u, cut, ncut, cts_petri_thread_comp(u->net, t));
	for (int32_t c = u->conds[b].child; c >= 0; c = u->conds[c].sibling) {
		uint32_t g = (uint32_t)u->conds[c].producer;
		const struct event *y = &u->ev[g];
		bool en = y->state == E_ADDED;
		for (uint32_t i = 0; en && i < y->npre; i++)
			en = cut_find(u, cut, ncut, u->conds[y->pre[i]].comp) == y->pre[i];
		if (en)
			return g;
	}
	return UINT32_MAX;
}

/* The cut after event g (its preset in the cut) into *cut. */
static void cut_step(struct cts_unf *u, uint64_t **cut, size_t *ncut, size_t *cap, uint32_t g)
{
	const struct event *y = &u->ev[g];
	uint64_t *next = cts_xmalloc((*ncut + y->ncut + 1) * sizeof(*next));
	size_t nn;
	if (cut_merge(u, *cut, *ncut, y->cut, y->ncut, next, &nn)) {
		if (nn + 1 > *cap) {
			*cap = 2 * (nn + 1);
			*cut = cts_xrealloc(*cut, *cap * sizeof(**cut));
		}
		memcpy(*cut, next, nn * sizeof(**cut));
		*ncut = nn;
	}
	free(next);
}

/* The stateless unfolding tester of Kähkönen, Saarikivi & Heljanko (ASE
 * 2012; the paper's "stateless unfolding" column) has no model, so every
 * event of the unfolding must be executed by some test run: for each event,
 * in the order they were added, that no run executed yet, one run follows
 * [e] and then goes on as the scheduler likes. Here too, once the prefix is
 * complete: what the runs so far executed is found by replaying their steps
 * over the prefix, and the next event none executed gets a run to [e] (then
 * on freely). One run per call, so the deadline is seen between runs. True:
 * a run was queued; false: every event was executed. */
static bool cover(struct cts_unf *u)
{
	if (!u->cover_order) {
		u->cover_order = cts_xmalloc((u->nev + 1) * sizeof(*u->cover_order));
		u->executed = cts_xcalloc(u->nev + 1, 1);
		for (size_t i = 0; i < u->nev; i++)
			if (u->ev[i].state == E_ADDED)
				u->cover_order[u->ncover++] = (uint32_t)i;
		/* by label (event ids are in the order extensions were found) */
		qsort_r(u->cover_order, u->ncover, sizeof(*u->cover_order), cmp_label, u);
	}
	uint64_t *cut = NULL;
	size_t cap = 0, ncut = 0;
	for (; u->ran_pos < u->ran.n; u->ran_pos++) {
		uint32_t t = u->ran.v[u->ran_pos], g = UINT32_MAX;
		if (t != UINT32_MAX)
			g = step_event(u, cut, ncut, (int)t);
		if (g != UINT32_MAX) {
			u->executed[g] = 1;
			cut_step(u, &cut, &ncut, &cap, g);
			continue;
		}
		while (u->ran_pos < u->ran.n && u->ran.v[u->ran_pos] != UINT32_MAX)
			u->ran_pos++;  /* this run left the prefix (or ended): the next one */
		ncut = 0;
	}
	free(cut);
	while (u->cover_next < u->ncover && u->executed[u->cover_order[u->cover_next]])
		u->cover_next++;
	if (u->cover_next == u->ncover)
		return false;
	uint32_t e = u->cover_order[u->cover_next];
	struct u32v evs = { 0 };
	config_events(u, u->ev[e].cut, u->ev[e].ncut, &evs);
	for (size_t i = 0; i < evs.n; i++)
		u->executed[evs.v[i]] = 1;  /* (so a run that fails to get there is not asked again) */
	free(evs.v);
	u->cover_runs++;
	want_run(u, u->ev[e].cut, u->ev[e].ncut, -1);
	return true;
}

void cts_unf_ran(struct cts_unf *u, const int *tids, size_t n)
{
	if (u->cutoffs || u->covered)
		return;
	for (size_t i = 0; i < n; i++)
		u32_push(&u->ran, (uint32_t)tids[i]);
	u32_push(&u->ran, UINT32_MAX);
}

static bool take_run(struct cts_unf *u, struct cts_unf_run *run)
{
	if (u->runhead == u->nruns) {
		for (size_t i = 0; i < u->nruns; i++) {
			free(u->runs[i].tids);
			free(u->runs[i].evs);
		}
		u->nruns = u->runhead = 0;
		return false;
	}
	size_t i = u->runhead++;
	size_t n = u->runs[i].n + (u->runs[i].soft ? 1 : 0);
	if (n > u->tcap) {
		u->tcap = n * 2;
		u->target = cts_xrealloc(u->target, u->tcap * sizeof(*u->target));
		u->tevents = cts_xrealloc(u->tevents, u->tcap * sizeof(*u->tevents));
	}
	memcpy(u->target, u->runs[i].tids, n * sizeof(*u->target));
	memcpy(u->tevents, u->runs[i].evs, n * sizeof(*u->tevents));
	u->ntarget = n;
	run->tids = u->target;
	run->n = n;
	run->soft = u->runs[i].soft;
	return true;
}

bool cts_unf_advance(struct cts_unf *u, struct cts_petri *net, struct cts_unf_run *run,
		     double deadline, const volatile sig_atomic_t *stop)
{
	u->net = net;
	u->deadline = deadline;
	u->stop = stop;
	if (!u->m0) {
		u->m0 = cts_pmark_new(net);
		u->mk = cts_pmark_new(net);
		u->mf = cts_pmark_new(net);
		bool fresh;
		visited(u, cts_petri_store(net, u->m0, &fresh), true);  /* ⊥ reaches M0 */
		u->maxt = cts_pmark_nthreads(u->m0);
	}
	for (;;) {
		if (stop && *stop) {
			note(u, "interrupted");
			return false;
		}
		if (deadline > 0 && now_s() > deadline) {
			note(u, "the time limit ran out");
			return false;
		}
		if (take_run(u, run))
			return true;
		if (!u->boot || u->redo.n) {
			/* extensions of the initial state, or of an event whose
			 * search met transitions the model did not know yet */
			uint32_t e = u->boot ? u->redo.v[--u->redo.n] : UINT32_MAX;
			u->boot = true;
			u->pe_unknown = false;
			pe_all(u, e);
			if (u->pe_unknown) {
				uint8_t *tries = e == UINT32_MAX ? NULL : &u->ev[e].pe_tries;
				if (tries && ++*tries >= MAX_TRIES) {
					note(u, "runs did not tell what a transition of the model does");
				} else {
					if (!tries)
						u->boot = false;
					else
						u32_push(&u->redo, e);
				}
			}
			continue;
		}
		if (!u->nheap) {
			if (u->cutoffs || u->covered)
				return false;
			if (!cover(u))
				u->covered = true;
			continue;
		}
		uint32_t id = u->heap[0];
		struct event *e = &u->ev[id];
		if (e->state == E_DROPPED) {
			heap_pop(u);
			continue;
		}
		cut_marking(u, e->cut, e->ncut);
		if (cts_petri_terminal(net, u->mk)) {
			/* a run ended in [•e] (an assert, a crash): e never happens */
			e->state = E_DROPPED;
			heap_pop(u);
			continue;
		}
		/* lines 7-10: St(e), PREDICTTRANSITIONSFROMMODEL, EXTENDMODEL */
		cts_petri_load(net, e->mark, u->mk);
		int en, alive;
		uint32_t unk = cts_petri_unknowns(net, u->mk, &en, &alive);
		bool dead = en == 0 && alive > 0;
		if (visited(u, e->mark, false) & 2)
			unk = 0, dead = false;  /* a run ended here: nothing follows */
		if ((unk > 0 && (e->runs == 0 || unk < e->last_unknown)) || (dead && e->runs == 0)) {
			cts_debug_msg("unfold: run to [e%u] (thread %d, size %u): %u threads unknown, "
				      "%d enabled, %d live", id, e->tid, e->size, unk, en, alive);
			for (int t = 0; cts_verbosity >= 3 && t < cts_pmark_nthreads(u->mk); t++) {
				char b[96];
				const struct cts_event *op = cts_petri_next_op(net, u->mk, t);
				if (cts_petri_status(net, u->mk, t) == CTS_PS_UNKNOWN)
					cts_debug_msg("unfold:   thread %d unknown, next %s", t,
						      op ? cts_event_str(op, b, sizeof(b)) : "?");
			}
			e->runs++;
			e->last_unknown = unk;
			/* [e]: [•e] and e itself */
			uint64_t *c = e->cut;
			want_run(u, c, e->ncut, -1);
			u->runs[u->nruns - 1].tids[u->runs[u->nruns - 1].n] = e->tid;
			u->runs[u->nruns - 1].evs[u->runs[u->nruns - 1].n] = id;
			u->runs[u->nruns - 1].n++;
			continue;
		}
		if (unk > 0) {
			for (int t = 0; t < cts_pmark_nthreads(u->mk); t++) {
				char b[96];
				const struct cts_event *op = cts_petri_next_op(net, u->mk, t);
				cts_debug_msg("unfold: [e%u] (thread %d): thread %d status %d next %s", id,
					      e->tid, t, (int)cts_petri_status(net, u->mk, t),
					      op ? cts_event_str(op, b, sizeof(b)) : "?");
			}
			note(u, "runs to a marking did not tell what its threads do next");
		}
		if (cts_pmark_nthreads(u->mk) > u->maxt)
			u->maxt = cts_pmark_nthreads(u->mk);
		heap_pop(u);
		add_event(u, id);
		if (u->ev[id].state == E_ADDED)
			u32_push(&u->redo, id);
	}
}

void cts_unf_run_ended(struct cts_unf *u, uint32_t mark)
{
	visited(u, mark, false);
	u->visited[mark] |= 2;
}

void cts_unf_stutter(struct cts_unf *u, size_t k)
{
	for (size_t i = k; i < u->ntarget; i++) {
		uint32_t e = u->tevents[i];
		if (e == UINT32_MAX || (i != k && i + 1 != u->ntarget))
			continue;
		if (u->ev[e].state == E_ADDED) {
			/* its conditions no longer start co-sets */
			for (uint32_t j = 0; j < u->ev[e].npre; j++) {
				uint32_t c = u->ev[e].postc[j];
				struct u32v *l = &u->byc[u->conds[c].comp];
				if (u->conds[c].pos >= 0) {
					size_t x = (size_t)u->conds[c].pos;
					l->v[x] = l->v[--l->n];
					u->conds[l->v[x]].pos = (int32_t)x;
					u->conds[c].pos = -1;
				}
			}
		}
		if (u->ev[e].state != E_DROPPED && u->ev[e].state != E_CUTOFF) {
			u->ev[e].state = E_DROPPED;
			u->dropped++;
		}
	}
}

void cts_unf_get_stats(const struct cts_unf *u, struct cts_unf_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->events = u->nadded;
	out->cutoffs = u->cutcount;
	out->markings = u->markings;
	out->conditions = u->nconds;
	out->dropped = u->dropped;
	uint64_t b = u->condcap * sizeof(*u->conds) + u->evcap * sizeof(*u->ev) +
		     u->nslots * 4 + u->nvisited + u->heapcap * 4 + u->stampcap * 4;
	for (size_t i = 0; i < u->nev; i++)
		b += (uint64_t)u->ev[i].npre * 12 + u->ev[i].ncut * 8 + u->ev[i].size * 4;
	for (size_t i = 0; i < u->ncomp; i++)
		b += u->byc[i].cap * 4;
	b += u->condcap * sizeof(*u->co);
	for (size_t i = 0; i < u->nconds; i++)
		b += u->co[i].cap * 4;
	out->bytes = b;
	out->co_pairs = u->nco / 2;
	out->cover_runs = u->cover_runs;
	out->incomplete = u->incomplete;
	snprintf(out->why, sizeof(out->why), "%s", u->why);
}
