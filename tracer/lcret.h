/* Library calls out of the text (docs/design.md, "Library calls out of the
 * text"): in fault mode, the breakpoint of a leaf string or memory function
 * (its PLT stub, or a call through its GOT slot) leaves the text for the
 * rest of the run once RETIRE_CALLS calls in a row were hidden with every
 * range on tracked pages the calling thread's protection already allowed.
 * Its calls then run natively; what their bodies touch elsewhere is found
 * by faults, which access.c decides on the lines because the faulting pc
 * lies in the function's implementation: the one its GOT slot resolved to,
 * with its extent found by walking its code from that entry (a leaf: no
 * call, no indirect jump, no system call). An access the lines do not let
 * the thread make unseen voids the run, and the breakpoint is learned to
 * stay ("c0x..." in the learned set, own.h), so the next runs show the call
 * as a range event as before. Which calls a run retires follows from its
 * own schedule, as for access breakpoints. Internal to the live backend. */
#ifndef CTS_LCRET_H
#define CTS_LCRET_H

#include <stdbool.h>
#include <stdint.h>
#include "tracer/tracer_int.h"

struct cts_lcret;

void cts_lcret_free(struct cts_lcret *l);
/* A call of a leaf function at b by th, made while two threads live;
 * qualifies: it was hidden and each of its ranges was on the thread's own
 * stack or on tracked pages its protection let it use. May take b out of
 * the text for the run. */
void cts_lcret_call(struct cts_tracer *tr, struct thread *th, struct bp *b, bool qualifies);
/* Is pc in the body of a call retired in this run? */
bool cts_lcret_in_body(struct cts_tracer *tr, uint64_t pc);
/* The body holding pc met what its call's thread may not do unseen: its
 * breakpoints are learned to stay (when the run is voided). */
void cts_lcret_stays(struct cts_tracer *tr, uint64_t pc);
/* The body holding pc works on a page decided per access (a fault per
 * access): its breakpoints back in the text for the rest of the run. */
void cts_lcret_keep(struct cts_tracer *tr, uint64_t pc);

#endif
