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

struct reader {
	int tid;
	uint32_t epoch;         /* the reader's last access was before this event of its own */
	bool claimed;           /* ...known only from a claim (a granted page's) */
};

/* One page's state in the current run (absent from the table: untouched).
 * A read that takes over a written unit (ordered after the write) keeps
 * the write as lw: a reader not ordered after it conflicts with it, as
 * with the writer (FastTrack's last write). Forgetting it hid a race: main
 * creates t2, writes x, creates t1; t1 reads x, then t2 does, unordered
 * with the write, and saw an unwritten unit. */
struct page {
	uint8_t state;          /* enum cts_page_state */
	bool written;           /* owned: the owner wrote it */
	bool overflow;          /* read-shared: more readers than fit; any write conflicts */
	bool has_lw;            /* lw: the last write, by a thread no longer in r */
	uint8_t nreaders;
	struct reader r[MAX_READERS]; /* owned: r[0] is the owner */
	struct reader lw;
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
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

/* The keys of a set of unit or page numbers, ascending: up to max in out
 * (NULL: only counted); how many there are. */
static size_t sorted_keys(const struct cts_htab *h, uint64_t *out, size_t max)
{
	size_t n = cts_htab_count(h), k = 0, pos = 0;
	if (!out)
		return n;
	uint64_t *all = cts_xcalloc(n ? n : 1, sizeof(*all));
	const void *key;
	while (cts_htab_next(h, &pos, &key, NULL))
		memcpy(&all[k++], key, sizeof(uint64_t));
	qsort(all, k, sizeof(*all), cmp_u64);
	memcpy(out, all, (k < max ? k : max) * sizeof(*all));
	free(all);
	return k;
}

size_t cts_pages_learned_per_access(const struct cts_pages *p, uint64_t *out, size_t max)
{
	return sorted_keys(p->per_access, out, max);
}

size_t cts_pages_take_new(struct cts_pages *p)
{
	size_t n = p->fresh;
	p->fresh = 0;
	return n;
}

size_t cts_pages_learned(const struct cts_pages *p, uint64_t *out, size_t max)
{
	return sorted_keys(p->learned, out, max);
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

/* Is the unit's last write, if it is another thread's, ordered before
 * tid's current point? */
static bool lw_ordered(const struct cts_pages *p, const struct page *pg, int tid)
{
	return !pg->has_lw || pg->lw.tid == tid || p->ordered(p->arg, pg->lw.tid, pg->lw.epoch, tid);
}

/* Has every access of the page's threads other than tid happened before
 * tid's current point? (Nothing changes: a question only.) */
static bool others_before(const struct cts_pages *p, const struct page *pg, int tid)
{
	for (uint8_t i = 0; i < pg->nreaders; i++)
		if (pg->r[i].tid != tid && !p->ordered(p->arg, pg->r[i].tid, pg->r[i].epoch, tid))
			return false;
	return !pg->overflow;
}

/* The same, for the access tid makes now: drops the readers ordered before
 * it (tid's own entry too), which the access recorded after this stands
 * for: a later access ordered after tid's is ordered after theirs. */
static bool others_ordered(struct cts_pages *p, struct page *pg, int tid)
{
	uint8_t k = 0;
	for (uint8_t i = 0; i < pg->nreaders; i++) {
		struct reader r = pg->r[i];
		if (r.tid == tid || p->ordered(p->arg, r.tid, r.epoch, tid))
			continue;
		pg->r[k++] = r;
	}
	pg->nreaders = k;
	return k == 0 && !pg->overflow;
}

/* tid owns pg now. A read keeps the last write (a written owner's is it). */
static void own(struct page *pg, int tid, bool write, uint32_t epoch, bool claimed)
{
	if (write) {
		pg->has_lw = false;
	} else if (pg->state == CTS_PAGE_OWNED && pg->written && pg->r[0].tid != tid) {
		pg->lw = pg->r[0];
		pg->has_lw = true;
	}
	pg->state = CTS_PAGE_OWNED;
	pg->written = write;
	pg->overflow = false;
	pg->nreaders = 1;
	pg->r[0] = (struct reader){ tid, epoch, claimed };
}

/* r's latest access is now at epoch (if later): seen, or claimed. */
static void reader_at(struct reader *r, uint32_t epoch, bool claimed)
{
	if (epoch > r->epoch) {
		r->epoch = epoch;
		r->claimed = claimed;
	} else if (epoch == r->epoch) {
		r->claimed &= claimed;
	}
}

static void add_reader(struct page *pg, int tid, uint32_t epoch, bool claimed)
{
	for (uint8_t i = 0; i < pg->nreaders; i++) {
		if (pg->r[i].tid == tid) {
			reader_at(&pg->r[i], epoch, claimed);
			return;
		}
	}
	if (pg->nreaders < MAX_READERS)
		pg->r[pg->nreaders++] = (struct reader){ tid, epoch, claimed };
	else
		pg->overflow = true; /* kept conservative: a later write conflicts */
}

/* The verdict of an access to a unit in state pg (NULL: untouched),
 * changing nothing. (It dropped the readers ordered before tid, as the
 * access does: when no access followed the question, a later writer
 * ordered after tid but not after a dropped reader went on unseen.) */
static enum cts_page_verdict verdict_of(const struct cts_pages *p, const struct page *pg, int tid,
					bool write)
{
	if (!pg || pg->state == CTS_PAGE_UNTOUCHED)
		return CTS_PAGE_NATIVE;
	if (pg->state == CTS_PAGE_SHARED)
		return CTS_PAGE_VISIBLE;
	if (!lw_ordered(p, pg, tid))
		return CTS_PAGE_CONFLICT;
	if (pg->state == CTS_PAGE_OWNED)
		return pg->r[0].tid == tid || p->ordered(p->arg, pg->r[0].tid, pg->r[0].epoch, tid) ||
		       (!pg->written && !write) ? CTS_PAGE_NATIVE : CTS_PAGE_CONFLICT;
	return others_before(p, pg, tid) || !write ? CTS_PAGE_NATIVE : CTS_PAGE_CONFLICT;
}

/* The access, made: pg's new state (added: pg was untouched). A conflict
 * leaves pg shared; the caller learns the unit. */
static enum cts_page_verdict transition(struct cts_pages *p, struct page *pg, bool added, int tid,
					bool write, uint32_t epoch)
{
	bool cl = p->claiming;
	if (added) {
		p->st.pages_touched++;
		own(pg, tid, write, epoch, cl);
		return CTS_PAGE_NATIVE;
	}
	bool lw_ok = lw_ordered(p, pg, tid);
	switch ((enum cts_page_state)pg->state) {
	case CTS_PAGE_OWNED:
		if (!lw_ok)
			break;
		if (pg->r[0].tid == tid) {
			pg->written |= write;
			reader_at(&pg->r[0], epoch, cl);
			return CTS_PAGE_NATIVE;
		}
		if (p->ordered(p->arg, pg->r[0].tid, pg->r[0].epoch, tid)) {
			p->st.handoffs++;
			own(pg, tid, write, epoch, cl);
			return CTS_PAGE_NATIVE;
		}
		if (!pg->written && !write) {
			pg->state = CTS_PAGE_READ_SHARED;
			add_reader(pg, tid, epoch, cl);
			return CTS_PAGE_NATIVE;
		}
		break;
	case CTS_PAGE_READ_SHARED:
		if (!lw_ok)
			break;
		if (others_ordered(p, pg, tid)) {
			p->st.handoffs++;
			own(pg, tid, write, epoch, cl);
			return CTS_PAGE_NATIVE;
		}
		if (!write) {
			add_reader(pg, tid, epoch, cl);
			return CTS_PAGE_NATIVE;
		}
		break;
	case CTS_PAGE_SHARED:
		return CTS_PAGE_VISIBLE;
	case CTS_PAGE_UNTOUCHED:
		own(pg, tid, write, epoch, cl);
		return CTS_PAGE_NATIVE;
	}
	/* A foreign access the earlier, invisible ones may race with. When
	 * this access or every earlier one it meets is only a claim (what a
	 * granted page's holder may have done), the conflict may be the
	 * page's, not the line's: others_ordered left the unordered ones. */
	bool by_claim = cl || (!pg->overflow && (lw_ok || pg->lw.claimed));
	for (uint8_t i = 0; i < pg->nreaders && !cl; i++)
		by_claim &= pg->r[i].tid == tid || pg->r[i].claimed;
	p->conflict_by_claim = by_claim;
	pg->state = CTS_PAGE_SHARED;
	return CTS_PAGE_CONFLICT;
}

/* dry: the verdict only (cts_pages_check). */
static enum cts_page_verdict access_page(struct cts_pages *p, uint64_t page, int tid, bool write,
					 uint32_t epoch, bool dry)
{
	if (p->all || p->run_all || cts_htab_get(p->learned, &page))
		return CTS_PAGE_VISIBLE;
	if (dry)
		return verdict_of(p, unit_get(p, page), tid, write);
	bool added;
	struct page *pg = unit_put(p, page, &added);
	enum cts_page_verdict v = transition(p, pg, added, tid, write, epoch);
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
		return (int)verdict_of(p, s ? &s->pg : NULL, tid, write);
	struct page pg = s ? s->pg : (struct page){ .state = CTS_PAGE_UNTOUCHED };
	uint64_t before = p->st.pages_touched;
	enum cts_page_verdict v = transition(p, &pg, !s, tid, write, epoch);
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
			enum cts_page_verdict v = access_page(p, u[i], tid, write, epoch, dry);
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
		enum cts_page_verdict v = access_page(p, u, tid, write, epoch, dry);
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
				own(&sm->pg, tid, true, epoch, false);
				u += k - 1;
				continue;
			}
		}
		if (cts_htab_get(p->learned, &u))
			continue;
		own(unit_put(p, u, NULL), tid, true, epoch, false);
	}
	/* the edges, shared with the neighbouring blocks */
	uint64_t first, last;
	unit_range(p, addr, len, &first, &last);
	if (first < in_lo || in_lo >= in_hi) {
		enum cts_page_verdict v = access_page(p, first, tid, true, epoch, false);
		worst = v > worst ? v : worst;
	}
	if (last >= in_hi && last != first) {
		enum cts_page_verdict v = access_page(p, last, tid, true, epoch, false);
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
		bool readable = pg && ((pg->state == CTS_PAGE_OWNED && !pg->written) ||
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
		in.written = pg->written;
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
