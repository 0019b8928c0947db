/* Systematic exploration over a replayable search stack (Wang, Said, Gupta,
 * ICSE 2011, Algorithm 2). The stack holds one abstract state per step of the
 * current run: its enabled set, the event chosen there, and the done,
 * backtrack and sleep sets. It survives from run to run: every run replays
 * the stored prefix up to the deepest state with an untried backtrack choice,
 * takes that choice, and continues with fresh states. The strategies differ
 * only in updatebacktrack, i.e. in which choices a state gets:
 *
 *   dfs   every enabled thread at every state: all interleavings of the
 *         visible events
 *   dpor  DPOR with sleep sets: for every race of an executed event, the
 *         state before its first event explores an initial of the events
 *         that reverse it (source-DPOR, Abdulla et al., POPL 2014); for the
 *         events a run leaves pending, Flanagan & Godefroid's (POPL 2005):
 *         a choice where the latest dependent, may-be-co-enabled, not
 *         happens-before event ran (vector clocks find it per thread)
 *   pcb   every schedule with at most cfg->bound preemptions (a switch away
 *         from a thread that is still enabled and did not just yield)
 *   idb   every schedule with at most cfg->bound delays (Emmi, Qadeer,
 *         Rakamaric, POPL 2011): a delay skips the thread a non-preemptive
 *         round-robin scheduler would run next; bound 0 is one schedule
 *   odpor optimal DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014,
 *         Algorithm 2): sleep sets and wakeup trees (wakeup.h) over dpor's
 *         events, happens-before and dependence; after each run every race
 *         of it puts the sequence that reverses it into the wakeup tree of
 *         the state before its first event, unless a sleeping thread or a
 *         sequence there covers it: one run per Mazurkiewicz trace
 *
 * complete() is true once the (bounded) space has been exhausted and no run
 * was cut short by the step budget. See docs/systematic.md. */
#ifndef CTS_SYSTEMATIC_H
#define CTS_SYSTEMATIC_H

#include <stdint.h>
#include "strategies/strategy.h"

struct cts_strategy *cts_dfs_create(const struct cts_strategy_config *cfg);
struct cts_strategy *cts_dpor_create(const struct cts_strategy_config *cfg);
struct cts_strategy *cts_pcb_create(const struct cts_strategy_config *cfg);
struct cts_strategy *cts_idb_create(const struct cts_strategy_config *cfg);
struct cts_strategy *cts_odpor_create(const struct cts_strategy_config *cfg);

enum cts_search_kind {
	CTS_SEARCH_DFS,
	CTS_SEARCH_DPOR,
	CTS_SEARCH_PCB,
	CTS_SEARCH_IDB,
	CTS_SEARCH_ODPOR,
};

/* Extension points for strategies that modify the same search (HaPSet
 * guidance, Petri-net state matching). Every member may be NULL. */
struct cts_search_hooks {
	void *ctx;
	/* Every executed event, replayed prefix included (continuous learning). */
	void (*observe)(void *ctx, uint64_t step, const struct cts_event *ev);
	/* DPOR found that `earlier` (executed at `step`) is the latest event that
	 * races with the pending event `later`. False drops this race and the
	 * search looks further back (HaPSet: stmt(later) in hapset(stmt(earlier))). */
	bool (*accept_race)(void *ctx, uint64_t step, const struct cts_event *earlier,
			    const struct cts_event *later);
	/* odpor: the same for a race of two steps of the run that just ended
	 * (its races are found after it, the events no longer pending). */
	bool (*accept_steps)(void *ctx, uint64_t earlier, uint64_t later);
	/* pcb/idb: at a fresh state the run takes sel; false keeps alt out of
	 * the state's backtrack set (HaPSet: stmt(alt) in hapset(stmt(sel))). */
	bool (*accept_alt)(void *ctx, uint64_t step, const struct cts_event *sel,
			   const struct cts_event *alt);
	/* True: what accept_race and accept_alt turn down is deferred, not
	 * dropped: tried once no accepted choice is left anywhere in the search
	 * (dpor: the race plain DPOR would take, beside the older one the hook
	 * led to), so an exhausted search is as complete as the plain one. */
	bool defer;
	/* --break (strategies/active.h): at every scheduling point, replayed
	 * ones included and in order, the threads the run may take: the enabled
	 * ones minus those paused at a breakpoint, into allowed[pt->nthreads].
	 * The search sees only those (a paused thread is not enabled; its
	 * release is then a choice like any other). True: the constraint acts
	 * here (a thread stands at a breakpoint); dpor expands such a state
	 * fully and carries no sleep set across it. */
	bool (*constrain)(void *ctx, const struct cts_sched_point *pt, bool *allowed);
	/* A fresh (not replayed) state: true ends the run here (state matching). */
	bool (*prune)(void *ctx, const struct cts_sched_point *pt);
	void (*end_run)(void *ctx, const struct cts_run_summary *sum);
	void (*destroy)(void *ctx);
};

/* The five strategies above are this with no hooks. NULL hooks = none. */
struct cts_strategy *cts_search_create(enum cts_search_kind kind,
				       const struct cts_strategy_config *cfg,
				       const struct cts_search_hooks *hooks);

struct cts_search_stats {
	uint64_t runs;          /* runs ended */
	uint64_t sleep_blocked; /* dpor: runs cut because every enabled thread slept */
	uint64_t pruned;        /* runs cut by the prune hook */
	uint64_t truncated;     /* runs cut by the step budget or an error: not complete */
	uint64_t max_depth;     /* longest stack */
	uint64_t races;         /* dpor: backtrack additions (races found) */
	uint64_t spin_skips;    /* dpor: races with a spinning thread's re-read, not branched on */
	uint64_t deferred;      /* hooks.defer: choices put off until the others were tried */
	uint64_t wut_inserted;  /* odpor: sequences added to wakeup trees */
	uint64_t wut_covered;   /* odpor: races whose reversal a sleep set or wakeup tree covered */
	uint64_t blocked_races; /* odpor, dpor: races not reversible: the second event could not
	                         * run there (the object model says) */
	uint64_t wut_blocked;   /* odpor: wakeup-tree branches whose thread could not run
	                         * there: every thread not asleep became a branch instead */
};

/* False if s is not one of these strategies. */
bool cts_search_get_stats(const struct cts_strategy *s, struct cts_search_stats *out);

#endif
