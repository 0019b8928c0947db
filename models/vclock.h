/* Vector clocks over normalized thread numbers: the happens-before order of
 * one run. Fixed width (CTS_MAX_THREADS) so clocks can be embedded and copied
 * without allocation; the loops are simple enough for the compiler to vectorize. */
#ifndef CTS_VCLOCK_H
#define CTS_VCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/event.h"

struct cts_vc {
	uint32_t c[CTS_MAX_THREADS];
};

void cts_vc_zero(struct cts_vc *v);
void cts_vc_copy(struct cts_vc *dst, const struct cts_vc *src);
/* dst = pointwise max(dst, src): acquire what src released. */
void cts_vc_join(struct cts_vc *dst, const struct cts_vc *src);
/* a <= b pointwise: everything a saw, b saw too. */
bool cts_vc_leq(const struct cts_vc *a, const struct cts_vc *b);
/* Neither a <= b nor b <= a. */
bool cts_vc_concurrent(const struct cts_vc *a, const struct cts_vc *b);
/* Advance tid's own component (after a release, so later events are new). */
void cts_vc_tick(struct cts_vc *v, int tid);

static inline uint32_t cts_vc_get(const struct cts_vc *v, int tid)
{
	return v->c[tid];
}

/* The epoch clock@tid (an event of thread tid at its clock value) happens
 * before any event whose clock is v. */
static inline bool cts_vc_epoch_leq(uint32_t clock, int tid, const struct cts_vc *v)
{
	return clock <= v->c[tid];
}

#endif
