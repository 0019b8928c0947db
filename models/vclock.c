/* Vector clocks (see vclock.h). */
#include "models/vclock.h"

#include <string.h>

void cts_vc_zero(struct cts_vc *v)
{
	memset(v, 0, sizeof(*v));
}

void cts_vc_copy(struct cts_vc *dst, const struct cts_vc *src)
{
	if (dst != src)
		memcpy(dst, src, sizeof(*dst));
}

void cts_vc_join(struct cts_vc *dst, const struct cts_vc *src)
{
	for (int i = 0; i < CTS_MAX_THREADS; i++)
		dst->c[i] = dst->c[i] > src->c[i] ? dst->c[i] : src->c[i];
}

bool cts_vc_leq(const struct cts_vc *a, const struct cts_vc *b)
{
	unsigned bad = 0;

	for (int i = 0; i < CTS_MAX_THREADS; i++)
		bad |= a->c[i] > b->c[i];
	return !bad;
}

bool cts_vc_concurrent(const struct cts_vc *a, const struct cts_vc *b)
{
	return !cts_vc_leq(a, b) && !cts_vc_leq(b, a);
}

void cts_vc_tick(struct cts_vc *v, int tid)
{
	if (tid >= 0 && tid < CTS_MAX_THREADS)
		v->c[tid]++;
}
