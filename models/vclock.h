/* Vector clocks over normalized thread numbers: the happens-before order of
 * one run. Variable width: a clock holds the components up to the highest
 * thread it has heard of (through a create, a join or a release), a missing
 * component is 0. So a clock costs what the threads that communicated with
 * it cost, not what every thread ever created would. Start from CTS_VC_INIT
 * (or zeroed memory) and cts_vc_free when done. */
#ifndef CTS_VCLOCK_H
#define CTS_VCLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct cts_vc {
	uint32_t n, cap;   /* components held, allocated */
	uint32_t *c;
};

#define CTS_VC_INIT { 0, 0, NULL }

/* All components 0 (keeps the storage for reuse). */
void cts_vc_zero(struct cts_vc *v);
void cts_vc_free(struct cts_vc *v);
void cts_vc_copy(struct cts_vc *dst, const struct cts_vc *src);
/* dst = pointwise max(dst, src): acquire what src released. */
void cts_vc_join(struct cts_vc *dst, const struct cts_vc *src);
/* Same with a plain array of n components (a snapshot). */
void cts_vc_join_array(struct cts_vc *dst, const uint32_t *c, uint32_t n);
/* a <= b pointwise: everything a saw, b saw too. */
bool cts_vc_leq(const struct cts_vc *a, const struct cts_vc *b);
/* Neither a <= b nor b <= a. */
bool cts_vc_concurrent(const struct cts_vc *a, const struct cts_vc *b);
/* Advance tid's own component (after a release, so later events are new). */
void cts_vc_tick(struct cts_vc *v, int tid);
/* Component tid = max(component, c). */
void cts_vc_raise(struct cts_vc *v, int tid, uint32_t c);

static inline uint32_t cts_vc_get(const struct cts_vc *v, int tid)
{
	return tid >= 0 && (uint32_t)tid < v->n ? v->c[tid] : 0;
}

/* The epoch clock@tid (an event of thread tid at its clock value) happens
 * before any event whose clock is v. */
static inline bool cts_vc_epoch_leq(uint32_t clock, int tid, const struct cts_vc *v)
{
	return clock <= cts_vc_get(v, tid);
}

#endif
