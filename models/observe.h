/* The phase-1 analyses of active testing over the executed events of a run,
 * and the per-run facts phase 2 asks about (which locks a thread holds, how
 * a lock or thread is abstracted, whether a write completes an atomicity
 * violation):
 *  - hybrid race detection (O'Callahan and Choi, PPoPP 2003): two accesses
 *    by different threads to the same bytes, one a write, with disjoint
 *    locksets, unordered by thread creation and join, condition signals
 *    and semaphore posts (the wait/notify edges);
 *  - iGoodlock (Joshi, Park, Sen, Naik, PLDI 2009): the lock dependency
 *    relation (thread, locks held, lock acquired, call site) of a run and
 *    its cycles of length 2..CTS_SUSPECT_MAX_CYCLE with distinct threads
 *    and disjoint held sets (no gate lock); past the paper, which other
 *    links' held locks each link's thread took before its acquisition
 *    (cts_cycle_comp.needs, for deadlockfuzzer's pausing ahead);
 *  - the Park-Sen atomicity pattern (FSE 2008): a thread reads x under lock
 *    L, releases L, takes L again as its next lock and writes x without
 *    reading it again.
 * Locksets are the mutexes and write/read locks a thread holds (at most
 * OBS_MAX_HELD deep; deeper ones are not tracked). */
#ifndef CTS_OBSERVE_H
#define CTS_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>
#include "models/event.h"
#include "models/suspects.h"

struct cts_observer;

struct cts_observer *cts_observer_new(void);
void cts_observer_free(struct cts_observer *o);
/* A new run: forget threads, locks, heap blocks and this run's findings. */
void cts_observer_begin_run(struct cts_observer *o);
/* One executed event (with its outcome) and its statement's calling context
 * (CTS_SUSPECT_CTX return addresses, NULL: none known). analyze: also
 * collect phase-1 facts (shadow memory, lock dependencies), which cost
 * memory. */
void cts_observer_event(struct cts_observer *o, const struct cts_event *ev, const uint64_t *ctx,
			bool analyze);
/* The run ended: add its suspects of the kinds in mask (1 << kind) to l. */
void cts_observer_end_run(struct cts_observer *o, struct cts_suspects *l, unsigned mask);

struct cts_lock_abs cts_observer_lock_abs(const struct cts_observer *o, uint64_t lock);
uint64_t cts_observer_thread_abs(const struct cts_observer *o, int tid);
/* The locks tid holds now; returns how many, *locks points into o. */
int cts_observer_held(const struct cts_observer *o, int tid, const uint64_t **locks);
/* tid's last lock block (closed) was on lock and read pc at *addr: the
 * address a re-acquire would race for. */
bool cts_observer_block_read(const struct cts_observer *o, int tid, uint64_t lock, uint64_t pc,
			     uint64_t *addr);
/* ev (just executed) is tid's write of x, in the block that re-took the
 * lock of its previous block, which read x; and tid did not read x again in
 * between. *read_pc = that read. */
bool cts_observer_stale_write(const struct cts_observer *o, const struct cts_event *ev,
			      uint64_t *read_pc);

#endif
