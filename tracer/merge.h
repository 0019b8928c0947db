/* Combining JSON reports of one search: the shards of --shard I/N
 * (cts-trace merge) or the workers of --jobs N. Reads with jansson. */
#ifndef CTS_MERGE_H
#define CTS_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_t;

/* One report from n (names say where each came from, for errors). shards:
 * every report is a shard of the same N and they cover 1..N exactly; else
 * they are the workers of one process. NULL with one line in err when a
 * report is no cts-trace report, belongs to another search (program,
 * arguments, strategy, mode, options) or a shard is missing or twice. */
struct json_t *cts_merge_reports(struct json_t *const *reps, const char *const *names, int n,
				 bool shards, char *err, size_t errlen);

/* A (merged) report's runs all showed one learned set of break mode's
 * shared lines (or none learned): its learned.agree. */
bool cts_merge_learned_agree(const struct json_t *root);

/* A learned set's size in words ("3 lines", "every line"), in buf. */
const char *cts_merge_learned_words(const char *set, char *buf, size_t len);

/* --jobs: a round of workers that began again (a run learned shared lines)
 * into the last round's merged report: its bugs, divergences, races and
 * inconclusive runs (deduplicated), its void runs, and its runs as
 * summary.discarded. */
void cts_merge_carry(struct json_t *into, const struct json_t *from);

/* Bugs of the program in a report (a diverged replay is none). */
int cts_merge_bugs(const struct json_t *root);

/* The one-line summary of a (merged) report, as a search prints it. */
void cts_merge_summary(FILE *f, const struct json_t *root, const char *what);

/* cts-trace merge REPORT... [--report OUT]: 0 no bug, 1 bugs, 2 bad input,
 * 4 no bug but the shards showed different learned sets. */
int cts_merge_main(int argc, char **argv);

#endif
