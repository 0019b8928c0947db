/* The Petri-net model of observed runs (petri.h), after Kähkönen &
 * Heljanko, TAP 2014, section 3. Components, places, transition keys and
 * stored markings are all interned as variable-length keys of 64-bit words
 * (hash, then a full comparison), so equal ids mean equal histories. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/petri.h"

/* ---- interning ---- */

struct itab {
	uint64_t *arena;
	size_t alen, acap;
	size_t *koff;
	uint32_t *klen;
	uint64_t *khash;
	uint32_t n, cap;
	uint32_t *slots;   /* id + 1, 0 = empty */
	size_t nslots;
};

#define NONE UINT32_MAX

static uint64_t hash_words(const uint64_t *k, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
	for (size_t i = 0; i < len; i++) {
		h ^= k[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h ? h : 1;
}

static void itab_grow(struct itab *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *s = cts_xcalloc(ns, sizeof(*s));
	for (uint32_t id = 0; id < t->n; id++) {
		size_t i = (size_t)t->khash[id] & (ns - 1);
		while (s[i])
			i = (i + 1) & (ns - 1);
		s[i] = id + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
}

/* Id of key k, NONE if absent and !create. */
static uint32_t itab_get(struct itab *t, const uint64_t *k, size_t len, bool create, bool *fresh)
{
	uint64_t h = hash_words(k, len);
	if (fresh)
		*fresh = false;
	if (t->nslots) {
		for (size_t i = (size_t)h & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
			uint32_t s = t->slots[i];
			if (!s)
				break;
			uint32_t id = s - 1;
			if (t->khash[id] == h && t->klen[id] == len &&
			    memcmp(&t->arena[t->koff[id]], k, len * sizeof(*k)) == 0)
				return id;
		}
	}
	if (!create)
		return NONE;
	if ((size_t)(t->n + 1) * 2 > t->nslots)
		itab_grow(t);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->koff = cts_xrealloc(t->koff, t->cap * sizeof(*t->koff));
		t->klen = cts_xrealloc(t->klen, t->cap * sizeof(*t->klen));
		t->khash = cts_xrealloc(t->khash, t->cap * sizeof(*t->khash));
	}
	if (t->alen + len > t->acap) {
		t->acap = t->acap ? t->acap * 2 : 4096;
		while (t->alen + len > t->acap)
			t->acap *= 2;
		t->arena = cts_xrealloc(t->arena, t->acap * sizeof(*t->arena));
	}
	uint32_t id = t->n++;
	memcpy(&t->arena[t->alen], k, len * sizeof(*k));
	t->koff[id] = t->alen;
	t->klen[id] = (uint32_t)len;
	t->khash[id] = h;
	t->alen += len;
	size_t i = (size_t)h & (t->nslots - 1);
	while (t->slots[i])
		i = (i + 1) & (t->nslots - 1);
	t->slots[i] = id + 1;
	if (fresh)
		*fresh = true;
	return id;
}

static const uint64_t *itab_key(const struct itab *t, uint32_t id, uint32_t *len)
{
	*len = t->klen[id];
	return &t->arena[t->koff[id]];
}

static size_t itab_bytes(const struct itab *t)
{
	return t->acap * 8 + t->cap * (sizeof(size_t) + 4 + 8) + t->nslots * 4;
}

static void itab_free(struct itab *t)
{
	free(t->arena);
	free(t->koff);
	free(t->klen);
	free(t->khash);
	free(t->slots);
}

/* ---- the net ---- */

enum { K_THREAD = 1, K_WORD, K_SYNC, K_HEAP, K_KERNEL, K_TCOUNT, K_BIG };
enum { P_INIT = 1, P_TINIT, P_OBS, P_WVAL, P_WPART, P_WID, P_WID2, P_HELD, P_GEN, P_HEAPW };

/* place flags */
#define PF_EXITED   0x02  /* the thread is gone */
#define PF_TERMINAL 0x04  /* runs end here */
#define PF_SPIN     0x08  /* seen held back as spinning: never predict */
#define PF_WVAL     0x10  /* wval: the value its write stores */
#define PF_HEAP     0x20  /* word places: contents the allocator may change (a block
                           * freed or allocated): read with the heap's place */

struct pinfo {
	uint32_t comp;       /* for thread places: unused */
	uint8_t flags;
	uint8_t known;       /* word places: bytes of `bytes` known (from writes and reads) */
	uint8_t wknown;      /* word places: bytes of `wbytes` the writes that name the place
	                      * fixed: a function of the place's key, unlike `known`, which
	                      * grows as reads from the place are seen */
	int32_t holder;      /* P_HELD: the owner, depth in `bytes` */
	/* The thread's next operation (index into tmpls, -1 unknown), when
	 * other threads live [0] and when it is alone [1]: the tracer makes no
	 * memory access visible while a single thread lives. [0] fills [1]
	 * for a non-access, never the reverse (cts_petri_see). */
	int32_t tmpl[2];
	uint32_t parked;     /* thread places: component + 1 of the barrier or futex the
	                      * step into it may leave the thread parked on */
	uint64_t bytes;
	uint64_t wbytes;
	uint64_t wval;
};

enum { T_UNKNOWN = 0, T_ENABLED, T_DISABLED, T_FIRES };

struct tinfo {
	uint8_t state;
	bool predicted;
	uint32_t lnew;       /* the thread's place after */
	size_t out;          /* (comp << 32 | place) pairs in outs */
	uint32_t nout;
};

struct cinfo {
	int kind;
	int tid;             /* thread components: the thread; word copies: the copy's thread */
	uint64_t key;        /* word number, object address */
	uint32_t init;       /* its initial place */
};

struct cts_petri {
	enum cts_petri_keying keying;
	bool replicate;
	struct itab comps, places, trans, marks;
	struct cinfo *ci;
	uint32_t cicap;
	struct pinfo *pi;
	uint32_t picap;
	struct tinfo *ti;
	uint32_t ticap;
	struct cts_event *tmpls;
	uint32_t ntmpls, tmplcap;
	uint64_t *outs;
	size_t nouts, outcap;
	uint32_t *tcomp;     /* thread -> component + 1 */
	int ntcomp;
	int width;           /* threads the model knows (max id + 1): with
	                      * replication, every word has this many copies */
	/* scratch for one transition */
	uint32_t *in_c;
	bool *in_w;
	size_t in_cap;
	uint64_t *kbuf;
	size_t kcap;
	uint64_t *obuf;
	size_t ocap;
	uint64_t conflicts;
	bool nomatch;
	char why[160];
	struct stub *stub;   /* threads' footprints for cts_petri_stubborn */
	uint32_t tmpl_edits; /* templates changed in place (a join's thread learnt) */
};

struct cts_pmark {
	uint64_t *e;     /* (comp << 32 | place), sorted, initial places left out */
	size_t n, cap;
	int nthreads;
};

#define MAX_WORDS 512   /* words one access is tracked under; beyond, no matching */

static void note(struct cts_petri *n, const char *why)
{
	if (!n->why[0])
		snprintf(n->why, sizeof(n->why), "%s", why);
}

static uint32_t place_get(struct cts_petri *n, const uint64_t *k, size_t len, uint32_t comp)
{
	bool fresh;
	uint32_t id = itab_get(&n->places, k, len, true, &fresh);
	if (fresh) {
		if (id >= n->picap) {
			n->picap = n->picap ? n->picap * 2 : 1024;
			n->pi = cts_xrealloc(n->pi, n->picap * sizeof(*n->pi));
		}
		n->pi[id] = (struct pinfo){ .comp = comp, .holder = -1, .tmpl = { -1, -1 } };
	}
	return id;
}

static uint32_t comp_get(struct cts_petri *n, int kind, uint64_t key, int tid)
{
	uint64_t k[3] = { (uint64_t)kind, key, (uint64_t)(int64_t)tid };
	bool fresh;
	uint32_t id = itab_get(&n->comps, k, 3, true, &fresh);
	if (!fresh)
		return id;
	if (id >= n->cicap) {
		n->cicap = n->cicap ? n->cicap * 2 : 256;
		n->ci = cts_xrealloc(n->ci, n->cicap * sizeof(*n->ci));
	}
	n->ci[id] = (struct cinfo){ .kind = kind, .tid = tid, .key = key };
	/* every copy of a word starts at the same place */
	uint64_t pk[3] = { P_INIT, (uint64_t)kind, kind == K_WORD ? key : id };
	n->ci[id].init = place_get(n, pk, 3, id);
	return id;
}

uint32_t cts_petri_thread_comp(struct cts_petri *n, int tid)
{
	if (tid < 0)
		return 0;
	if (tid >= n->ntcomp) {
		int nc = n->ntcomp ? n->ntcomp : 16;
		while (nc <= tid)
			nc *= 2;
		n->tcomp = cts_xrealloc(n->tcomp, (size_t)nc * sizeof(*n->tcomp));
		memset(n->tcomp + n->ntcomp, 0, (size_t)(nc - n->ntcomp) * sizeof(*n->tcomp));
		n->ntcomp = nc;
	}
	if (!n->tcomp[tid]) {
		n->tcomp[tid] = comp_get(n, K_THREAD, (uint64_t)tid, tid) + 1;
		if (tid >= n->width)
			n->width = tid + 1;
	}
	return n->tcomp[tid] - 1;
}

static void stub_free(struct stub *s);

struct cts_petri *cts_petri_new(enum cts_petri_keying keying, bool replicate)
{
	struct cts_petri *n = cts_xcalloc(1, sizeof(*n));
	n->keying = keying;
	n->replicate = replicate;
	comp_get(n, K_BIG, 0, -1); /* component 0: never a thread's */
	return n;
}

void cts_petri_free(struct cts_petri *n)
{
	if (!n)
		return;
	itab_free(&n->comps);
	itab_free(&n->places);
	itab_free(&n->trans);
	itab_free(&n->marks);
	free(n->ci);
	free(n->pi);
	free(n->ti);
	free(n->tmpls);
	free(n->outs);
	free(n->tcomp);
	free(n->in_c);
	free(n->in_w);
	free(n->kbuf);
	free(n->obuf);
	stub_free(n->stub);
	free(n);
}

/* ---- markings ---- */

static size_t mk_find(const struct cts_pmark *m, uint32_t comp, bool *found)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint32_t c = (uint32_t)(m->e[mid] >> 32);
		if (c == comp) {
			*found = true;
			return mid;
		}
		if (c < comp)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static uint32_t mk_place(const struct cts_petri *n, const struct cts_pmark *m, uint32_t comp)
{
	bool found;
	size_t i = mk_find(m, comp, &found);
	return found ? (uint32_t)m->e[i] : n->ci[comp].init;
}

static void mk_set(const struct cts_petri *n, struct cts_pmark *m, uint32_t comp, uint32_t place)
{
	bool found;
	size_t i = mk_find(m, comp, &found);
	if (place == n->ci[comp].init) {
		if (found) {
			memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(*m->e));
			m->n--;
		}
		return;
	}
	uint64_t v = (uint64_t)comp << 32 | place;
	if (found) {
		m->e[i] = v;
		return;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 32;
		m->e = cts_xrealloc(m->e, m->cap * sizeof(*m->e));
	}
	memmove(&m->e[i + 1], &m->e[i], (m->n - i) * sizeof(*m->e));
	m->e[i] = v;
	m->n++;
	if (n->ci[comp].kind == K_THREAD && n->ci[comp].tid >= m->nthreads)
		m->nthreads = n->ci[comp].tid + 1;
}

struct cts_pmark *cts_pmark_new(struct cts_petri *n)
{
	struct cts_pmark *m = cts_xcalloc(1, sizeof(*m));
	uint32_t c = cts_petri_thread_comp(n, 0);
	uint64_t k[3] = { P_TINIT, NONE, 0 };
	mk_set(n, m, c, place_get(n, k, 3, c));
	return m;
}

void cts_pmark_free(struct cts_pmark *m)
{
	if (m) {
		free(m->e);
		free(m);
	}
}

void cts_pmark_copy(struct cts_pmark *dst, const struct cts_pmark *src)
{
	if (dst->cap < src->n) {
		dst->cap = src->n;
		dst->e = cts_xrealloc(dst->e, dst->cap * sizeof(*dst->e));
	}
	if (src->n)
		memcpy(dst->e, src->e, src->n * sizeof(*src->e));
	dst->n = src->n;
	dst->nthreads = src->nthreads;
}

bool cts_pmark_equal(const struct cts_pmark *a, const struct cts_pmark *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->e, b->e, a->n * sizeof(*a->e)) == 0);
}

int cts_pmark_nthreads(const struct cts_pmark *m)
{
	return m->nthreads;
}

size_t cts_pmark_size(const struct cts_pmark *m)
{
	return m->n;
}

void cts_pmark_get(const struct cts_pmark *m, size_t i, uint32_t *comp, uint32_t *place)
{
	*comp = (uint32_t)(m->e[i] >> 32);
	*place = (uint32_t)m->e[i];
}

uint32_t cts_pmark_place(const struct cts_petri *n, const struct cts_pmark *m, uint32_t comp)
{
	return mk_place(n, m, comp);
}

void cts_pmark_set(const struct cts_petri *n, struct cts_pmark *m, uint32_t comp, uint32_t place)
{
	mk_set(n, m, comp, place);
}

uint32_t cts_petri_store(struct cts_petri *n, const struct cts_pmark *m, bool *fresh)
{
	return itab_get(&n->marks, m->e, m->n, true, fresh);
}

void cts_petri_load(const struct cts_petri *n, uint32_t id, struct cts_pmark *m)
{
	uint32_t len;
	const uint64_t *k = itab_key(&n->marks, id, &len);
	if (m->cap < len) {
		m->cap = len;
		m->e = cts_xrealloc(m->e, m->cap * sizeof(*m->e));
	}
	if (len)
		memcpy(m->e, k, len * sizeof(*k));
	m->n = len;
	m->nthreads = 0;
	for (size_t i = 0; i < len; i++) {
		const struct cinfo *c = &n->ci[k[i] >> 32];
		if (c->kind == K_THREAD && c->tid >= m->nthreads)
			m->nthreads = c->tid + 1;
	}
}

uint64_t cts_petri_nstored(const struct cts_petri *n)
{
	return n->marks.n;
}

/* ---- what an operation touches ---- */

static struct pinfo *thread_pi(struct cts_petri *n, const struct cts_pmark *m, int tid,
			       uint32_t *place);

static void in_add(struct cts_petri *n, size_t *k, uint32_t comp, bool w)
{
	if (*k >= n->in_cap) {
		n->in_cap = n->in_cap ? n->in_cap * 2 : 64;
		n->in_c = cts_xrealloc(n->in_c, n->in_cap * sizeof(*n->in_c));
		n->in_w = cts_xrealloc(n->in_w, n->in_cap * sizeof(*n->in_w));
	}
	n->in_c[*k] = comp;
	n->in_w[*k] = w;
	(*k)++;
}

static bool reads_only(cts_op op)
{
	return op == CTS_OP_READ || op == CTS_OP_LIB_READ;
}

static void words_of(struct cts_petri *n, int tid,
		     const struct cts_event *ev, size_t *k)
{
	uint64_t size = ev->size ? ev->size : 1;
	uint64_t lo = ev->obj >> 3, hi = (ev->obj + size - 1) >> 3;
	bool rd = reads_only(ev->op), wr = cts_op_is_write(ev->op);
	if (ev->op == CTS_OP_ALLOC && !ev->obj)
		return;  /* its block is known once it ran */
	if (hi - lo >= MAX_WORDS) {
		if (!n->nomatch)
			note(n, "an access wider than 4 KiB");
		n->nomatch = true;
		in_add(n, k, 0, true);
		return;
	}
	for (uint64_t w = lo; w <= hi; w++) {
		if (!n->replicate) {
			in_add(n, k, comp_get(n, K_WORD, w, -1), !rd);
			continue;
		}
		if (!wr || ev->op == CTS_OP_RMW || ev->op == CTS_OP_ATOMIC)
			in_add(n, k, comp_get(n, K_WORD, w, tid), !rd);
		for (int u = 0; wr && u < n->width; u++)
			if (u != tid || rd)
				in_add(n, k, comp_get(n, K_WORD, w, u), true);
		if (wr && !(ev->op == CTS_OP_RMW || ev->op == CTS_OP_ATOMIC))
			in_add(n, k, comp_get(n, K_WORD, w, tid), true);
	}
}

/* The components ev (tid's operation) reads or writes besides tid's own
 * thread component, into n->in_c / n->in_w. */
static size_t op_inputs(struct cts_petri *n, const struct cts_pmark *m, int tid,
			const struct cts_event *ev)
{
	size_t k = 0;
	uint32_t L;
	const struct pinfo *tp = thread_pi(n, m, tid, &L);
	if (tp && tp->parked)
		in_add(n, &k, tp->parked - 1, false);  /* released by that object */
	switch (ev->op) {
	case CTS_OP_READ: case CTS_OP_WRITE: case CTS_OP_RMW: case CTS_OP_ATOMIC:
	case CTS_OP_LIB_READ: case CTS_OP_LIB_WRITE: {
		words_of(n, tid, ev, &k);
		bool heap = false;
		for (size_t i = 0; i < k && !heap; i++)
			heap = n->in_c[i] && (n->pi[mk_place(n, m, n->in_c[i])].flags & PF_HEAP);
		if (heap)
			in_add(n, &k, comp_get(n, K_HEAP, 0, -1), false);
		break;
	}
	case CTS_OP_FREE: case CTS_OP_ALLOC:
		in_add(n, &k, comp_get(n, K_HEAP, 0, -1), true);
		words_of(n, tid, ev, &k);
		break;
	case CTS_OP_COND_WAIT: case CTS_OP_COND_REACQUIRE:
		in_add(n, &k, comp_get(n, K_SYNC, ev->obj, -1), true);
		if (ev->obj2 && ev->obj2 != ev->obj)
			in_add(n, &k, comp_get(n, K_SYNC, ev->obj2, -1), true);
		break;
	case CTS_OP_FUTEX_WAIT: case CTS_OP_FUTEX_WAKE:
		in_add(n, &k, comp_get(n, K_SYNC, ev->obj, -1), true);
		in_add(n, &k, comp_get(n, K_WORD, ev->obj >> 3, n->replicate ? tid : -1), false);
		break;
	case CTS_OP_JOIN:
		if (ev->target >= 0)
			in_add(n, &k, cts_petri_thread_comp(n, ev->target), false);
		else
			in_add(n, &k, comp_get(n, K_SYNC, ev->obj, -1), true);
		break;
	case CTS_OP_CREATE:
		/* the new thread's id depends on the creates before it */
		in_add(n, &k, comp_get(n, K_TCOUNT, 0, -1), true);
		break;
	case CTS_OP_PROC_EXIT:
		/* keyed by the whole marking: every distinct final state is checked
		 * by a real run (exit status, --check, output oracles) */
		for (size_t i = 0; i < m->n; i++)
			if ((uint32_t)(m->e[i] >> 32) != cts_petri_thread_comp(n, tid))
				in_add(n, &k, (uint32_t)(m->e[i] >> 32), false);
		break;
	case CTS_OP_START: case CTS_OP_THREAD_EXIT: case CTS_OP_YIELD: case CTS_OP_SLEEP:
		break;
	case CTS_OP_CANCEL:
		if (!n->nomatch)
			note(n, "pthread_cancel");
		n->nomatch = true;
		if (ev->target >= 0)
			in_add(n, &k, cts_petri_thread_comp(n, ev->target), true);
		in_add(n, &k, comp_get(n, K_SYNC, ev->obj, -1), true);
		break;
	default:
		if (cts_op_is_kernel(ev->op)) {
			if (ev->op == CTS_OP_SIGNAL) {
				if (!n->nomatch)
					note(n, "a signal (its handler runs unseen)");
				n->nomatch = true;
			}
			in_add(n, &k, comp_get(n, K_KERNEL, 0, -1), true);
		} else {
			in_add(n, &k, comp_get(n, K_SYNC, ev->obj, -1), true);
		}
		break;
	}
	return k;
}

static uint64_t *kbuf(struct cts_petri *n, size_t len)
{
	if (len > n->kcap) {
		n->kcap = len * 2;
		n->kbuf = cts_xrealloc(n->kbuf, n->kcap * sizeof(*n->kbuf));
	}
	return n->kbuf;
}

static struct pinfo *thread_pi(struct cts_petri *n, const struct cts_pmark *m, int tid,
			       uint32_t *place)
{
	if (tid < 0 || tid >= m->nthreads)
		return NULL;
	uint32_t c = cts_petri_thread_comp(n, tid);
	bool found;
	size_t i = mk_find(m, c, &found);
	if (!found)
		return NULL;
	*place = (uint32_t)m->e[i];
	return &n->pi[*place];
}

/* No other thread of m lives. */
static bool alone_in(const struct cts_petri *n, const struct cts_pmark *m, int tid)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct cinfo *c = &n->ci[m->e[i] >> 32];
		if (c->kind == K_THREAD && c->tid != tid &&
		    !(n->pi[(uint32_t)m->e[i]].flags & PF_EXITED))
			return false;
	}
	return true;
}

/* tid's next operation at m, NULL if not known. */
static const struct cts_event *tmpl_at(const struct cts_petri *n, const struct cts_pmark *m,
				       int tid, const struct pinfo *pi)
{
	int32_t t = pi->tmpl[alone_in(n, m, tid)];
	return t >= 0 ? &n->tmpls[t] : NULL;
}

bool cts_petri_skips(const struct cts_petri *n, const struct cts_pmark *m, int tid, cts_op op)
{
	return cts_op_is_range(op) && alone_in(n, m, tid);
}

/* The transition key of tid at m for its next operation ev: NONE-free. */
static uint32_t trans_key(struct cts_petri *n, const struct cts_pmark *m, int tid, uint32_t L,
			  const struct cts_event *ev, size_t *nin)
{
	size_t k = op_inputs(n, m, tid, ev);
	uint64_t *key = kbuf(n, k + 1);
	key[0] = L;
	for (size_t i = 0; i < k; i++)
		key[i + 1] = mk_place(n, m, n->in_c[i]);
	*nin = k;
	bool fresh;
	uint32_t id = itab_get(&n->trans, key, k + 1, true, &fresh);
	if (fresh) {
		if (id >= n->ticap) {
			n->ticap = n->ticap ? n->ticap * 2 : 1024;
			n->ti = cts_xrealloc(n->ti, n->ticap * sizeof(*n->ti));
		}
		n->ti[id] = (struct tinfo){ .state = T_UNKNOWN };
	}
	return id;
}

/* ---- firing: the places after an operation ---- */

static void out_add(struct cts_petri *n, size_t *k, uint32_t comp, uint32_t place)
{
	if (*k >= n->ocap) {
		n->ocap = n->ocap ? n->ocap * 2 : 64;
		n->obuf = cts_xrealloc(n->obuf, n->ocap * sizeof(*n->obuf));
	}
	n->obuf[(*k)++] = (uint64_t)comp << 32 | place;
}

static uint64_t byte_mask(uint32_t off, uint32_t size)
{
	uint64_t m = size >= 8 ? ~0ull : ((1ull << (size * 8)) - 1);
	return m << (off * 8);
}

/* Within one word, at most 8 bytes: values can key it. */
static bool in_word(const struct cts_event *ev)
{
	uint32_t size = ev->size ? ev->size : 1;
	return size <= 8 && (ev->obj & 7) + size <= 8;
}

/* The bytes of a word that the bit mask `known` names. */
static uint64_t known_mask(uint8_t known)
{
	uint64_t km = 0;
	for (int b = 0; b < 8; b++)
		if (known >> b & 1)
			km |= 0xffull << (b * 8);
	return km;
}

/* What reading ev's bytes from word place p tells: learn them; false if it
 * contradicts what was known. */
static bool learn(struct cts_petri *n, uint32_t p, const struct cts_event *ev, uint64_t value)
{
	uint32_t off = (uint32_t)(ev->obj & 7), size = ev->size ? ev->size : 1;
	uint64_t bm = byte_mask(off, size);
	uint8_t kb = (uint8_t)(((1u << size) - 1) << off);
	uint64_t v = (value << (off * 8)) & bm;
	struct pinfo *pi = &n->pi[p];
	if (pi->flags & PF_HEAP)
		return true;  /* its bytes change with the heap */
	uint64_t km = known_mask(pi->known);
	if ((km & bm & pi->bytes) != (km & bm & v))
		return false;
	pi->bytes = (pi->bytes & ~bm) | v;
	pi->known |= kb;
	return true;
}

/* A word's place after tid (at L) wrote it with ev (value = the bytes after). */
static uint32_t word_after(struct cts_petri *n, uint32_t comp, uint32_t old, uint32_t L,
			   const struct cts_event *ev)
{
	uint64_t w = n->ci[comp].key;
	bool whole = ev->op == CTS_OP_WRITE && ev->obj == w * 8 && ev->size == 8;
	if (ev->op == CTS_OP_FREE || ev->op == CTS_OP_ALLOC || (n->pi[old].flags & PF_HEAP)) {
		/* the allocator writes its lists into freed blocks during later heap
		 * calls: such a word stays tied to the heap's place */
		uint64_t k[4] = { P_HEAPW, w, L, old };
		uint32_t p = place_get(n, k, 4, comp);
		n->pi[p].flags |= PF_HEAP;
		return p;
	}
	if (n->keying == CTS_PETRI_VALUES && in_word(ev) && ev->op != CTS_OP_LIB_WRITE &&
	    ev->op != CTS_OP_FREE && ev->op != CTS_OP_ALLOC) {
		uint32_t off = (uint32_t)(ev->obj & 7), size = ev->size ? ev->size : 1;
		uint64_t bm = byte_mask(off, size), v = (ev->value << (off * 8)) & bm;
		uint8_t kb = (uint8_t)(((1u << size) - 1) << off);
		/* The new place is named by writes only: what reads taught about
		 * old (its `known`) grows from run to run, and a place named
		 * from it would make the same write's outcome change with the
		 * order the runs came in (a contradiction of the model). */
		uint8_t wknown = (uint8_t)(n->pi[old].wknown | kb);
		uint64_t wbytes = (n->pi[old].wbytes & ~bm) | v;
		uint8_t known = (uint8_t)(n->pi[old].known | kb);
		uint64_t bytes = (n->pi[old].bytes & ~bm) | v;
		uint32_t p;
		if (wknown == 0xff) {
			uint64_t k[3] = { P_WVAL, w, wbytes };
			p = place_get(n, k, 3, comp);
		} else {
			uint64_t k[5] = { P_WPART, old, off | (uint64_t)size << 8, ev->value, w };
			p = place_get(n, k, 5, comp);
		}
		struct pinfo *pi = &n->pi[p];
		pi->wknown = wknown;
		pi->wbytes = wbytes;
		/* what is known of it: all that was, and what old tells now */
		uint64_t km = known_mask(pi->known);
		pi->bytes = (pi->bytes & km) | (bytes & ~km);
		pi->known |= known;
		return p;
	}
	if (whole) {
		uint64_t k[3] = { P_WID, w, L };
		return place_get(n, k, 3, comp);
	}
	uint64_t k[4] = { P_WID2, w, L, old };
	return place_get(n, k, 4, comp);
}

static uint32_t gen_after(struct cts_petri *n, uint32_t comp, uint32_t old, uint32_t L,
			  const struct cts_event *ev)
{
	uint64_t k[8] = { P_GEN, old, L, (uint64_t)ev->op, (uint64_t)(int64_t)ev->result, ev->value,
			  ev->obj, (uint64_t)(int64_t)ev->target };
	return place_get(n, k, 8, comp);
}

/* A mutex: free (its initial place) or held by a thread some times over. */
static uint32_t mutex_after(struct cts_petri *n, uint32_t comp, uint32_t old, uint32_t L, int tid,
			    const struct cts_event *ev, bool acquire)
{
	const struct pinfo *o = &n->pi[old];
	uint64_t depth;
	if (ev->result != 0 && ev->op != CTS_OP_COND_WAIT)
		return old;  /* trylock failed, error return: nothing changed */
	if (acquire && old == n->ci[comp].init)
		depth = 1;
	else if (acquire && o->holder == tid)
		depth = o->bytes + 1;
	else if (!acquire && o->holder == tid)
		depth = o->bytes - 1;
	else
		return gen_after(n, comp, old, L, ev);
	if (depth == 0)
		return n->ci[comp].init;
	uint64_t k[4] = { P_HELD, comp, (uint64_t)tid, depth };
	uint32_t p = place_get(n, k, 4, comp);
	n->pi[p].holder = tid;
	n->pi[p].bytes = depth;
	return p;
}

static bool is_mutex_op(cts_op op)
{
	return op == CTS_OP_LOCK || op == CTS_OP_TRYLOCK || op == CTS_OP_UNLOCK;
}

/* Does the thread's observation include the places it read? Only where the
 * event itself does not carry what the thread got back. */
static bool observes_places(const struct cts_petri *n, cts_op op)
{
	switch (op) {
	case CTS_OP_READ:
		return n->keying == CTS_PETRI_WRITES;
	case CTS_OP_RMW: case CTS_OP_ATOMIC: case CTS_OP_LIB_READ: case CTS_OP_JOIN:
		return true;
	default:
		return cts_op_is_kernel(op);
	}
}

/* The places after tid (at L) executed ev with inputs n->in_c[0..nin) at m:
 * the thread's new place in *lnew, the others in n->obuf; false when a
 * read contradicts what is known of the word. */
static size_t fire_outputs(struct cts_petri *n, const struct cts_pmark *m, int tid, uint32_t L,
			   const struct cts_event *ev, size_t nin, uint32_t *lnew, bool *contradiction)
{
	size_t k = 0;
	*contradiction = false;
	bool plc = observes_places(n, ev->op);
	uint64_t vobs = ev->value;
	if (ev->op == CTS_OP_WRITE || ev->op == CTS_OP_LIB_WRITE ||
	    (ev->op == CTS_OP_READ && n->keying == CTS_PETRI_WRITES) || cts_op_is_sync(ev->op))
		vobs = ev->op == CTS_OP_SEM_INIT || ev->op == CTS_OP_BARRIER_INIT ? ev->value : 0;
	uint64_t *key = kbuf(n, 9 + nin);
	size_t kl = 0;
	key[kl++] = P_OBS;
	key[kl++] = L;
	key[kl++] = (uint64_t)ev->op;
	key[kl++] = ev->obj;
	key[kl++] = ev->obj2;
	key[kl++] = ev->size;
	key[kl++] = (uint64_t)(int64_t)ev->target;
	key[kl++] = (uint64_t)(int64_t)ev->result;
	key[kl++] = vobs;
	for (size_t i = 0; plc && i < nin; i++)
		if ((!n->in_w[i] || ev->op != CTS_OP_READ) && n->ci[n->in_c[i]].kind != K_TCOUNT)
			key[kl++] = mk_place(n, m, n->in_c[i]);
	uint32_t tc = cts_petri_thread_comp(n, tid);
	*lnew = place_get(n, key, kl, tc);
	if (ev->op == CTS_OP_BARRIER_WAIT || ev->op == CTS_OP_FUTEX_WAIT)
		n->pi[*lnew].parked = comp_get(n, K_SYNC, ev->obj, -1) + 1;

	for (size_t i = 0; i < nin; i++) {
		uint32_t c = n->in_c[i], old = mk_place(n, m, c);
		const struct cinfo *ci = &n->ci[c];
		if (!n->in_w[i]) {
			if (ev->op == CTS_OP_READ && ci->kind == K_WORD && n->keying == CTS_PETRI_VALUES &&
			    in_word(ev) && !learn(n, old, ev, ev->value))
				*contradiction = true;
			continue;
		}
		uint32_t p;
		if (ci->kind == K_WORD)
			p = word_after(n, c, old, L, ev);
		else if (ci->kind == K_SYNC && is_mutex_op(ev->op))
			p = mutex_after(n, c, old, L, tid, ev, ev->op != CTS_OP_UNLOCK);
		else if (ci->kind == K_SYNC && (ev->op == CTS_OP_COND_WAIT ||
						ev->op == CTS_OP_COND_REACQUIRE) && ci->key == ev->obj2 &&
			 ev->obj2 != ev->obj)
			p = mutex_after(n, c, old, L, tid, ev, ev->op == CTS_OP_COND_REACQUIRE);
		else
			p = gen_after(n, c, old, L, ev);
		if (p != old)
			out_add(n, &k, c, p);
	}
	if (ev->op == CTS_OP_ALLOC && ev->obj) {
		/* the block's words: known only now */
		uint64_t size = ev->size ? ev->size : 1;
		uint64_t lo = ev->obj >> 3, hi = (ev->obj + size - 1) >> 3;
		for (uint64_t w = lo; w <= hi && hi - lo < MAX_WORDS; w++)
			for (int u = n->replicate ? 0 : -1; u < (n->replicate ? n->width : 0); u++) {
				uint32_t c = comp_get(n, K_WORD, w, u);
				out_add(n, &k, c, word_after(n, c, mk_place(n, m, c), L, ev));
			}
	}
	if (ev->op == CTS_OP_CREATE && ev->target > 0) {
		uint32_t c = cts_petri_thread_comp(n, ev->target);
		uint64_t tk[3] = { P_TINIT, L, (uint64_t)ev->target };
		out_add(n, &k, c, place_get(n, tk, 3, c));
	}
	return k;
}

static void apply(struct cts_petri *n, struct cts_pmark *m, int tid, uint32_t lnew,
		  const uint64_t *outs, size_t nout)
{
	mk_set(n, m, cts_petri_thread_comp(n, tid), lnew);
	for (size_t i = 0; i < nout; i++)
		mk_set(n, m, (uint32_t)(outs[i] >> 32), (uint32_t)outs[i]);
}

static void record(struct cts_petri *n, uint32_t t, uint32_t lnew, size_t nout, bool predicted)
{
	struct tinfo *ti = &n->ti[t];
	if (ti->state == T_FIRES) {
		bool same = ti->lnew == lnew && ti->nout == nout &&
			    memcmp(&n->outs[ti->out], n->obuf, nout * sizeof(*n->obuf)) == 0;
		if (same || predicted)
			return;
		n->conflicts++;
		note(n, "a transition had a different outcome than before");
		if (ti->nout >= nout) {
			memcpy(&n->outs[ti->out], n->obuf, nout * sizeof(*n->obuf));
			ti->nout = (uint32_t)nout;
			ti->lnew = lnew;
			return;
		}
	}
	if (n->nouts + nout > n->outcap) {
		n->outcap = n->outcap ? n->outcap * 2 : 4096;
		while (n->nouts + nout > n->outcap)
			n->outcap *= 2;
		n->outs = cts_xrealloc(n->outs, n->outcap * sizeof(*n->outs));
	}
	if (nout) /* a transition with no outputs: outs may not exist yet */
		memcpy(&n->outs[n->nouts], n->obuf, nout * sizeof(*n->obuf));
	ti->out = n->nouts;
	ti->nout = (uint32_t)nout;
	ti->lnew = lnew;
	ti->state = T_FIRES;
	ti->predicted = predicted;
	n->nouts += nout;
}

/* ---- learning ---- */

/* Is b (seen now) the operation a (modelled) at the same place? A string
 * function's extent (strlen, strcmp, strcpy) depends on the bytes it meets,
 * which the word places in the transition's key determine: any extent within
 * the words a names is the same operation, its size an outcome. */
static bool same_op(const struct cts_event *a, const struct cts_event *b)
{
	if (a->op != b->op)
		return false;
	if (a->op == CTS_OP_ALLOC)
		return true;
	if (a->obj != b->obj)
		return false;
	if (a->size == b->size)
		return true;
	if (a->op != CTS_OP_LIB_READ && a->op != CTS_OP_LIB_WRITE)
		return false;
	uint64_t as = a->size ? a->size : 1, bs = b->size ? b->size : 1;
	return (b->obj + bs - 1) >> 3 <= (a->obj + as - 1) >> 3;
}

void cts_petri_see(struct cts_petri *n, const struct cts_pmark *m, int tid, bool alive,
		   const struct cts_event *pending, bool enabled, bool spinning, bool outside)
{
	uint32_t L;
	struct pinfo *pi = thread_pi(n, m, tid, &L);
	if (!pi)
		return;
	if (!alive) {
		if (pi->tmpl[0] >= 0 || pi->tmpl[1] >= 0) {
			n->conflicts++;
			note(n, "a thread ended where it had run on before");
		}
		pi->flags |= PF_EXITED;
		return;
	}
	if (pi->flags & PF_EXITED) {
		n->conflicts++;
		note(n, "a thread ran on where it had ended before");
		return;
	}
	int al = alone_in(n, m, tid);
	if (al && cts_op_is_range(pending->op))
		return;  /* cts_petri_skips */
	if (pi->tmpl[al] < 0) {
		if (n->ntmpls == n->tmplcap) {
			n->tmplcap = n->tmplcap ? n->tmplcap * 2 : 256;
			n->tmpls = cts_xrealloc(n->tmpls, n->tmplcap * sizeof(*n->tmpls));
		}
		struct cts_event *t = &n->tmpls[n->ntmpls];
		*t = *pending;
		t->value = t->op == CTS_OP_SEM_INIT || t->op == CTS_OP_BARRIER_INIT ? t->value : 0;
		t->result = 0;
		pi = &n->pi[L];
		pi->tmpl[al] = (int32_t)n->ntmpls++;
		/* Not alone, a non-access comes next: alone it comes next too (a
		 * lone thread's accesses are only hidden, none added). Not the
		 * other way: seen alone, accesses the tracer hid may come first
		 * when another thread lives (a re-read between two joins). */
		if (!al && !cts_op_is_range(pending->op) && pi->tmpl[1] < 0)
			pi->tmpl[1] = pi->tmpl[0];
	} else {
		struct cts_event *t = &n->tmpls[pi->tmpl[al]];
		if (!same_op(t, pending)) {
			char a[96], b[96];
			cts_debug_msg("petri: thread %d at place %u: modelled '%s', does '%s'", tid, L,
				      cts_event_str(t, a, sizeof(a)), cts_event_str(pending, b, sizeof(b)));
			n->conflicts++;
			note(n, "a thread did something else from the same abstract state");
			return;
		}
		if (t->target < 0 && pending->target >= 0) {
			t->target = pending->target;
			n->tmpl_edits++;  /* the footprints (cts_petri_stubborn) change */
		}
	}
	if (spinning)
		pi->flags |= PF_SPIN;
	if (outside)
		return;
	size_t nin;
	uint32_t t = trans_key(n, m, tid, L, &n->tmpls[n->pi[L].tmpl[al]], &nin);
	struct tinfo *ti = &n->ti[t];
	if (enabled && ti->state != T_FIRES)
		ti->state = T_ENABLED;
	else if (!enabled && ti->state == T_UNKNOWN)
		ti->state = T_DISABLED;
}

/* A thread the model did not know was created: the writes so far in this
 * run did not set its copies of the words (they set the copies of the
 * threads known then), so in this run's marking they take the creator's,
 * which every write since the creator was known set. Not an output of the
 * create (that would make the create read every word): the unfolding built
 * so far is stale and starts again (cts_petri_width). */
static void widen(struct cts_petri *n, struct cts_pmark *m, int creator, int from)
{
	size_t nw = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct cinfo *c = &n->ci[m->e[i] >> 32];
		nw += c->kind == K_WORD && c->tid == creator;
	}
	struct { uint64_t word; uint32_t place; } *src = cts_xmalloc((nw + 1) * sizeof(*src));
	nw = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct cinfo *c = &n->ci[m->e[i] >> 32];
		if (c->kind == K_WORD && c->tid == creator) {
			src[nw].word = c->key;
			src[nw++].place = (uint32_t)m->e[i];
		}
	}
	for (size_t i = 0; i < nw; i++)
		for (int u = from; u < n->width; u++)
			mk_set(n, m, comp_get(n, K_WORD, src[i].word, u), src[i].place);
	free(src);
}

void cts_petri_executed(struct cts_petri *n, struct cts_pmark *m, const struct cts_event *done)
{
	uint32_t L;
	int tid = done->tid, width = n->width;
	struct pinfo *pi = thread_pi(n, m, tid, &L);
	if (cts_petri_skips(n, m, tid, done->op))
		return;
	const struct cts_event *tm = pi ? tmpl_at(n, m, tid, pi) : NULL;
	if (!tm)
		return;
	size_t nin;
	uint32_t t = trans_key(n, m, tid, L, tm, &nin);
	if (done->op == CTS_OP_WRITE && n->keying == CTS_PETRI_VALUES) {
		if ((pi->flags & PF_WVAL) && pi->wval != done->value) {
			n->conflicts++;
			note(n, "a write stored another value from the same abstract state");
		}
		pi->wval = done->value;
		pi->flags |= PF_WVAL;
	}
	struct cts_event ev = *done;
	if (ev.op == CTS_OP_JOIN && ev.target < 0)
		ev.target = tm->target;
	uint32_t lnew;
	bool contra;
	size_t nout = fire_outputs(n, m, tid, L, &ev, nin, &lnew, &contra);
	if (contra) {
		n->conflicts++;
		note(n, "a read saw another value than the model knew for its word");
	}
	uint64_t before = n->conflicts;
	uint32_t was_l = n->ti[t].lnew, was_n = n->ti[t].nout;
	record(n, t, lnew, nout, false);
	if (n->conflicts != before) {
		char b[96];
		cts_debug_msg("petri: thread %d at place %u: '%s' went to place %u with %zu outputs, "
			      "modelled place %u with %u", tid, L, cts_event_str(done, b, sizeof(b)),
			      lnew, nout, was_l, was_n);
	}
	apply(n, m, tid, lnew, n->obuf, nout);
	if (n->replicate && n->width > width)
		widen(n, m, tid, width);
}

void cts_petri_run_ended(struct cts_petri *n, const struct cts_pmark *m, int tid)
{
	uint32_t L;
	struct pinfo *pi = thread_pi(n, m, tid, &L);
	if (pi && !tmpl_at(n, m, tid, pi) && !(pi->flags & PF_EXITED))
		pi->flags |= PF_TERMINAL;
}

/* ---- querying ---- */

/* PREDICTTRANSITIONSFROMMODEL: reads, writes, locks and unlocks whose
 * outcome the model already knows. True if t now fires. */
static bool predict(struct cts_petri *n, const struct cts_pmark *m, int tid, uint32_t L,
		    const struct cts_event *tm, size_t nin, uint32_t t)
{
	const struct pinfo *pi = &n->pi[L];
	struct cts_event ev = *tm;
	ev.tid = tid;
	ev.result = 0;
	switch (tm->op) {
	case CTS_OP_READ:
		if (pi->flags & PF_SPIN)
			return false;
		if (n->keying == CTS_PETRI_VALUES) {
			if (!in_word(tm) || nin != 1)
				return false;
			const struct pinfo *wp = &n->pi[mk_place(n, m, n->in_c[0])];
			if (wp->flags & PF_HEAP)
				return false;
			uint32_t off = (uint32_t)(tm->obj & 7), size = tm->size ? tm->size : 1;
			uint8_t need = (uint8_t)(((1u << size) - 1) << off);
			if ((wp->known & need) != need)
				return false;
			ev.value = (wp->bytes & byte_mask(off, size)) >> (off * 8);
		}
		break;
	case CTS_OP_WRITE:
		if (n->keying == CTS_PETRI_VALUES && in_word(tm)) {
			if (!(pi->flags & PF_WVAL))
				return false;
			ev.value = pi->wval;
		}
		break;
	case CTS_OP_LOCK: {
		if (tm->timed || nin != 1)
			return false;
		uint32_t p = mk_place(n, m, n->in_c[0]);
		if (p == n->ci[n->in_c[0]].init)
			break;
		if (n->pi[p].holder >= 0 && n->pi[p].holder != tid && n->ti[t].state == T_UNKNOWN)
			n->ti[t].state = T_DISABLED;  /* held by another thread */
		return false;
	}
	case CTS_OP_UNLOCK: {
		if (nin != 1)
			return false;
		uint32_t p = mk_place(n, m, n->in_c[0]);
		if (n->pi[p].holder != tid)
			return false;
		break;
	}
	default:
		return false;
	}
	uint32_t lnew;
	bool contra;
	size_t nout = fire_outputs(n, m, tid, L, &ev, nin, &lnew, &contra);
	record(n, t, lnew, nout, true);
	return true;
}

enum cts_pstatus cts_petri_status(struct cts_petri *n, const struct cts_pmark *m, int tid)
{
	uint32_t L;
	const struct pinfo *pi = thread_pi(n, m, tid, &L);
	if (!pi || (pi->flags & (PF_EXITED | PF_TERMINAL)))
		return CTS_PS_GONE;
	const struct cts_event *tm = tmpl_at(n, m, tid, pi);
	if (!tm)
		return CTS_PS_UNKNOWN;
	size_t nin;
	uint32_t t = trans_key(n, m, tid, L, tm, &nin);
	switch (n->ti[t].state) {
	case T_FIRES:
		return CTS_PS_ENABLED;
	case T_DISABLED:
		return CTS_PS_DISABLED;
	default:
		if (predict(n, m, tid, L, tm, nin, t))
			return CTS_PS_ENABLED;
		return n->ti[t].state == T_DISABLED ? CTS_PS_DISABLED : CTS_PS_UNKNOWN;
	}
}

bool cts_petri_terminal(const struct cts_petri *n, const struct cts_pmark *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (n->ci[m->e[i] >> 32].kind == K_THREAD &&
		    (n->pi[(uint32_t)m->e[i]].flags & PF_TERMINAL))
			return true;
	return false;
}

uint32_t cts_petri_unknowns(struct cts_petri *n, const struct cts_pmark *m, int *en, int *alive)
{
	uint32_t u = 0;
	*en = *alive = 0;
	if (cts_petri_terminal(n, m))
		return 0;
	for (int t = 0; t < cts_pmark_nthreads(m); t++) {
		enum cts_pstatus ps = cts_petri_status(n, m, t);
		u += ps == CTS_PS_UNKNOWN;
		*en += ps == CTS_PS_ENABLED;
		*alive += ps != CTS_PS_GONE;
	}
	return u;
}

int cts_petri_width(const struct cts_petri *n)
{
	return n->width;
}

const struct cts_event *cts_petri_next_op(const struct cts_petri *n, const struct cts_pmark *m,
					  int tid)
{
	uint32_t L;
	const struct pinfo *pi = thread_pi((struct cts_petri *)n, m, tid, &L);
	return pi ? tmpl_at(n, m, tid, pi) : NULL;
}

uint32_t cts_petri_key(struct cts_petri *n, const struct cts_pmark *m, int tid)
{
	uint32_t L;
	const struct pinfo *pi = thread_pi(n, m, tid, &L);
	const struct cts_event *tm = pi ? tmpl_at(n, m, tid, pi) : NULL;
	if (!tm)
		return 0;
	size_t nin;
	return trans_key(n, m, tid, L, tm, &nin) + 1;
}

bool cts_petri_fire(struct cts_petri *n, struct cts_pmark *m, int tid)
{
	uint32_t t = cts_petri_key(n, m, tid);
	if (!t || n->ti[t - 1].state != T_FIRES)
		return false;
	const struct tinfo *ti = &n->ti[t - 1];
	apply(n, m, tid, ti->lnew, &n->outs[ti->out], ti->nout);
	return true;
}

size_t cts_petri_inputs(struct cts_petri *n, const struct cts_pmark *m, int tid, uint32_t *comps,
			size_t max)
{
	const struct cts_event *tm = cts_petri_next_op(n, m, tid);
	if (!tm)
		return 0;
	size_t k = op_inputs(n, m, tid, tm);
	if (max)
		comps[0] = cts_petri_thread_comp(n, tid);
	for (size_t i = 0; i < k && i + 1 < max; i++)
		comps[i + 1] = n->in_c[i];
	return k + 1;
}

size_t cts_petri_outputs(struct cts_petri *n, const struct cts_pmark *m, int tid, uint32_t *comps,
			 size_t max)
{
	uint32_t t = cts_petri_key(n, m, tid);
	if (!t || n->ti[t - 1].state != T_FIRES)
		return 0;
	const struct tinfo *ti = &n->ti[t - 1];
	if (max)
		comps[0] = cts_petri_thread_comp(n, tid);
	for (size_t i = 0; i < ti->nout && i + 1 < max; i++)
		comps[i + 1] = (uint32_t)(n->outs[ti->out + i] >> 32);
	return ti->nout + 1;
}

bool cts_petri_independent(struct cts_petri *n, const struct cts_pmark *m, int a, int b)
{
	const struct cts_event *ea = cts_petri_next_op(n, m, a), *eb = cts_petri_next_op(n, m, b);
	if (a == b || !ea || !eb || ea->op == CTS_OP_PROC_EXIT || eb->op == CTS_OP_PROC_EXIT)
		return false;
	size_t na = op_inputs(n, m, a, ea);
	uint32_t *ca = cts_xmalloc((na + 1) * sizeof(*ca));
	bool *wa = cts_xmalloc((na + 1) * sizeof(*wa));
	memcpy(ca, n->in_c, na * sizeof(*ca));
	memcpy(wa, n->in_w, na * sizeof(*wa));
	ca[na] = cts_petri_thread_comp(n, a);
	wa[na] = true;
	size_t nb = op_inputs(n, m, b, eb);
	in_add(n, &nb, cts_petri_thread_comp(n, b), true);
	bool indep = true;
	for (size_t i = 0; i <= na && indep; i++)
		for (size_t j = 0; j < nb && indep; j++)
			if (ca[i] == n->in_c[j] && (wa[i] || n->in_w[j]))
				indep = false;
	/* outputs beyond the inputs (a new thread, an allocated block) */
	uint32_t t = cts_petri_key(n, m, a);
	if (indep && t && n->ti[t - 1].state == T_FIRES)
		for (uint32_t i = 0; i < n->ti[t - 1].nout && indep; i++)
			for (size_t j = 0; j < nb && indep; j++)
				if ((uint32_t)(n->outs[n->ti[t - 1].out + i] >> 32) == n->in_c[j])
					indep = false;
	free(ca);
	free(wa);
	return indep;
}

void cts_petri_get_stats(const struct cts_petri *n, struct cts_petri_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->places = n->places.n;
	out->transitions = 0;
	for (uint32_t i = 0; i < n->trans.n; i++)
		out->transitions += n->ti[i].state == T_FIRES;
	out->markings = n->marks.n;
	out->bytes = itab_bytes(&n->comps) + itab_bytes(&n->places) + itab_bytes(&n->trans) +
		     itab_bytes(&n->marks) + (uint64_t)n->cicap * sizeof(*n->ci) +
		     (uint64_t)n->picap * sizeof(*n->pi) + (uint64_t)n->ticap * sizeof(*n->ti) +
		     (uint64_t)n->tmplcap * sizeof(*n->tmpls) + n->outcap * 8;
	out->conflicts = n->conflicts;
	out->nomatch = n->nomatch;
	snprintf(out->why, sizeof(out->why), "%s", n->why);
}

/* ---- stubborn sets for the dead-marking sweep ---- */

/* What a thread's steps touch, as objects (a word, a synchronization object,
 * a thread's place, the heap, the kernel, the thread counter), read or
 * written. Copies of a word are one object here: a read of one copy and a
 * write of all of them touch the same word. */
static uint64_t obj_key(int kind, uint64_t key)
{
	return (uint64_t)kind << 58 | (key & ((1ull << 58) - 1));
}

struct objs {
	uint64_t *r, *w;
	size_t nr, nw, capr, capw;
	bool all;     /* reads everything (the process's exit) */
};

static void objs_add(struct objs *o, uint64_t k, bool w)
{
	uint64_t **v = w ? &o->w : &o->r;
	size_t *nv = w ? &o->nw : &o->nr, *cap = w ? &o->capw : &o->capr;
	if (*nv == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = cts_xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*nv)++] = k;
}

static void objs_words(struct objs *o, const struct cts_event *ev, bool w)
{
	uint64_t size = ev->size ? ev->size : 1;
	uint64_t lo = ev->obj >> 3, hi = (ev->obj + size - 1) >> 3;
	if (hi - lo >= MAX_WORDS) {
		o->all = true;
		return;
	}
	for (uint64_t x = lo; x <= hi; x++)
		objs_add(o, obj_key(K_WORD, x), w);
}

/* The objects tid's operation ev touches (besides tid's own place, which
 * every step writes). parked: the object a parked thread waits on, 0 none. */
static void op_objects(struct objs *o, const struct cts_event *ev, uint64_t parked)
{
	if (parked)
		objs_add(o, obj_key(K_SYNC, parked), false);
	switch (ev->op) {
	case CTS_OP_READ: case CTS_OP_LIB_READ:
		objs_words(o, ev, false);
		objs_add(o, obj_key(K_HEAP, 0), false);
		break;
	case CTS_OP_WRITE: case CTS_OP_RMW: case CTS_OP_ATOMIC: case CTS_OP_LIB_WRITE:
		objs_words(o, ev, true);
		objs_add(o, obj_key(K_HEAP, 0), false);
		break;
	case CTS_OP_FREE: case CTS_OP_ALLOC:
		objs_add(o, obj_key(K_HEAP, 0), true);
		if (ev->obj)
			objs_words(o, ev, true);
		else
			o->all = true;  /* its block is known only once it ran */
		break;
	case CTS_OP_COND_WAIT: case CTS_OP_COND_REACQUIRE:
		objs_add(o, obj_key(K_SYNC, ev->obj), true);
		objs_add(o, obj_key(K_SYNC, ev->obj2), true);
		break;
	case CTS_OP_FUTEX_WAIT: case CTS_OP_FUTEX_WAKE:
		objs_add(o, obj_key(K_SYNC, ev->obj), true);
		objs_add(o, obj_key(K_WORD, ev->obj >> 3), false);
		break;
	case CTS_OP_JOIN:
		if (ev->target >= 0)
			objs_add(o, obj_key(K_THREAD, (uint64_t)ev->target), false);
		else
			objs_add(o, obj_key(K_SYNC, ev->obj), true);
		break;
	case CTS_OP_CREATE:
		objs_add(o, obj_key(K_TCOUNT, 0), true);
		if (ev->target >= 0)
			objs_add(o, obj_key(K_THREAD, (uint64_t)ev->target), true);
		break;
	case CTS_OP_PROC_EXIT: case CTS_OP_CANCEL: case CTS_OP_SIGNAL:
		o->all = true;
		break;
	case CTS_OP_START: case CTS_OP_THREAD_EXIT: case CTS_OP_YIELD: case CTS_OP_SLEEP:
		break;
	default:
		if (cts_op_is_kernel(ev->op))
			objs_add(o, obj_key(K_KERNEL, 0), true);
		else
			objs_add(o, obj_key(K_SYNC, ev->obj), true);
		break;
	}
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static bool key_in(const uint64_t *v, size_t n, uint64_t k)
{
	return n && bsearch(&k, v, n, sizeof(*v), cmp_key) != NULL;
}

static void objs_free(struct objs *o)
{
	free(o->r);
	free(o->w);
	memset(o, 0, sizeof(*o));
}

/* Every thread's footprint: what the operations of all its places the model
 * knows touch (a thread's future lies among them), whether it creates
 * threads. Rebuilt when the model learnt new operations. */
struct foot {
	struct objs o;
	bool creates;
};

struct stub {
	struct foot *f;
	int nf;
	uint32_t ntmpls, edits, nplaces;  /* the model when built */
};

static void stub_free(struct stub *s)
{
	for (int t = 0; s && t < s->nf; t++)
		objs_free(&s->f[t].o);
	if (s)
		free(s->f);
	free(s);
}

static void foot_build(struct cts_petri *n, struct stub *s)
{
	if (s->f && s->ntmpls == n->ntmpls && s->edits == n->tmpl_edits &&
	    s->nplaces == n->places.n && s->nf >= n->width)
		return;
	for (int t = 0; t < s->nf; t++)
		objs_free(&s->f[t].o);
	free(s->f);
	s->nf = n->width;
	s->f = cts_xcalloc((size_t)s->nf + 1, sizeof(*s->f));
	s->ntmpls = n->ntmpls;
	s->edits = n->tmpl_edits;
	s->nplaces = n->places.n;
	for (uint32_t p = 0; p < n->places.n; p++) {
		const struct pinfo *pi = &n->pi[p];
		const struct cinfo *ci = &n->ci[pi->comp];
		if (ci->kind != K_THREAD || ci->tid < 0 || ci->tid >= s->nf)
			continue;
		struct foot *f = &s->f[ci->tid];
		if (pi->tmpl[0] < 0 && pi->tmpl[1] < 0 && p != ci->init &&
		    !(pi->flags & (PF_EXITED | PF_TERMINAL)))
			f->o.all = true;  /* a place whose next step no run showed yet */
		for (int a = 0; a < 2; a++) {
			if (pi->tmpl[a] < 0 || (a == 1 && pi->tmpl[1] == pi->tmpl[0]))
				continue;
			const struct cts_event *ev = &n->tmpls[pi->tmpl[a]];
			op_objects(&f->o, ev, pi->parked ? n->ci[pi->parked - 1].key : 0);
			f->creates |= ev->op == CTS_OP_CREATE;
		}
	}
	for (int t = 0; t < s->nf; t++) {
		struct objs *o = &s->f[t].o;
		objs_add(o, obj_key(K_THREAD, (uint64_t)t), true);
		if (o->nr)
			qsort(o->r, o->nr, sizeof(*o->r), cmp_key);
		qsort(o->w, o->nw, sizeof(*o->w), cmp_key);  /* its own place: never empty */
	}
}

/* May a step touching o and a step of a thread with footprint f not commute? */
static bool objs_conflict(const struct objs *o, const struct objs *f)
{
	if (o->all || f->all)
		return true;
	for (size_t i = 0; i < o->nw; i++)
		if (key_in(f->w, f->nw, o->w[i]) || key_in(f->r, f->nr, o->w[i]))
			return true;
	for (size_t i = 0; i < o->nr; i++)
		if (key_in(f->w, f->nw, o->r[i]))
			return true;
	return false;
}

/* The objects of tid's next step at m (its own place written). */
static void step_objects(struct cts_petri *n, const struct cts_pmark *m, int tid, struct objs *o)
{
	uint32_t L;
	const struct pinfo *pi = thread_pi(n, m, tid, &L);
	const struct cts_event *tm = pi ? tmpl_at(n, m, tid, pi) : NULL;
	memset(o, 0, sizeof(*o));
	objs_add(o, obj_key(K_THREAD, (uint64_t)tid), true);
	if (!tm) {
		o->all = true;
		return;
	}
	op_objects(o, tm, pi->parked ? n->ci[pi->parked - 1].key : 0);
}

struct stubset {
	struct cts_petri *n;
	const struct cts_pmark *m;
	struct stub *s;
	int nt;              /* threads of the model */
	uint8_t *in;         /* in the set */
	enum cts_pstatus *st;
	int *work;
	int nwork;
};

static void sb_add(struct stubset *b, int t);

/* Threads that may create one not created yet: they go in instead. */
static void sb_add_creators(struct stubset *b)
{
	for (int c = 0; c < b->nt; c++)
		if (b->s->f[c].creates)
			sb_add(b, c);
}

static void sb_add(struct stubset *b, int t)
{
	if (t < 0 || t >= b->nt || b->in[t])
		return;
	b->in[t] = 1;
	if (t >= cts_pmark_nthreads(b->m) || b->st[t] == CTS_PS_GONE) {
		if (t >= cts_pmark_nthreads(b->m))
			sb_add_creators(b);  /* not created yet: it moves after its creator */
		return;
	}
	b->work[b->nwork++] = t;
}

/* The threads whose steps can enable t's step (it is disabled at m): the
 * lock's holder, the joined thread, else every thread touching what the
 * step touches. count: how many there are; *all_in: all of them in the set. */
static bool sb_enablers(struct stubset *b, int t, bool add)
{
	uint32_t L;
	const struct pinfo *pi = thread_pi(b->n, b->m, t, &L);
	const struct cts_event *tm = pi ? tmpl_at(b->n, b->m, t, pi) : NULL;
	if (!tm) {
		for (int j = 0; j < b->nt; j++) {
			if (!b->in[j] && !add)
				return false;
			if (add)
				sb_add(b, j);
		}
		return true;
	}
	int one = -1;
	if ((tm->op == CTS_OP_LOCK || tm->op == CTS_OP_TRYLOCK) && !pi->parked) {
		uint32_t c = comp_get(b->n, K_SYNC, tm->obj, -1);
		int32_t h = b->n->pi[mk_place(b->n, b->m, c)].holder;
		if (h >= 0 && h != t)
			one = h;
	} else if (tm->op == CTS_OP_JOIN && tm->target >= 0 && !pi->parked) {
		one = tm->target;
	}
	if (one >= 0) {
		if (add)
			sb_add(b, one);
		return b->in[one];
	}
	struct objs o;
	step_objects(b->n, b->m, t, &o);
	bool all = true;
	for (int j = 0; j < b->nt && (all || add); j++) {
		if (j == t || b->in[j] || !objs_conflict(&o, &b->s->f[j].o))
			continue;
		all = false;
		if (add)
			sb_add(b, j);
	}
	objs_free(&o);
	return all;
}

/* j cannot move before a thread of the set does: disabled, and whatever can
 * enable it is in the set. */
static bool sb_held(struct stubset *b, int j)
{
	if (j >= cts_pmark_nthreads(b->m)) {
		for (int c = 0; c < b->nt; c++)
			if (b->s->f[c].creates && !b->in[c])
				return false;
		return true;
	}
	if (b->st[j] == CTS_PS_GONE)
		return true;
	return b->st[j] == CTS_PS_DISABLED && sb_enablers(b, j, false);
}

/* The stubborn set grown from t0; returns how many enabled threads it has. */
static int sb_grow(struct stubset *b, int t0)
{
	memset(b->in, 0, (size_t)b->nt);
	b->nwork = 0;
	sb_add(b, t0);
	while (b->nwork) {
		int k = b->work[--b->nwork];
		if (b->st[k] == CTS_PS_ENABLED) {
			struct objs o;
			step_objects(b->n, b->m, k, &o);
			for (int j = 0; j < b->nt; j++)
				if (!b->in[j] && objs_conflict(&o, &b->s->f[j].o) && !sb_held(b, j))
					sb_add(b, j);
			objs_free(&o);
		} else if (b->st[k] == CTS_PS_DISABLED) {
			sb_enablers(b, k, true);
		} else {
			for (int j = 0; j < b->nt; j++)
				sb_add(b, j);
		}
	}
	int en = 0;
	for (int t = 0; t < cts_pmark_nthreads(b->m); t++)
		en += b->in[t] && b->st[t] == CTS_PS_ENABLED;
	return en;
}

void cts_petri_stubborn(struct cts_petri *n, const struct cts_pmark *m, uint8_t *explore)
{
	if (!n->stub)
		n->stub = cts_xcalloc(1, sizeof(struct stub));
	struct stubset b = { .n = n, .m = m, .s = n->stub };
	int nthr = cts_pmark_nthreads(m);
	if (nthr <= 0)
		return;
	foot_build(n, b.s);
	b.nt = b.s->nf > nthr ? b.s->nf : nthr;
	if (b.nt > b.s->nf) {
		/* a thread the footprints do not know yet: no reduction */
		for (int t = 0; t < nthr; t++)
			explore[t] = cts_petri_status(n, m, t) == CTS_PS_ENABLED;
		return;
	}
	b.in = cts_xcalloc((size_t)b.nt, 1);
	b.work = cts_xcalloc((size_t)b.nt, sizeof(*b.work));
	b.st = cts_xcalloc((size_t)b.nt, sizeof(*b.st));
	for (int t = 0; t < b.nt; t++)
		b.st[t] = t < nthr ? cts_petri_status(n, m, t) : CTS_PS_GONE;
	/* the smallest set grown from one enabled thread */
	int best = -1, bestn = 0;
	for (int t = 0; t < nthr; t++) {
		if (b.st[t] != CTS_PS_ENABLED)
			continue;
		int en = sb_grow(&b, t);
		if (best < 0 || en < bestn) {
			best = t;
			bestn = en;
		}
		if (bestn == 1)
			break;
	}
	memset(explore, 0, (size_t)nthr);
	if (best >= 0) {
		sb_grow(&b, best);
		for (int t = 0; t < nthr; t++)
			explore[t] = b.in[t] && b.st[t] == CTS_PS_ENABLED;
	}
	free(b.in);
	free(b.work);
	free(b.st);
}
