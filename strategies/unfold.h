/* The unfolding of the Petri-net model (Kähkönen & Heljanko, TAP 2014,
 * Fig. 6 and section 4.2), built over a net with place replication
 * (cts_petri_new(keying, true)): every component of the net holds one token,
 * so conditions form one chain per component and events consume and
 * re-produce a condition of each component they touch (a read gives its
 * place back). Events are added in the Esparza-Römer-Vogler adequate order
 * (size of the local configuration, then its Parikh vector, then its Foata
 * normal form), so the prefix is complete; an event whose marking St(e)
 * some earlier event reached is a terminal (cut-off) and is not extended.
 *
 * Possible extensions: for each thread, every co-set of conditions, one per
 * component its next transition at the co-set's marking touches, that uses
 * a condition the new event produced. The co-relation is kept as Khomenko &
 * Koutny do (each new condition's co-set from its event's preset, updated
 * incrementally); a co-set grows one component at a time by the conditions
 * concurrent with all of it. The restricted structure of these nets (every
 * event consumes and re-produces one condition of each component it
 * touches) makes each component's conditions a tree, and those concurrent
 * with a co-set a subtree under the configuration's condition: the search
 * walks it and stops where concurrency ends. The straightforward search
 * (every condition of the component tried by merging configurations) stays
 * for tests: environment CTS_UNF_PE=scan; both find the same events in the
 * same order (tests/unit/test_petri.c). Where the model does not know what
 * follows (a thread's next step, or a transition the model cannot predict),
 * the search asks for a test run (EXTENDMODEL) that follows a configuration's
 * events; the caller (strategies/stateful.c) does the runs. */
#ifndef CTS_UNFOLD_H
#define CTS_UNFOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include "models/petri.h"

struct cts_unf;

/* cutoffs false: no terminals (the stateless unfolding baseline). */
struct cts_unf *cts_unf_new(bool cutoffs);
void cts_unf_free(struct cts_unf *u);

/* A test run: follow these threads' steps (a configuration's events in
 * the order they were added), then run freely. With soft, the last step is
 * left out when that thread cannot take it. */
struct cts_unf_run {
	const int *tids;
	size_t n;
	bool soft;
};

/* Grows the prefix until a test run is needed (true, *run set) or the
 * prefix is complete (false). deadline: CLOCK_MONOTONIC seconds, 0 none;
 * *stop nonzero (the user's interrupt; NULL: none) ends it as the deadline
 * does, within milliseconds. */
bool cts_unf_advance(struct cts_unf *u, struct cts_petri *net, struct cts_unf_run *run,
		     double deadline, const volatile sig_atomic_t *stop);
/* A run ended (not cut short) at the stored marking mark: a crash, a
 * deadlock or the exit; nothing follows it. */
void cts_unf_run_ended(struct cts_unf *u, uint32_t mark);
/* The threads of a run's steps (those the model counts), for the stateless
 * tester's count (cover_runs): what the runs executed is covered. */
void cts_unf_ran(struct cts_unf *u, const int *tids, size_t n);
/* The last run stopped at step k of its target: the explorer held that
 * step back (a spin that changes nothing), so that branch is dropped. */
void cts_unf_stutter(struct cts_unf *u, size_t k);

struct cts_unf_stats {
	uint64_t events;      /* added to the prefix (cut-offs included) */
	uint64_t cutoffs;     /* terminals */
	uint64_t markings;    /* distinct St(e) of the events that were not cut off */
	uint64_t conditions;
	uint64_t dropped;     /* events of held-back spinning steps */
	uint64_t co_pairs;    /* pairs of concurrent non-initial conditions stored */
	uint64_t cover_runs;  /* without cut-offs, once complete: the runs a stateless
	                       * unfolding tester (no model: every event executed)
	                       * makes for this prefix (unfold.c, cover) */
	uint64_t bytes;
	bool incomplete;      /* a part the runs could not tell about, or the time ran out */
	char why[160];
};
void cts_unf_get_stats(const struct cts_unf *u, struct cts_unf_stats *out);

#endif
