#include "models/pages.h"

#include <stdlib.h>
#include <string.h>

#include "models/error.h"
#include "models/htab.h"

#define MAX_READERS 4

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
	return p;
}

void cts_pages_free(struct cts_pages *p)
{
	if (!p)
		return;
	cts_htab_free(p->run);
	cts_htab_free(p->learned);
	free(p);
}

void cts_pages_begin_run(struct cts_pages *p)
{
	cts_htab_clear(p->run);
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

static enum cts_page_verdict access_page(struct cts_pages *p, uint64_t page, int tid, bool write,
					 uint32_t epoch)
{
	if (cts_htab_get(p->learned, &page))
		return CTS_PAGE_VISIBLE;
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
	cts_pages_learn(p, page);
	return CTS_PAGE_CONFLICT;
}

enum cts_page_verdict cts_pages_access(struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
				       bool write, uint32_t epoch)
{
	enum cts_page_verdict worst = CTS_PAGE_NATIVE;
	uint64_t first = addr >> p->shift;
	uint64_t last = (addr + (len ? len - 1 : 0)) >> p->shift;
	if (last < first)
		last = UINT64_MAX >> p->shift; /* wrapped: to the end */
	for (uint64_t pg = first;; pg++) {
		enum cts_page_verdict v = access_page(p, pg, tid, write, epoch);
		if (v > worst)
			worst = v;
		if (pg == last)
			break;
	}
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
