/* MAP coverage (Wang, Sun, Zhao, Chen, Liu, Lin, ASE 2019): the memory-access
 * patterns of Table I found in each executed run, and coverage = patterns
 * covered over an estimate of the total from the instructions that read and
 * that write each variable (the paper's TC formula).
 *
 * Patterns (A, B two different threads, x, y two different variables):
 *   1 R-W  2 W-R  3 W-W   (A on x, then B on x)
 *   4 R-W-R 5 W-W-R 6 W-R-W 7 R-W-W 8 W-W-W   (A, B, A on x)
 *   9  A and B both write x and y, interleaved (3 orders)
 *   10 A writes x and y, B reads them between (3 orders)
 *   11 A reads x and y, B writes them between (3 orders)
 * A step is one access; later steps need not be adjacent (Algorithm 1).
 * An instance is keyed by its pattern order, its variables and the pcs of its
 * steps; thread identities only matter as same or different.
 *
 * A variable is a global's symbol (the whole object, named through the
 * describe callback) or else a heap word (the 8-byte word of the access).
 * Plain reads and writes count; a read-modify-write (plain or locked) is a
 * read then a write of the same instruction. Library-call ranges do not.
 *
 * Happens-before (vector clocks over creation, join and every sync object)
 * drops infeasible patterns from the estimate as the paper does: pc q "must
 * precede" pc p on x when, in every run that executed both, every execution
 * of q happened before every execution of p; a candidate with a step at p
 * followed by a step at q is then not counted. Covered instances are never
 * dropped (a run that shows p before q also shows q need not precede p). */
#ifndef CTS_MAP_H
#define CTS_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "models/event.h"

#define CTS_MAP_PATTERNS 11

struct cts_map;

/* Data address -> "symbol" or "symbol+0xoff", "" when unknown (a backend's
 * describe_data). */
typedef void (*cts_map_describe_fn)(void *ctx, uint64_t addr, char *buf, size_t len);

struct cts_map *cts_map_new(void);
void cts_map_free(struct cts_map *m);
void cts_map_set_describe(struct cts_map *m, cts_map_describe_fn fn, void *ctx);

/* A new run: forget this run's clocks and partial matches. */
void cts_map_begin_run(struct cts_map *m);
/* One executed event; returns the instances it completed that no earlier
 * run nor this one had covered. */
int cts_map_event(struct cts_map *m, const struct cts_event *ev);
/* How many not yet covered instances executing ev (a thread's pending op)
 * now would complete; 0 for anything but an access. Changes nothing. */
int cts_map_would_complete(struct cts_map *m, const struct cts_event *ev);
/* The paper's testExecute aims each run at one pattern: pick an uncovered
 * candidate at random (seed) from the read and write sets, feasible as far
 * as happens-before tells. Kept until the next pick; each run starts it
 * over. false when none was found. */
bool cts_map_pick_target(struct cts_map *m, uint64_t seed);
/* For a thread's pending op: 1 if it is the target's next step, -1 if it
 * could be a later step of the target (running it now would skip the steps
 * between), 0 otherwise. */
int cts_map_target_score(struct cts_map *m, const struct cts_event *ev);
/* The run ended: its instances join the covered set; the must-precede
 * relation and the estimate are brought up to date. */
void cts_map_end_run(struct cts_map *m);

struct cts_map_stats {
	uint64_t runs;             /* runs ended */
	uint64_t covered;          /* distinct instances over all runs */
	uint64_t estimate;         /* TC, after happens-before pruning */
	uint64_t estimate_raw;     /* TC of the formula, no pruning */
	uint64_t last_run;         /* distinct instances in the last run */
	uint64_t last_new;         /* of which covered for the first time */
	uint64_t variables;        /* variables accessed */
	uint64_t accesses;         /* accesses seen over all runs */
	uint64_t covered_by[CTS_MAP_PATTERNS + 1];  /* [1..11] */
	uint64_t estimate_by[CTS_MAP_PATTERNS + 1];
	uint64_t targets;          /* runs aimed at a pattern (strategy map) */
	uint64_t targets_hit;      /* of which covered it */
	bool truncated;            /* a run had too many partial matches: some
	                            * instances of it were not looked for */
};
void cts_map_get_stats(const struct cts_map *m, struct cts_map_stats *st);

struct cts_coverage_source;
/* m as a source of --coverage metrics: map_covered, map_estimate,
 * map_percent (plotted) and map_run (instances in the run). */
void cts_map_coverage_source(struct cts_map *m, struct cts_coverage_source *src);

/* Pattern id 1..11 -> "R-W", ..., "W/W x,y", "W/R x,y", "R/W x,y". */
const char *cts_map_pattern_name(int id);

#endif
