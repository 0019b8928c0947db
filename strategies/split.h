/* Task competition (--jobs) and shards (--shard I/N): which items of one
 * search this process takes. The work is a sequence of items with global
 * numbers 0, 1, 2...: the run numbers of random and pct (run i keeps the seed
 * it has in a single-process search), or the subtrees of a systematic search
 * (the schedules that agree on their first `depth` branching choices, numbered
 * in the order the single-process search meets them), or the instance
 * numbers of --instances.
 * Shard I of N owns the items i with i mod N = I-1; the workers of one
 * process group (--jobs) share a counter in shared memory and each claims the
 * next owned item it has not handed out: a queue without a server. */
#ifndef CTS_SPLIT_H
#define CTS_SPLIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What one item of work is. The queue hands out numbers; the kind says how
 * a worker reads them (an instance spec comes from its number). */
enum cts_work_kind {
	CTS_WORK_RUNS,      /* a run number (random, pct) */
	CTS_WORK_SUBTREE,   /* a subtree of the systematic search */
	CTS_WORK_INSTANCE,  /* an instance number of --instances (strategies/tiles.h) */
};

struct cts_work_item {
	enum cts_work_kind kind;
	uint64_t index;        /* global item number */
};

struct cts_split;

/* shard 1..nshards (1/1: no sharding), jobs >= 1 workers sharing the queue,
 * depth: branching states above the subtrees (CTS_WORK_SUBTREE). The shared
 * part is mapped before any fork, so workers forked later share it. */
struct cts_split *cts_split_new(enum cts_work_kind kind, unsigned shard, unsigned nshards,
				unsigned jobs, unsigned depth);
void cts_split_free(struct cts_split *s);

/* In a forked worker: its number (0-based). */
void cts_split_set_worker(struct cts_split *s, unsigned worker);
/* Shard 1's first (or only) worker: the one process of the whole search that
 * counts work every process repeats (the first run of --instances). */
bool cts_split_first(const struct cts_split *s);
enum cts_work_kind cts_split_kind(const struct cts_split *s);
unsigned cts_split_depth(const struct cts_split *s);

/* -n N is a total, for every kind of work (0 = none):
 * - CTS_WORK_RUNS: run numbers 0..N-1, spread over shards and workers;
 * - CTS_WORK_SUBTREE: shard I of C counts at most its share of N (N/C, one
 *   more for the first N mod C shards), its workers together; only runs of
 *   its own subtrees count (walk runs do not), so the shards together count
 *   at most N, exactly N when the search has that many;
 * - CTS_WORK_INSTANCE: the limit of each instance's search, as alone.
 * The explorer, before each run: false to stop (another worker found a bug,
 * or no item is left, or the runs are used up). CTS_WORK_RUNS: *run = the
 * next run number this worker takes; otherwise *run = n. */
bool cts_split_next_run(struct cts_split *s, uint64_t limit, uint64_t n, uint64_t counted,
			uint64_t *run);
/* This process's share of a -n limit (above). */
uint64_t cts_split_share(const struct cts_split *s, uint64_t limit);

/* CTS_WORK_RUNS, CTS_WORK_INSTANCE: the next item this process takes, its
 * number below limit (0 = none); false when none is left or a worker found
 * a bug. An instance's spec is for the caller to draw from its number. */
bool cts_split_next_item(struct cts_split *s, uint64_t limit, struct cts_work_item *it);

/* CTS_WORK_SUBTREE, from the search: item `index` (met in order, each once)
 * is this worker's to explore, or another's (then the search walks past it). */
bool cts_split_claim(struct cts_split *s, uint64_t index);

/* The search marks the current run as walked past another's item: the
 * explorer neither counts nor judges it. */
void cts_split_set_foreign(struct cts_split *s, bool foreign);
bool cts_split_foreign(const struct cts_split *s);
/* The explorer, at the end of a run: true if it counts (and is judged).
 * False for a foreign run (counted as a walk run) and for a subtree run that
 * ended when the workers' total had reached the share of limit (dropped:
 * two workers started the last run at once; the next check stops them). */
bool cts_split_count_run(struct cts_split *s, uint64_t limit);
uint64_t cts_split_foreign_runs(const struct cts_split *s);
/* Items this process explored. */
uint64_t cts_split_items(const struct cts_split *s);

/* The search begins again from its first item, with a bigger learned set
 * of break mode's shared lines (strategies/explorer.c): this process takes
 * its items again from the first. Only a process whose queue nobody else
 * takes from can (no --jobs): true then, after clearing what it took and
 * counted. False with workers: the queue is theirs, so they all begin
 * again together (cts_split_learned). */
bool cts_split_restart(struct cts_split *s);
/* A worker's run learned shared lines: every worker stops, as at a bug, and
 * the parent forks them again on the union of their learned sets. */
void cts_split_learned(struct cts_split *s);
/* The parent, before it forks the workers again: the queue, the counts and
 * the stop cleared (the bugs printed stay printed). */
void cts_split_new_round(struct cts_split *s);

/* A worker found a bug and stops at it: every worker stops (the parent is
 * told with SIGUSR1 and interrupts the others' runs). */
void cts_split_found_bug(struct cts_split *s);
bool cts_split_stopped(const struct cts_split *s);
/* This process found the bug (its minimization is not to be interrupted by
 * the stop it caused; async-signal-safe). */
bool cts_split_found_here(const struct cts_split *s);
/* --keep-going with --jobs: true for the first worker to report the bug
 * with this key (a hash of its kind and message), false for the others,
 * which print nothing of it: the merged report has it once. */
bool cts_split_first_print(struct cts_split *s, uint64_t key);
/* The process that forks the workers (signalled by cts_split_found_bug). */
void cts_split_set_parent(struct cts_split *s, pid_t parent);

/* The report's "shard" object (a jansson json_t *, new reference). */
struct json_t *cts_split_json(const struct cts_split *s, uint64_t runs_limit, uint64_t max_steps,
			      double timeout);

#endif
