/* Happens-before data-race detector over the executed events of a run
 * (FastTrack-style epochs, Flanagan & Freund PLDI 2009). It lives across
 * runs: each run starts with fresh clocks and shadow memory, but a racing
 * pair of instructions (pc1, pc2) is reported only the first time it is seen. */
#ifndef CTS_RACE_H
#define CTS_RACE_H

#include <stdbool.h>
#include <stdint.h>

#include "models/bug.h"
#include "models/event.h"

/* What a replay of the run that found a race showed of it (the explorer
 * re-runs that run's schedule once with call stacks, for its new races):
 * both accesses' stacks, where each thread was created, and the heap block
 * the address lies in, with its allocation's stack. */
struct cts_race_detail {
	bool known;                           /* filled by a replay that reached both accesses */
	struct cts_bug_stack stack1, stack2;  /* the accesses', innermost first */
	int parent1, parent2;                 /* who created tid1, tid2; -1: not seen (thread 0) */
	struct cts_bug_stack created1, created2; /* the creating pthread_create call's stack */
	uint64_t block, block_size;           /* the heap block holding addr; 0: none seen */
	int alloc_tid;                        /* the thread that allocated it, -1: its
	                                       * allocation was not seen (the block
	                                       * found in the heap itself) */
	struct cts_bug_stack alloc;           /* the allocation call's stack */
};

/* Two accesses by different threads to overlapping bytes, at least one a
 * write, unordered by happens-before. Access 1 came first in the run. */
struct cts_race {
	uint64_t addr;   /* first byte both accesses touched */
	uint32_t size;   /* length of the contiguous overlap starting at addr */
	int tid1, tid2;
	cts_op op1, op2;
	uint64_t pc1, pc2;
	uint64_t step1, step2; /* positions in the run, as passed to observe */
	uint64_t run;          /* run number given to cts_race_begin_run */
	uint64_t runs;         /* runs in which this pc pair raced (the first included) */
	bool plain;            /* both plain loads/stores: if the variable is a C11
	                        * atomic (loads and stores are plain moves on x86),
	                        * this is no race; a binary cannot tell */
	struct cts_race_detail detail; /* zero until cts_race_set_detail */
};

struct cts_race_detector;

/* NULL when out of memory. The new detector is ready for run 0. */
struct cts_race_detector *cts_race_new(void);
void cts_race_free(struct cts_race_detector *d);

/* A new run starts: forget clocks, sync objects and shadow memory; keep
 * the races already reported. */
void cts_race_begin_run(struct cts_race_detector *d, uint64_t run);

/* Observe one executed event at position `step` of the run. Returns the
 * number of candidate races (pc pairs not reported before) it completes,
 * -1 when out of memory (the event is then only partly recorded).
 * Candidates become races at the next cts_race_flush. */
int cts_race_observe(struct cts_race_detector *d, const struct cts_event *ev, uint64_t step);

/* [addr, addr+size) is a synchronization variable from now on, in this run
 * and later ones: plain loads of it acquire, plain stores release, and races
 * between such accesses are dropped at the flush. The explorer says so for
 * locations threads busy-wait on; the writes already made there count as
 * releases (the read that ends a busy-wait acquires the write it saw).
 * Locked RMWs mark their bytes themselves. */
void cts_race_sync_location(struct cts_race_detector *d, uint64_t addr, uint32_t size);

/* A race found by other means (--races catch: a conflicting access caught
 * while the other thread was held before its own): a candidate like those
 * observe finds, decided at the next flush (dropped on a synchronization
 * variable). 1 if new, 0 if its pc pair is already known, -1 out of memory. */
int cts_race_add(struct cts_race_detector *d, const struct cts_race *r);

/* Decide the candidates found since the last flush (or begin_run): those on
 * synchronization variables are dropped (unless one side is a non-atomic
 * RMW), the others become races. Returns how many; they are the last ones,
 * indices cts_race_count()-n .. cts_race_count()-1. Call it at the end of a
 * run (begin_run drops what was not flushed). */
int cts_race_flush(struct cts_race_detector *d);

/* Does thread earlier's event at its own clock value `epoch` happen before
 * thread tid's current point (epoch <= tid's clock of earlier)? And a
 * thread's own clock value now (the epoch of what it does next). For the
 * ownership estimate (models/pages.h). */
bool cts_race_ordered(const struct cts_race_detector *d, int earlier, uint32_t epoch, int tid);
uint32_t cts_race_epoch(const struct cts_race_detector *d, int tid);
/* Is [addr, addr+size) a synchronization variable as far as the run showed
 * (an atomic's bytes, a busy-wait's flag)? */
bool cts_race_is_sync(const struct cts_race_detector *d, uint64_t addr, uint32_t size);

/* Distinct races so far, across all runs. */
int cts_race_count(const struct cts_race_detector *d);
/* Race i (0 <= i < count), NULL otherwise. Pointers stay valid until cts_race_free. */
const struct cts_race *cts_race_get(const struct cts_race_detector *d, int i);

/* Race i's detail, from a replay of the run that found it (ignored when i
 * is out of range). */
void cts_race_set_detail(struct cts_race_detector *d, int i, const struct cts_race_detail *det);

/* Read-only walk over every distinct race, in the order found: calls
 * fn(race, arg) for each until fn returns non-zero, and returns that value
 * (0 when all were visited). */
int cts_race_each(const struct cts_race_detector *d,
		  int (*fn)(const struct cts_race *r, void *arg), void *arg);

#endif
