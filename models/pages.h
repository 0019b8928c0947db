/* Break mode on memory ownership: the state of each page of the program's
 * writable memory, and what an access to it means (docs/design.md, "Break
 * mode on memory ownership").
 *
 * cts runs one thread at a time, so a protection the tracer switches with
 * the running thread (protection keys, or mprotect) is a per-thread
 * protection: an access to a page the running thread owns, or a read of a
 * read-shared page, runs natively with no stop; any other access faults, and
 * the fault is reported here. This module is the state machine only: which
 * state a page is in, what an access does to it, which protection each
 * thread must see. The live mechanism (faults, keys, mprotect) sits above.
 *
 * States: untouched (since the run began), owned by one thread (read only, or
 * written), read-shared (read by several, written by none since), shared.
 * An access by thread t:
 *   shared                  visible: an event (the int3/emulation path)
 *   untouched               t owns it; native
 *   owned by t              native
 *   owned by u, or read-shared, and every earlier access of the others
 *     happens before t's    t owns it (a hand-off: no race, and no order of
 *                           them is possible without reordering visible
 *                           events); native
 *   a read of a page only read so far      read-shared; native
 *   anything else           a conflict: the page becomes shared, and the run
 *                           is void, because the earlier accesses to it were
 *                           invisible; the page is learned, shared from the
 *                           first step of every later run.
 * A page's learned set is kept across runs (cts_pages_begin_run forgets the
 * run's states only); what a run shows is a function of its schedule and the
 * learned set. */
#ifndef CTS_PAGES_H
#define CTS_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTS_PAGE_SHIFT 12
#define CTS_PAGE_SIZE ((uint64_t)1 << CTS_PAGE_SHIFT)

enum cts_page_state {
	CTS_PAGE_UNTOUCHED,
	CTS_PAGE_OWNED,         /* one thread: cts_page_info.owner */
	CTS_PAGE_READ_SHARED,   /* read by several, written by none since */
	CTS_PAGE_SHARED,        /* learned, or turned shared in this run */
	CTS_PAGE_SPLIT,         /* lines: bytes of several threads, one writing, that do not meet */
};

/* What an access means for the run. */
enum cts_page_verdict {
	CTS_PAGE_NATIVE,        /* no event: the thread goes on */
	CTS_PAGE_VISIBLE,       /* a shared page: a visible access */
	CTS_PAGE_CONFLICT,      /* a page turned shared: the run is void */
};

/* Does event number `epoch` (from 1) of thread `earlier` happen before the
 * current point of thread `tid`? (With vector clocks: epoch <= C_tid[earlier].) */
typedef bool (*cts_pages_ordered_fn)(void *arg, int earlier, uint32_t epoch, int tid);

struct cts_pages;

struct cts_pages *cts_pages_new(cts_pages_ordered_fn ordered, void *arg);
/* The same states on units of 2^shift bytes (the estimate also tries 64-byte
 * lines: what an int3 or fault path that decides per line would show). */
struct cts_pages *cts_pages_new_unit(cts_pages_ordered_fn ordered, void *arg, unsigned shift);
void cts_pages_free(struct cts_pages *p);

/* A new run: every page untouched but the learned ones. */
void cts_pages_begin_run(struct cts_pages *p);

/* An access by thread tid to [addr, addr+len), made before its visible
 * event number `epoch` (from 1: the count of its events so far, plus one).
 * The verdict of the worst page; a conflict learns each page that caused
 * one. A range access (a system call's buffer, a library call) is the
 * thread's access to every page it covers. */
enum cts_page_verdict cts_pages_access(struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
				       bool write, uint32_t epoch);

/* The learned pages (shared from the first step of every run), as unit
 * numbers (address >> shift). learn adds one (replay: from the schedule);
 * cts_pages_learned gives them in ascending order. */
void cts_pages_learn(struct cts_pages *p, uint64_t page);
size_t cts_pages_learned(const struct cts_pages *p, uint64_t *out, size_t max);
/* Is a unit of [addr, addr+len) learned (or every one)? */
bool cts_pages_learned_in(const struct cts_pages *p, uint64_t addr, uint64_t len);
/* Pages learned since the last call (the run that taught them is void). */
size_t cts_pages_take_new(struct cts_pages *p);

/* The live mechanism (tracer/own.c) learns only from runs it throws away,
 * never from a replay or a minimization candidate: after cts_pages_defer a
 * conflict makes the page shared for the rest of the run only, and
 * cts_pages_commit learns the run's conflicts (begin_run forgets them). */
void cts_pages_defer(struct cts_pages *p);
size_t cts_pages_commit(struct cts_pages *p);
/* Every page shared from now on (too many learned: every access visible). */
void cts_pages_learn_all(struct cts_pages *p);
bool cts_pages_all(const struct cts_pages *p);

/* What cts_pages_access would say, changing nothing: NATIVE, VISIBLE, or
 * CONFLICT (the caller may make the access visible and ask again when it
 * runs, once the clocks know more). */
enum cts_page_verdict cts_pages_check(struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
				      bool write, uint32_t epoch);
/* Heap blocks. A block freed: every access to its units is visible for the
 * rest of the run (a use after free must be seen). A block allocated by tid
 * before its event `epoch`: the units wholly inside it start over, written
 * by tid (nobody else can have touched the new block); the units it shares
 * with its neighbours take it as tid's write. */
void cts_pages_freed(struct cts_pages *p, uint64_t addr, uint64_t len);
enum cts_page_verdict cts_pages_allocated(struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
					  uint32_t epoch);

/* The live fault mechanism (tracer/fault.c) lets one thread run natively
 * on a whole page it was granted, where no access is seen. grantable: may
 * tid be granted [addr, addr+len) (to read, or also to write)? Every unit is
 * untouched or tid's own (to read: or only read so far), none learned, not
 * every access visible. claim: tid may have touched every unit of the range
 * before its event epoch, writing if write: each unit takes it as tid's
 * access at that epoch. */
bool cts_pages_grantable(const struct cts_pages *p, int tid, uint64_t addr, uint64_t len,
			 bool write);
void cts_pages_claim(struct cts_pages *p, int tid, uint64_t addr, uint64_t len, bool write,
		     uint32_t epoch);
/* A conflict with accesses known only from claims (units smaller than a
 * page) may be the page's, not the unit's: two threads' small blocks on one
 * granted page. Such a page is learned as decided per access: never
 * grantable again, its units' conflicts then real ones. learn_per_access
 * adds one (page number, replay); learned_per_access gives them sorted. */
void cts_pages_learn_per_access(struct cts_pages *p, uint64_t page);
/* ...learned when the run is committed (cts_pages_commit): a page the run
 * that found it could not decide per access from its start. */
void cts_pages_pend_per_access(struct cts_pages *p, uint64_t page);
bool cts_pages_per_access(const struct cts_pages *p, uint64_t page);
size_t cts_pages_learned_per_access(const struct cts_pages *p, uint64_t *out, size_t max);
/* Has every unit of the range been touched in this run (or learned)? */
bool cts_pages_all_touched(const struct cts_pages *p, uint64_t addr, uint64_t len);

struct cts_page_info {
	enum cts_page_state state;
	int owner;              /* CTS_PAGE_OWNED */
	bool written;           /* CTS_PAGE_OWNED: the owner wrote it */
	bool learned;
};
struct cts_page_info cts_pages_info(const struct cts_pages *p, uint64_t addr);

/* The protection thread tid must see on a page while it runs: read and
 * write for pages it owns, read for read-shared pages, none for the rest
 * (the first touch of an untouched page must fault to be owned; a shared
 * page's accesses are visible). Tracked pages only: other memory (code, the
 * tracer's stub page, read-only data) is not the module's. */
enum cts_page_prot { CTS_PROT_NONE = 0, CTS_PROT_READ = 1, CTS_PROT_RW = 3 };
enum cts_page_prot cts_pages_prot(const struct cts_pages *p, int tid, uint64_t addr);

/* Counts for -v and the report. */
struct cts_pages_stats {
	uint64_t accesses, native, visible, conflicts, handoffs, pages_touched;
};
void cts_pages_get_stats(const struct cts_pages *p, struct cts_pages_stats *s);

#endif
