/* Library calls out of the text (docs/design.md, "Library calls out of the
 * text"): in fault mode, the breakpoint of a leaf string or memory function
 * (its PLT stub, or a call through its GOT slot) leaves the text for the
 * rest of the run once RETIRE_CALLS calls in a row were hidden with every
 * range on tracked pages the calling thread's protection already allowed.
 * Its calls then run natively; what their bodies touch elsewhere is found
 * by faults, which access.c decides on the lines because the faulting pc
 * lies in the function's implementation: the one its GOT slot resolved to,
 * with its extent found by walking its code from that entry (a leaf: no
 * call, no indirect jump, no system call). An access on a line learned
 * shared voids the run, and the call site that made it is learned to stop
 * ("s0x..." in the learned set, own.h: an int3 on that `call`, so the next
 * runs show its ranges as events as before), or where no site is known (a
 * tail call) the stub to stay ("c0x..."). Which calls a run retires follows
 * from its own schedule, as for access breakpoints. Internal to the live
 * backend. */
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
/* Which call made th run the body holding pc (from the innermost return
 * address on its stack after a call of a library call's breakpoint):
 * DECIDED: one a breakpoint in the text stopped (a learned site, or a stub
 * that shares the implementation), which decided its ranges; RETIRED: a
 * retired one, made at *site (0: at a `call *slot(%rip)` breakpoint);
 * UNKNOWN: none found (a tail call, a call from library code). */
enum cts_lc_origin { CTS_LC_UNKNOWN, CTS_LC_DECIDED, CTS_LC_RETIRED };
enum cts_lc_origin cts_lcret_origin(struct cts_tracer *tr, struct thread *th, uint64_t pc,
				    uint64_t *site);
/* The body holding pc met what its thread may not do unseen: call site
 * `site` learned to stop (when the run is voided), or with none (0), the
 * breakpoints that let the body run learned to stay. */
void cts_lcret_stays(struct cts_tracer *tr, uint64_t pc, uint64_t site);
/* Where the call at learned call site `site` goes: its stub's GOT slot's
 * value once bound, else 0 (sync.c performs the call there: no step into
 * the stub, no second stop at it). */
uint64_t cts_lcret_site_entry(struct cts_tracer *tr, pid_t tid, struct bp *site);
/* Breakpoints on the learned call sites, read from the text of pid (a new
 * run's process, or the fork server before it forks one). */
void cts_lcret_plant_sites(struct cts_tracer *tr, pid_t pid);
/* The body holding pc works on a page decided per access (a fault per
 * access): its breakpoints back in the text for the rest of the run. */
void cts_lcret_keep(struct cts_tracer *tr, uint64_t pc);

#endif
