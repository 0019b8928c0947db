/* Break mode's visibility by ownership of memory (docs/design.md, "Break
 * mode on memory ownership", stage 2): an access the tracer stops at (an
 * access breakpoint) is a scheduling point only when the 64-byte line it
 * touches is shared; an access to a line the thread owns, or a read of a
 * line only read so far, runs on without one. The states are
 * models/pages.h's on lines; this module adds the epochs (each thread's
 * count of executed events), the run's clocks (cts_run_state.ordered), the
 * learning from void runs and the learned set's text in schedule files
 * ("own:0x...,0x...": line addresses; "p0x...": a page decided per access;
 * "c0x...": a library call's breakpoint that stays, "s0x...": a call site
 * whose calls stop, lcret.h). Internal to
 * the live backend. */
#ifndef CTS_OWN_H
#define CTS_OWN_H

#include <stdbool.h>
#include <stdint.h>
#include "models/pages.h"
#include "strategies/backend.h"

#define CTS_OWN_LINE 64u

struct cts_own;

struct cts_own *cts_own_new(void);
void cts_own_free(struct cts_own *o);
/* Is spec (a schedule's hot-lines value) an ownership learned set? */
bool cts_own_spec(const char *spec);
/* ...one learned with protection-key faults ("ownk:", fault.h)? Those
 * runs show other events: a schedule replays only with the same mechanism.
 * set_keys: this run's learned sets are of that kind. */
bool cts_own_spec_keys(const char *spec);
void cts_own_set_keys(struct cts_own *o, bool keys);
/* Add the learned lines of such a spec; -1 on a malformed one. */
int cts_own_parse(struct cts_own *o, const char *spec);
/* A new run: every line untouched but the learned ones; st's clocks. */
void cts_own_begin_run(struct cts_own *o, struct cts_run_state *st);
/* Thread tid is about to execute its next visible event: the accesses it
 * makes after it belong to the next epoch. */
void cts_own_stepped(struct cts_own *o, int tid);
/* An access by tid now: check says what it would mean, changing nothing;
 * access makes it. */
enum cts_page_verdict cts_own_check(struct cts_own *o, int tid, uint64_t addr, uint64_t len,
				    bool write);
enum cts_page_verdict cts_own_access(struct cts_own *o, int tid, uint64_t addr, uint64_t len,
				     bool write);
void cts_own_freed(struct cts_own *o, uint64_t addr, uint64_t len);
enum cts_page_verdict cts_own_allocated(struct cts_own *o, int tid, uint64_t addr, uint64_t len);
/* A void run: learn its conflicts; after 16 void runs, or with everything,
 * every line is shared (every access visible, as without ownership). */
void cts_own_commit(struct cts_own *o, bool everything);
/* The fault mechanism (fault.h) grants a thread whole pages it then uses
 * unseen; before any question about a range, the hook makes the states of
 * the pages it overlaps whole again (cts_own_claim of what their grantee
 * may have done; tid asks, -1: unknown). grantable and claim: cts_pages_grantable/claim on the
 * lines of [addr, addr+len), at tid's current epoch (claim_at: a given one). */
typedef void (*cts_own_hook_fn)(void *arg, int tid, uint64_t addr, uint64_t len);
void cts_own_set_hook(struct cts_own *o, cts_own_hook_fn fn, void *arg);
bool cts_own_grantable(struct cts_own *o, int tid, uint64_t addr, uint64_t len, bool write);
void cts_own_claim_at(struct cts_own *o, int tid, uint64_t addr, uint64_t len, bool write,
		      uint32_t epoch);
/* tid's current epoch: its accesses now come before this event of its own. */
uint32_t cts_own_epoch(struct cts_own *o, int tid);
bool cts_own_all_touched(struct cts_own *o, uint64_t addr, uint64_t len);
/* The pages learned as decided per access (page numbers, ascending; the
 * fault mechanism denies them to every thread but io pages); how many. */
size_t cts_own_per_access_pages(const struct cts_own *o, uint64_t *out, size_t max);
/* Is a line of [addr, addr+len) learned, or every line? */
bool cts_own_learned_in(const struct cts_own *o, uint64_t addr, uint64_t len);
/* Is page (a page number) learned as decided per access? */
bool cts_own_is_per_access(const struct cts_own *o, uint64_t page);
/* Learn page as decided per access when this run is voided. */
void cts_own_pend_per_access(struct cts_own *o, uint64_t page);
/* The same for a page holding a buffer of a system call that may sleep
 * (the mprotect mechanism: fault.c keeps such a page open to the kernel,
 * on no key); learned as "i0x...". io_pages: those learned, sorted. */
void cts_own_pend_io(struct cts_own *o, uint64_t page);
bool cts_own_is_io(const struct cts_own *o, uint64_t page);
size_t cts_own_io_pages(const struct cts_own *o, uint64_t *out, size_t max);
/* A library call's breakpoint at bp (tracer/lcret.h) stays in every run
 * from the next one on, when this run is voided; learned "c0x...". */
void cts_own_pend_stays(struct cts_own *o, uint64_t bp);
bool cts_own_stays(const struct cts_own *o, uint64_t bp);
/* The same for one call site (the address of a `call` to a library
 * function's PLT stub): its calls stop there, the stub may leave the text
 * for the others; learned "s0x...". site: learned before this run; sites:
 * those (as many as fit in out), how many. */
void cts_own_pend_site(struct cts_own *o, uint64_t site);
bool cts_own_site(const struct cts_own *o, uint64_t site);
size_t cts_own_sites(const struct cts_own *o, uint64_t *out, size_t max);
/* The learned set as a spec (a new string): line addresses, and pages
 * decided per access as p<address>. */
char *cts_own_format(const struct cts_own *o);
uint64_t cts_own_learned(const struct cts_own *o);
bool cts_own_all(const struct cts_own *o);

#endif
