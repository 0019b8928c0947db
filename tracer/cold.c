/* Cold lines (cold.h): two open-addressing tables keyed by line address. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "tracer/cold.h"

/* A line's state in the run: one reader (its thread number), several, or
 * written (read visibly from then on). */
#define ST_MANY (-2)
#define ST_WRITTEN (-3)
#define MAX_PENDING 64
/* Void runs before every line counts as hot: a program whose threads share
 * much written memory (an interpreter's heap) would otherwise pay a run per
 * line; with all lines hot every read is visible, as without cold reads. */
#define MAX_COMMITS 16

struct slot {
	uint64_t line;   /* 0: empty (page 0 is never mapped) */
	int32_t st;
};

struct table {
	struct slot *s;
	size_t cap, n;   /* cap: a power of two */
};

struct cts_cold {
	struct table hot;        /* for good */
	struct table run;        /* this run's reads and writes */
	uint64_t pending[MAX_PENDING];
	int npending;
	struct { uint64_t lo, hi; } *big; /* huge ranges written this run */
	size_t nbig, bigcap;
	unsigned commits;
	bool all_hot;            /* every line hot: cold reads are off */
};

static size_t slot_of(const struct table *t, uint64_t line)
{
	uint64_t h = (line / CTS_COLD_LINE) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (t->cap - 1);
}

static struct slot *find(const struct table *t, uint64_t line)
{
	if (!t->cap)
		return NULL;
	for (size_t i = slot_of(t, line);; i = (i + 1) & (t->cap - 1)) {
		if (t->s[i].line == line)
			return &t->s[i];
		if (!t->s[i].line)
			return NULL;
	}
}

static struct slot *insert(struct table *t, uint64_t line, int32_t st);

static void grow(struct table *t)
{
	struct table old = *t;
	t->cap = old.cap ? old.cap * 2 : 256;
	t->s = cts_xcalloc(t->cap, sizeof(*t->s));
	t->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.s[i].line)
			insert(t, old.s[i].line, old.s[i].st);
	free(old.s);
}

static struct slot *insert(struct table *t, uint64_t line, int32_t st)
{
	struct slot *s = find(t, line);
	if (s)
		return s;
	if ((t->n + 1) * 2 > t->cap)
		grow(t);
	size_t i = slot_of(t, line);
	while (t->s[i].line)
		i = (i + 1) & (t->cap - 1);
	t->s[i].line = line;
	t->s[i].st = st;
	t->n++;
	return &t->s[i];
}

struct cts_cold *cts_cold_new(void)
{
	return cts_xcalloc(1, sizeof(struct cts_cold));
}

void cts_cold_free(struct cts_cold *c)
{
	if (!c)
		return;
	free(c->hot.s);
	free(c->run.s);
	free(c->big);
	free(c);
}

void cts_cold_begin_run(struct cts_cold *c)
{
	if (c->run.n)
		memset(c->run.s, 0, c->run.cap * sizeof(*c->run.s));
	c->run.n = 0;
	c->npending = 0;
	c->nbig = 0;
}

static uint64_t first_line(uint64_t addr)
{
	return addr & ~(uint64_t)(CTS_COLD_LINE - 1);
}

bool cts_cold_read(struct cts_cold *c, int tid, uint64_t addr, uint32_t size)
{
	uint64_t lo = first_line(addr), hi = first_line(addr + (size ? size : 1) - 1);
	if (!lo || c->all_hot)
		return false;
	for (uint64_t l = lo; l <= hi; l += CTS_COLD_LINE) {
		const struct slot *s = find(&c->run, l);
		if ((s && s->st == ST_WRITTEN) || find(&c->hot, l))
			return false;
	}
	for (size_t i = 0; i < c->nbig; i++)
		if (lo <= c->big[i].hi && hi >= c->big[i].lo)
			return false;
	for (uint64_t l = lo; l <= hi; l += CTS_COLD_LINE) {
		struct slot *s = insert(&c->run, l, tid);
		if (s->st != tid)
			s->st = ST_MANY;
	}
	return true;
}

/* A write by tid to s's line: a conflict if another thread read it cold. */
static bool note_write(struct cts_cold *c, struct slot *s, int tid)
{
	bool conflict = s->st == ST_MANY || (s->st >= 0 && s->st != tid);
	if (conflict && c->npending < MAX_PENDING)
		c->pending[c->npending++] = s->line;
	s->st = ST_WRITTEN;
	return conflict;
}

bool cts_cold_write(struct cts_cold *c, int tid, uint64_t addr, uint64_t size)
{
	uint64_t lo = first_line(addr), hi = first_line(addr + (size ? size : 1) - 1);
	bool conflict = false;
	if (!lo || hi < lo)
		return false;
	if (hi - lo <= (c->run.cap + 1024) * CTS_COLD_LINE) {
		for (uint64_t l = lo; l <= hi; l += CTS_COLD_LINE) {
			struct slot *s = insert(&c->run, l, ST_WRITTEN);
			conflict |= note_write(c, s, tid);
		}
		return conflict;
	}
	/* A huge range (a memset of a big block) is kept as a range: the
	 * table's lines in it are the ones somebody read. */
	if (c->nbig == c->bigcap) {
		c->bigcap = c->bigcap ? c->bigcap * 2 : 8;
		c->big = cts_xrealloc(c->big, c->bigcap * sizeof(*c->big));
	}
	c->big[c->nbig].lo = lo;
	c->big[c->nbig++].hi = hi;
	for (size_t i = 0; i < c->run.cap; i++) {
		struct slot *s = &c->run.s[i];
		if (s->line && s->line >= lo && s->line <= hi)
			conflict |= note_write(c, s, tid);
	}
	return conflict;
}

void cts_cold_commit(struct cts_cold *c, bool everything)
{
	c->all_hot |= everything;
	for (int i = 0; i < c->npending; i++)
		insert(&c->hot, c->pending[i], 0);
	c->npending = 0;
	c->all_hot |= ++c->commits >= MAX_COMMITS;
}

uint64_t cts_cold_nhot(const struct cts_cold *c)
{
	return c->hot.n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

char *cts_cold_format(const struct cts_cold *c)
{
	if (c->all_hot)
		return strcpy(cts_xmalloc(4), "all");
	uint64_t *v = cts_xmalloc((c->hot.n ? c->hot.n : 1) * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < c->hot.cap; i++)
		if (c->hot.s[i].line)
			v[n++] = c->hot.s[i].line;
	qsort(v, n, sizeof(*v), cmp_u64); /* the same set, the same text */
	char *out = cts_xmalloc(n * 19 + 5);
	size_t off = 0;
	out[0] = 0;
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(out + off, "%s0x%" PRIx64, i ? "," : "", v[i]);
	free(v);
	if (!n)
		snprintf(out, 5, "none");
	return out;
}

int cts_cold_parse(struct cts_cold *c, const char *spec)
{
	const char *p = spec;
	if (strcmp(spec, "none") == 0)
		return 0;
	if (strcmp(spec, "all") == 0) {
		c->all_hot = true;
		return 0;
	}
	while (*p) {
		char *end;
		errno = 0;
		unsigned long long l = strtoull(p, &end, 0);
		if (end == p || errno || !l || l % CTS_COLD_LINE)
			return -1;
		insert(&c->hot, (uint64_t)l, 0);
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}
