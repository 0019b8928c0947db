#include "tracer/own.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/error.h"
#include "models/htab.h"

#define OWN_PREFIX "own:"
#define KEYS_PREFIX "ownk:" /* learned with protection-key faults (fault.h) */
#define MAX_COMMITS 16

struct cts_own {
	struct cts_pages *lines;
	struct cts_run_state *st;   /* the run's, for its clocks */
	uint32_t *events;           /* per thread: events executed this run */
	size_t nevents;
	unsigned commits;
	bool keys;                  /* fault mode: a different event model */
	/* Pages decided per access because a system call that may sleep had
	 * a buffer there (fault.c, the mprotect mechanism): learned "i0x...",
	 * the others "p0x...". Page numbers; io_pend: this run's. */
	struct cts_htab *io, *io_pend;
	/* Library-call breakpoints that stay in every run (lcret.h): learned
	 * "c0x..." (the breakpoint's address), or "s0x..." (a call site whose
	 * calls stop there); *_pend: this run's. */
	struct cts_htab *stays, *stays_pend, *sites, *sites_pend;
	cts_own_hook_fn hook;       /* fault.c: claim granted pages first */
	void *hook_arg;
};

static bool own_ordered(void *arg, int earlier, uint32_t epoch, int tid)
{
	const struct cts_own *o = arg;
	return o->st && o->st->ordered && o->st->ordered(o->st->ordered_arg, earlier, epoch, tid);
}

struct cts_own *cts_own_new(void)
{
	struct cts_own *o = cts_xcalloc(1, sizeof(*o));
	o->lines = cts_pages_new_unit(own_ordered, o, 6);
	cts_pages_defer(o->lines);
	o->io = cts_htab_new(sizeof(uint64_t), 0);
	o->io_pend = cts_htab_new(sizeof(uint64_t), 0);
	o->stays = cts_htab_new(sizeof(uint64_t), 0);
	o->stays_pend = cts_htab_new(sizeof(uint64_t), 0);
	o->sites = cts_htab_new(sizeof(uint64_t), 0);
	o->sites_pend = cts_htab_new(sizeof(uint64_t), 0);
	return o;
}

void cts_own_free(struct cts_own *o)
{
	if (!o)
		return;
	cts_pages_free(o->lines);
	cts_htab_free(o->io);
	cts_htab_free(o->io_pend);
	cts_htab_free(o->stays);
	cts_htab_free(o->stays_pend);
	cts_htab_free(o->sites);
	cts_htab_free(o->sites_pend);
	free(o->events);
	free(o);
}

bool cts_own_spec(const char *spec)
{
	return spec && (strncmp(spec, OWN_PREFIX, strlen(OWN_PREFIX)) == 0 ||
			strncmp(spec, KEYS_PREFIX, strlen(KEYS_PREFIX)) == 0);
}

bool cts_own_spec_keys(const char *spec)
{
	return spec && strncmp(spec, KEYS_PREFIX, strlen(KEYS_PREFIX)) == 0;
}

void cts_own_set_keys(struct cts_own *o, bool keys)
{
	o->keys = keys;
}

int cts_own_parse(struct cts_own *o, const char *spec)
{
	if (!cts_own_spec(spec))
		return -1;
	o->keys = cts_own_spec_keys(spec);
	const char *s = spec + strlen(o->keys ? KEYS_PREFIX : OWN_PREFIX);
	if (strcmp(s, "none") == 0)
		return 0;
	if (strcmp(s, "all") == 0) {
		cts_pages_learn_all(o->lines);
		return 0;
	}
	while (*s) {
		char *end;
		if (*s == 'c' || *s == 's') { /* a library call's breakpoint that stays */
			unsigned long long a = strtoull(s + 1, &end, 16);
			if (end == s + 1 || (*end && *end != ','))
				return -1;
			cts_htab_put(*s == 'c' ? o->stays : o->sites, &(uint64_t){ a }, NULL);
			s = *end ? end + 1 : end;
			continue;
		}
		bool io = *s == 'i';            /* ...for a system call's buffer */
		bool page = *s == 'p' || io;    /* a page decided per access */
		if (page)
			s++;
		unsigned long long a = strtoull(s, &end, 16);
		if (end == s || (*end && *end != ',') || a % (page ? CTS_PAGE_SIZE : CTS_OWN_LINE))
			return -1;
		if (io)
			cts_htab_put(o->io, &(uint64_t){ a / CTS_PAGE_SIZE }, NULL);
		if (page)
			cts_pages_learn_per_access(o->lines, a / CTS_PAGE_SIZE);
		else
			cts_pages_learn(o->lines, a / CTS_OWN_LINE);
		s = *end ? end + 1 : end;
	}
	cts_pages_take_new(o->lines);
	return 0;
}

void cts_own_begin_run(struct cts_own *o, struct cts_run_state *st)
{
	o->st = st;
	cts_pages_begin_run(o->lines);
	cts_htab_clear(o->io_pend);
	cts_htab_clear(o->stays_pend);
	cts_htab_clear(o->sites_pend);
	if (o->events)
		memset(o->events, 0, o->nevents * sizeof(*o->events));
}

static uint32_t *events_of(struct cts_own *o, int tid)
{
	if (tid < 0)
		tid = 0;
	if ((size_t)tid >= o->nevents) {
		size_t n = o->nevents ? o->nevents : 16;
		while (n <= (size_t)tid)
			n *= 2;
		o->events = cts_xrealloc(o->events, n * sizeof(*o->events));
		memset(o->events + o->nevents, 0, (n - o->nevents) * sizeof(*o->events));
		o->nevents = n;
	}
	return &o->events[tid];
}

void cts_own_stepped(struct cts_own *o, int tid)
{
	(*events_of(o, tid))++;
}

/* The epoch of tid's accesses now: before its next event (models/pages.h). */
static uint32_t epoch_now(struct cts_own *o, int tid)
{
	return *events_of(o, tid) + 1;
}

void cts_own_set_hook(struct cts_own *o, cts_own_hook_fn fn, void *arg)
{
	o->hook = fn;
	o->hook_arg = arg;
}

static void before_query(struct cts_own *o, int tid, uint64_t addr, uint64_t len)
{
	if (o->hook)
		o->hook(o->hook_arg, tid, addr, len);
}

bool cts_own_all_touched(struct cts_own *o, uint64_t addr, uint64_t len)
{
	return cts_pages_all_touched(o->lines, addr, len);
}

uint32_t cts_own_epoch(struct cts_own *o, int tid)
{
	return epoch_now(o, tid);
}

bool cts_own_grantable(struct cts_own *o, int tid, uint64_t addr, uint64_t len, bool write)
{
	return cts_pages_grantable(o->lines, tid, addr, len, write);
}

void cts_own_claim_at(struct cts_own *o, int tid, uint64_t addr, uint64_t len, bool write,
		      uint32_t epoch)
{
	cts_pages_claim(o->lines, tid, addr, len, write, epoch);
}

enum cts_page_verdict cts_own_check(struct cts_own *o, int tid, uint64_t addr, uint64_t len,
				    bool write)
{
	before_query(o, tid, addr, len);
	return cts_pages_check(o->lines, tid, addr, len, write, epoch_now(o, tid));
}

enum cts_page_verdict cts_own_access(struct cts_own *o, int tid, uint64_t addr, uint64_t len,
				     bool write)
{
	before_query(o, tid, addr, len);
	return cts_pages_access(o->lines, tid, addr, len, write, epoch_now(o, tid));
}

void cts_own_freed(struct cts_own *o, uint64_t addr, uint64_t len)
{
	before_query(o, -1, addr, len);
	cts_pages_freed(o->lines, addr, len);
}

enum cts_page_verdict cts_own_allocated(struct cts_own *o, int tid, uint64_t addr, uint64_t len)
{
	before_query(o, tid, addr, len);
	return cts_pages_allocated(o->lines, tid, addr, len, epoch_now(o, tid));
}

/* Move this run's pending entries into the learned set. */
static void drain(struct cts_htab *set, struct cts_htab *pend)
{
	size_t pos = 0;
	const void *k;
	while (cts_htab_next(pend, &pos, &k, NULL))
		cts_htab_put(set, k, NULL);
	cts_htab_clear(pend);
}

void cts_own_commit(struct cts_own *o, bool everything)
{
	cts_pages_commit(o->lines);
	drain(o->io, o->io_pend);
	drain(o->stays, o->stays_pend);
	drain(o->sites, o->sites_pend);

	if (everything || ++o->commits >= MAX_COMMITS)
		cts_pages_learn_all(o->lines);
}

char *cts_own_format(const struct cts_own *o)
{
	const char *prefix = o->keys ? KEYS_PREFIX : OWN_PREFIX;
	if (cts_pages_all(o->lines))
		return cts_xstrdup(o->keys ? KEYS_PREFIX "all" : OWN_PREFIX "all");
	size_t n = cts_pages_learned(o->lines, NULL, 0);
	size_t np = cts_pages_learned_per_access(o->lines, NULL, 0);
	size_t nc = cts_htab_count(o->stays), ns = cts_htab_count(o->sites);
	if (!n && !np && !nc && !ns)
		return cts_xstrdup(o->keys ? KEYS_PREFIX "none" : OWN_PREFIX "none");
	uint64_t *u = cts_xcalloc(n + np + nc + ns + 1, sizeof(*u));
	/* each part ascending: the same text for the same set */
	cts_pages_learned(o->lines, u, n);
	cts_pages_learned_per_access(o->lines, u + n, np);
	cts_htab_u64_keys(o->stays, u + n + np, nc);
	cts_htab_u64_keys(o->sites, u + n + np + nc, ns);
	size_t all = n + np + nc + ns, cap = strlen(prefix) + all * 21 + 1, off = 0;
	char *s = cts_xcalloc(cap, 1);
	off += (size_t)snprintf(s, cap, "%s", prefix);
	for (size_t i = 0; i < all; i++)
		off += (size_t)snprintf(s + off, cap - off, "%s%s0x%" PRIx64, i ? "," : "",
					i < n ? "" : i >= n + np + nc ? "s" : i >= n + np ? "c" :
					cts_htab_get(o->io, &u[i]) ? "i" : "p",
					i < n ? u[i] * CTS_OWN_LINE : i < n + np ? u[i] * CTS_PAGE_SIZE : u[i]);
	free(u);
	return s;
}

bool cts_own_is_per_access(const struct cts_own *o, uint64_t page)
{
	return cts_pages_per_access(o->lines, page);
}

bool cts_own_learned_in(const struct cts_own *o, uint64_t addr, uint64_t len)
{
	return cts_pages_learned_in(o->lines, addr, len);
}

void cts_own_pend_per_access(struct cts_own *o, uint64_t page)
{
	cts_pages_pend_per_access(o->lines, page);
}

void cts_own_pend_io(struct cts_own *o, uint64_t page)
{
	cts_pages_pend_per_access(o->lines, page);
	cts_htab_put(o->io_pend, &page, NULL);
}

bool cts_own_is_io(const struct cts_own *o, uint64_t page)
{
	return cts_htab_get(o->io, &page) && cts_pages_per_access(o->lines, page);
}

size_t cts_own_io_pages(const struct cts_own *o, uint64_t *out, size_t max)
{
	size_t np = cts_pages_learned_per_access(o->lines, NULL, 0), n = 0;
	if (!np || !cts_htab_count(o->io))
		return 0;
	uint64_t *pa = cts_xcalloc(np, sizeof(*pa));
	cts_pages_learned_per_access(o->lines, pa, np);
	for (size_t i = 0; i < np; i++)
		if (cts_htab_get(o->io, &pa[i])) {
			if (n < max)
				out[n] = pa[i];
			n++;
		}
	free(pa);
	return n;
}

size_t cts_own_per_access_pages(const struct cts_own *o, uint64_t *out, size_t max)
{
	return cts_pages_learned_per_access(o->lines, out, max);
}

uint64_t cts_own_learned(const struct cts_own *o)
{
	return cts_pages_learned(o->lines, NULL, 0);
}

bool cts_own_all(const struct cts_own *o)
{
	return cts_pages_all(o->lines);
}

void cts_own_pend_stays(struct cts_own *o, uint64_t bp)
{
	cts_htab_put(o->stays_pend, &bp, NULL);
}

bool cts_own_stays(const struct cts_own *o, uint64_t bp)
{
	return cts_htab_get(o->stays, &bp) != NULL;
}

void cts_own_pend_site(struct cts_own *o, uint64_t site)
{
	cts_htab_put(o->sites_pend, &site, NULL);
}

bool cts_own_site(const struct cts_own *o, uint64_t site)
{
	return cts_htab_get(o->sites, &site) != NULL;
}

size_t cts_own_sites(const struct cts_own *o, uint64_t *out, size_t max)
{
	return cts_htab_u64_keys(o->sites, out, max);
}
