/* Cold lines: reads of memory no thread wrote since the threads started stay
 * invisible (break and step mode), until a write proves them wrong.
 *
 * Memory is cut into 64-byte lines. Within a run, a line is cold from the
 * first read while two threads live until the first visible write to it;
 * reads of a cold line are not scheduling points (the reader is recorded).
 * A visible write to a line that another thread read while it was cold is a
 * conflict: the run is thrown away (cts_run_state.relearn), the explorer
 * makes the line hot for good (cts_cold_commit) and runs the schedule again
 * from the start, with the strategy's search restarted, so every run it
 * keeps showed every read a reordering with a write can change. Hot lines
 * and lines written in the run are read visibly. The hot set is recorded in
 * schedule files (cts_cold_format, key hot-lines) so a replay sees the same
 * events. See docs/design.md, "Long read-only loops". */
#ifndef CTS_COLD_H
#define CTS_COLD_H

#include <stdbool.h>
#include <stdint.h>

#define CTS_COLD_LINE 64u

struct cts_cold;

struct cts_cold *cts_cold_new(void);
void cts_cold_free(struct cts_cold *c);
/* A new run: no line read or written yet (the hot set stays). */
void cts_cold_begin_run(struct cts_cold *c);
/* Thread tid reads [addr, addr + size) at pc: true when the read may stay
 * invisible (recorded), false when it must be visible (a hot line, a line
 * written in this run). */
bool cts_cold_read(struct cts_cold *c, int tid, uint64_t addr, uint32_t size);
/* Thread tid writes [addr, addr + size) (a visible event): its lines are
 * written in this run from now on. True on a conflict: another thread read
 * one of them while it was cold (the lines wait for cts_cold_commit). */
bool cts_cold_write(struct cts_cold *c, int tid, uint64_t addr, uint64_t size);
/* The conflicting lines of the run become hot for good; after 16 commits
 * every line is (cold reads off: too much shared written memory), and so
 * with everything (a run that hid reads was inconclusive). */
void cts_cold_commit(struct cts_cold *c, bool everything);
/* The hot set as "0x4040,0x5000" ("none" when empty, "all" when every line
 * is hot): a new string. */
char *cts_cold_format(const struct cts_cold *c);
/* Add the lines of such a string to the hot set; -1 on a malformed one. */
int cts_cold_parse(struct cts_cold *c, const char *spec);
uint64_t cts_cold_nhot(const struct cts_cold *c);

#endif
