/* Which instruction made a data-breakpoint trap, and how it touched the
 * watched bytes.
 *
 * An x86 data breakpoint is a trap: it is reported after the accessing
 * instruction has completed, with rip at the next instruction to run (or
 * still at a rep string instruction that has iterations left).  Decoding
 * backward from rip is ambiguous on x86 (several byte offsets may decode to
 * an instruction ending there), so the caller gives a known instruction
 * boundary before the trap pc (the start of the function that contains it,
 * from the symbol table) and the code is decoded forward from there to the
 * instruction that ends exactly at the trap pc.  That instruction is the
 * accessing one unless the trap pc was reached by a branch that itself
 * touched memory (call/ret/jmp through a watched slot); the effective
 * address, recomputed from the registers at the trap, tells the two apart
 * where it can.  The kind (read, write, read-modify-write, atomic) comes
 * from the decoded instruction, never from a change of value.
 *
 * Pure: no ptrace, so it is unit-tested on recorded bytes and registers. */
#ifndef CTS_ATTRIB_H
#define CTS_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "disasm/disasm.h"
#include "hw/hw.h"

enum cts_attr_kind {
	CTS_ATTR_READ,
	CTS_ATTR_WRITE,
	CTS_ATTR_RMW,     /* plain read-modify-write (add [m], r) */
	CTS_ATTR_ATOMIC,  /* lock prefix, xchg, cmpxchg */
	CTS_ATTR_ACCESS,  /* not attributed: only the watch's own kind is known */
};

struct cts_attr_input {
	uint64_t trap_pc;        /* rip at the trap */
	uint64_t code_lo;        /* address of code[0] */
	bool boundary;           /* code_lo is the start of an instruction (a
	                          * function start); false: any address at most 15
	                          * bytes before trap_pc, candidates are tried */
	const uint8_t *code;     /* bytes from code_lo to at least trap_pc + 15
	                          * (fewer if unreadable), breakpoints removed */
	size_t code_len;
	const struct cts_hw_set *set; /* what is armed */
	int slot;                /* the slot DR6 names (cts_hw_hit_slot) */
	const struct user_regs_struct *regs; /* at the trap */
};

struct cts_attr {
	uint64_t pc;             /* the accessing instruction; trap_pc if !exact */
	enum cts_attr_kind kind;
	uint32_t size;           /* bytes it accessed (0 unknown) */
	uint64_t addr;           /* first byte it accessed, 0 when not recomputed
	                          * (the instruction overwrote its address register) */
	bool exact;              /* pc and kind come from the decoded instruction */
	bool located;            /* pc is the accessing instruction: exact, or one
	                          * capstone cannot decode whose length is known
	                          * (kind: the watch's own, text "(undecoded)") */
	char text[96];           /* "mnemonic operands", "(undecoded)", or "" */
};

/* 0 with *out filled (exact or not); -1 with errno EINVAL on bad input.
 * cts_attr_locate then cts_attr_judge. */
int cts_attr_find(struct cts_disasm *d, const struct cts_attr_input *in, struct cts_attr *out);

/* What decoding the code around one trap pc gives, whatever the registers
 * and the watch: it depends only on the code, so a tracer keeps it per pc
 * (text does not change under a watch) and a trap there costs no read of
 * the code and no decoding. */
struct cts_attr_site {
	uint64_t trap_pc;
	bool boundary;           /* as in the input */
	bool rep_here;           /* self: a rep string instruction at the trap pc */
	struct cts_insn self;
	int pred;                /* boundary: the instruction x ending at the trap pc,
	                          * 0 decoded, 1 undecoded of a known length, -1 none */
	struct cts_insn x;
	int ncand;               /* no boundary: the instructions 1..15 bytes back
	                          * ending at the trap pc, nearest first */
	struct cts_insn cand[15];
	int nbefore;             /* the bytes before the trap pc, in the last nbefore
	                          * of before[] (for prefixes between candidates) */
	uint8_t before[15];
};

/* The decoding part of cts_attr_find: in's code, trap pc and boundary
 * (set, slot and regs are not looked at). 0, or -1 with EINVAL. */
int cts_attr_locate(struct cts_disasm *d, const struct cts_attr_input *in,
		    struct cts_attr_site *site);

/* The rest: which decoded instruction made the access to slot's watched
 * bytes, from the registers at the trap. Same answers as cts_attr_find. */
int cts_attr_judge(const struct cts_attr_site *site, const struct cts_hw_set *set, int slot,
		   const struct user_regs_struct *regs, struct cts_attr *out);

/* A trap that its own site does not explain, at the first instruction of
 * a callee: was it the indirect call that led there, through the watched
 * bytes?  A debug register traps after `call *[m]` at the call's target,
 * with the return address at [rsp].  ret_site: the site located at that
 * return address (the instructions ending there); regs: at the trap.  0
 * with *out the call (exact, a read of the operand, as an access
 * breakpoint reports it) when exactly one of them is a call through
 * memory whose operand, recomputed with rsp as it was before the call,
 * overlaps slot's watch; -1 otherwise (*out untouched).  The caller
 * checks that the operand holds the trap pc (the call's target): a stale
 * return address left by a jump is not the call's. */
int cts_attr_judge_call(const struct cts_attr_site *ret_site, const struct cts_hw_set *set,
			int slot, const struct user_regs_struct *regs, struct cts_attr *out);

/* The bytes [at->addr, at->addr + at->size) just after the access, where
 * the registers at the trap tell: a plain move (mov r32/r64 from memory,
 * mov to memory from a register or an immediate) moved them through a
 * register or an immediate. 0 with *value, or -1 (read the memory). */
int cts_attr_moved(const struct cts_attr_site *site, const struct cts_attr *at,
		   const struct user_regs_struct *regs, uint64_t *value);

/* The register cts_attr_moved takes the value from (a capstone x86
 * register id), 0 when it needs none (an immediate), -1 when there is no
 * such value. */
int cts_attr_moved_reg(const struct cts_attr_site *site, const struct cts_attr *at);

/* Whether cts_attr_judge's answer at this site depends on the registers
 * (an address from a base, an index, the stack pointer, rsi/rdi...).
 * Where it does not (a rip-relative or absolute operand: a global
 * variable), a trap there needs only its pc, which the SIGTRAP's si_addr
 * gives, and the one register cts_attr_moved_reg names. */
bool cts_attr_site_uses_regs(const struct cts_attr_site *site);

const char *cts_attr_kind_name(enum cts_attr_kind k);

/* The kind of access decoded instruction x makes to the memory it names:
 * the one table both watch backends report from (read-modify-write and
 * atomic instructions are rmw and atomic on either).  A string instruction
 * is its store's kind (a write, or a read for lods/scas/cmps).  push [m],
 * call *[m] and jmp *[m] read their operand and pop [m] writes it; without
 * an operand push, call and enter write the stack slot, pop, ret and leave
 * read it. */
enum cts_attr_kind cts_attr_insn_kind(const struct cts_insn *x);

/* One memory access of an instruction. */
struct cts_attr_access {
	uint64_t addr;
	uint32_t size;           /* 0: unknown extent */
	enum cts_attr_kind kind;
};

/* Every access x makes in one execution (one iteration of a rep string
 * instruction), each with its own kind: the operand it names (a string's
 * destination element), a string's source element (read), and the stack
 * slot of push, pop, call, ret, enter, leave.  r are the registers before
 * x runs (an access breakpoint), or after it (after = true, a data
 * breakpoint's trap; branches excluded, their rip is the target).  An
 * operand whose address cannot be computed (gathers, undecoded bytes) is
 * left out; a rep with rcx 0 makes none.  Returns how many (at most 3). */
int cts_attr_accesses(const struct cts_insn *x, const struct user_regs_struct *r, bool after,
		      struct cts_attr_access acc[3]);

#endif
