/* Vector clocks (see vclock.h). */
#include "models/vclock.h"

#include <stdlib.h>
#include <string.h>
#include "models/error.h"

/* Room for n components, the new ones 0. */
static void widen(struct cts_vc *v, uint32_t n)
{
	if (n <= v->n)
		return;
	if (n > v->cap) {
		size_t cap = cts_grow_cap(v->cap, n);
		v->c = cts_xgrow(v->c, v->cap, cap, sizeof(*v->c));
		v->cap = (uint32_t)cap;
	}
	memset(v->c + v->n, 0, (n - v->n) * sizeof(*v->c));
	v->n = n;
}

void cts_vc_zero(struct cts_vc *v)
{
	v->n = 0;
}

void cts_vc_free(struct cts_vc *v)
{
	free(v->c);
	*v = (struct cts_vc)CTS_VC_INIT;
}

void cts_vc_copy(struct cts_vc *dst, const struct cts_vc *src)
{
	if (dst == src)
		return;
	dst->n = 0;
	widen(dst, src->n);
	if (src->n)
		memcpy(dst->c, src->c, src->n * sizeof(*src->c));
}

void cts_vc_join_array(struct cts_vc *dst, const uint32_t *c, uint32_t n)
{
	widen(dst, n);
	for (uint32_t i = 0; i < n; i++)
		dst->c[i] = dst->c[i] > c[i] ? dst->c[i] : c[i];
}

void cts_vc_join(struct cts_vc *dst, const struct cts_vc *src)
{
	if (dst != src)
		cts_vc_join_array(dst, src->c, src->n);
}

bool cts_vc_leq(const struct cts_vc *a, const struct cts_vc *b)
{
	unsigned bad = 0;
	uint32_t both = a->n < b->n ? a->n : b->n;

	for (uint32_t i = 0; i < both; i++)
		bad |= a->c[i] > b->c[i];
	for (uint32_t i = both; i < a->n; i++)
		bad |= a->c[i] != 0;
	return !bad;
}

bool cts_vc_concurrent(const struct cts_vc *a, const struct cts_vc *b)
{
	return !cts_vc_leq(a, b) && !cts_vc_leq(b, a);
}

void cts_vc_tick(struct cts_vc *v, int tid)
{
	if (tid < 0)
		return;
	widen(v, (uint32_t)tid + 1);
	v->c[tid]++;
}

void cts_vc_raise(struct cts_vc *v, int tid, uint32_t c)
{
	if (tid < 0 || c <= cts_vc_get(v, tid))
		return;
	widen(v, (uint32_t)tid + 1);
	v->c[tid] = c;
}
