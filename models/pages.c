#include "models/pages.h"

#include <stdlib.h>
#include <string.h>

#include "models/error.h"
#include "models/htab.h"

#define MAX_READERS 4
/* A range of more units than this (256 MiB of lines, or a range that
 * wraps: a string call's extent to the end of memory) is not walked: the
 * units the run touched in it are, and every access is visible for the
 * rest of the run. Below it a range is walked a page at a time where its
 * units are in one state (struct summ): a 4 MiB memset is 1,024 records.
 * (It was 4 MiB of lines: a program that cleared a 4 MiB block ran every
 * later access visible, with faults each one a fault and a step.) */
#define BIG_RANGE ((uint64_t)1 << 22)

/* A thread's accesses to a unit: which bytes it read and wrote (a bit a
 * byte of a 64-byte line; every bit for a page, a claim or a summary). */
struct reader {
	int tid;
	uint32_t epoch;         /* the reader's last access was before this event of its own */
	bool claimed;           /* ...known only from a claim (a granted page's) */
	uint64_t rm, wm;        /* the bytes it read, wrote */
};

#define ALL_BYTES UINT64_MAX

/* One page's state in the current run (absent from the table: untouched):
 * an entry per thread whose accesses no later access stands for. Two
 * accesses conflict when they meet (a byte in common, one a write) and
 * neither is ordered before the other; on lines that is decided by bytes,
 * so threads writing neighbouring bytes of a line (a line terminator
 * beside the text another thread sorts) leave it split, not shared.
 * Entries ordered before an access are folded into it: their reads into
 * the accessing thread's entry (a later writer must come after it, hence
 * after them), their writes the access does not cover kept as lw, the
 * last write, with its thread and epoch (FastTrack's W): forgetting the
 * write a read took over hid a race (main creates t2, writes x, creates
 * t1; t1 reads x, then t2 did, unordered with the write). */
struct page {
	uint8_t state;          /* enum cts_page_state */
	bool overflow;          /* read-shared: more readers than fit; any write conflicts */
	bool has_lw;            /* lw: the last write, by a thread no longer in r */
	uint8_t nreaders;
	struct reader r[MAX_READERS]; /* owned: r[0] is the owner */
	struct reader lw;       /* rm unused */
};

/* With units smaller than a page (lines), a 4 KiB page whose units are all
 * in one state is one record, not one per unit: the fault mechanism claims
 * and hands over whole pages (tracer/fault.h), and a record per line of a
 * 16 MiB array cost more than the faults. */
struct summ {
	bool uniform;           /* every unit of the page is in state pg, none has a record;
	                         * else (an entry at all) some unit has a record */
	struct page pg;
};

struct cts_pages {
	unsigned shift;             /* log2 of the unit: CTS_PAGE_SHIFT, or a cache line's 6 */
	cts_pages_ordered_fn ordered;
	void *arg;
	struct cts_htab *run;       /* page number -> struct page */
	struct cts_htab *learned;   /* page number -> (nothing) */
	struct cts_htab *pending;   /* deferred: this run's conflicts, not learned yet */
	struct cts_htab *sum;       /* units < page: page number -> struct summ, this run */
	struct cts_htab *lpages;    /* ...pages with a learned unit */
	struct cts_htab *per_access; /* pages never granted: decided per access */
	struct cts_htab *pending_pa; /* deferred: this run's claim-caused conflicts */
	bool claiming;              /* the access being made is a claim */
	bool conflict_by_claim;     /* the last conflict met only claimed accesses */
	bool defer, all;
	bool run_all;               /* this run: every access visible (BIG_RANGE) */
	size_t fresh;               /* learned since cts_pages_take_new */
	struct cts_pages_stats st;
};

struct cts_pages *cts_pages_new(cts_pages_ordered_fn ordered, void *arg)
{
	return cts_pages_new_unit(ordered, arg, CTS_PAGE_SHIFT);
}

struct cts_pages *cts_pages_new_unit(cts_pages_ordered_fn ordered, void *arg, unsigned shift)
{
	struct cts_pages *p = cts_xcalloc(1, sizeof(*p));
	p->shift = shift;
	p->ordered = ordered;
	p->arg = arg;
	p->run = cts_htab_new(sizeof(uint64_t), sizeof(struct page));
	p->learned = cts_htab_new(sizeof(uint64_t), 0);
	p->pending = cts_htab_new(sizeof(uint64_t), 0);
	if (shift < CTS_PAGE_SHIFT) {
		p->sum = cts_htab_new(sizeof(uint64_t), sizeof(struct summ));
		p->lpages = cts_htab_new(sizeof(uint64_t), 0);
	}
	p->per_access = cts_htab_new(sizeof(uint64_t), 0);
	p->pending_pa = cts_htab_new(sizeof(uint64_t), 0);
	return p;
}

void cts_pages_free(struct cts_pages *p)
{
	if (!p)
		return;
	cts_htab_free(p->run);
	cts_htab_free(p->learned);
	cts_htab_free(p->pending);
	cts_htab_free(p->sum);
	cts_htab_free(p->lpages);
	cts_htab_free(p->per_access);
	cts_htab_free(p->pending_pa);
	free(p);
}

void cts_pages_begin_run(struct cts_pages *p)
{
	cts_htab_clear(p->run);
	cts_htab_clear(p->pending);
	cts_htab_clear(p->pending_pa);
	if (p->sum)
		cts_htab_clear(p->sum);
	p->run_all = false;
}

void cts_pages_defer(struct cts_pages *p)
{
	p->defer = true;
}

/* Learn every number of set (learn: a unit, or a page decided per access),
 * then empty it; how many. */
static size_t drain(struct cts_pages *p, struct cts_htab *set,
		    void (*learn)(struct cts_pages *, uint64_t))
{
	size_t pos = 0, n = 0;
	const void *key;
	while (cts_htab_next(set, &pos, &key, NULL)) {
		uint64_t u;
		memcpy(&u, key, sizeof(u));
		learn(p, u);
		n++;
	}
	cts_htab_clear(set);
	return n;
}

size_t cts_pages_commit(struct cts_pages *p)
{
	size_t n = drain(p, p->pending, cts_pages_learn);
	return n + drain(p, p->pending_pa, cts_pages_learn_per_access);
}

void cts_pages_learn_all(struct cts_pages *p)
{
	p->all = true;
}

bool cts_pages_all(const struct cts_pages *p)
{
	return p->all;
}

bool cts_pages_learned_in(const struct cts_pages *p, uint64_t addr, uint64_t len)
{
	if (p->all)
		return true;
	for (uint64_t u = addr >> p->shift; u <= (addr + (len ? len : 1) - 1) >> p->shift; u++)
		if (cts_htab_get(p->learned, &u))
			return true;
	return false;
}

static uint64_t page_of(const struct cts_pages *p, uint64_t u)
{
	return u >> (CTS_PAGE_SHIFT - p->shift);
}

static uint64_t units_per_page(const struct cts_pages *p)
{
	return (uint64_t)1 << (CTS_PAGE_SHIFT - p->shift);
}

void cts_pages_learn(struct cts_pages *p, uint64_t page)
{
	bool added;
	if (p->lpages)
		cts_htab_put(p->lpages, &(uint64_t){ page_of(p, page) }, NULL);
	cts_htab_put(p->learned, &page, &added);
	p->fresh += added;
}

void cts_pages_learn_per_access(struct cts_pages *p, uint64_t page)
{
	bool added;
	cts_htab_put(p->per_access, &page, &added);
	p->fresh += added;
}

void cts_pages_pend_per_access(struct cts_pages *p, uint64_t page)
{
	if (!cts_htab_get(p->per_access, &page))
		cts_htab_put(p->pending_pa, &page, NULL);
}

bool cts_pages_per_access(const struct cts_pages *p, uint64_t page)
{
	return cts_htab_get(p->per_access, &page) != NULL;
}

size_t cts_pages_learned_per_access(const struct cts_pages *p, uint64_t *out, size_t max)
{
	return cts_htab_u64_keys(p->per_access, out, max);
}

size_t cts_pages_take_new(struct cts_pages *p)
{
	size_t n = p->fresh;
	p->fresh = 0;
	return n;
}

size_t cts_pages_learned(const struct cts_pages *p, uint64_t *out, size_t max)
{
	return cts_htab_u64_keys(p->learned, out, max);
}

/* Unit u's state: its record, its page's uniform one, or NULL (untouched). */
static struct page *unit_get(const struct cts_pages *p, uint64_t u)
{
	struct page *pg = cts_htab_get(p->run, &u);
	if (pg || !p->sum)
		return pg;
	struct summ *s = cts_htab_get(p->sum, &(uint64_t){ page_of(p, u) });
	return s && s->uniform ? &s->pg : NULL;
}

/* Unit u's own record, made if absent (added: it was untouched); a uniform
 * page is split into records first. */
static struct page *unit_put(struct cts_pages *p, uint64_t u, bool *added)
{
	bool a;
	if (!p->sum)
		return cts_htab_put(p->run, &u, added);
	uint64_t pn = page_of(p, u), n = units_per_page(p);
	struct summ *s = cts_htab_get(p->sum, &pn);
	if (s && s->uniform) {
		struct page pg = s->pg;
		s->uniform = false;
		for (uint64_t i = 0; i < n; i++)
			*(struct page *)cts_htab_put(p->run, &(uint64_t){ pn * n + i }, NULL) = pg;
	}
	struct page *pg = cts_htab_put(p->run, &u, &a);
	if (a)
		cts_htab_put(p->sum, &pn, NULL); /* the page has a unit record now */
	if (added)
		*added = a;
	return pg;
}

/* Do tid's access of bytes m (a write or not) and e's meet? */
static bool meets(const struct reader *e, uint64_t m, bool write)
{
	return (m & e->wm) || (write && (m & e->rm));
}

/* Is e's last access ordered before tid's current point? */
static bool before(const struct cts_pages *p, const struct reader *e, int tid)
{
	return p->ordered(p->arg, e->tid, e->epoch, tid);
}

/* Is the unit's last write, if it is another thread's, ordered before
 * tid's current point? */
static bool lw_ordered(const struct cts_pages *p, const struct page *pg, int tid)
{
	return !pg->has_lw || pg->lw.tid == tid || before(p, &pg->lw, tid);
}

/* Does tid's access meet one of another thread that is not ordered before
 * tid's current point? by_claim: each such one is known from claims only. */
static bool races(const struct cts_pages *p, const struct page *pg, int tid, uint64_t m,
		  bool write, bool *by_claim)
{
	bool race = false;
	*by_claim = true;
	for (uint8_t i = 0; i <= pg->nreaders; i++) {
		const struct reader *e = i < pg->nreaders ? &pg->r[i] : pg->has_lw ? &pg->lw : NULL;
		if (e && e->tid != tid && meets(e, m, write) && !before(p, e, tid)) {
			race = true;
			*by_claim &= e->claimed;
		}
	}
	if (write && pg->overflow) {
		race = true;
		*by_claim = false;
	}
	return race;
}

/* pg's state from its entries. */
static void settle(struct page *pg)
{
	bool wrote = false;
	for (uint8_t i = 0; i < pg->nreaders; i++)
		wrote |= pg->r[i].wm != 0;
	pg->state = pg->nreaders == 1 && !pg->overflow ? CTS_PAGE_OWNED :
		    wrote ? CTS_PAGE_SPLIT : CTS_PAGE_READ_SHARED;
}

/* tid alone owns pg now (a fresh unit, an allocated block). */
static void own(struct page *pg, int tid, bool write, uint32_t epoch, bool claimed, uint64_t m)
{
	pg->has_lw = false;
	pg->overflow = false;
	pg->nreaders = 1;
	pg->r[0] = (struct reader){ tid, epoch, claimed, write ? 0 : m, write ? m : 0 };
	settle(pg);
}

/* Keep bytes wm that e wrote (ordered before the access) as the last
 * write; false when lw holds another thread's (one entry keeps one). */
static bool keep_write(struct page *pg, const struct reader *e, uint64_t wm)
{
	if (pg->has_lw && pg->lw.tid != e->tid)
		return false;
	if (pg->has_lw) {
		pg->lw.wm |= wm;
		pg->lw.epoch = e->epoch > pg->lw.epoch ? e->epoch : pg->lw.epoch;
		pg->lw.claimed &= e->claimed;
		return true;
	}
	pg->lw = (struct reader){ e->tid, e->epoch, e->claimed, 0, wm };
	pg->has_lw = true;
	return true;
}

/* The verdict of an access to a unit in state pg (NULL: untouched),
 * changing nothing. (It dropped the readers ordered before tid, as the
 * access does: when no access followed the question, a later writer
 * ordered after tid but not after a dropped reader went on unseen.) */
static enum cts_page_verdict verdict_of(const struct cts_pages *p, const struct page *pg, int tid,
					bool write, uint64_t m)
{
	bool by_claim;
	if (!pg || pg->state == CTS_PAGE_UNTOUCHED)
		return CTS_PAGE_NATIVE;
	if (pg->state == CTS_PAGE_SHARED)
		return CTS_PAGE_VISIBLE;
	return races(p, pg, tid, m, write, &by_claim) ? CTS_PAGE_CONFLICT : CTS_PAGE_NATIVE;
}

/* The access, made: pg's new state (added: pg was untouched). A conflict
 * leaves pg shared; the caller learns the unit. */
static enum cts_page_verdict transition(struct cts_pages *p, struct page *pg, bool added, int tid,
					bool write, uint32_t epoch, uint64_t m)
{
	bool cl = p->claiming, by_claim;
	if (added || pg->state == CTS_PAGE_UNTOUCHED) {
		p->st.pages_touched += added;
		own(pg, tid, write, epoch, cl, m);
		return CTS_PAGE_NATIVE;
	}
	if (pg->state == CTS_PAGE_SHARED)
		return CTS_PAGE_VISIBLE;
	if (races(p, pg, tid, m, write, &by_claim)) {
		/* A foreign access the earlier, invisible ones may race with.
		 * When this access or every earlier one it meets is only a
		 * claim (what a granted page's holder may have done), the
		 * conflict may be the page's, not the line's. */
		p->conflict_by_claim = cl || by_claim;
		pg->state = CTS_PAGE_SHARED;
		return CTS_PAGE_CONFLICT;
	}
	/* No race: the entries of other threads ordered before the access
	 * fold into it; a write covers the last write's bytes it writes. */
	struct reader me = { tid, epoch, cl, write ? 0 : m, write ? m : 0 };
	bool folded = false;
	uint8_t k = 0;
	if (pg->has_lw && (pg->lw.tid == tid || (write && before(p, &pg->lw, tid)))) {
		uint64_t rest = pg->lw.tid == tid ? 0 : pg->lw.wm & ~m;
		if (pg->lw.tid == tid)
			me.wm |= pg->lw.wm;
		pg->lw.wm = rest;
		pg->has_lw = rest != 0;
	}
	for (uint8_t i = 0; i < pg->nreaders; i++) {
		struct reader e = pg->r[i];
		if (e.tid == tid) {
			/* its latest access now (epochs of a thread only grow) */
			me.rm |= e.rm;
			me.wm |= e.wm;
			me.claimed = epoch > e.epoch ? cl : cl && e.claimed;
			continue;
		}
		if (!before(p, &e, tid)) {
			pg->r[k++] = e; /* unordered: it meets nothing of this access */
			continue;
		}
		folded = true;
		me.rm |= e.rm;
		uint64_t wm = write ? e.wm & ~m : e.wm;
		if (wm && !keep_write(pg, &e, wm))
			me.wm |= wm; /* kept as tid's own: stricter, never looser */
	}
	p->st.handoffs += folded;
	if (k == MAX_READERS) {
		if (me.wm) {
			/* no room for a writer's entry: taken as a conflict */
			p->conflict_by_claim = false;
			pg->state = CTS_PAGE_SHARED;
			return CTS_PAGE_CONFLICT;
		}
		pg->overflow = true; /* kept conservative: a later write conflicts */
	} else {
		pg->r[k++] = me;
	}
	pg->nreaders = k;
	settle(pg);
	return CTS_PAGE_NATIVE;
}

/* The bytes of unit u that [addr, addr+len) covers: every one for a page
 * and for a claim (what a grantee may have done). */
static uint64_t unit_mask(const struct cts_pages *p, uint64_t u, uint64_t addr, uint64_t len)
{
	if (p->shift != 6 || p->claiming)
		return ALL_BYTES;
	uint64_t base = u << 6, end = addr + (len ? len : 1);
	uint64_t lo = addr > base ? addr - base : 0;
	uint64_t hi = end < addr || end - base >= 64 ? 64 : end - base; /* wrapped: to the end */
	if (hi <= lo)
		return ALL_BYTES;
	return hi - lo == 64 ? ALL_BYTES : ((((uint64_t)1 << (hi - lo)) - 1) << lo);
}

/* dry: the verdict only (cts_pages_check). m: the bytes of the unit. */
static enum cts_page_verdict access_page(struct cts_pages *p, uint64_t page, int tid, bool write,
					 uint32_t epoch, bool dry, uint64_t m)
{
	if (p->all || p->run_all || cts_htab_get(p->learned, &page))
		return CTS_PAGE_VISIBLE;
	if (dry)
		return verdict_of(p, unit_get(p, page), tid, write, m);
	bool added;
	struct page *pg = unit_put(p, page, &added);
	enum cts_page_verdict v = transition(p, pg, added, tid, write, epoch, m);
	if (v == CTS_PAGE_CONFLICT && p->sum && p->conflict_by_claim) {
		/* Lines: decide the page per access from now on (never grant
		 * it), which tells the line's real conflicts from the page's. */
		uint64_t pn = page_of(p, page);
		if (p->defer)
			cts_htab_put(p->pending_pa, &pn, NULL);
		else
			cts_pages_learn_per_access(p, pn);
	} else if (v == CTS_PAGE_CONFLICT) {
		if (p->defer)
			cts_htab_put(p->pending, &page, NULL);
		else
			cts_pages_learn(p, page);
	}
	return v;
}

/* The same access to every unit of page pn at once, when they are in one
 * state (no unit has a record of its own) and none is learned: -1 when
 * not, or when it conflicts (unit by unit then learns each). */
static int page_at_once(struct cts_pages *p, uint64_t pn, int tid, bool write, uint32_t epoch,
			bool dry)
{
	if (!p->sum || p->all || p->run_all || cts_htab_get(p->lpages, &pn))
		return -1;
	struct summ *s = cts_htab_get(p->sum, &pn);
	if (s && !s->uniform)
		return -1;
	if (dry)
		return (int)verdict_of(p, s ? &s->pg : NULL, tid, write, ALL_BYTES);
	struct page pg = s ? s->pg : (struct page){ .state = CTS_PAGE_UNTOUCHED };
	uint64_t before = p->st.pages_touched;
	enum cts_page_verdict v = transition(p, &pg, !s, tid, write, epoch, ALL_BYTES);
	if (v == CTS_PAGE_CONFLICT)
		return -1;
	if (!s)
		p->st.pages_touched = before + units_per_page(p);
	s = cts_htab_put(p->sum, &pn, NULL);
	s->uniform = true;
	s->pg = pg;
	return (int)v;
}

static void unit_range(const struct cts_pages *p, uint64_t addr, uint64_t len, uint64_t *first,
		       uint64_t *last)
{
	*first = addr >> p->shift;
	*last = (addr + (len ? len - 1 : 0)) >> p->shift;
	if (*last < *first)
		*last = UINT64_MAX >> p->shift; /* wrapped: to the end */
}

/* The units of [first, last] the run touched (a big range: BIG_RANGE). */
static size_t touched_in(const struct cts_pages *p, uint64_t first, uint64_t last, uint64_t **out)
{
	size_t pos = 0, n = 0, cap = 0;
	const void *key;
	*out = NULL;
	while (cts_htab_next(p->run, &pos, &key, NULL)) {
		uint64_t u;
		memcpy(&u, key, sizeof(u));
		if (u < first || u > last)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = cts_xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[n++] = u;
	}
	if (!p->sum)
		return n;
	pos = 0;
	void *val;
	while (cts_htab_next(p->sum, &pos, &key, &val)) {
		uint64_t pn;
		memcpy(&pn, key, sizeof(pn));
		if (!((struct summ *)val)->uniform)
			continue;
		for (uint64_t i = 0, k = units_per_page(p); i < k; i++) {
			uint64_t u = pn * k + i;
			if (u < first || u > last)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				*out = cts_xrealloc(*out, cap * sizeof(**out));
			}
			(*out)[n++] = u;
		}
	}
	return n;
}

static enum cts_page_verdict access_range(struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
					  bool write, uint32_t epoch, bool dry)
{
	enum cts_page_verdict worst = CTS_PAGE_NATIVE;
	uint64_t first, last;
	unit_range(p, addr, len, &first, &last);
	if (last - first >= BIG_RANGE && !p->all && !p->run_all) {
		uint64_t *u;
		size_t n = touched_in(p, first, last, &u);
		for (size_t i = 0; i < n; i++) {
			enum cts_page_verdict v =
				access_page(p, u[i], tid, write, epoch, dry, ALL_BYTES);
			worst = v > worst ? v : worst;
		}
		free(u);
		if (!dry)
			p->run_all = true;
		return worst > CTS_PAGE_VISIBLE ? worst : CTS_PAGE_VISIBLE;
	}
	uint64_t k = p->sum ? units_per_page(p) : 0;
	for (uint64_t u = first;; u++) {
		if (k && u % k == 0 && last - u >= k - 1) {
			int v = page_at_once(p, u / k, tid, write, epoch, dry);
			if (v >= 0) {
				worst = (enum cts_page_verdict)v > worst ? (enum cts_page_verdict)v : worst;
				if (last - u == k - 1)
					break;
				u += k - 1;
				continue;
			}
		}
		enum cts_page_verdict v =
			access_page(p, u, tid, write, epoch, dry, unit_mask(p, u, addr, len));
		if (v > worst)
			worst = v;
		if (u == last)
			break;
	}
	return worst;
}

enum cts_page_verdict cts_pages_check(struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
				      bool write, uint32_t epoch)
{
	return access_range(p, tid, addr, len, write, epoch, true);
}

void cts_pages_freed(struct cts_pages *p, uint64_t addr, uint64_t len)
{
	uint64_t first, last;
	unit_range(p, addr, len, &first, &last);
	if (last - first >= BIG_RANGE) {
		p->run_all = true; /* a use after free of it must be seen */
		return;
	}
	/* shared for this run only (not learned): a whole page in one record */
	uint64_t k = p->sum ? units_per_page(p) : 0;
	for (uint64_t u = first;; u++) {
		if (k && u % k == 0 && last - u >= k - 1) {
			struct summ *sm = cts_htab_get(p->sum, &(uint64_t){ u / k });
			if (sm && !sm->uniform)
				for (uint64_t i = 0; i < k; i++)
					cts_htab_del(p->run, &(uint64_t){ u + i });
			sm = cts_htab_put(p->sum, &(uint64_t){ u / k }, NULL);
			sm->uniform = true;
			sm->pg = (struct page){ .state = CTS_PAGE_SHARED };
			if (last - u == k - 1)
				break;
			u += k - 1;
			continue;
		}
		struct page *pg = unit_put(p, u, NULL);
		pg->state = CTS_PAGE_SHARED;
		if (u == last)
			break;
	}
}

enum cts_page_verdict cts_pages_allocated(struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
					  uint32_t epoch)
{
	if (!len)
		return CTS_PAGE_NATIVE;
	uint64_t unit = (uint64_t)1 << p->shift;
	if ((len >> p->shift) >= BIG_RANGE)
		return access_range(p, tid, addr, len, true, epoch, false);
	uint64_t in_lo = (addr + unit - 1) >> p->shift, in_hi = (addr + len) >> p->shift; /* [lo, hi) */
	enum cts_page_verdict worst = CTS_PAGE_NATIVE;
	uint64_t k = p->sum ? units_per_page(p) : 0;
	for (uint64_t u = in_lo; u < in_hi; u++) {
		if (p->all)
			break;
		if (k && u % k == 0 && in_hi - u >= k &&
		    !cts_htab_get(p->lpages, &(uint64_t){ u / k })) {
			struct summ *sm = cts_htab_get(p->sum, &(uint64_t){ u / k });
			if (!sm || sm->uniform) {
				sm = cts_htab_put(p->sum, &(uint64_t){ u / k }, NULL);
				sm->uniform = true;
				own(&sm->pg, tid, true, epoch, false, ALL_BYTES);
				u += k - 1;
				continue;
			}
		}
		if (cts_htab_get(p->learned, &u))
			continue;
		own(unit_put(p, u, NULL), tid, true, epoch, false, ALL_BYTES);
	}
	/* the edges, shared with the neighbouring blocks */
	uint64_t first, last;
	unit_range(p, addr, len, &first, &last);
	if (first < in_lo || in_lo >= in_hi) {
		enum cts_page_verdict v = access_page(p, first, tid, true, epoch, false,
						      unit_mask(p, first, addr, len));
		worst = v > worst ? v : worst;
	}
	if (last >= in_hi && last != first) {
		enum cts_page_verdict v = access_page(p, last, tid, true, epoch, false,
						      unit_mask(p, last, addr, len));
		worst = v > worst ? v : worst;
	}
	return worst;
}

enum cts_page_verdict cts_pages_access(struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
				       bool write, uint32_t epoch)
{
	enum cts_page_verdict worst = access_range(p, tid, addr, len, write, epoch, false);
	p->st.accesses++;
	if (worst == CTS_PAGE_NATIVE)
		p->st.native++;
	else if (worst == CTS_PAGE_VISIBLE)
		p->st.visible++;
	else
		p->st.conflicts++;
	return worst;
}

bool cts_pages_grantable(const struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
			 bool write)
{
	if (p->all || p->run_all || !len)
		return false;
	uint64_t first, last;
	unit_range(p, addr, len, &first, &last);
	uint64_t k = p->sum ? units_per_page(p) : 0;
	for (uint64_t pn = addr >> CTS_PAGE_SHIFT; pn <= (addr + len - 1) >> CTS_PAGE_SHIFT; pn++)
		if (cts_htab_get(p->per_access, &pn))
			return false;
	for (uint64_t u = first;; u++) {
		/* a page in one state: its first unit says it for all */
		bool whole = false;
		if (k && u % k == 0 && last - u >= k - 1 &&
		    !cts_htab_get(p->lpages, &(uint64_t){ u / k })) {
			const struct summ *sm = cts_htab_get(p->sum, &(uint64_t){ u / k });
			whole = !sm || sm->uniform;
		}
		if (!whole && cts_htab_get(p->learned, &u))
			return false;
		const struct page *pg = unit_get(p, u);
		bool mine = !pg || pg->state == CTS_PAGE_UNTOUCHED ||
			    (pg->state == CTS_PAGE_OWNED && pg->r[0].tid == tid);
		/* reads: also units only read so far, whoever read them */
		bool readable = pg && ((pg->state == CTS_PAGE_OWNED && !pg->r[0].wm) ||
				       (pg->state == CTS_PAGE_READ_SHARED && !pg->overflow));
		if (!mine && (write || !readable))
			return false;
		if (pg && !lw_ordered(p, pg, tid))
			return false;
		if (whole) {
			if (last - u == k - 1)
				return true;
			u += k - 1;
			continue;
		}
		if (u == last)
			return true;
	}
}

void cts_pages_claim(struct cts_pages *p, int tid, uint64_t addr, uint64_t len, bool write,
		     uint32_t epoch)
{
	if (!len || p->all)
		return;
	/* What the accesses would have done (the grant made sure none conflicts). */
	p->claiming = true;
	access_range(p, tid, addr, len, write, epoch, false);
	p->claiming = false;
}

bool cts_pages_all_touched(const struct cts_pages *p, uint64_t addr, uint64_t len)
{
	uint64_t first, last;
	unit_range(p, addr, len, &first, &last);
	uint64_t k = p->sum ? units_per_page(p) : 0;
	for (uint64_t u = first;; u++) {
		if (k && u % k == 0 && last - u >= k - 1) {
			const struct summ *sm = cts_htab_get(p->sum, &(uint64_t){ u / k });
			if (sm && sm->uniform) {
				if (sm->pg.state == CTS_PAGE_UNTOUCHED)
					return false;
				if (last - u == k - 1)
					return true;
				u += k - 1;
				continue;
			}
		}
		const struct page *pg = unit_get(p, u);
		if ((!pg || pg->state == CTS_PAGE_UNTOUCHED) && !cts_htab_get(p->learned, &u))
			return false;
		if (u == last)
			return true;
	}
}

struct cts_page_info cts_pages_info(const struct cts_pages *p, uint64_t addr)
{
	uint64_t page = addr >> p->shift;
	struct cts_page_info in = { .state = CTS_PAGE_UNTOUCHED, .owner = -1 };
	const struct page *pg = unit_get(p, page);
	in.learned = cts_htab_get(p->learned, &page) != NULL;
	if (in.learned)
		in.state = CTS_PAGE_SHARED;
	else if (pg)
		in.state = (enum cts_page_state)pg->state;
	if (pg && in.state == CTS_PAGE_OWNED) {
		in.owner = pg->r[0].tid;
		in.written = pg->r[0].wm != 0;
	}
	return in;
}

enum cts_page_prot cts_pages_prot(const struct cts_pages *p, int tid, uint64_t addr)
{
	struct cts_page_info in = cts_pages_info(p, addr);
	if (in.state == CTS_PAGE_OWNED && in.owner == tid)
		return CTS_PROT_RW;
	if (in.state == CTS_PAGE_READ_SHARED)
		return CTS_PROT_READ;
	return CTS_PROT_NONE;
}

void cts_pages_get_stats(const struct cts_pages *p, struct cts_pages_stats *s)
{
	*s = p->st;
}
