/* Spin detection for the explorer: which threads busy-wait without progress.
 *
 * A thread spins when its next step would change nothing: it re-reads a
 * location (plain load, or an atomic that leaves the value as it is, e.g. a
 * failed compare-and-swap) at the same pc, sees the value it saw last time,
 * and nobody changed that location in between; or it yields (sched_yield,
 * sleep) again while no other thread did anything and its own steps since
 * its last yield left memory and every lock as they were (a flag polled
 * under a mutex). With a backend that can
 * hash a thread's own state (backend.h thread_state) the claim is checked:
 * the thread's registers and stack must be the same as before its previous
 * read or yield, so a loop that counts or computes is never taken for a spin.
 * When the backend gives the hash as a hint only (equal hashes prove
 * nothing: the thread may progress through stores cts cannot see), a hash
 * that changed still shows progress, and equal ones hold the thread back
 * without proof. Without any hash a thread counts as spinning after
 * SPIN_LIMIT re-reads (or two yields). Unproven spins are a heuristic used
 * for scheduling only, never for a verdict.
 *
 * The tracker also remembers, per 8-byte granule, the last value every
 * visible access saw and who last changed it, so a store of the value
 * already there counts as silent and a livelock report names the writer. */
#ifndef CTS_SPIN_H
#define CTS_SPIN_H

#include <stdbool.h>
#include <stdint.h>
#include "models/event.h"

/* One location a thread keeps re-reading. */
struct cts_spin_loc {
	uint64_t addr, pc, value;
	uint32_t size;
	uint32_t reads;    /* reads in a row that saw value */
	bool written;      /* another thread changed it since */
	bool marked;       /* already reported as a synchronization location */
};

struct cts_spin;

/* state: the backend's thread_state op (may be NULL), be its argument. */
struct cts_spin *cts_spin_new(int (*state)(void *be, int tid, uint64_t *hash), void *be);
void cts_spin_free(struct cts_spin *sp);
/* A new run: forget every thread and value. */
void cts_spin_reset(struct cts_spin *sp);

/* Would the pending operation of its thread (which the object model lets
 * run) only repeat a step that changed nothing? May ask the backend for the
 * thread's state. *loc is the location it spins on (NULL for a yield). */
bool cts_spin_stuck(struct cts_spin *sp, const struct cts_event *pending,
		    struct cts_spin_loc **loc);
/* The last cts_spin_stuck answer for thread t was backed by the thread's
 * state and it spins on at least one location: it can never move on unless
 * another thread writes there (the condition for a livelock verdict). */
bool cts_spin_proven(const struct cts_spin *sp, int t);
/* Thread t's hold was a guess (not proven) and has done its work: a timed
 * wait gave up while t was held. Its streak begins again, so it runs until
 * it earns a new hold: while it was held, steps of its own that cts does
 * not see (stores to lines it owns) may have been its progress. */
void cts_spin_release(struct cts_spin *sp, int t);

/* What an executed step meant for spinning. */
struct cts_spin_step {
	bool silent;          /* changed no memory the explorer can see */
	bool spin_exit;       /* a re-read that finally saw a new value: the
	                       * end of a busy-wait (exit_addr, exit_size) */
	uint64_t exit_addr;
	uint32_t exit_size;
};
void cts_spin_executed(struct cts_spin *sp, const struct cts_event *done, uint64_t step,
		       struct cts_spin_step *out);

/* The locations thread t spins on (n of them). */
const struct cts_spin_loc *cts_spin_locs(const struct cts_spin *sp, int t, int *n);
/* Who last changed the byte at addr this run; false if nobody visibly did. */
bool cts_spin_last_change(const struct cts_spin *sp, uint64_t addr, int *tid, uint64_t *pc,
			  uint64_t *step);

#endif
