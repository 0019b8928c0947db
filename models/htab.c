#include "models/htab.h"

#include <stdlib.h>
#include <string.h>

#include "models/error.h"

/* A slot: one byte "used", then the key, then the value, each aligned to 8. */
struct cts_htab {
	size_t ksize, vsize, koff, voff, slot;
	size_t cap, n;     /* cap is 0 or a power of two */
	unsigned char *s;
};

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

struct cts_htab *cts_htab_new(size_t key_size, size_t val_size)
{
	struct cts_htab *h = cts_xcalloc(1, sizeof(*h));
	h->ksize = key_size;
	h->vsize = val_size;
	h->koff = 8;
	h->voff = h->koff + round8(key_size);
	h->slot = h->voff + round8(val_size ? val_size : 1);
	return h;
}

void cts_htab_free(struct cts_htab *h)
{
	if (!h)
		return;
	free(h->s);
	free(h);
}

void cts_htab_clear(struct cts_htab *h)
{
	if (h->s)
		memset(h->s, 0, h->cap * h->slot);
	h->n = 0;
}

size_t cts_htab_count(const struct cts_htab *h)
{
	return h ? h->n : 0;
}

uint64_t cts_htab_hash(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t x = UINT64_C(0xcbf29ce484222325) ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		x = (x ^ w) * UINT64_C(0x9e3779b97f4a7c15);
		x ^= x >> 29;
	}
	for (; i < n; i++)
		x = (x ^ b[i]) * UINT64_C(0x100000001b3);
	x ^= x >> 32;
	x *= UINT64_C(0xd6e8feb86659fd93);
	return x ^ (x >> 32);
}

static unsigned char *slot_at(const struct cts_htab *h, size_t i)
{
	return h->s + i * h->slot;
}

static size_t home(const struct cts_htab *h, const void *key)
{
	return (size_t)cts_htab_hash(key, h->ksize) & (h->cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find(const struct cts_htab *h, const void *key)
{
	size_t i = home(h, key);
	for (;;) {
		unsigned char *s = slot_at(h, i);
		if (!s[0] || memcmp(s + h->koff, key, h->ksize) == 0)
			return i;
		i = (i + 1) & (h->cap - 1);
	}
}

static void grow(struct cts_htab *h)
{
	size_t ocap = h->cap;
	unsigned char *old = h->s;
	h->cap = ocap ? 2 * ocap : 16;
	h->s = cts_xcalloc(h->cap, h->slot);
	for (size_t i = 0; i < ocap; i++) {
		unsigned char *o = old + i * h->slot;
		if (o[0])
			memcpy(slot_at(h, find(h, o + h->koff)), o, h->slot);
	}
	free(old);
}

void *cts_htab_get(const struct cts_htab *h, const void *key)
{
	if (!h || !h->n)
		return NULL;
	unsigned char *s = slot_at(h, find(h, key));
	return s[0] ? s + h->voff : NULL;
}

void *cts_htab_put(struct cts_htab *h, const void *key, bool *added)
{
	if (4 * (h->n + 1) > 3 * h->cap)
		grow(h);
	unsigned char *s = slot_at(h, find(h, key));
	if (added)
		*added = !s[0];
	if (!s[0]) {
		s[0] = 1;
		memcpy(s + h->koff, key, h->ksize);
		memset(s + h->voff, 0, h->vsize);
		h->n++;
	}
	return s + h->voff;
}

bool cts_htab_del(struct cts_htab *h, const void *key)
{
	if (!h->n)
		return false;
	size_t i = find(h, key);
	if (!slot_at(h, i)[0])
		return false;
	/* Backward shift: move up each later entry of the run that may sit
	 * in the hole (its home is not in (hole, j]). */
	size_t j = i;
	for (;;) {
		j = (j + 1) & (h->cap - 1);
		unsigned char *s = slot_at(h, j);
		if (!s[0])
			break;
		size_t k = home(h, s + h->koff);
		bool between = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (between)
			continue;
		memcpy(slot_at(h, i), s, h->slot);
		i = j;
	}
	memset(slot_at(h, i), 0, h->slot);
	h->n--;
	return true;
}

bool cts_htab_next(const struct cts_htab *h, size_t *pos, const void **key, void **val)
{
	for (; h && *pos < h->cap; (*pos)++) {
		unsigned char *s = slot_at(h, *pos);
		if (!s[0])
			continue;
		if (key)
			*key = s + h->koff;
		if (val)
			*val = s + h->voff;
		(*pos)++;
		return true;
	}
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

size_t cts_htab_u64_keys(const struct cts_htab *h, uint64_t *out, size_t max)
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
