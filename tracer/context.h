/* Calling contexts of stopped threads, cheaply: the last k return addresses
 * above the frame of a statement, for active testing's and HaPSet's
 * statements (seeds/003, seeds/000: a statement is its pc and its truncated
 * call stack).
 *
 * A libdwfl unwinder per run costs ~150 ms (attach, module reports); this
 * one decodes the .eh_frame CFI rules of a pc once per program (cached by pc
 * for the handle's life, which spans every run: without ASLR, and with the
 * fork server, every run maps the program at the same addresses) and reads
 * the stack window it walks with one process_vm_readv. Only the rules every
 * x86-64 compiler emits are followed (CFA = rsp or rbp + offset; return
 * address and rbp saved at CFA + offset or rbp unchanged); a frame with
 * anything else (a PLT stub, a signal frame, hand-written DWARF
 * expressions) ends the walk: the context is then shorter, never wrong. */
#ifndef CTS_CONTEXT_H
#define CTS_CONTEXT_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct cts_ctx;

struct cts_ctx *cts_ctx_new(void);
void cts_ctx_free(struct cts_ctx *c);

/* Thread tid of process pid, ptrace-stopped with registers regs, stands at
 * the statement stmt_pc (the instruction of an access; for a call, the
 * call instruction's last byte, i.e. return address - 1, while the thread
 * stands inside the callee). Fills ret[0..k) with the return addresses of
 * the k frames above the statement's own frame, innermost first, zero past
 * the outermost frame found. Returns how many are real (0..k), -1 if pid's
 * modules cannot be read. */
int cts_ctx_capture(struct cts_ctx *c, pid_t pid, pid_t tid, const struct user_regs_struct *regs,
		    uint64_t stmt_pc, int k, uint64_t *ret);

/* Rules decoded and captures served since cts_ctx_new (for -v). */
void cts_ctx_stats(const struct cts_ctx *c, uint64_t *rules, uint64_t *captures);

#endif
