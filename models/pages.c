#include "models/pages.h"

#include <stdlib.h>
#include <string.h>

#include "models/error.h"
#include "models/htab.h"

#define MAX_READERS 4
/* A range of more units than this (4 MiB of lines: a big heap block, a
 * memset over it) is not walked unit by unit: the units the run touched in
 * it are, and every access is visible for the rest of the run. */
#define BIG_RANGE ((uint64_t)1 << 16)

struct reader {
	int tid;
	uint32_t epoch;         /* the reader's last access was before this event of its own */
};

/* One page's state in the current run (absent from the table: untouched). */
struct page {
	uint8_t state;          /* enum cts_page_state */
	bool written;           /* owned: the owner wrote it */
	bool overflow;          /* read-shared: more readers than fit; any write conflicts */
	uint8_t nreaders;
	struct reader r[MAX_READERS]; /* owned: r[0] is the owner */
};

struct cts_pages {
	unsigned shift;             /* log2 of the unit: CTS_PAGE_SHIFT, or a cache line's 6 */
	cts_pages_ordered_fn ordered;
	void *arg;
	struct cts_htab *run;       /* page number -> struct page */
	struct cts_htab *learned;   /* page number -> (nothing) */
	struct cts_htab *pending;   /* deferred: this run's conflicts, not learned yet */
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
	return p;
}

void cts_pages_free(struct cts_pages *p)
{
	if (!p)
		return;
	cts_htab_free(p->run);
	cts_htab_free(p->learned);
	cts_htab_free(p->pending);
	free(p);
}

void cts_pages_begin_run(struct cts_pages *p)
{
	cts_htab_clear(p->run);
	cts_htab_clear(p->pending);
	p->run_all = false;
}

void cts_pages_defer(struct cts_pages *p)
{
	p->defer = true;
}

size_t cts_pages_commit(struct cts_pages *p)
{
	size_t pos = 0, n = 0;
	const void *key;
	while (cts_htab_next(p->pending, &pos, &key, NULL)) {
		uint64_t page;
		memcpy(&page, key, sizeof(page));
		cts_pages_learn(p, page);
		n++;
	}
	cts_htab_clear(p->pending);
	return n;
}

void cts_pages_learn_all(struct cts_pages *p)
{
	p->all = true;
}

bool cts_pages_all(const struct cts_pages *p)
{
	return p->all;
}

void cts_pages_learn(struct cts_pages *p, uint64_t page)
{
	bool added;
	cts_htab_put(p->learned, &page, &added);
	p->fresh += added;
}

size_t cts_pages_take_new(struct cts_pages *p)
{
	size_t n = p->fresh;
	p->fresh = 0;
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

size_t cts_pages_learned(const struct cts_pages *p, uint64_t *out, size_t max)
{
	size_t n = cts_htab_count(p->learned), k = 0, pos = 0;
	uint64_t *all = cts_xcalloc(n ? n : 1, sizeof(*all));
	const void *key;
	while (cts_htab_next(p->learned, &pos, &key, NULL))
		memcpy(&all[k++], key, sizeof(uint64_t));
	qsort(all, k, sizeof(*all), cmp_u64);
	if (out)
		memcpy(out, all, (k < max ? k : max) * sizeof(*all));
	free(all);
	return k;
}

/* Has every access of the page's threads other than tid happened before
 * tid's current point? Drops the readers that have (tid's own entry too). */
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

static void own(struct page *pg, int tid, bool write, uint32_t epoch)
{
	pg->state = CTS_PAGE_OWNED;
	pg->written = write;
	pg->overflow = false;
	pg->nreaders = 1;
	pg->r[0] = (struct reader){ tid, epoch };
}

static void add_reader(struct page *pg, int tid, uint32_t epoch)
{
	for (uint8_t i = 0; i < pg->nreaders; i++) {
		if (pg->r[i].tid == tid) {
			if (epoch > pg->r[i].epoch)
				pg->r[i].epoch = epoch;
			return;
		}
	}
	if (pg->nreaders < MAX_READERS)
		pg->r[pg->nreaders++] = (struct reader){ tid, epoch };
	else
		pg->overflow = true; /* kept conservative: a later write conflicts */
}

/* dry: the verdict only (cts_pages_check); others_ordered may still drop
 * readers ordered before tid, which every later verdict would drop too. */
static enum cts_page_verdict access_page(struct cts_pages *p, uint64_t page, int tid, bool write,
					 uint32_t epoch, bool dry)
{
	if (p->all || p->run_all || cts_htab_get(p->learned, &page))
		return CTS_PAGE_VISIBLE;
	if (dry) {
		struct page *pg = cts_htab_get(p->run, &page);
		if (!pg || pg->state == CTS_PAGE_UNTOUCHED)
			return CTS_PAGE_NATIVE;
		if (pg->state == CTS_PAGE_SHARED)
			return CTS_PAGE_VISIBLE;
		if (pg->state == CTS_PAGE_OWNED)
			return pg->r[0].tid == tid ||
			       p->ordered(p->arg, pg->r[0].tid, pg->r[0].epoch, tid) ||
			       (!pg->written && !write) ? CTS_PAGE_NATIVE : CTS_PAGE_CONFLICT;
		return others_ordered(p, pg, tid) || !write ? CTS_PAGE_NATIVE : CTS_PAGE_CONFLICT;
	}
	bool added;
	struct page *pg = cts_htab_put(p->run, &page, &added);
	if (added) {
		p->st.pages_touched++;
		own(pg, tid, write, epoch);
		return CTS_PAGE_NATIVE;
	}
	switch ((enum cts_page_state)pg->state) {
	case CTS_PAGE_OWNED:
		if (pg->r[0].tid == tid) {
			pg->written |= write;
			if (epoch > pg->r[0].epoch)
				pg->r[0].epoch = epoch;
			return CTS_PAGE_NATIVE;
		}
		if (p->ordered(p->arg, pg->r[0].tid, pg->r[0].epoch, tid)) {
			p->st.handoffs++;
			own(pg, tid, write, epoch);
			return CTS_PAGE_NATIVE;
		}
		if (!pg->written && !write) {
			pg->state = CTS_PAGE_READ_SHARED;
			add_reader(pg, tid, epoch);
			return CTS_PAGE_NATIVE;
		}
		break;
	case CTS_PAGE_READ_SHARED:
		if (others_ordered(p, pg, tid)) {
			p->st.handoffs++;
			own(pg, tid, write, epoch);
			return CTS_PAGE_NATIVE;
		}
		if (!write) {
			add_reader(pg, tid, epoch);
			return CTS_PAGE_NATIVE;
		}
		break;
	case CTS_PAGE_SHARED:
		return CTS_PAGE_VISIBLE;
	case CTS_PAGE_UNTOUCHED:
		own(pg, tid, write, epoch);
		return CTS_PAGE_NATIVE;
	}
	/* A foreign access the earlier, invisible ones may race with. */
	pg->state = CTS_PAGE_SHARED;
	if (p->defer)
		cts_htab_put(p->pending, &page, NULL);
	else
		cts_pages_learn(p, page);
	return CTS_PAGE_CONFLICT;
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
	for (uint64_t pg = first;; pg++) {
		enum cts_page_verdict v = access_page(p, pg, tid, write, epoch, dry);
		if (v > worst)
			worst = v;
		if (pg == last)
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
	for (uint64_t u = first;; u++) {
		struct page *pg = cts_htab_put(p->run, &u, NULL);
		pg->state = CTS_PAGE_SHARED; /* this run only: not learned */
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
	for (uint64_t u = in_lo; u < in_hi; u++) {
		if (p->all || cts_htab_get(p->learned, &u))
			continue;
		own(cts_htab_put(p->run, &u, NULL), tid, true, epoch);
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

struct cts_page_info cts_pages_info(const struct cts_pages *p, uint64_t addr)
{
	uint64_t page = addr >> p->shift;
	struct cts_page_info in = { .state = CTS_PAGE_UNTOUCHED, .owner = -1 };
	const struct page *pg = cts_htab_get(p->run, &page);
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
