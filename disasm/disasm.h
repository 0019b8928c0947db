/* x86-64 instruction decoding and memory-access classification (capstone 4).
 *
 * The tracer hands this module code bytes and registers; it never touches
 * ptrace. capstone's own operand access flags are wrong for many stores
 * (PTRACE-NOTES pitfall 5), so reads and writes are decided here from the
 * instruction id and the operand position, not from capstone's flags. */
#ifndef CTS_DISASM_H
#define CTS_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

enum cts_access {
	CTS_ACC_NONE,     /* touches no data memory (also lea, nop, prefetch, clflush) */
	CTS_ACC_READ,
	CTS_ACC_WRITE,    /* pure store: the old value is not read */
	CTS_ACC_RMW,      /* read-modify-write, not atomic (add [m], r; xadd without lock) */
	CTS_ACC_ATOMIC,   /* lock prefix, xchg with memory, cmpxchg/cmpxchg8b/16b (locked or not) */
	CTS_ACC_STRING,   /* movs/stos/lods/scas/cmps/ins/outs, see the str_* fields */
	CTS_ACC_STACK,    /* push/pop/call/ret/enter/leave/pushf/popf, or an rsp-based operand */
	CTS_ACC_UNKNOWN,  /* undecodable (much of AVX-512), gathers, xsave/xrstor (variable extent) */
};

#define CTS_SEG_NONE 0
#define CTS_SEG_FS   1
#define CTS_SEG_GS   2

/* A decoded, classified instruction. Register fields hold capstone x86_reg
 * ids (<capstone/x86.h>), 0 = none. */
struct cts_insn {
	uint64_t pc;
	uint8_t len;             /* 0 when the length is unknown (undecodable bytes) */
	bool decoded;            /* capstone decoded it */
	uint16_t id;             /* capstone x86_insn id, 0 if not decoded */
	enum cts_access access;
	uint32_t size;           /* bytes accessed by the memory operand (STACK: the
	                          * push/pop slot); STRING: one element; 0 = none or
	                          * unknown extent */
	bool reads, writes;      /* memory read / written; both for RMW, ATOMIC, some STACK */

	/* Explicit (or implicit, for xlat and maskmov*) memory operand. */
	bool has_mem;            /* there is a memory operand (lea and nop included) */
	bool ea_valid;           /* cts_disasm_ea() can compute its address; false for
	                          * gathers (vector index) and undecodable instructions */
	bool masked;             /* AVX-512 opmask, vmaskmov*, maskmov*: touches at most
	                          * `size` bytes */
	bool lock;               /* lock prefix present */
	uint8_t seg;             /* CTS_SEG_NONE / FS / GS (other overrides are no-ops in 64-bit) */
	int16_t base, index;     /* register ids; base X86_REG_RIP when rip_rel */
	uint8_t scale;
	int64_t disp;
	bool rip_rel;            /* base = address of the next instruction */
	bool addr32;             /* 0x67 prefix: address computed mod 2^32 */
	int16_t bit_reg;         /* bt/bts/btr/btc mem, reg: the bit-offset register, which
	                          * moves the accessed word (added by cts_disasm_ea) */

	/* String operations. */
	bool rep;                /* rep/repe/repne prefix on a string op */
	uint8_t elem;            /* element size 1, 2, 4, 8 */
	bool str_reads_src;      /* reads [rsi] (movs, lods, cmps, outs) */
	bool str_writes_dst;     /* writes [rdi] (movs, stos, ins) */
	bool str_reads_dst;      /* reads [rdi] (scas, cmps) */

	bool is_branch;          /* jmp, jcc, loop, jrcxz (not call/ret) */
	bool is_call, is_ret;    /* is_ret also for iret */
	uint64_t target;         /* a direct jmp, jcc or call: its destination; else 0 */
	bool is_syscall;         /* syscall, sysenter, int 0x80 */
	/* A plain move the tracer can perform itself instead of single-stepping
	 * the instruction (see cts_disasm_emulate). */
	uint8_t emu;             /* enum cts_emu */
	int16_t emu_reg;         /* the general register moved to or from */
	int64_t emu_imm;         /* the immediate (sign-extended) */
	bool emu_has_imm;        /* CTS_EMU_ALU: the other operand is emu_imm */
	bool emu_reg_dst;        /* CTS_EMU_ALU: the register is the destination
	                          * (op r, [mem]; movzx/movsx) */
	bool emu_aligned;        /* CTS_EMU_XMM_*: movdqa, movaps, movapd */
	char mnemonic[24];       /* capstone text, prefixes included ("lock add") */
	char op_str[64];         /* truncated if longer */
};

enum cts_emu {
	CTS_EMU_NONE,
	CTS_EMU_LOAD,       /* mov r32/r64, [mem] */
	CTS_EMU_STORE_REG,  /* mov [mem], r8..r64 */
	CTS_EMU_STORE_IMM,  /* mov [mem], imm */
	CTS_EMU_MOV_IMM,    /* mov r32/r64, imm */
	CTS_EMU_PUSH,       /* push r64 */
	CTS_EMU_JMP_MEM,    /* jmp [mem] (a PLT stub's jump through the GOT): rip = the 8 bytes read */
	/* Arithmetic with a memory operand, lock prefix or not: add, sub, adc,
	 * sbb, and, or, xor, cmp, test (memory first with a register or an
	 * immediate, or a 32/64-bit register first), inc, dec, neg, not,
	 * xadd, xchg, cmpxchg (32/64-bit), movzx/movsx/movsxd r32/r64, [mem].
	 * The result and the arithmetic flags come from running the same
	 * operation on the tracer's own CPU, so even undefined flags match. */
	CTS_EMU_ALU,
	/* SSE moves in their legacy encoding between xmm0-15 and memory:
	 * movdqu/movdqa/movups/movaps/movupd/movapd (16 bytes), movq/movsd
	 * (8), movd/movss (4); a load of fewer than 16 bytes clears the rest of
	 * the register, and neither touches the ymm upper half (VEX forms do:
	 * those are stepped). emu_reg: the xmm register; emu_aligned: it
	 * faults unless 16-byte aligned. The register is the caller's to move
	 * (cts_disasm_xmm_index); cts_disasm_emulate does not. */
	CTS_EMU_XMM_LOAD,
	CTS_EMU_XMM_STORE,
};

/* Opaque: one capstone handle, its cs_malloc'ed instruction buffer and the
 * decode cache (open addressing keyed by pc). Not thread-safe: one per
 * tracer thread. */
struct cts_disasm;

struct cts_disasm_stats {
	uint64_t hits;      /* cts_disasm_decode answered from the cache */
	uint64_t decodes;   /* capstone calls made by cts_disasm_decode and cts_disasm_scan */
	uint64_t entries;   /* instructions now in the cache */
};

/* NULL on failure (capstone missing, detail mode refused, no memory). */
struct cts_disasm *cts_disasm_new(void);
void cts_disasm_free(struct cts_disasm *d);

/* Decode and classify the instruction at pc from bytes[0..len) (15 bytes
 * always suffice). Results are cached by pc: a later call with the same pc
 * returns the cached result without looking at bytes, so call
 * cts_disasm_forget() when code changes. Returns 0 when decoded; -1 when the
 * bytes cannot be decoded (out is still filled: access UNKNOWN, decoded
 * false, len = the VEX/EVEX instruction length when it can be worked out,
 * else 0) or on bad arguments (errno EINVAL). A failure with len < 15 is not
 * cached, since more bytes might decode. pc 0 is never cached. */
int cts_disasm_decode(struct cts_disasm *d, uint64_t pc, const uint8_t *bytes, size_t len,
		      struct cts_insn *out);

/* Drop every cached decode (breakpoints moved, code remapped or rewritten). */
void cts_disasm_forget(struct cts_disasm *d);

void cts_disasm_stats(const struct cts_disasm *d, struct cts_disasm_stats *st);

/* Value of a general register (any width: rax, eax, ax, al, ah, r8d, ...,
 * rip, riz) zero-extended from its bits in regs. 0 on success, -1 if reg is
 * not a general register. */
int cts_disasm_reg_value(int reg, const struct user_regs_struct *regs, uint64_t *val);

/* Where in struct user_regs_struct the 64-bit register holding reg is (its
 * byte offset, for PTRACE_PEEKUSER), -1 if reg is none (riz included). */
long cts_disasm_reg_slot(int reg);

/* 0-15 for xmm0-xmm15 (a capstone register id), else -1. */
int cts_disasm_xmm_index(int reg);

/* Set a 64- or 32-bit general register (32-bit writes zero-extend, as the
 * CPU does). 0, or -1 for any other register. */
int cts_disasm_reg_set(int reg, struct user_regs_struct *regs, uint64_t val);

/* Perform in (in->emu != CTS_EMU_NONE) on regs: compute the address and the
 * value, and update the registers (rip included). The memory side is the
 * caller's: for a load, a jmp [mem] or CTS_EMU_ALU, *mem_in must hold the in->size bytes
 * read at *addr (call with mem_in NULL first to get *addr, then again with
 * the data); for a store, a push, or CTS_EMU_ALU with in->writes, write
 * *mem_out's in->size bytes at *addr. Returns 0, or -1 if in cannot be
 * emulated. */
int cts_disasm_emulate(const struct cts_insn *in, struct user_regs_struct *regs, uint64_t *addr,
		       uint64_t *mem_out, const uint64_t *mem_in);

/* The general register a load overwrites whole whatever it held before
 * (mov r32/r64, [mem]; movzx/movsx/movsxd r32/r64, [mem]; a 32-bit write
 * zero-extends): a capstone register id, or -1 (no such register, or an
 * instruction whose result depends on the register's old value). */
int cts_disasm_load_dest(const struct cts_insn *in);

/* Effective address of in's memory operand: base + index*scale + disp
 * (+ the bt bit-offset word), rip-relative from the next instruction,
 * truncated to 32 bits for addr32, plus fs_base/gs_base for FS/GS. 0 when
 * !in->has_mem || !in->ea_valid. For string ops use cts_disasm_string_ranges. */
uint64_t cts_disasm_ea(const struct cts_insn *in, const struct user_regs_struct *regs);

/* String ops: the [lo, hi) byte ranges read at rsi (src) and read and/or
 * written at rdi (dst) by the whole rep (rcx elements; a repe/repne may stop
 * earlier, so this is an upper bound) or by one iteration without rep. The
 * direction comes from DF (eflags bit 10). A side that is not touched, rcx 0,
 * or a non-string instruction gives lo == hi == 0. Ends saturate instead of
 * wrapping (repne scasb with rcx = -1). */
void cts_disasm_string_ranges(const struct cts_insn *in, const struct user_regs_struct *regs,
			      uint64_t *src_lo, uint64_t *src_hi, uint64_t *dst_lo,
			      uint64_t *dst_hi);

/* True for instructions the tracer must watch for shared memory: READ,
 * WRITE, RMW, ATOMIC, STRING, and UNKNOWN with a memory operand. Not lea,
 * nop, prefetch, not rsp-based operands, not push/pop/call/ret. rbp-based
 * operands count (with -O2 rbp is a general register). */
bool cts_disasm_may_share(const struct cts_insn *in);

/* A call or jmp through a rip-relative memory operand: `call *slot(%rip)`,
 * how code without PLT stubs (-fno-plt, Rust) calls an imported function
 * through its GOT slot, at pc + len + disp. */
bool cts_disasm_rip_call(const struct cts_insn *in);

/* push [m], pop [m], call *[m] or jmp *[m] with an operand that is not on
 * the stack (not rsp-based): the operand's bytes are read (written by pop)
 * though the instruction is not a shared access of its own. */
bool cts_disasm_mem_operand(const struct cts_insn *in);

#define CTS_SCAN_SHARED   1u /* cts_disasm_may_share() or cts_disasm_rip_call() */
#define CTS_SCAN_OPERANDS 2u /* cts_disasm_mem_operand() */

/* Walk code[0..len), which sits at address base, and call fn for every
 * instruction of a kind in what (CTS_SCAN_*).
 * Undecodable bytes are skipped one
 * at a time (VEX/EVEX ones by their worked-out length). The scan does not
 * fill the decode cache: a text section is mostly never executed, and a hit
 * decodes again in well under a microsecond. Returns how many were reported,
 * -1 on bad arguments. */
typedef void (*cts_disasm_scan_fn)(const struct cts_insn *in, void *arg);
int cts_disasm_scan(struct cts_disasm *d, uint64_t base, const uint8_t *code, size_t len,
		    unsigned what, cts_disasm_scan_fn fn, void *arg);

/* Copy the whole instructions at pc (bytes[0..len)) that cover at least min
 * bytes so that they run at address to instead: rip-relative operands and
 * relative jumps (jmp, jcc: re-encoded with 32-bit offsets) keep their
 * targets. Writes at most cap bytes to out; returns how many, with *used the
 * original bytes covered. -1 when one of them cannot run elsewhere: a call,
 * ret, loop/jrcxz, interrupt or system call, undecodable bytes, a target or
 * operand out of 32-bit reach, or an unconditional jump before min bytes. */
int cts_disasm_relocate(struct cts_disasm *d, uint64_t pc, const uint8_t *bytes, size_t len,
			size_t min, uint64_t to, uint8_t *out, size_t cap, size_t *used);

/* Bytes capstone cannot decode (some AVX-512 ones with capstone 4): true
 * when they are a VEX/EVEX instruction with a memory operand; *vlen: the
 * most bytes it touches (its vector length); *reads_only: one of the loads,
 * compares, tests and logic operations that only read memory (a store, a
 * scatter or one not known: false). */
bool cts_disasm_vex_mem(const uint8_t *bytes, size_t len, unsigned *vlen, bool *reads_only);

const char *cts_access_name(enum cts_access a);

#endif
