/* --races catch: data races caught in the act, DataCollider-style (Erickson,
 * Musuvathi, Burckhardt, Olynyk, OSDI 2010), in sync mode.
 *
 * A sample of the program's own memory-accessing instructions (not locked
 * ones) gets code breakpoints.  When thread T reaches a sampled instruction
 * about to touch shared address a, T is held before the access (a visible
 * step, so it is in the schedule) and steps aside while the other threads
 * run for a window of their steps; meanwhile a data breakpoint on a is
 * armed in them (write-only if T reads, read-write if T writes), or, where
 * debug registers do not trap, access breakpoints on every instruction that
 * may touch a.  An access by another thread that conflicts with T's is a
 * race that really happened concurrently: T stood between its own preceding
 * operations and the access.  Caught races go to the race detector
 * (cts_race_add) and out through the usual race reports.  The value at a is
 * read before and after the window: a change nobody was caught making was
 * made by code cts does not trace (a library, the kernel) and is noted, not
 * reported as a race (its writer is unknown).
 *
 * Internal to the live backend; sits beside access.c on the thread and
 * breakpoint layer (docs/design.md, "tracer/ layering"). */
#ifndef CTS_CATCH_H
#define CTS_CATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "hw/attrib.h"
#include "tracer/tracer_int.h"

struct cts_race_detector;

int cts_catch_init(struct cts_tracer *tr, char *err, size_t errlen);
void cts_catch_fini(struct cts_tracer *tr);
/* After access setup at launch: find the sites, sample, plant. */
int cts_catch_setup(struct cts_tracer *tr);
/* A new run starts: the last run's window is gone with its process. */
void cts_catch_run_start(struct cts_tracer *tr);
/* th is about to make the shared access ev at breakpoint b (access.c):
 * true if th must be held there (a sampled site opens a window). Records a
 * conflicting access of another thread while a window is open. */
bool cts_catch_access(struct cts_tracer *tr, struct thread *th, const struct bp *b,
		      const struct cts_event *ev);
/* A debug-register trap on a catch slot, attributed (access.c). */
void cts_catch_trap(struct cts_tracer *tr, struct thread *th, int slot, const struct cts_attr *at);
/* A move the tracer performed itself while a debug register watches the
 * window (it never traps): checked like a trap. */
void cts_catch_moved(struct cts_tracer *tr, struct thread *th, cts_op op, uint64_t pc,
		     uint64_t addr, uint32_t size);
/* Around each step of the backend: tid is about to run; a step ended. */
void cts_catch_before_step(struct cts_tracer *tr, int tid);
void cts_catch_after_step(struct cts_tracer *tr, int tid);
/* End of a run: hand the caught races to the detector. */
void cts_catch_caught(struct cts_tracer *tr, struct cts_race_detector *d);
/* For the report: a malloc'd JSON object, NULL without --races catch. Each
 * caught pair says whether d (the exploration's detector) reported it. */
struct json_t *cts_catch_json(const struct cts_tracer *tr, const struct cts_race_detector *d);

#endif
