/* The live backend's thread_state op (strategies/backend.h): a hash of a
 * held thread's registers and the top of its stack, by which the explorer
 * tells a busy-wait that makes no progress from a loop that counts. */
#ifndef CTS_SPINSTATE_H
#define CTS_SPINSTATE_H

#include <stdint.h>

/* be is the struct cts_tracer. 0; 1 when equal hashes prove nothing (traced
 * code has called an untraced function with a pointer to shared memory); -1
 * when the thread's state cannot be read, or in sync mode, where the
 * thread's stores between its visible operations are invisible and an
 * unchanged register file proves nothing. */
int cts_tr_thread_state(void *be, int tid, uint64_t *hash);

struct thread;

/* The hash itself, of th's registers as fetched (th->regs) and the top of
 * its stack, in any mode and state: the spin probe (access.c) tells a loop
 * that works from one that waits before it learns a load. 0, or -1 when
 * the stack cannot be read. */
int cts_tr_state_hash(struct thread *th, int skip_reg, uint64_t *hash);

#endif
