/* MAP coverage: pattern instances of each run, the covered set, the
 * happens-before must-precede relation and the estimate (models/map.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "models/coverage.h"
#include "models/error.h"
#include "models/map.h"
#include "models/vclock.h"
#include "models/rng.h"

/* ---- a set of fixed-size keys (u64 words) with a value each ---------------- */

struct kset {
	size_t kw, vsz;       /* key words, value bytes */
	size_t n, cap;        /* entries; slots (power of two, 0 before the first add) */
	uint32_t *slot;       /* entry index + 1, 0 empty */
	unsigned char *data;  /* n entries of key then value, in insertion order */
	size_t dcap;
};

static size_t kset_esz(const struct kset *s)
{
	return s->kw * 8 + s->vsz;
}

static uint64_t *kset_key(const struct kset *s, size_t i)
{
	return (uint64_t *)(void *)(s->data + i * kset_esz(s));
}

static void *kset_val(const struct kset *s, size_t i)
{
	return s->data + i * kset_esz(s) + s->kw * 8;
}

static uint64_t key_hash(const uint64_t *k, size_t kw)
{
	uint64_t h = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < kw; i++) {
		h ^= k[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

static void kset_init(struct kset *s, size_t kw, size_t vsz)
{
	memset(s, 0, sizeof(*s));
	s->kw = kw;
	s->vsz = vsz;
}

static void kset_free(struct kset *s)
{
	free(s->slot);
	free(s->data);
	s->slot = NULL;
	s->data = NULL;
	s->n = s->cap = s->dcap = 0;
}

static void kset_clear(struct kset *s)
{
	if (s->slot)
		memset(s->slot, 0, s->cap * sizeof(*s->slot));
	s->n = 0;
}

static void kset_rehash(struct kset *s, size_t cap)
{
	free(s->slot);
	s->slot = cts_xcalloc(cap, sizeof(*s->slot));
	s->cap = cap;
	for (size_t i = 0; i < s->n; i++) {
		size_t j = key_hash(kset_key(s, i), s->kw) & (cap - 1);
		while (s->slot[j])
			j = (j + 1) & (cap - 1);
		s->slot[j] = (uint32_t)i + 1;
	}
}

/* Index of key, or -1. */
static long kset_find(const struct kset *s, const uint64_t *key)
{
	if (!s->cap)
		return -1;
	for (size_t j = key_hash(key, s->kw) & (s->cap - 1); s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (memcmp(kset_key(s, s->slot[j] - 1), key, s->kw * 8) == 0)
			return (long)s->slot[j] - 1;
	return -1;
}

/* Index of key, added (value zeroed) if absent; *fresh says which. */
static size_t kset_add(struct kset *s, const uint64_t *key, bool *fresh)
{
	long i = kset_find(s, key);
	if (i >= 0) {
		if (fresh)
			*fresh = false;
		return (size_t)i;
	}
	if ((s->n + 1) * 2 > s->cap)
		kset_rehash(s, s->cap ? s->cap * 2 : 64);
	if (s->n == s->dcap) {
		size_t nc = cts_grow_cap(s->dcap, s->n + 1);
		s->data = cts_xgrow(s->data, s->dcap, nc, kset_esz(s));
		s->dcap = nc;
	}
	memcpy(kset_key(s, s->n), key, s->kw * 8);
	memset(kset_val(s, s->n), 0, s->vsz);
	size_t j = key_hash(key, s->kw) & (s->cap - 1);
	while (s->slot[j])
		j = (j + 1) & (s->cap - 1);
	s->slot[j] = (uint32_t)s->n + 1;
	if (fresh)
		*fresh = true;
	return s->n++;
}

/* ---- the patterns -------------------------------------------------------- */

enum { A = 0, B = 1 };   /* roles */
enum { X = 0, Y = 1 };   /* variables */
enum { R = 0, W = 1 };   /* kinds */

struct step { uint8_t role, var, kind; };
struct tmpl {
	uint8_t id, n;
	struct step s[4];
};

/* Algorithm 2 of the paper, one row per order. */
static const struct tmpl T[] = {
	{ 1, 2, { { A, X, R }, { B, X, W } } },
	{ 2, 2, { { A, X, W }, { B, X, R } } },
	{ 3, 2, { { A, X, W }, { B, X, W } } },
	{ 4, 3, { { A, X, R }, { B, X, W }, { A, X, R } } },
	{ 5, 3, { { A, X, W }, { B, X, W }, { A, X, R } } },
	{ 6, 3, { { A, X, W }, { B, X, R }, { A, X, W } } },
	{ 7, 3, { { A, X, R }, { B, X, W }, { A, X, W } } },
	{ 8, 3, { { A, X, W }, { B, X, W }, { A, X, W } } },
	{ 9, 4, { { A, X, W }, { B, X, W }, { B, Y, W }, { A, Y, W } } },
	{ 9, 4, { { A, X, W }, { B, Y, W }, { B, X, W }, { A, Y, W } } },
	{ 9, 4, { { A, X, W }, { B, Y, W }, { A, Y, W }, { B, X, W } } },
	{ 10, 4, { { A, X, W }, { B, X, R }, { B, Y, R }, { A, Y, W } } },
	{ 10, 4, { { A, X, W }, { B, Y, R }, { B, X, R }, { A, Y, W } } },
	{ 10, 4, { { A, X, W }, { B, Y, R }, { A, Y, W }, { B, X, R } } },
	{ 11, 4, { { A, X, R }, { B, X, W }, { B, Y, W }, { A, Y, R } } },
	{ 11, 4, { { A, X, R }, { B, Y, W }, { B, X, W }, { A, Y, R } } },
	{ 11, 4, { { A, X, R }, { B, Y, W }, { A, Y, R }, { B, X, W } } },
};
#define NT (sizeof(T) / sizeof(T[0]))

static const char *const names[CTS_MAP_PATTERNS + 1] = {
	"?", "R-W", "W-R", "W-W", "R-W-R", "W-W-R", "W-R-W", "R-W-W", "W-W-W",
	"W/W x,y", "W/R x,y", "R/W x,y",
};

const char *cts_map_pattern_name(int id)
{
	return id >= 1 && id <= CTS_MAP_PATTERNS ? names[id] : "?";
}

/* Is y among the first len steps of template t? */
static bool y_bound(int t, int len)
{
	for (int i = 0; i < len; i++)
		if (T[t].s[i].var == Y)
			return true;
	return false;
}

/* A partial match: key words [meta, x, y, pc0, pc1, pc2], meta = template |
 * len << 5 | (ta + 1) << 8 | (tb + 1) << 36 (thread numbers < 2^24). */
#define PW 6
/* An instance: [template, x, y, pc0..pc3]. */
#define IW 7

/* Partial matches per run beyond which no new ones are started. */
#define MAX_PREFIXES (1u << 17)
/* Per variable: exact pruned counting up to this many instructions. */
#define MAX_ENUM 64

struct pview {
	int t, len, ta, tb;
	uint64_t x, y, pc[3];
};

static void pdecode(const uint64_t *k, struct pview *p)
{
	p->t = (int)(k[0] & 0x1f);
	p->len = (int)((k[0] >> 5) & 0x7);
	p->ta = (int)((k[0] >> 8) & 0xfffffff) - 1;
	p->tb = (int)((k[0] >> 36) & 0xfffffff) - 1;
	p->x = k[1];
	p->y = k[2];
	memcpy(p->pc, k + 3, sizeof(p->pc));
}

static void pencode(const struct pview *p, uint64_t *k)
{
	k[0] = (uint64_t)p->t | (uint64_t)p->len << 5 | (uint64_t)(p->ta + 1) << 8 |
	       (uint64_t)(p->tb + 1) << 36;
	k[1] = p->x;
	k[2] = p->y;
	memcpy(k + 3, p->pc, sizeof(p->pc));
}

struct ids { uint32_t *v; size_t n, cap; };

static void ids_push(struct ids *l, uint32_t id)
{
	if (l->n == l->cap) {
		size_t nc = cts_grow_cap(l->cap, l->n + 1);
		l->v = cts_xgrow(l->v, l->cap, nc, sizeof(*l->v));
		l->cap = nc;
	}
	l->v[l->n++] = id;
}

struct var {             /* value of the vars set, key [var] */
	struct ids r, w;     /* indexes into pcs of the instructions reading, writing it */
	uint64_t f_rw, f_wr, f_ww;  /* feasible ordered pairs, for the cross terms */
	int64_t thr;         /* 1 + the one thread that touched it, -1 several */
};

struct order {           /* value of the run's (var, pc) set */
	struct cts_vc hi;    /* max epoch per thread of its executions */
	struct cts_vc lo;    /* pointwise min of their clocks */
	bool any;
};

struct cts_map {
	cts_map_describe_fn describe;
	void *dctx;
	/* across runs */
	struct kset vars;    /* [var] -> struct var */
	struct kset pcs;     /* [var, pc, kind] -> nothing: the R/W sets */
	struct kset covered; /* instances */
	struct kset must;    /* [var, q, p] -> uint8: 1 seen together, 2 q not always first */
	struct kset pcthr;   /* [pc] -> int64: the one thread number that ran it, -2 several */
	struct cts_map_stats st;
	/* this run */
	struct kset addrs;   /* [address] -> uint64 variable */
	struct kset runinst; /* instances of this run */
	struct kset prefixes;/* partial matches */
	struct kset buckets; /* [var, kind] -> struct ids: prefixes whose next step is that */
	struct ids any[2];   /* by kind: prefixes whose next step is on a y not yet bound */
	struct kset order;   /* [var, pc] -> struct order */
	struct cts_vc *tvc;  /* per thread */
	size_t ntvc;
	struct target {      /* the pattern this run tries to cover (cts_map_pick_target) */
		bool on;
		int t, k, ta, tb;    /* template, steps done, threads bound to A and B */
		uint64_t x, y, pc[4];
	} target;
	struct kset objs;    /* [sync object] -> index into ovc */
	struct cts_vc *ovc;
	size_t novc, covc;
};

struct cts_map *cts_map_new(void)
{
	struct cts_map *m = cts_xcalloc(1, sizeof(*m));
	kset_init(&m->vars, 1, sizeof(struct var));
	kset_init(&m->pcs, 3, 0);
	kset_init(&m->covered, IW, 0);
	kset_init(&m->must, 3, 1);
	kset_init(&m->pcthr, 1, sizeof(int64_t));
	kset_init(&m->addrs, 1, sizeof(uint64_t));
	kset_init(&m->runinst, IW, 0);
	kset_init(&m->prefixes, PW, 0);
	kset_init(&m->buckets, 2, sizeof(struct ids));
	kset_init(&m->order, 2, sizeof(struct order));
	kset_init(&m->objs, 1, 0);
	return m;
}

static void clear_run(struct cts_map *m)
{
	for (size_t i = 0; i < m->buckets.n; i++)
		free(((struct ids *)kset_val(&m->buckets, i))->v);
	kset_clear(&m->buckets);
	for (size_t i = 0; i < m->order.n; i++) {
		struct order *o = kset_val(&m->order, i);
		cts_vc_free(&o->hi);
		cts_vc_free(&o->lo);
	}
	kset_clear(&m->order);
	kset_clear(&m->addrs);
	kset_clear(&m->runinst);
	kset_clear(&m->prefixes);
	kset_clear(&m->objs);
	m->any[R].n = m->any[W].n = 0;
	for (size_t i = 0; i < m->ntvc; i++)
		cts_vc_zero(&m->tvc[i]);
	for (size_t i = 0; i < m->novc; i++)
		cts_vc_zero(&m->ovc[i]);
	m->novc = 0;
}

void cts_map_free(struct cts_map *m)
{
	if (!m)
		return;
	clear_run(m);
	for (size_t i = 0; i < m->vars.n; i++) {
		struct var *v = kset_val(&m->vars, i);
		free(v->r.v);
		free(v->w.v);
	}
	for (size_t i = 0; i < m->ntvc; i++)
		cts_vc_free(&m->tvc[i]);
	for (size_t i = 0; i < m->covc; i++)
		cts_vc_free(&m->ovc[i]);
	free(m->tvc);
	free(m->ovc);
	free(m->any[R].v);
	free(m->any[W].v);
	kset_free(&m->vars);
	kset_free(&m->pcs);
	kset_free(&m->covered);
	kset_free(&m->must);
	kset_free(&m->pcthr);
	kset_free(&m->addrs);
	kset_free(&m->runinst);
	kset_free(&m->prefixes);
	kset_free(&m->buckets);
	kset_free(&m->order);
	kset_free(&m->objs);
	free(m);
}

void cts_map_set_describe(struct cts_map *m, cts_map_describe_fn fn, void *ctx)
{
	m->describe = fn;
	m->dctx = ctx;
}

void cts_map_begin_run(struct cts_map *m)
{
	clear_run(m);
	m->target.k = 0;
	m->target.ta = m->target.tb = -1;
}

/* ---- happens-before ------------------------------------------------------ */

static struct cts_vc *thread_vc(struct cts_map *m, int tid)
{
	if ((size_t)tid >= m->ntvc) {
		size_t nc = cts_grow_cap(m->ntvc, (size_t)tid + 1);
		m->tvc = cts_xgrow(m->tvc, m->ntvc, nc, sizeof(*m->tvc));
		m->ntvc = nc;
	}
	struct cts_vc *v = &m->tvc[tid];
	if (cts_vc_get(v, tid) == 0)
		cts_vc_tick(v, tid);  /* own component starts at 1: epochs are never 0 */
	return v;
}

static void sync_on(struct cts_map *m, int tid, uint64_t obj)
{
	bool fresh;
	size_t i = kset_add(&m->objs, &obj, &fresh);
	if (fresh) {
		if (m->novc == m->covc) {
			size_t nc = cts_grow_cap(m->covc, m->novc + 1);
			m->ovc = cts_xgrow(m->ovc, m->covc, nc, sizeof(*m->ovc));
			m->covc = nc;
		}
		cts_vc_zero(&m->ovc[m->novc++]);
	}
	/* Every operation on the object acquires and releases it: the run's
	 * order of operations on one sync object is part of happens-before. */
	struct cts_vc *t = thread_vc(m, tid);
	cts_vc_join(t, &m->ovc[i]);
	cts_vc_copy(&m->ovc[i], t);
	cts_vc_tick(t, tid);
}

static void hb_event(struct cts_map *m, const struct cts_event *ev)
{
	switch (ev->op) {
	case CTS_OP_CREATE:
		if (ev->target >= 0) {
			thread_vc(m, ev->tid);
			struct cts_vc *c = thread_vc(m, ev->target);
			struct cts_vc *p = &m->tvc[ev->tid];  /* the table may have moved */
			cts_vc_join(c, p);
			cts_vc_tick(p, ev->tid);
		}
		return;
	case CTS_OP_JOIN:
		if (ev->target >= 0) {
			thread_vc(m, ev->target);
			struct cts_vc *j = thread_vc(m, ev->tid);
			cts_vc_join(j, &m->tvc[ev->target]);
		}
		return;
	case CTS_OP_ATOMIC:
		sync_on(m, ev->tid, ev->obj);
		return;
	default:
		break;
	}
	if (cts_op_is_sync(ev->op)) {
		sync_on(m, ev->tid, ev->obj);
		if (ev->obj2)
			sync_on(m, ev->tid, ev->obj2);
	}
}

/* ---- variables ----------------------------------------------------------- */

static uint64_t variable_of(struct cts_map *m, uint64_t addr)
{
	uint64_t word = addr & ~7ull;
	long i = kset_find(&m->addrs, &addr);
	if (i >= 0)
		return *(uint64_t *)kset_val(&m->addrs, (size_t)i);
	uint64_t var = word;
	if (m->describe) {
		char buf[256] = "";
		m->describe(m->dctx, addr, buf, sizeof(buf));
		char *plus = strchr(buf, '+');
		if (plus)
			*plus = 0;
		if (buf[0]) {
			uint64_t h = 0xcbf29ce484222325ull;
			for (const char *c = buf; *c; c++)
				h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
			var = h | 1ull << 63;  /* above every user-space word */
		}
	}
	*(uint64_t *)kset_val(&m->addrs, kset_add(&m->addrs, &addr, NULL)) = var;
	return var;
}

/* ---- matching ------------------------------------------------------------ */

static bool step_matches(const struct pview *p, int tid, uint64_t var, int kind)
{
	const struct step *s = &T[p->t].s[p->len];
	if (s->kind != kind)
		return false;
	if (s->role == A ? tid != p->ta : p->tb >= 0 ? tid != p->tb : tid == p->ta)
		return false;
	if (s->var == X)
		return var == p->x;
	return y_bound(p->t, p->len) ? var == p->y : var != p->x;
}

static void extend(struct pview *q, const struct pview *p, int tid, uint64_t var, uint64_t pc)
{
	*q = *p;
	const struct step *s = &T[p->t].s[p->len];
	if (s->role == B)
		q->tb = tid;
	if (s->var == Y)
		q->y = var;
	if (p->len < 3)
		q->pc[p->len] = pc;
	q->len++;
}

static void inst_key(const struct pview *p, uint64_t last_pc, uint64_t *k)
{
	k[0] = (uint64_t)p->t;
	k[1] = p->x;
	k[2] = p->y;
	memcpy(k + 3, p->pc, sizeof(p->pc));
	k[6] = last_pc;
}

static struct ids *bucket(struct cts_map *m, uint64_t var, int kind, bool add)
{
	uint64_t k[2] = { var, (uint64_t)kind };
	if (!add) {
		long i = kset_find(&m->buckets, k);
		return i < 0 ? NULL : kset_val(&m->buckets, (size_t)i);
	}
	return kset_val(&m->buckets, kset_add(&m->buckets, k, NULL));
}

static void add_prefix(struct cts_map *m, const struct pview *q)
{
	uint64_t k[PW];
	bool fresh;
	if (m->prefixes.n >= MAX_PREFIXES) {
		m->st.truncated = true;
		return;
	}
	pencode(q, k);
	size_t id = kset_add(&m->prefixes, k, &fresh);
	if (!fresh)
		return;
	const struct step *s = &T[q->t].s[q->len];
	if (s->var == X)
		ids_push(bucket(m, q->x, s->kind, true), (uint32_t)id);
	else if (y_bound(q->t, q->len))
		ids_push(bucket(m, q->y, s->kind, true), (uint32_t)id);
	else
		ids_push(&m->any[s->kind], (uint32_t)id);
}

/* One step (tid's access of kind to var at pc). apply: record what it
 * completes and extends; otherwise only count the uncovered completions. */
static int step(struct cts_map *m, int tid, uint64_t var, int kind, uint64_t pc, bool apply)
{
	int fresh_done = 0;
	struct ids *first = bucket(m, var, kind, false);
	size_t ends[2] = { first ? first->n : 0, m->any[kind].n };
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; i < ends[l]; i++) {
			/* add_prefix may grow the lists: index, never hold pointers */
			struct ids *list = l == 0 ? bucket(m, var, kind, false) : &m->any[kind];
			struct pview p, q;
			pdecode(kset_key(&m->prefixes, list->v[i]), &p);
			if (!step_matches(&p, tid, var, kind))
				continue;
			if (p.len + 1 < T[p.t].n) {
				if (apply) {
					extend(&q, &p, tid, var, pc);
					add_prefix(m, &q);
				}
				continue;
			}
			extend(&q, &p, tid, var, pc);
			uint64_t k[IW];
			inst_key(&q, pc, k);
			bool seen = kset_find(&m->covered, k) >= 0;
			if (!apply) {
				fresh_done += !seen && kset_find(&m->runinst, k) < 0;
				continue;
			}
			bool fresh;
			kset_add(&m->runinst, k, &fresh);
			fresh_done += fresh && !seen;
		}
	}
	if (!apply)
		return fresh_done;
	for (size_t t = 0; t < NT; t++) {
		if (T[t].s[0].kind != kind)
			continue;
		struct pview q = { .t = (int)t, .len = 1, .ta = tid, .tb = -1, .x = var, .y = 0 };
		q.pc[0] = pc;
		add_prefix(m, &q);
	}
	return fresh_done;
}

static void note_order(struct cts_map *m, int tid, uint64_t var, uint64_t pc)
{
	uint64_t k[2] = { var, pc };
	struct order *o = kset_val(&m->order, kset_add(&m->order, k, NULL));
	struct cts_vc *t = thread_vc(m, tid);
	cts_vc_raise(&o->hi, tid, cts_vc_get(t, tid));
	if (!o->any) {
		cts_vc_copy(&o->lo, t);
		o->any = true;
		return;
	}
	for (uint32_t i = 0; i < o->lo.n; i++)
		if (cts_vc_get(t, (int)i) < o->lo.c[i])
			o->lo.c[i] = cts_vc_get(t, (int)i);
}

/* After an access: the thread's next access has a later epoch, so program
 * order shows as happens-before (and equal clocks never order two pcs both ways). */
static void tick_access(struct cts_map *m, int tid)
{
	cts_vc_tick(thread_vc(m, tid), tid);
}

static void note_pc(struct cts_map *m, int tid, uint64_t var, uint64_t pc, int kind)
{
	uint64_t k[3] = { var, pc, (uint64_t)kind };
	bool fresh;
	kset_add(&m->pcs, k, &fresh);
	size_t vi = kset_add(&m->vars, &var, NULL);
	struct var *v = kset_val(&m->vars, vi);
	v->thr = !v->thr || v->thr == tid + 1 ? tid + 1 : -1;
	if (!fresh)
		return;
	ids_push(kind == R ? &v->r : &v->w, (uint32_t)(m->pcs.n - 1));
}

static int access_kinds(cts_op op, int *kinds);
static uint64_t pc_at(const struct cts_map *m, uint32_t i);

/* ---- the target of a run ------------------------------------------------- */

static uint64_t target_var(const struct target *g, int j)
{
	return T[g->t].s[j].var == X ? g->x : g->y;
}

/* Step j of the target is tid's access of kind to var at pc? */
static bool target_step(const struct target *g, int j, int tid, uint64_t var, int kind,
			uint64_t pc)
{
	const struct step *s = &T[g->t].s[j];
	if (s->kind != kind || g->pc[j] != pc || target_var(g, j) != var)
		return false;
	int bound = s->role == A ? g->ta : g->tb, other = s->role == A ? g->tb : g->ta;
	return bound >= 0 ? tid == bound : tid != other;
}

static void target_advance(struct cts_map *m, int tid, uint64_t var, int kind, uint64_t pc)
{
	struct target *g = &m->target;
	if (!g->on || g->k >= T[g->t].n || !target_step(g, g->k, tid, var, kind, pc))
		return;
	if (T[g->t].s[g->k].role == A)
		g->ta = tid;
	else
		g->tb = tid;
	g->k++;
}

static uint64_t rnd(uint64_t *state, uint64_t n)
{
	uint64_t z = cts_splitmix64(state);
	return n ? z % n : 0;
}

static bool ok(const struct cts_map *m, uint64_t var, uint64_t p, uint64_t q);

bool cts_map_pick_target(struct cts_map *m, uint64_t seed)
{
	struct target *g = &m->target;
	g->on = false;
	if (!m->vars.n)
		return false;
	for (int tries = 0; tries < 256; tries++) {
		struct target c = { .t = (int)rnd(&seed, NT), .ta = -1, .tb = -1 };
		size_t xi = rnd(&seed, m->vars.n), yi = rnd(&seed, m->vars.n);
		if (T[c.t].n == 4 && xi == yi)
			continue;
		c.x = kset_key(&m->vars, xi)[0];
		c.y = T[c.t].n == 4 ? kset_key(&m->vars, yi)[0] : 0;
		bool fine = true;
		for (int j = 0; j < T[c.t].n && fine; j++) {
			const struct var *v = kset_val(&m->vars, T[c.t].s[j].var == X ? xi : yi);
			const struct ids *set = T[c.t].s[j].kind == R ? &v->r : &v->w;
			if (!set->n) {
				fine = false;
				break;
			}
			c.pc[j] = pc_at(m, set->v[rnd(&seed, set->n)]);
			/* feasible against every earlier step on the same variable */
			for (int i = 0; i < j && fine; i++)
				if (T[c.t].s[i].var == T[c.t].s[j].var)
					fine = ok(m, target_var(&c, j), c.pc[i], c.pc[j]);
		}
		/* Thread numbers are creation order, the same in every run: two
		 * pcs only ever run by one thread cannot play two roles. */
		for (int i = 0; i < T[c.t].n && fine; i++)
			for (int j = i + 1; j < T[c.t].n && fine; j++) {
				long a = kset_find(&m->pcthr, &c.pc[i]), b = kset_find(&m->pcthr, &c.pc[j]);
				int64_t ta = a < 0 ? -2 : *(int64_t *)kset_val(&m->pcthr, (size_t)a);
				int64_t tb = b < 0 ? -2 : *(int64_t *)kset_val(&m->pcthr, (size_t)b);
				if (ta >= 0 && tb >= 0)
					fine = (T[c.t].s[i].role == T[c.t].s[j].role) == (ta == tb);
			}
		if (!fine)
			continue;
		uint64_t k[IW] = { (uint64_t)c.t, c.x, c.y, c.pc[0], c.pc[1], c.pc[2], c.pc[3] };
		if (kset_find(&m->covered, k) >= 0)
			continue;
		c.on = true;
		*g = c;
		if (cts_verbosity >= 3)
			cts_debug_msg("map: target %s (order %d) x=%#" PRIx64 " y=%#" PRIx64
				      " pcs %#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %#" PRIx64,
				      names[T[c.t].id], c.t, c.x, c.y, c.pc[0], c.pc[1], c.pc[2],
				      c.pc[3]);
		return true;
	}
	if (cts_verbosity >= 3)
		cts_debug_msg("map: no uncovered candidate found in 256 samples");
	return false;
}

int cts_map_target_score(struct cts_map *m, const struct cts_event *ev)
{
	struct target *g = &m->target;
	int kinds[2], nk = access_kinds(ev->op, kinds);
	if (!g->on || !nk || ev->tid < 0 || g->k >= T[g->t].n)
		return 0;
	uint64_t var = variable_of(m, ev->obj);
	for (int i = 0; i < nk; i++)
		if (target_step(g, g->k, ev->tid, var, kinds[i], ev->pc))
			return 1;
	/* A thread about to take a later step of the target: too early. */
	for (int j = g->k + 1; j < T[g->t].n; j++)
		for (int i = 0; i < nk; i++)
			if (target_step(g, j, ev->tid, var, kinds[i], ev->pc))
				return -1;
	return 0;
}

static int access_kinds(cts_op op, int *kinds)
{
	switch (op) {
	case CTS_OP_READ:
		kinds[0] = R;
		return 1;
	case CTS_OP_WRITE:
		kinds[0] = W;
		return 1;
	case CTS_OP_RMW:
	case CTS_OP_ATOMIC:
		kinds[0] = R;
		kinds[1] = W;
		return 2;
	default:
		return 0;
	}
}

int cts_map_event(struct cts_map *m, const struct cts_event *ev)
{
	int kinds[2], nk = access_kinds(ev->op, kinds), done = 0;
	if (nk && ev->tid >= 0) {
		uint64_t var = variable_of(m, ev->obj);
		m->st.accesses++;
		note_order(m, ev->tid, var, ev->pc);
		bool fresh;
		int64_t *who = kset_val(&m->pcthr, kset_add(&m->pcthr, &ev->pc, &fresh));
		*who = fresh || *who == ev->tid ? ev->tid : -2;
		for (int i = 0; i < nk; i++) {
			note_pc(m, ev->tid, var, ev->pc, kinds[i]);
			done += step(m, ev->tid, var, kinds[i], ev->pc, true);
			target_advance(m, ev->tid, var, kinds[i], ev->pc);
		}
		tick_access(m, ev->tid);
	}
	if (ev->tid >= 0)
		hb_event(m, ev);
	return done;
}

int cts_map_would_complete(struct cts_map *m, const struct cts_event *ev)
{
	int kinds[2], nk = access_kinds(ev->op, kinds);
	if (!nk || ev->tid < 0)
		return 0;
	uint64_t var = variable_of(m, ev->obj);
	/* An RMW's write would also complete what its own read starts; the
	 * read's completions are the ones sure to happen at once. */
	return step(m, ev->tid, var, kinds[0], ev->pc, false) +
	       (nk > 1 ? step(m, ev->tid, var, kinds[1], ev->pc, false) : 0);
}

/* ---- end of run: covered set, must-precede, estimate ---------------------- */

static bool must_precede(const struct cts_map *m, uint64_t var, uint64_t q, uint64_t p)
{
	if (q == p)
		return false;
	uint64_t k[3] = { var, q, p };
	long i = kset_find(&m->must, k);
	return i >= 0 && *(uint8_t *)kset_val(&m->must, (size_t)i) == 1;
}

static int cmp_order(const void *a, const void *b, void *ctx)
{
	const struct kset *s = ctx;
	uint64_t va = kset_key(s, *(const uint32_t *)a)[0], vb = kset_key(s, *(const uint32_t *)b)[0];
	return va < vb ? -1 : va > vb;
}

/* Pairs of this run's instructions on one variable: was every execution of
 * q before every execution of p? Once not, never again "must". */
static void update_must(struct cts_map *m)
{
	size_t n = m->order.n;
	uint32_t *ix = cts_xmalloc((n ? n : 1) * sizeof(*ix));
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	qsort_r(ix, n, sizeof(*ix), cmp_order, &m->order);
	for (size_t s = 0, e; s < n; s = e) {
		uint64_t var = kset_key(&m->order, ix[s])[0];
		for (e = s; e < n && kset_key(&m->order, ix[e])[0] == var; e++)
			;
		if (e - s > MAX_ENUM)
			continue;  /* too many to pair: no pruning for this variable */
		for (size_t a = s; a < e; a++)
			for (size_t b = s; b < e; b++) {
				if (a == b)
					continue;
				const struct order *oq = kset_val(&m->order, ix[a]);
				const struct order *op = kset_val(&m->order, ix[b]);
				uint64_t k[3] = { var, kset_key(&m->order, ix[a])[1],
						  kset_key(&m->order, ix[b])[1] };
				uint8_t *f = kset_val(&m->must, kset_add(&m->must, k, NULL));
				*f |= cts_vc_leq(&oq->hi, &op->lo) ? 1 : 2;
			}
	}
	free(ix);
}

static uint64_t pc_at(const struct cts_map *m, uint32_t i)
{
	return kset_key(&m->pcs, i)[1];
}

/* q after p is possible (p, q on var). */
static bool ok(const struct cts_map *m, uint64_t var, uint64_t p, uint64_t q)
{
	return !must_precede(m, var, q, p);
}

static uint64_t count3(const struct cts_map *m, uint64_t var, const struct ids *s1,
		       const struct ids *s2, const struct ids *s3)
{
	uint64_t c = 0;
	for (size_t i = 0; i < s1->n; i++)
		for (size_t j = 0; j < s2->n; j++) {
			uint64_t a = pc_at(m, s1->v[i]), b = pc_at(m, s2->v[j]);
			if (!ok(m, var, a, b))
				continue;
			for (size_t k = 0; k < s3->n; k++) {
				uint64_t d = pc_at(m, s3->v[k]);
				c += ok(m, var, b, d) && ok(m, var, a, d);
			}
		}
	return c;
}

static uint64_t count2(const struct cts_map *m, uint64_t var, const struct ids *s1,
		       const struct ids *s2)
{
	uint64_t c = 0;
	for (size_t i = 0; i < s1->n; i++)
		for (size_t j = 0; j < s2->n; j++)
			c += ok(m, var, pc_at(m, s1->v[i]), pc_at(m, s2->v[j]));
	return c;
}

static void estimate(struct cts_map *m)
{
	uint64_t *e = m->st.estimate_by, raw = 0;
	memset(e, 0, sizeof(m->st.estimate_by));
	uint64_t sww = 0, sww2 = 0, swr = 0, srw = 0, swrrw = 0;
	uint64_t rww = 0, rww2 = 0, rwr = 0, rrw = 0, rwrrw = 0;  /* unpruned */
	for (size_t i = 0; i < m->vars.n; i++) {
		struct var *v = kset_val(&m->vars, i);
		uint64_t var = kset_key(&m->vars, i)[0];
		uint64_t nr = v->r.n, nw = v->w.n;
		raw += 2 * nr * nw + nw * nw + nr * nr * nw + 3 * nr * nw * nw + nw * nw * nw;
		if (v->thr != -1) {
			/* One thread only (thread numbers are creation order, the
			 * same in every run): every pattern needs two, so none can
			 * be covered; target picking skips them too. */
			v->f_rw = v->f_wr = v->f_ww = 0;
		} else if (nr + nw <= MAX_ENUM) {
			v->f_rw = count2(m, var, &v->r, &v->w);
			v->f_wr = count2(m, var, &v->w, &v->r);
			v->f_ww = count2(m, var, &v->w, &v->w);
			e[4] += count3(m, var, &v->r, &v->w, &v->r);
			e[5] += count3(m, var, &v->w, &v->w, &v->r);
			e[6] += count3(m, var, &v->w, &v->r, &v->w);
			e[7] += count3(m, var, &v->r, &v->w, &v->w);
			e[8] += count3(m, var, &v->w, &v->w, &v->w);
		} else {
			v->f_rw = v->f_wr = nr * nw;
			v->f_ww = nw * nw;
			e[4] += nr * nr * nw;
			e[5] += nr * nw * nw;
			e[6] += nr * nw * nw;
			e[7] += nr * nw * nw;
			e[8] += nw * nw * nw;
		}
		e[1] += v->f_rw;
		e[2] += v->f_wr;
		e[3] += v->f_ww;
		sww += v->f_ww;
		sww2 += v->f_ww * v->f_ww;
		swr += v->f_wr;
		srw += v->f_rw;
		swrrw += v->f_wr * v->f_rw;
		rww += nw * nw;
		rww2 += nw * nw * nw * nw;
		rwr += nr * nw;
		rrw += nr * nw;
		rwrrw += nr * nw * nr * nw;
	}
	/* Sums over ordered pairs x != y of a(x) b(y) = (sum a)(sum b) - sum a b. */
	e[9] = 3 * (sww * sww - sww2);
	e[10] = 3 * (swr * srw - swrrw);
	e[11] = 3 * (srw * swr - swrrw);
	raw += 3 * (rww * rww - rww2) + 6 * (rwr * rrw - rwrrw);
	m->st.estimate = 0;
	for (int i = 1; i <= CTS_MAP_PATTERNS; i++)
		m->st.estimate += e[i];
	m->st.estimate_raw = raw;
}

void cts_map_end_run(struct cts_map *m)
{
	if (m->target.on) {
		m->st.targets++;
		m->st.targets_hit += m->target.k == T[m->target.t].n;
	}
	m->st.last_run = m->runinst.n;
	m->st.last_new = 0;
	for (size_t i = 0; i < m->runinst.n; i++) {
		const uint64_t *k = kset_key(&m->runinst, i);
		bool fresh;
		kset_add(&m->covered, k, &fresh);
		if (fresh) {
			m->st.last_new++;
			m->st.covered_by[T[k[0]].id]++;
		}
	}
	m->st.covered = m->covered.n;
	update_must(m);
	estimate(m);
	m->st.variables = m->vars.n;
	m->st.runs++;
}

void cts_map_get_stats(const struct cts_map *m, struct cts_map_stats *st)
{
	*st = m->st;
}

/* ---- as a coverage source (models/coverage.h) ----------------------------- */

static void src_begin(void *ctx)
{
	cts_map_begin_run(ctx);
}

static void src_event(void *ctx, const struct cts_event *ev)
{
	cts_map_event(ctx, ev);
}

static void src_end(void *ctx, bool bug)
{
	(void)bug;
	cts_map_end_run(ctx);
}

static double pct(const struct cts_map_stats *s)
{
	return s->estimate ? 100.0 * (double)s->covered / (double)s->estimate : 0;
}

static void src_values(void *ctx, double *out)
{
	const struct cts_map_stats *s = &((struct cts_map *)ctx)->st;
	out[0] = (double)s->covered;
	out[1] = (double)s->estimate;
	out[2] = round(pct(s) * 100) / 100;
	out[3] = (double)s->last_run;
}

static char *src_totals(void *ctx)
{
	const struct cts_map_stats *s = &((struct cts_map *)ctx)->st;
	char *buf = cts_xmalloc(2048);
	int off = snprintf(buf, 2048, "{\"covered\": %" PRIu64 ", \"estimate\": %" PRIu64
			   ", \"estimate_unpruned\": %" PRIu64 ", \"percent\": %.2f"
			   ", \"variables\": %" PRIu64 ", \"accesses\": %" PRIu64
			   ", \"targets\": %" PRIu64 ", \"targets_covered\": %" PRIu64
			   ", \"truncated\": %s, \"patterns\": [", s->covered, s->estimate,
			   s->estimate_raw, pct(s), s->variables, s->accesses, s->targets,
			   s->targets_hit, s->truncated ? "true" : "false");
	for (int i = 1; i <= CTS_MAP_PATTERNS; i++)
		off += snprintf(buf + off, 2048 - (size_t)off,
				"%s{\"id\": %d, \"name\": \"%s\", \"covered\": %" PRIu64
				", \"estimate\": %" PRIu64 "}", i > 1 ? ", " : "", i, names[i],
				s->covered_by[i], s->estimate_by[i]);
	snprintf(buf + off, 2048 - (size_t)off, "]}");
	return buf;
}

static void src_summary(void *ctx, char *buf, size_t len)
{
	const struct cts_map_stats *s = &((struct cts_map *)ctx)->st;
	if (!s->accesses) {
		snprintf(buf, len, "MAP coverage: no memory access seen (in sync mode only lock-level "
			 "objects are visible; use --mode break or step)");
		return;
	}
	snprintf(buf, len, "MAP coverage %" PRIu64 "/%" PRIu64 " patterns (%.1f%%; %" PRIu64
		 " in the last run, %" PRIu64 " new), %" PRIu64 " variables%s", s->covered,
		 s->estimate, pct(s), s->last_run, s->last_new, s->variables,
		 s->truncated ? "; some runs had too many partial matches to follow all" :
		 s->covered >= s->estimate ? "; every estimated pattern covered" : "");
}

void cts_map_coverage_source(struct cts_map *m, struct cts_coverage_source *src)
{
	*src = (struct cts_coverage_source){
		.name = "map", .ctx = m, .nmetrics = 4,
		.metrics = { "map_covered", "map_estimate", "map_percent", "map_run" },
		.percent = { false, false, true, false },
		.plot = { false, false, true, false },
		.begin_run = src_begin, .event = src_event, .end_run = src_end,
		.values = src_values, .totals_json = src_totals, .summary = src_summary,
	};
}
