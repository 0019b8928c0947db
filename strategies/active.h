/* Active testing (Joshi, Naik, Park, Sen, CAV 2009; seeds/003): phase 1
 * runs the program a few times under a random schedule while
 * models/observe.h names suspects; phase 2 runs Algorithm 1 of the paper,
 * a random scheduler with a set of paused threads, once per suspect and
 * try, pausing threads at the suspect's statements until the bug happens
 * for real:
 *  - racefuzzer: a thread at one statement of a race pair is paused until
 *    another thread reaches the other statement on the same bytes (one a
 *    write): both are enabled at once, a real race; one of the two orders
 *    is picked at random and the run goes on (Algorithm 2);
 *  - deadlockfuzzer: a thread about to take a lock that matches a cycle
 *    component (thread and lock abstractions, call site, a held lock) is
 *    paused; the deadlock, when it forms, is the explorer's own verdict.
 *    Past the paper (unless dlf_paper): a thread is paused ahead of the
 *    acquisition of its component's held lock, not holding it, while
 *    another component's thread still takes that lock on its way (what
 *    phase 1 saw, or a thrashing run showed), so that thread can pass;
 *  - atomfuzzer: a thread about to re-take the lock of its previous block,
 *    in which it read x, is paused until another thread writes x; its
 *    write of x without reading x again is the violation.
 * Every thread choice goes through the explorer's schedule, so every
 * finding replays. Algorithm 1's monitors: when every enabled thread is
 * paused, a random one is released (a "stall"); a thread paused for more
 * than pause_bound decisions is released (livelock).
 * Concurrency breakpoints (--break) are suspects given by the user: a
 * thread reaching one is paused until another thread reaches a partner;
 * they work with random, pct and the three fuzzers. */
#ifndef CTS_ACTIVE_H
#define CTS_ACTIVE_H

#include <stdbool.h>
#include <stdint.h>
#include "models/suspects.h"
#include "strategies/strategy.h"

struct cts_active_options {
	uint64_t tries;            /* phase 2 runs per suspect; 0 = 10 */
	int phase1_runs;           /* observed runs; 0 = 3 */
	uint64_t pause_bound;      /* decisions a thread may stay paused; 0 = 20000 */
	/* Phase 2 works on this list (the caller owns it): phase 1 fills it
	 * unless it came preloaded (--suspects-from); tries and confirmations
	 * are counted in it. NULL: the strategy keeps its own. */
	struct cts_suspects *suspects;
	bool preloaded;
	/* deadlockfuzzer as the paper has it: pause only at the cycle's
	 * acquisitions. Default (false): also pause ahead of a link's outer
	 * acquisition while another thread still needs that lock on its way to
	 * its own link, never pause a thread whose held lock is so needed, and
	 * learn such needs from runs that thrash (docs/active.md). */
	bool dlf_paper;
	/* Breakpoint groups (kind BREAK, spec = "ITEM,ITEM..."; ITEM is
	 * FILE:LINE, SYMBOL, SYMBOL+OFF or 0xADDR), matched against what
	 * describe_pc says of a pc: "func+0x12 (file.c:34)". */
	struct cts_suspects *breaks;  /* confirmed counts the runs that hit each */
	void (*describe_pc)(void *ctx, uint64_t pc, char *buf, size_t len);
	void *describe_ctx;
};

/* Something a run made happen for real. */
struct cts_active_finding {
	enum cts_suspect_kind kind;
	int suspect;               /* index in the list (breaks: in the break list) */
	int tid1, tid2;            /* race: the paused thread and the arriving one;
	                            * atomicity: the block's thread and the writer */
	uint64_t pc1, pc2, pc3;    /* race/break: the two statements; atomicity: read,
	                            * intervening write, stale write */
	uint64_t addr;             /* race, atomicity: the variable */
	uint64_t step;
	bool plain;                /* race: both plain loads/stores (could be a C11 atomic's) */
};

/* "racefuzzer", "deadlockfuzzer", "atomfuzzer"; or "random"/"pct" with
 * breakpoints only. NULL with a reason in err. */
struct cts_strategy *cts_active_create(const char *name, const struct cts_strategy_config *cfg,
				       char *err, size_t errlen);
bool cts_strategy_is_active(const struct cts_strategy *s);
/* The run just ended (deadlock: its verdict was a deadlock). Returns what
 * the run confirmed, valid until the next run. */
int cts_active_end(struct cts_strategy *s, bool deadlock, const struct cts_active_finding **out);
/* The list phase 2 works on. */
const struct cts_suspects *cts_active_suspects(const struct cts_strategy *s);

#endif
