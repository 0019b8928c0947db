/* A Petri-net model of a program built from the visible events of observed
 * runs (Kähkönen & Heljanko, "Lightweight state capturing for automated
 * testing of multithreaded programs", TAP 2014, section 3): one component
 * per thread, per shared 8-byte word, per synchronization object (and the
 * heap, the kernel, the thread counter); a marking gives each component a
 * place. A thread's place after a transition is determined by its place
 * before and what the transition observed, so loops are unrolled and two
 * runs that reach equal markings reach equal program states (as far as the
 * visible events go: docs/systematic.md "State matching").
 *
 * Transitions are keyed by (thread place, places of the components the
 * operation reads or writes). What is known about a key: enabled with its
 * outputs (observed, or predicted for reads, writes, locks and unlocks),
 * enabled but never executed, disabled, or nothing. With `replicate` every
 * word has one copy per thread the model knows, created or not yet (place
 * replication over the program's threads, as in the paper's section 4.2): a
 * read looks at its own copy only, a write sets every copy, so a new
 * thread's copies are right when it starts and a create touches only the
 * thread counter. Whether a thread runs alone
 * (cts_petri_skips) still looks at the other threads' places: the
 * unfolding replays a thread's exit only after the steps that do not
 * depend on it (strategies/unfold.c). */
#ifndef CTS_PETRI_H
#define CTS_PETRI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "models/event.h"

enum cts_petri_keying {
	CTS_PETRI_VALUES, /* a read is keyed by the value it read (default) */
	CTS_PETRI_WRITES, /* the paper's: by the place (the write) it read from */
};

struct cts_petri;
struct cts_pmark;

struct cts_petri *cts_petri_new(enum cts_petri_keying keying, bool replicate);
void cts_petri_free(struct cts_petri *n);

/* ---- markings ---- */

struct cts_pmark *cts_pmark_new(struct cts_petri *n); /* the initial marking */
void cts_pmark_free(struct cts_pmark *m);
void cts_pmark_copy(struct cts_pmark *dst, const struct cts_pmark *src);
bool cts_pmark_equal(const struct cts_pmark *a, const struct cts_pmark *b);
int cts_pmark_nthreads(const struct cts_pmark *m);

/* The store of markings (hash + full comparison): id of m, *fresh when it
 * was not there before. */
uint32_t cts_petri_store(struct cts_petri *n, const struct cts_pmark *m, bool *fresh);
void cts_petri_load(const struct cts_petri *n, uint32_t id, struct cts_pmark *m);
uint64_t cts_petri_nstored(const struct cts_petri *n);

/* ---- learning from a run ---- */

/* At a scheduling point: thread tid's next operation and whether the
 * explorer lets it run (enabled) or holds it back (spinning, blocked);
 * outside = in the kernel, nothing is learnt about enabling. */
void cts_petri_see(struct cts_petri *n, const struct cts_pmark *m, int tid, bool alive,
		   const struct cts_event *pending, bool enabled, bool spinning, bool outside);
/* Thread done->tid executed done (with its outcome): m moves on. */
void cts_petri_executed(struct cts_petri *n, struct cts_pmark *m, const struct cts_event *done);
/* The model leaves out memory accesses of a thread that runs alone: the
 * tracer shows them only while another thread lives, and when it stops
 * showing them depends on when the kernel reports a thread's death. What a
 * lone thread does is still a function of its place and the memory, which
 * the marking determines. */
bool cts_petri_skips(const struct cts_petri *n, const struct cts_pmark *m, int tid, cts_op op);
/* The run ended (not cut short) right after tid's last step: its place is
 * where runs end (a crash, an assert, exit). */
void cts_petri_run_ended(struct cts_petri *n, const struct cts_pmark *m, int tid);

/* ---- querying the model ---- */

enum cts_pstatus {
	CTS_PS_GONE,     /* the thread exited (or does not exist) */
	CTS_PS_UNKNOWN,  /* next operation, enabling or outcome not known: a run must tell */
	CTS_PS_DISABLED,
	CTS_PS_ENABLED,  /* with its outputs: cts_petri_fire works */
};

/* PREDICTTRANSITIONSFROMMODEL for one thread, then what is known. */
enum cts_pstatus cts_petri_status(struct cts_petri *n, const struct cts_pmark *m, int tid);
/* Some thread's place is where runs end: nothing follows this marking. */
bool cts_petri_terminal(const struct cts_petri *n, const struct cts_pmark *m);
/* Threads whose next step is not known at m (after prediction); *en gets
 * how many are enabled, *alive how many have not exited (0 at a terminal
 * marking). */
uint32_t cts_petri_unknowns(struct cts_petri *n, const struct cts_pmark *m, int *en, int *alive);
/* The next operation of tid's place, NULL if unknown. */
const struct cts_event *cts_petri_next_op(const struct cts_petri *n, const struct cts_pmark *m,
					  int tid);
/* Fire tid's known enabled transition; false if there is none. */
bool cts_petri_fire(struct cts_petri *n, struct cts_pmark *m, int tid);
/* The transitions of a and b at m (both enabled) commute: no component one
 * writes that the other reads or writes. */
bool cts_petri_independent(struct cts_petri *n, const struct cts_pmark *m, int a, int b);
/* Transition key of tid at m (an id for sets of events), 0 if none. */
uint32_t cts_petri_key(struct cts_petri *n, const struct cts_pmark *m, int tid);

/* ---- for unfoldings: components and places of a marking ---- */

size_t cts_pmark_size(const struct cts_pmark *m);
/* The i-th (component, place) pair. */
void cts_pmark_get(const struct cts_pmark *m, size_t i, uint32_t *comp, uint32_t *place);
/* The place of comp in m (its initial place when m leaves it out), and
 * setting it. */
uint32_t cts_pmark_place(const struct cts_petri *n, const struct cts_pmark *m, uint32_t comp);
void cts_pmark_set(const struct cts_petri *n, struct cts_pmark *m, uint32_t comp, uint32_t place);
/* Components tid's transition at m consumes (its own thread component first),
 * up to max; returns how many (may exceed max). */
size_t cts_petri_inputs(struct cts_petri *n, const struct cts_pmark *m, int tid, uint32_t *comps,
			size_t max);
/* Components tid's known transition at m changes (the thread first). */
size_t cts_petri_outputs(struct cts_petri *n, const struct cts_pmark *m, int tid, uint32_t *comps,
			 size_t max);
/* Threads the model knows (the highest id seen + 1). With replication every
 * word has one copy per known thread, so a write's inputs depend on it: when
 * it grows, an unfolding built before is stale. */
int cts_petri_width(const struct cts_petri *n);
/* The thread component of tid, 0 if it has none yet. */
uint32_t cts_petri_thread_comp(struct cts_petri *n, int tid);

/* The dead-marking sweep's reduction (Valmari's stubborn sets, thread by
 * thread; every deadlock stays reachable): explore[t] (room for
 * cts_pmark_nthreads(m)) is set for the enabled threads the sweep must try
 * at m. A thread's future is taken as everything its places in the model
 * touch; a disabled thread in the set brings in what can enable it (a
 * lock's holder, a joined thread, else every thread touching what it
 * waits on); a thread that cannot move before one of the set does (such a
 * disabled thread, one not created yet whose creators are in) is left out. */
void cts_petri_stubborn(struct cts_petri *n, const struct cts_pmark *m, uint8_t *explore);

struct cts_petri_stats {
	uint64_t places, transitions, markings, bytes;
	uint64_t conflicts;   /* observations that contradicted the model */
	bool nomatch;         /* something the model cannot key was seen: markings never match */
	char why[160];        /* what, when conflicts or nomatch */
};
void cts_petri_get_stats(const struct cts_petri *n, struct cts_petri_stats *out);

#endif
