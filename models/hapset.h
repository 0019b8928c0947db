/* History-aware predecessor sets (Wang, Said, Gupta, ICSE 2011; seeds/000).
 *
 * A statement is (file, line, thr, ctx): the source position of an event's
 * pc (the pc itself where there is no line information), whether its thread
 * is the local or the remote one of the pair compared, and its calling
 * context, the last k return addresses (each named by its call's source
 * position). HaPSet(st) is the set of statements whose events were
 * immediately dependent predecessors of an event of st in a tested good
 * run: for each other thread, its last event on the same object, if the two
 * conflict (memory: one of them writes; lock acquires; a wait and a
 * notify, a semaphore's wait and post). Unlocks are left out (the paper
 * keeps those of recursive locks; cts models no recursive mutex as such).
 * Since a pair always joins two threads, the later event is the local
 * statement and the earlier the remote one: thr is implied by the pair.
 *
 * A run's pairs count only once it ended well (cts_hapset_end_run): a
 * buggy run is no tested good run. The sets are saved and loaded as JSON
 * (--hapset-save, --hapset-load) by source position, so they carry across
 * builds of the same source. */
#ifndef CTS_HAPSET_H
#define CTS_HAPSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "models/event.h"

struct cts_hapset;

/* pc -> "func+0x12 (file.c:34)" (the backend's describe_pc); may be NULL. */
typedef void (*cts_hapset_describe_fn)(void *ctx, uint64_t pc, char *buf, size_t len);

struct cts_hapset *cts_hapset_new(cts_hapset_describe_fn describe, void *describe_ctx);
void cts_hapset_free(struct cts_hapset *h);

/* The statement of an event at pc with context ctx[0..k) (zero-padded
 * return addresses): a small id, stable for the handle's life. */
uint32_t cts_hapset_stmt(struct cts_hapset *h, uint64_t pc, const uint64_t *ctx, int k);

/* learnHapsets at one step of the current run: ev ran as statement st. */
void cts_hapset_learn(struct cts_hapset *h, const struct cts_event *ev, uint32_t st);
/* The run ended; good: keep what it taught (else forget it). Appends a
 * point {run, statements, pairs} to the series. */
void cts_hapset_end_run(struct cts_hapset *h, uint64_t run, bool good);

/* Forget what the current run has taught so far (no point in the series):
 * a run that was never ended, such as a bug's minimizing replay. */
void cts_hapset_drop_run(struct cts_hapset *h);

/* Forget every pair and the series (statements keep their numbers): a
 * search that begins again on more events (break mode learned lines). */
void cts_hapset_forget(struct cts_hapset *h);

/* Is pred in HaPSet(st)? */
bool cts_hapset_has(const struct cts_hapset *h, uint32_t st, uint32_t pred);

/* Statements that occur in some pair, and pairs. */
uint64_t cts_hapset_statements(const struct cts_hapset *h);
uint64_t cts_hapset_pairs(const struct cts_hapset *h);

/* {"statements": n, "pairs": p, "series": [{"run", "statements", "pairs"}...]};
 * new reference. */
json_t *cts_hapset_report(const struct cts_hapset *h);
/* Persist: {"hapset": 1, "pairs": [{"stmt": S, "pred": S}...]} with S =
 * {"at": "file.c:34", "callers": ["file.c:20", ...]}. 0, or -1 and err. */
int cts_hapset_save(const struct cts_hapset *h, const char *path, char *err, size_t errlen);
int cts_hapset_load(struct cts_hapset *h, const char *path, char *err, size_t errlen);

#endif
