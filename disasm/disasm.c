/* capstone wrapper: decode, classify memory accesses, cache by pc. */
#include "disasm/disasm.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_MIN 512          /* slots; power of two, load kept <= 1/2 */
#define X86_MAX_INSN 15

struct slot {
	uint64_t pc;               /* 0 = empty */
	uint32_t idx;              /* into vals */
};

struct cts_disasm {
	csh cs;
	cs_insn *ci;               /* cs_malloc'ed buffer reused by every decode */
	struct slot *slots;        /* open addressing, linear probing */
	size_t mask;               /* slots - 1 */
	struct cts_insn *vals;     /* dense, in insertion order: no slack to page in */
	size_t count, vcap;
	struct cts_disasm_stats st;
};

const char *cts_access_name(enum cts_access a)
{
	switch (a) {
	case CTS_ACC_NONE: return "none";
	case CTS_ACC_READ: return "read";
	case CTS_ACC_WRITE: return "write";
	case CTS_ACC_RMW: return "rmw";
	case CTS_ACC_ATOMIC: return "atomic";
	case CTS_ACC_STRING: return "string";
	case CTS_ACC_STACK: return "stack";
	case CTS_ACC_UNKNOWN: return "unknown";
	}
	return "?";
}

/* ---- instruction tables (by capstone id) ---------------------------- */

/* Memory operand present but nothing is read or written. */
static bool id_no_access(unsigned id)
{
	switch (id) {
	case X86_INS_LEA: case X86_INS_NOP:
	case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2: case X86_INS_PREFETCHW:
	case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT: case X86_INS_CLWB:
	case X86_INS_INVLPG:
	case X86_INS_VGATHERPF0DPD: case X86_INS_VGATHERPF0DPS: case X86_INS_VGATHERPF0QPD:
	case X86_INS_VGATHERPF0QPS: case X86_INS_VGATHERPF1DPD: case X86_INS_VGATHERPF1DPS:
	case X86_INS_VGATHERPF1QPD: case X86_INS_VGATHERPF1QPS:
	case X86_INS_VSCATTERPF0DPD: case X86_INS_VSCATTERPF0DPS: case X86_INS_VSCATTERPF0QPD:
	case X86_INS_VSCATTERPF0QPS: case X86_INS_VSCATTERPF1DPD: case X86_INS_VSCATTERPF1DPS:
	case X86_INS_VSCATTERPF1QPD: case X86_INS_VSCATTERPF1QPS:
		return true;
	default:
		return false;
	}
}

/* No single address: a vector of indexes. */
static bool id_gather_scatter(unsigned id, bool *writes)
{
	switch (id) {
	case X86_INS_VGATHERDPD: case X86_INS_VGATHERDPS: case X86_INS_VGATHERQPD:
	case X86_INS_VGATHERQPS: case X86_INS_VPGATHERDD: case X86_INS_VPGATHERDQ:
	case X86_INS_VPGATHERQD: case X86_INS_VPGATHERQQ:
		*writes = false;
		return true;
	case X86_INS_VSCATTERDPD: case X86_INS_VSCATTERDPS: case X86_INS_VSCATTERQPD:
	case X86_INS_VSCATTERQPS: case X86_INS_VPSCATTERDD: case X86_INS_VPSCATTERDQ:
	case X86_INS_VPSCATTERQD: case X86_INS_VPSCATTERQQ:
		*writes = true;
		return true;
	default:
		return false;
	}
}

/* The extent depends on XCR0 and the requested feature mask. */
static bool id_xsave(unsigned id, bool *writes)
{
	switch (id) {
	case X86_INS_XSAVE: case X86_INS_XSAVE64: case X86_INS_XSAVEC: case X86_INS_XSAVEC64:
	case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64: case X86_INS_XSAVES:
	case X86_INS_XSAVES64:
		*writes = true;
		return true;
	case X86_INS_XRSTOR: case X86_INS_XRSTOR64: case X86_INS_XRSTORS:
	case X86_INS_XRSTORS64:
		*writes = false;
		return true;
	default:
		return false;
	}
}

/* Implicit stack traffic. */
static bool id_stack(unsigned id)
{
	switch (id) {
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_PUSHF: case X86_INS_PUSHFD:
	case X86_INS_PUSHFQ: case X86_INS_POPF: case X86_INS_POPFD: case X86_INS_POPFQ:
	case X86_INS_PUSHAW: case X86_INS_PUSHAL: case X86_INS_POPAW: case X86_INS_POPAL:
	case X86_INS_CALL: case X86_INS_LCALL: case X86_INS_RET: case X86_INS_RETF:
	case X86_INS_RETFQ: case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
	case X86_INS_ENTER: case X86_INS_LEAVE:
		return true;
	default:
		return false;
	}
}

/* Memory as the first operand that is only read (everything else in that
 * position is written). x87 arithmetic and loads name their memory source
 * as the only operand. */
static bool id_first_read_only(unsigned id)
{
	switch (id) {
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
	case X86_INS_JMP: case X86_INS_LJMP:
	case X86_INS_MUL: case X86_INS_IMUL: case X86_INS_DIV: case X86_INS_IDIV:
	case X86_INS_UCOMISS: case X86_INS_UCOMISD: case X86_INS_COMISS: case X86_INS_COMISD:
	case X86_INS_VUCOMISS: case X86_INS_VUCOMISD: case X86_INS_VCOMISS:
	case X86_INS_VCOMISD: case X86_INS_PTEST: case X86_INS_VPTEST: case X86_INS_VTESTPS:
	case X86_INS_VTESTPD:
	case X86_INS_FLD: case X86_INS_FILD: case X86_INS_FBLD:
	case X86_INS_FADD: case X86_INS_FIADD: case X86_INS_FSUB: case X86_INS_FISUB:
	case X86_INS_FSUBR: case X86_INS_FISUBR: case X86_INS_FMUL: case X86_INS_FIMUL:
	case X86_INS_FDIV: case X86_INS_FIDIV: case X86_INS_FDIVR: case X86_INS_FIDIVR:
	case X86_INS_FCOM: case X86_INS_FCOMP: case X86_INS_FICOM: case X86_INS_FICOMP:
	case X86_INS_FLDCW: case X86_INS_FLDENV: case X86_INS_FRSTOR:
	case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
	case X86_INS_LDMXCSR: case X86_INS_VLDMXCSR:
	case X86_INS_LGDT: case X86_INS_LIDT: case X86_INS_LLDT: case X86_INS_LTR:
	case X86_INS_LMSW: case X86_INS_VERR: case X86_INS_VERW:
		return true;
	default:
		return false;
	}
}

/* Memory as the first operand is read, combined, written back. */
static bool id_first_rmw(unsigned id)
{
	switch (id) {
	case X86_INS_ADD: case X86_INS_ADC: case X86_INS_SUB: case X86_INS_SBB:
	case X86_INS_AND: case X86_INS_OR: case X86_INS_XOR:
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG: case X86_INS_NOT:
	case X86_INS_SHL: case X86_INS_SAL: case X86_INS_SHR: case X86_INS_SAR:
	case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL: case X86_INS_RCR:
	case X86_INS_SHLD: case X86_INS_SHRD:
	case X86_INS_BTS: case X86_INS_BTR: case X86_INS_BTC:
	case X86_INS_XADD:
		return true;
	default:
		return false;
	}
}

/* Atomic even without a lock prefix (xchg locks implicitly; cmpxchg is the
 * compare-and-swap primitive whichever way it is encoded). */
static bool id_atomic(unsigned id)
{
	return id == X86_INS_XCHG || id == X86_INS_CMPXCHG || id == X86_INS_CMPXCHG8B ||
	       id == X86_INS_CMPXCHG16B;
}

/* capstone 4 reports the wrong memory size for these. */
static uint32_t id_mem_size(unsigned id, uint32_t cs_size)
{
	switch (id) {
	case X86_INS_COMISS: case X86_INS_UCOMISS: case X86_INS_VCOMISS:
	case X86_INS_VUCOMISS:
		return 4;
	case X86_INS_COMISD: case X86_INS_UCOMISD: case X86_INS_VCOMISD:
	case X86_INS_VUCOMISD:
		return 8;
	case X86_INS_FNSTSW:
		return 2;
	case X86_INS_FNSTENV: case X86_INS_FLDENV:
		return 28;
	case X86_INS_FNSAVE: case X86_INS_FRSTOR:
		return 108;
	case X86_INS_FXSAVE: case X86_INS_FXSAVE64: case X86_INS_FXRSTOR:
	case X86_INS_FXRSTOR64:
		return 512;
	case X86_INS_SGDT: case X86_INS_SIDT: case X86_INS_LGDT: case X86_INS_LIDT:
		return 10;
	default:
		return cs_size;
	}
}

static bool id_string(unsigned id)
{
	switch (id) {
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
	case X86_INS_INSB: case X86_INS_INSW: case X86_INS_INSD:
	case X86_INS_OUTSB: case X86_INS_OUTSW: case X86_INS_OUTSD:
		return true;
	default:
		return false;
	}
}

/* String op from its one-byte opcode (capstone gives string movsd/cmpsd
 * and SSE movsd/cmpsd the same id). */
static bool string_kind(uint8_t op, bool *rs, bool *wd, bool *rd)
{
	*rs = *wd = *rd = false;
	switch (op) {
	case 0xa4: case 0xa5: *rs = *wd = true; return true;  /* movs */
	case 0xa6: case 0xa7: *rs = *rd = true; return true;  /* cmps */
	case 0xaa: case 0xab: *wd = true; return true;        /* stos */
	case 0xac: case 0xad: *rs = true; return true;        /* lods */
	case 0xae: case 0xaf: *rd = true; return true;        /* scas */
	case 0x6c: case 0x6d: *wd = true; return true;        /* ins */
	case 0x6e: case 0x6f: *rs = true; return true;        /* outs */
	default: return false;
	}
}

/* ---- registers -------------------------------------------------------- */

int cts_disasm_reg_value(int reg, const struct user_regs_struct *r, uint64_t *val)
{
	uint64_t v;
	int shift = 0, bits = 64;

	switch (reg) {
	case X86_REG_RAX: v = r->rax; break;
	case X86_REG_EAX: v = r->rax; bits = 32; break;
	case X86_REG_AX: v = r->rax; bits = 16; break;
	case X86_REG_AL: v = r->rax; bits = 8; break;
	case X86_REG_AH: v = r->rax; bits = 8; shift = 8; break;
	case X86_REG_RBX: v = r->rbx; break;
	case X86_REG_EBX: v = r->rbx; bits = 32; break;
	case X86_REG_BX: v = r->rbx; bits = 16; break;
	case X86_REG_BL: v = r->rbx; bits = 8; break;
	case X86_REG_BH: v = r->rbx; bits = 8; shift = 8; break;
	case X86_REG_RCX: v = r->rcx; break;
	case X86_REG_ECX: v = r->rcx; bits = 32; break;
	case X86_REG_CX: v = r->rcx; bits = 16; break;
	case X86_REG_CL: v = r->rcx; bits = 8; break;
	case X86_REG_CH: v = r->rcx; bits = 8; shift = 8; break;
	case X86_REG_RDX: v = r->rdx; break;
	case X86_REG_EDX: v = r->rdx; bits = 32; break;
	case X86_REG_DX: v = r->rdx; bits = 16; break;
	case X86_REG_DL: v = r->rdx; bits = 8; break;
	case X86_REG_DH: v = r->rdx; bits = 8; shift = 8; break;
	case X86_REG_RSI: v = r->rsi; break;
	case X86_REG_ESI: v = r->rsi; bits = 32; break;
	case X86_REG_SI: v = r->rsi; bits = 16; break;
	case X86_REG_SIL: v = r->rsi; bits = 8; break;
	case X86_REG_RDI: v = r->rdi; break;
	case X86_REG_EDI: v = r->rdi; bits = 32; break;
	case X86_REG_DI: v = r->rdi; bits = 16; break;
	case X86_REG_DIL: v = r->rdi; bits = 8; break;
	case X86_REG_RBP: v = r->rbp; break;
	case X86_REG_EBP: v = r->rbp; bits = 32; break;
	case X86_REG_BP: v = r->rbp; bits = 16; break;
	case X86_REG_BPL: v = r->rbp; bits = 8; break;
	case X86_REG_RSP: v = r->rsp; break;
	case X86_REG_ESP: v = r->rsp; bits = 32; break;
	case X86_REG_SP: v = r->rsp; bits = 16; break;
	case X86_REG_SPL: v = r->rsp; bits = 8; break;
	case X86_REG_RIP: v = r->rip; break;
	case X86_REG_EIP: v = r->rip; bits = 32; break;
	case X86_REG_IP: v = r->rip; bits = 16; break;
	case X86_REG_RIZ: case X86_REG_EIZ: v = 0; break;
#define RN(n) \
	case X86_REG_R##n: v = r->r##n; break; \
	case X86_REG_R##n##D: v = r->r##n; bits = 32; break; \
	case X86_REG_R##n##W: v = r->r##n; bits = 16; break; \
	case X86_REG_R##n##B: v = r->r##n; bits = 8; break;
	RN(8) RN(9) RN(10) RN(11) RN(12) RN(13) RN(14) RN(15)
#undef RN
	default:
		return -1;
	}
	v >>= shift;
	if (bits < 64)
		v &= (UINT64_C(1) << bits) - 1;
	*val = v;
	return 0;
}

long cts_disasm_reg_slot(int reg)
{
	/* Every byte of slot i holds i + 1: whichever bits of its 64-bit
	 * register reg names (al, ah, ax, eax, rax), its low byte says i. */
	struct user_regs_struct marks;
	unsigned long long *slot = (unsigned long long *)&marks;
	uint64_t v;

	for (size_t i = 0; i < sizeof(marks) / sizeof(*slot); i++)
		slot[i] = UINT64_C(0x0101010101010101) * (i + 1);
	if (cts_disasm_reg_value(reg, &marks, &v) != 0 || !(v & 0xff))
		return -1;
	return (long)(((v & 0xff) - 1) * sizeof(*slot));
}

static uint64_t reg_or_zero(int reg, const struct user_regs_struct *regs)
{
	uint64_t v = 0;

	if (reg && cts_disasm_reg_value(reg, regs, &v) < 0)
		v = 0;
	return v;
}

int cts_disasm_reg_set(int reg, struct user_regs_struct *r, uint64_t val)
{
	unsigned long long *p;
	bool r32 = false;
	switch (reg) {
	case X86_REG_EAX: r32 = true; /* fall through */
	case X86_REG_RAX: p = &r->rax; break;
	case X86_REG_EBX: r32 = true; /* fall through */
	case X86_REG_RBX: p = &r->rbx; break;
	case X86_REG_ECX: r32 = true; /* fall through */
	case X86_REG_RCX: p = &r->rcx; break;
	case X86_REG_EDX: r32 = true; /* fall through */
	case X86_REG_RDX: p = &r->rdx; break;
	case X86_REG_ESI: r32 = true; /* fall through */
	case X86_REG_RSI: p = &r->rsi; break;
	case X86_REG_EDI: r32 = true; /* fall through */
	case X86_REG_RDI: p = &r->rdi; break;
	case X86_REG_EBP: r32 = true; /* fall through */
	case X86_REG_RBP: p = &r->rbp; break;
	case X86_REG_R8D: r32 = true; /* fall through */
	case X86_REG_R8: p = &r->r8; break;
	case X86_REG_R9D: r32 = true; /* fall through */
	case X86_REG_R9: p = &r->r9; break;
	case X86_REG_R10D: r32 = true; /* fall through */
	case X86_REG_R10: p = &r->r10; break;
	case X86_REG_R11D: r32 = true; /* fall through */
	case X86_REG_R11: p = &r->r11; break;
	case X86_REG_R12D: r32 = true; /* fall through */
	case X86_REG_R12: p = &r->r12; break;
	case X86_REG_R13D: r32 = true; /* fall through */
	case X86_REG_R13: p = &r->r13; break;
	case X86_REG_R14D: r32 = true; /* fall through */
	case X86_REG_R14: p = &r->r14; break;
	case X86_REG_R15D: r32 = true; /* fall through */
	case X86_REG_R15: p = &r->r15; break;
	default: return -1;
	}
	*p = r32 ? (uint32_t)val : val;
	return 0;
}

/* ---- arithmetic on the tracer's own CPU ------------------------------------
 *
 * The tracer runs on the same CPU as the program, so the exact result and
 * flags of an ALU instruction (undefined ones included) come from executing
 * the register form of the same instruction here, with the thread's
 * arithmetic flags loaded first (adc, sbb, inc and dec read CF). The red
 * zone is stepped over before pushing the flags. */

#define ARITH_FLAGS 0x8d5ull /* CF PF AF ZF SF OF */
#define ASM_PRE "lea -128(%%rsp), %%rsp\n\tpush %[f]\n\tpopfq\n\t"
#define ASM_POST "\n\tpushfq\n\tpop %[f]\n\tlea 128(%%rsp), %%rsp"

#define NAT_BIN(T, C, insn) do { \
		T dd = (T)*d, ss = (T)*s; \
		__asm__ volatile(ASM_PRE insn " %[s], %[d]" ASM_POST \
				 : [d] "+" C(dd), [f] "+r"(f) : [s] C(ss) : "cc"); \
		*d = dd; \
	} while (0)
#define NAT_UN(T, C, insn) do { \
		T dd = (T)*d; \
		__asm__ volatile(ASM_PRE insn " %[d]" ASM_POST : [d] "+" C(dd), [f] "+r"(f) : : "cc"); \
		*d = dd; \
	} while (0)
#define NAT_XADD(T, C, insn) do { \
		T dd = (T)*d, ss = (T)*s; \
		__asm__ volatile(ASM_PRE insn " %[s], %[d]" ASM_POST \
				 : [d] "+" C(dd), [s] "+" C(ss), [f] "+r"(f) : : "cc"); \
		*d = dd; \
		*s = ss; \
	} while (0)
#define NAT_SIZES(BODY, insn) do { \
		switch (size) { \
		case 1: BODY(uint8_t, "q", insn); break; \
		case 2: BODY(uint16_t, "r", insn); break; \
		case 4: BODY(uint32_t, "r", insn); break; \
		case 8: BODY(uint64_t, "r", insn); break; \
		default: return -1; \
		} \
	} while (0)

/* d op= s (or d = op d) as the CPU does it; *acc is rax for cmpxchg; *fl
 * the thread's eflags, its arithmetic flags updated. */
static int alu_native(unsigned id, unsigned size, uint64_t *d, uint64_t *s, uint64_t *acc,
		      unsigned long long *fl)
{
	uint64_t f = 0x2 | (*fl & ARITH_FLAGS);
	switch (id) {
	case X86_INS_ADD: NAT_SIZES(NAT_BIN, "add"); break;
	case X86_INS_ADC: NAT_SIZES(NAT_BIN, "adc"); break;
	case X86_INS_SUB: NAT_SIZES(NAT_BIN, "sub"); break;
	case X86_INS_SBB: NAT_SIZES(NAT_BIN, "sbb"); break;
	case X86_INS_AND: NAT_SIZES(NAT_BIN, "and"); break;
	case X86_INS_OR: NAT_SIZES(NAT_BIN, "or"); break;
	case X86_INS_XOR: NAT_SIZES(NAT_BIN, "xor"); break;
	case X86_INS_CMP: NAT_SIZES(NAT_BIN, "cmp"); break;
	case X86_INS_TEST: NAT_SIZES(NAT_BIN, "test"); break;
	case X86_INS_INC: NAT_SIZES(NAT_UN, "inc"); break;
	case X86_INS_DEC: NAT_SIZES(NAT_UN, "dec"); break;
	case X86_INS_NEG: NAT_SIZES(NAT_UN, "neg"); break;
	case X86_INS_NOT: NAT_SIZES(NAT_UN, "not"); break;
	case X86_INS_XADD: NAT_SIZES(NAT_XADD, "xadd"); break;
	case X86_INS_CMPXCHG:
		/* a 32-bit compare that succeeds leaves rax's upper half alone */
		if (size == 4) {
			uint32_t dd = (uint32_t)*d, ss = (uint32_t)*s;
			__asm__ volatile(ASM_PRE "cmpxchg %k[s], %k[d]" ASM_POST
					 : [d] "+r"(dd), "+a"(*acc), [f] "+r"(f) : [s] "r"(ss) : "cc");
			*d = dd;
		} else if (size == 8) {
			uint64_t dd = *d, ss = *s;
			__asm__ volatile(ASM_PRE "cmpxchg %[s], %[d]" ASM_POST
					 : [d] "+r"(dd), "+a"(*acc), [f] "+r"(f) : [s] "r"(ss) : "cc");
			*d = dd;
		} else {
			return -1;
		}
		break;
	default:
		return -1;
	}
	*fl = (*fl & ~ARITH_FLAGS) | (f & ARITH_FLAGS);
	return 0;
}

static int emulate_alu(const struct cts_insn *in, struct user_regs_struct *regs, uint64_t m,
		       uint64_t *mem_out)
{
	unsigned size = in->size;
	uint64_t mask = size >= 8 ? UINT64_MAX : (1ull << (8 * size)) - 1, r = 0, d, s;
	if (in->emu_reg && cts_disasm_reg_value(in->emu_reg, regs, &r) != 0)
		return -1;
	m &= mask;
	switch (in->id) {
	case X86_INS_MOVZX:
		return cts_disasm_reg_set(in->emu_reg, regs, m);
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD: {
		unsigned sh = 64 - 8 * size;
		return cts_disasm_reg_set(in->emu_reg, regs, (uint64_t)((int64_t)(m << sh) >> sh));
	}
	case X86_INS_XCHG:
		*mem_out = r;
		return cts_disasm_reg_set(in->emu_reg, regs, m);
	case X86_INS_XADD:
		d = m, s = r;
		if (alu_native(in->id, size, &d, &s, NULL, &regs->eflags) != 0)
			return -1;
		*mem_out = d & mask;
		return cts_disasm_reg_set(in->emu_reg, regs, s & mask);
	case X86_INS_CMPXCHG: {
		uint64_t acc = regs->rax;
		d = m, s = r;
		if (alu_native(in->id, size, &d, &s, &acc, &regs->eflags) != 0)
			return -1;
		*mem_out = d & mask;
		regs->rax = acc;
		return 0;
	}
	default:
		break;
	}
	if (in->emu_reg_dst) {
		d = r, s = m;
	} else {
		d = m;
		s = in->emu_has_imm ? (uint64_t)in->emu_imm & mask : r;
	}
	if (alu_native(in->id, size, &d, &s, NULL, &regs->eflags) != 0)
		return -1;
	if (!in->emu_reg_dst)
		*mem_out = d & mask;
	else if (in->id != X86_INS_CMP && in->id != X86_INS_TEST)
		return cts_disasm_reg_set(in->emu_reg, regs, d & mask);
	return 0;
}

int cts_disasm_emulate(const struct cts_insn *in, struct user_regs_struct *regs, uint64_t *addr,
		       uint64_t *mem_out, const uint64_t *mem_in)
{
	uint64_t v = 0, mask = in->size >= 8 ? UINT64_MAX : (1ull << (8 * in->size)) - 1;
	switch (in->emu) {
	case CTS_EMU_LOAD:
		*addr = cts_disasm_ea(in, regs);
		if (!mem_in)
			return 0;
		if (cts_disasm_reg_set(in->emu_reg, regs, *mem_in & mask) != 0)
			return -1;
		break;
	case CTS_EMU_STORE_REG:
		*addr = cts_disasm_ea(in, regs);
		if (cts_disasm_reg_value(in->emu_reg, regs, &v) != 0)
			return -1;
		*mem_out = v & mask;
		break;
	case CTS_EMU_STORE_IMM:
		*addr = cts_disasm_ea(in, regs);
		*mem_out = (uint64_t)in->emu_imm & mask;
		break;
	case CTS_EMU_MOV_IMM:
		*addr = 0;
		if (cts_disasm_reg_set(in->emu_reg, regs, (uint64_t)in->emu_imm) != 0)
			return -1;
		break;
	case CTS_EMU_JMP_MEM:
		*addr = cts_disasm_ea(in, regs);
		if (mem_in)
			regs->rip = *mem_in; /* not past it: the jump's target */
		return 0;
	case CTS_EMU_PUSH:
		if (cts_disasm_reg_value(in->emu_reg, regs, &v) != 0)
			return -1;
		regs->rsp -= 8;
		*addr = regs->rsp;
		*mem_out = v;
		break;
	case CTS_EMU_ALU:
		*addr = cts_disasm_ea(in, regs);
		if (!mem_in)
			return 0;
		/* registers change only if the whole instruction can be done */
		struct user_regs_struct r = *regs;
		if (emulate_alu(in, &r, *mem_in, mem_out) != 0)
			return -1;
		*regs = r;
		break;
	default:
		return -1;
	}
	regs->rip += in->len;
	return 0;
}

/* ---- classification ----------------------------------------------------- */

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
	case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
		return true;
	default:
		return false;
	}
}

static uint8_t seg_of_reg(int reg)
{
	if (reg == X86_REG_FS)
		return CTS_SEG_FS;
	if (reg == X86_REG_GS)
		return CTS_SEG_GS;
	return CTS_SEG_NONE;
}

static uint8_t seg_of_prefix(uint8_t p)
{
	return p == X86_PREFIX_FS ? CTS_SEG_FS : p == X86_PREFIX_GS ? CTS_SEG_GS : CTS_SEG_NONE;
}

static void set_mem(struct cts_insn *o, const x86_op_mem *m)
{
	o->has_mem = true;
	o->ea_valid = true;
	o->seg = seg_of_reg(m->segment);
	o->base = (int16_t)m->base;
	o->index = (int16_t)m->index;
	if (m->index == X86_REG_RIZ || m->index == X86_REG_EIZ)
		o->index = 0;
	o->scale = (uint8_t)(m->scale ? m->scale : 1);
	o->disp = m->disp;
	o->rip_rel = m->base == X86_REG_RIP || m->base == X86_REG_EIP;
}

static void classify_string(const cs_x86 *x, struct cts_insn *o)
{
	bool rs, wd, rd;

	string_kind(x->opcode[0], &rs, &wd, &rd);
	o->access = CTS_ACC_STRING;
	o->str_reads_src = rs;
	o->str_writes_dst = wd;
	o->str_reads_dst = rd;
	o->reads = rs || rd;
	o->writes = wd;
	o->rep = x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE;
	o->seg = seg_of_prefix(x->prefix[1]);   /* overrides the source (DS) only */
	if (!(x->opcode[0] & 1))
		o->elem = 1;
	else if (x->rex & 0x08)
		o->elem = 8;
	else if (x->prefix[2] == X86_PREFIX_OPSIZE)
		o->elem = 2;
	else
		o->elem = 4;
	o->size = o->elem;
	o->has_mem = true;    /* two operands: see cts_disasm_string_ranges */
	o->ea_valid = false;
}

static void classify_stack(unsigned id, const cs_x86 *x, int m, struct cts_insn *o)
{
	o->access = CTS_ACC_STACK;
	o->size = 8;
	switch (id) {
	case X86_INS_PUSH: case X86_INS_PUSHF: case X86_INS_PUSHFD: case X86_INS_PUSHFQ:
	case X86_INS_PUSHAW: case X86_INS_PUSHAL:
	case X86_INS_CALL: case X86_INS_LCALL: case X86_INS_ENTER:
		o->writes = true;
		o->reads = m >= 0;
		break;
	case X86_INS_POP:
		o->reads = true;
		o->writes = m >= 0;
		break;
	default:      /* pop*, ret*, iret*, leave */
		o->reads = true;
		break;
	}
	if ((id == X86_INS_PUSH || id == X86_INS_POP) && x->op_count && x->operands[0].size)
		o->size = x->operands[0].size;
	else if (x->prefix[2] == X86_PREFIX_OPSIZE && id != X86_INS_CALL && id != X86_INS_RET)
		o->size = 2;
}

/* Instructions that touch memory without a memory operand in capstone 4. */
static void classify_implicit(unsigned id, const cs_x86 *x, struct cts_insn *o)
{
	int32_t base = 0;

	switch (id) {
	case X86_INS_XLATB:        /* al = [rbx + al] */
		o->access = CTS_ACC_READ;
		o->reads = true;
		o->size = 1;
		base = o->addr32 ? X86_REG_EBX : X86_REG_RBX;
		o->index = X86_REG_AL;
		break;
	case X86_INS_MASKMOVQ: case X86_INS_MASKMOVDQU: case X86_INS_VMASKMOVDQU:
		o->access = CTS_ACC_WRITE;   /* byte-masked store to [rdi] */
		o->writes = true;
		o->masked = true;
		o->size = id == X86_INS_MASKMOVQ ? 8 : 16;
		base = o->addr32 ? X86_REG_EDI : X86_REG_RDI;
		break;
	default:
		o->access = CTS_ACC_NONE;
		return;
	}
	o->has_mem = true;
	o->ea_valid = true;
	o->base = (int16_t)base;
	o->scale = 1;
	o->seg = seg_of_prefix(x->prefix[1]);
}

static bool gpr_width(int reg, unsigned *bytes)
{
	uint64_t v;
	struct user_regs_struct r;
	memset(&r, 0xff, sizeof(r));
	if (reg == X86_REG_RIP || reg == X86_REG_EIP || cts_disasm_reg_value(reg, &r, &v) != 0)
		return false;
	*bytes = v == UINT64_MAX ? 8 : v == 0xffffffffu ? 4 : v == 0xffff ? 2 : 1;
	return true;
}

int cts_disasm_load_dest(const struct cts_insn *in)
{
	if (in->lock)
		return -1;
	if (in->emu == CTS_EMU_LOAD)
		return in->emu_reg;
	if (in->emu == CTS_EMU_ALU && in->emu_reg_dst &&
	    (in->id == X86_INS_MOVZX || in->id == X86_INS_MOVSX || in->id == X86_INS_MOVSXD))
		return in->emu_reg;
	return -1;
}

/* The CTS_EMU_ALU forms (see disasm.h); true when in is one. */
static bool set_emu_alu(unsigned id, const cs_x86 *x, int m, struct cts_insn *o)
{
	unsigned w = 0;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	if (m < 0 || o->seg != CTS_SEG_NONE || !o->ea_valid || o->bit_reg || o->rep ||
	    !(o->size == 1 || o->size == 2 || o->size == 4 || o->size == 8))
		return false;
	switch (id) {
	case X86_INS_ADD: case X86_INS_ADC: case X86_INS_SUB: case X86_INS_SBB:
	case X86_INS_AND: case X86_INS_OR: case X86_INS_XOR: case X86_INS_CMP:
	case X86_INS_TEST:
		if (x->op_count != 2)
			return false;
		if (m == 0 && b->type == X86_OP_IMM) {
			o->emu_has_imm = true;
			o->emu_imm = b->imm;
		} else if (m == 0 && b->type == X86_OP_REG && gpr_width(b->reg, &w) && w == o->size) {
			o->emu_reg = (int16_t)b->reg;
		} else if (m == 1 && a->type == X86_OP_REG && gpr_width(a->reg, &w) && w == o->size &&
			   w >= 4 && !o->lock) {
			o->emu_reg = (int16_t)a->reg;
			o->emu_reg_dst = true;
		} else {
			return false;
		}
		break;
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG: case X86_INS_NOT:
		if (x->op_count != 1 || m != 0)
			return false;
		break;
	case X86_INS_XADD: case X86_INS_CMPXCHG:
		if (x->op_count != 2 || m != 0 || b->type != X86_OP_REG || !gpr_width(b->reg, &w) ||
		    w != o->size || w < 4)
			return false;
		o->emu_reg = (int16_t)b->reg;
		break;
	case X86_INS_XCHG: {
		const cs_x86_op *r = m == 0 ? b : a;
		if (x->op_count != 2 || r->type != X86_OP_REG || !gpr_width(r->reg, &w) ||
		    w != o->size || w < 4)
			return false;
		o->emu_reg = (int16_t)r->reg;
		break;
	}
	case X86_INS_MOVZX: case X86_INS_MOVSX: case X86_INS_MOVSXD:
		if (x->op_count != 2 || m != 1 || a->type != X86_OP_REG || !gpr_width(a->reg, &w) ||
		    w < 4 || o->size >= w || o->lock)
			return false;
		o->emu_reg = (int16_t)a->reg;
		o->emu_reg_dst = true;
		break;
	default:
		return false;
	}
	o->emu = CTS_EMU_ALU;
	return true;
}

int cts_disasm_xmm_index(int reg)
{
	return reg >= X86_REG_XMM0 && reg <= X86_REG_XMM15 ? reg - X86_REG_XMM0 : -1;
}

/* SSE moves between an xmm register and memory (disasm.h CTS_EMU_XMM_*). */
static bool set_emu_xmm(unsigned id, const cs_x86 *x, int m, struct cts_insn *o)
{
	unsigned size;
	switch (id) {
	case X86_INS_MOVDQA: case X86_INS_MOVAPS: case X86_INS_MOVAPD:
	case X86_INS_MOVDQU: case X86_INS_MOVUPS: case X86_INS_MOVUPD:
		size = 16;
		break;
	case X86_INS_MOVQ: case X86_INS_MOVSD:
		size = 8;
		break;
	case X86_INS_MOVD: case X86_INS_MOVSS:
		size = 4;
		break;
	default:
		return false;
	}
	if (x->op_count != 2 || m < 0 || o->lock || o->rep || o->seg != CTS_SEG_NONE ||
	    !o->ea_valid || o->size != size || o->access == CTS_ACC_STRING)
		return false;
	const cs_x86_op *r = &x->operands[1 - m];
	if (r->type != X86_OP_REG || cts_disasm_xmm_index(r->reg) < 0)
		return false; /* an mmx register, or no register */
	o->emu = m == 1 ? CTS_EMU_XMM_LOAD : CTS_EMU_XMM_STORE;
	o->emu_reg = (int16_t)r->reg;
	o->emu_aligned = id == X86_INS_MOVDQA || id == X86_INS_MOVAPS || id == X86_INS_MOVAPD;
	return true;
}

/* Plain moves between a general register (or an immediate) and memory:
 * the tracer can do these itself and save a single-step. */
static void set_emu(unsigned id, const cs_x86 *x, int m, struct cts_insn *o)
{
	unsigned w;
	if (set_emu_xmm(id, x, m, o))
		return;
	if (id == X86_INS_PUSH && x->op_count == 1 && x->operands[0].type == X86_OP_REG &&
	    gpr_width(x->operands[0].reg, &w) && w == 8) {
		o->emu = CTS_EMU_PUSH;
		o->emu_reg = (int16_t)x->operands[0].reg;
		return;
	}
	if (id == X86_INS_JMP && x->op_count == 1 && m == 0 && !o->rep && o->seg == CTS_SEG_NONE &&
	    o->ea_valid && !o->addr32 && x->operands[0].size == 8) {
		o->emu = CTS_EMU_JMP_MEM;
		return;
	}
	if (id == X86_INS_MOV && x->op_count == 2 && m < 0 && x->operands[0].type == X86_OP_REG &&
	    x->operands[1].type == X86_OP_IMM && gpr_width(x->operands[0].reg, &w) && w >= 4) {
		o->emu = CTS_EMU_MOV_IMM;
		o->emu_reg = (int16_t)x->operands[0].reg;
		o->emu_imm = x->operands[1].imm;
		return;
	}
	if (set_emu_alu(id, x, m, o) || id != X86_INS_MOV || x->op_count != 2 || o->lock ||
	    o->seg != CTS_SEG_NONE || !o->ea_valid || o->bit_reg || o->rep)
		return;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	if (m == 1 && a->type == X86_OP_REG && gpr_width(a->reg, &w) && w >= 4 &&
	    o->size == w) {
		o->emu = CTS_EMU_LOAD;
		o->emu_reg = (int16_t)a->reg;
	} else if (m == 0 && b->type == X86_OP_REG && gpr_width(b->reg, &w) && o->size == w &&
		   b->reg != X86_REG_AH && b->reg != X86_REG_BH && b->reg != X86_REG_CH &&
		   b->reg != X86_REG_DH) {
		o->emu = CTS_EMU_STORE_REG;
		o->emu_reg = (int16_t)b->reg;
	} else if (m == 0 && b->type == X86_OP_IMM && o->size >= 1 && o->size <= 8) {
		o->emu = CTS_EMU_STORE_IMM;
		o->emu_imm = b->imm;
	}
}

static void classify_body(const cs_insn *ci, struct cts_insn *o)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_detail *det = ci->detail;
	unsigned id = ci->id;
	int m = -1;
	bool w;

	o->decoded = true;
	o->len = (uint8_t)ci->size;
	o->id = (uint16_t)id;
	copy_str(o->mnemonic, sizeof o->mnemonic, ci->mnemonic);
	copy_str(o->op_str, sizeof o->op_str, ci->op_str);
	o->lock = x->prefix[0] == X86_PREFIX_LOCK;
	o->addr32 = x->addr_size == 4;

	for (unsigned i = 0; i < det->groups_count; i++)
		if (det->groups[i] == X86_GRP_JUMP)
			o->is_branch = true;
	o->is_call = id == X86_INS_CALL || id == X86_INS_LCALL;
	if ((o->is_branch || o->is_call) && x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
		o->target = (uint64_t)x->operands[0].imm;
	o->is_ret = id == X86_INS_RET || id == X86_INS_RETF || id == X86_INS_RETFQ ||
		    id == X86_INS_IRET || id == X86_INS_IRETD || id == X86_INS_IRETQ;
	o->is_syscall = id == X86_INS_SYSCALL || id == X86_INS_SYSENTER ||
			(id == X86_INS_INT && x->op_count == 1 &&
			 x->operands[0].type == X86_OP_IMM && x->operands[0].imm == 0x80);

	/* AVX-512 opmask (EVEX.aaa != 0): only the selected elements are touched. */
	for (unsigned i = 0; i + 3 < ci->size && i < X86_MAX_INSN; i++) {
		if (is_legacy_prefix(ci->bytes[i]))
			continue;
		if (ci->bytes[i] == 0x62 && (ci->bytes[i + 3] & 7))
			o->masked = true;
		break;
	}
	if (id == X86_INS_VMASKMOVPS || id == X86_INS_VMASKMOVPD || id == X86_INS_VPMASKMOVD ||
	    id == X86_INS_VPMASKMOVQ)
		o->masked = true;

	for (int i = 0; i < x->op_count && m < 0; i++)   /* string ops have two: see below */
		if (x->operands[i].type == X86_OP_MEM)
			m = i;

	if (id_string(id) && string_kind(x->opcode[0], &w, &w, &w)) {
		classify_string(x, o);
		return;
	}
	if (m >= 0)
		set_mem(o, &x->operands[m].mem);

	if (id_stack(id)) {
		classify_stack(id, x, m, o);
		return;
	}
	if (m < 0) {
		classify_implicit(id, x, o);
		return;
	}
	if (id_no_access(id)) {
		o->access = CTS_ACC_NONE;
		return;
	}
	o->size = id_mem_size(id, x->operands[m].size);
	if (id_gather_scatter(id, &w)) {
		o->access = CTS_ACC_UNKNOWN;
		o->ea_valid = false;
		o->size = 0;
		o->reads = !w;
		o->writes = w;
		return;
	}

	if (id_xsave(id, &w)) {
		o->access = CTS_ACC_UNKNOWN;
		o->size = 0;
		o->reads = !w;
		o->writes = w;
	} else if (o->lock || id_atomic(id)) {
		o->access = CTS_ACC_ATOMIC;
		o->reads = o->writes = true;
	} else if (m > 0 || id_first_read_only(id)) {
		o->access = CTS_ACC_READ;
		o->reads = true;
	} else if (id_first_rmw(id)) {
		o->access = CTS_ACC_RMW;
		o->reads = o->writes = true;
	} else {
		o->access = CTS_ACC_WRITE;
		o->writes = true;
	}
	if (o->id == X86_INS_BT || o->id == X86_INS_BTS || o->id == X86_INS_BTR ||
	    o->id == X86_INS_BTC) {
		if (m == 0 && x->op_count == 2 && x->operands[1].type == X86_OP_REG)
			o->bit_reg = (int16_t)x->operands[1].reg;
	}
	if ((o->base == X86_REG_RSP || o->base == X86_REG_ESP) && o->seg == CTS_SEG_NONE)
		o->access = CTS_ACC_STACK;
}

static void classify(const cs_insn *ci, struct cts_insn *o)
{
	const cs_x86 *x = &ci->detail->x86;
	int m = -1;
	classify_body(ci, o);
	for (int i = 0; i < x->op_count && m < 0; i++)
		if (x->operands[i].type == X86_OP_MEM)
			m = i;
	set_emu(ci->id, x, m, o);
}

/* Length of a VEX/EVEX instruction capstone cannot decode, from the prefix
 * layout alone; 0 when the bytes are not VEX/EVEX or are cut short. */
static size_t vex_length(const uint8_t *b, size_t n, bool *has_mem, bool *masked)
{
	size_t i = 0, op;
	unsigned map;

	while (i < n && i < X86_MAX_INSN && is_legacy_prefix(b[i]))
		i++;
	if (i + 3 > n)
		return 0;
	switch (b[i]) {
	case 0xc5:
		map = 1;
		op = i + 2;
		break;
	case 0xc4:
		map = b[i + 1] & 0x1f;
		op = i + 3;
		break;
	case 0x62:
		if (i + 5 > n)
			return 0;
		map = b[i + 1] & 0x07;
		*masked = (b[i + 3] & 7) != 0;
		op = i + 4;
		break;
	default:
		return 0;
	}
	if (map < 1 || map > 6 || map == 4 || (map > 3 && b[i] != 0x62))
		return 0;
	size_t len = op + 1;
	if (map == 1 && b[op] == 0x77) {           /* vzeroupper/vzeroall: no ModRM */
		*has_mem = false;
		return len;
	}
	if (len >= n)
		return 0;
	uint8_t modrm = b[len++];
	unsigned mod = modrm >> 6, rm = modrm & 7;
	*has_mem = mod != 3;
	if (mod != 3 && rm == 4) {
		if (len >= n)
			return 0;
		uint8_t sib = b[len++];
		if (mod == 0 && (sib & 7) == 5)
			len += 4;
	}
	if (mod == 0 && rm == 5)
		len += 4;
	else if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	if (map == 3)
		len += 1;
	else if (map == 1) {
		switch (b[op]) {
		case 0x70: case 0x71: case 0x72: case 0x73:
		case 0xc2: case 0xc4: case 0xc5: case 0xc6:
			len += 1;
			break;
		default:
			break;
		}
	}
	if (len > X86_MAX_INSN || len > n)
		return 0;
	return len;
}

bool cts_disasm_vex_mem(const uint8_t *b, size_t n, unsigned *vlen, bool *reads_only)
{
	bool has_mem = false, masked = false;
	size_t len = vex_length(b, n, &has_mem, &masked), i = 0, op;
	if (!len || !has_mem)
		return false;
	while (is_legacy_prefix(b[i]))
		i++;
	unsigned map, l;
	if (b[i] == 0xc5) {
		map = 1;
		l = (b[i + 1] >> 2) & 1;
		op = i + 2;
	} else if (b[i] == 0xc4) {
		map = b[i + 1] & 0x1f;
		l = (b[i + 2] >> 2) & 1;
		op = i + 3;
	} else {
		map = b[i + 1] & 0x07;
		l = (b[i + 3] >> 5) & 3;
		op = i + 4;
	}
	*vlen = l == 0 ? 16 : l == 1 ? 32 : 64;
	/* Loads, compares, tests, logic, min/max, add/sub, broadcasts: what
	 * glibc's string and memory functions do to memory besides storing. */
	static const uint8_t map1[] = { 0x10, 0x28, 0x6f, 0x74, 0x75, 0x76, 0x64, 0x65, 0x66, 0x90,
					0xda, 0xde, 0xdb, 0xdf, 0xeb, 0xef, 0xf8, 0xf9, 0xfa, 0xfb,
					0xfc, 0xfd, 0xfe, 0xd4, 0xea, 0xee };
	static const uint8_t map2[] = { 0x26, 0x27, 0x78, 0x79, 0x58, 0x59, 0x38, 0x39, 0x3a, 0x3b,
					0x3c, 0x3d, 0x3e, 0x3f, 0x29, 0x37, 0x00 };
	static const uint8_t map3[] = { 0x3e, 0x3f, 0x1e, 0x1f, 0x25, 0x0f };
	const uint8_t *t = map == 1 ? map1 : map == 2 ? map2 : map == 3 ? map3 : NULL;
	size_t nt = map == 1 ? sizeof(map1) : map == 2 ? sizeof(map2) : map == 3 ? sizeof(map3) : 0;
	*reads_only = false;
	for (size_t k = 0; t && k < nt; k++)
		*reads_only |= t[k] == b[op];
	return true;
}

/* Decode one instruction without the cache. */
static int decode_raw(struct cts_disasm *d, uint64_t pc, const uint8_t *bytes, size_t len,
		      struct cts_insn *out)
{
	const uint8_t *p = bytes;
	size_t n = len;
	uint64_t addr = pc;

	memset(out, 0, sizeof *out);
	out->pc = pc;
	d->st.decodes++;
	if (cs_disasm_iter(d->cs, &p, &n, &addr, d->ci)) {
		classify(d->ci, out);
		return 0;
	}
	bool has_mem = false, masked = false;
	out->access = CTS_ACC_UNKNOWN;
	out->len = (uint8_t)vex_length(bytes, len, &has_mem, &masked);
	if (out->len) {
		out->has_mem = has_mem;
		out->masked = masked;
	}
	copy_str(out->mnemonic, sizeof out->mnemonic, "(bad)");
	return -1;
}

/* ---- cache -------------------------------------------------------------- */

static size_t slot_of(uint64_t pc, size_t mask)
{
	return (size_t)((pc * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & mask;
}

/* (Re)build the slot array with the given size from the dense values. */
static int cache_rehash(struct cts_disasm *d, size_t nslots)
{
	struct slot *slots = calloc(nslots, sizeof *slots);

	if (!slots)
		return -1;
	free(d->slots);
	d->slots = slots;
	d->mask = nslots - 1;
	for (size_t i = 0; i < d->count; i++) {
		size_t h = slot_of(d->vals[i].pc, d->mask);
		while (slots[h].pc)
			h = (h + 1) & d->mask;
		slots[h].pc = d->vals[i].pc;
		slots[h].idx = (uint32_t)i;
	}
	return 0;
}

static void cache_put(struct cts_disasm *d, const struct cts_insn *in)
{
	if (d->count >= UINT32_MAX)
		return;
	if ((d->count + 1) * 2 > d->mask + 1 && cache_rehash(d, (d->mask + 1) * 2) < 0)
		return;   /* the cache is an optimization: keep going without it */
	if (d->count == d->vcap) {
		size_t ncap = d->vcap ? d->vcap * 2 : CACHE_MIN / 2;
		struct cts_insn *v = realloc(d->vals, ncap * sizeof *v);
		if (!v)
			return;
		d->vals = v;
		d->vcap = ncap;
	}
	size_t h = slot_of(in->pc, d->mask);
	while (d->slots[h].pc)
		h = (h + 1) & d->mask;   /* callers only insert after a miss */
	d->slots[h].pc = in->pc;
	d->slots[h].idx = (uint32_t)d->count;
	d->vals[d->count++] = *in;
}

struct cts_disasm *cts_disasm_new(void)
{
	struct cts_disasm *d = calloc(1, sizeof *d);

	if (!d)
		return NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	if (cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    !(d->ci = cs_malloc(d->cs)) || cache_rehash(d, CACHE_MIN) < 0) {
		cts_disasm_free(d);
		return NULL;
	}
	return d;
}

void cts_disasm_free(struct cts_disasm *d)
{
	if (!d)
		return;
	if (d->ci)
		cs_free(d->ci, 1);
	cs_close(&d->cs);
	free(d->slots);
	free(d->vals);
	free(d);
}

int cts_disasm_decode(struct cts_disasm *d, uint64_t pc, const uint8_t *bytes, size_t len,
		      struct cts_insn *out)
{
	if (!d || !out || (!bytes && len)) {
		errno = EINVAL;
		return -1;
	}
	if (pc) {
		size_t h = slot_of(pc, d->mask);
		while (d->slots[h].pc) {
			if (d->slots[h].pc == pc) {
				d->st.hits++;
				*out = d->vals[d->slots[h].idx];
				return out->decoded ? 0 : -1;
			}
			h = (h + 1) & d->mask;
		}
	}
	int rc = decode_raw(d, pc, bytes, len, out);
	if (pc && (rc == 0 || len >= X86_MAX_INSN))
		cache_put(d, out);
	return rc;
}

void cts_disasm_forget(struct cts_disasm *d)
{
	if (!d)
		return;
	memset(d->slots, 0, (d->mask + 1) * sizeof *d->slots);
	d->count = 0;
}

void cts_disasm_stats(const struct cts_disasm *d, struct cts_disasm_stats *st)
{
	*st = d->st;
	st->entries = d->count;
}

/* ---- addresses ---------------------------------------------------------- */

uint64_t cts_disasm_ea(const struct cts_insn *in, const struct user_regs_struct *regs)
{
	if (!in->has_mem || !in->ea_valid)
		return 0;
	uint64_t ea = (uint64_t)in->disp;
	if (in->rip_rel)
		ea += in->pc + in->len;
	else
		ea += reg_or_zero(in->base, regs);
	ea += reg_or_zero(in->index, regs) * in->scale;
	if (in->bit_reg && in->size) {
		/* The bit offset is signed and selects a word relative to the operand. */
		unsigned bits = in->size * 8;
		uint64_t raw = reg_or_zero(in->bit_reg, regs);
		int64_t off;
		if (bits == 16)
			off = (int16_t)raw;
		else if (bits == 32)
			off = (int32_t)raw;
		else
			off = (int64_t)raw;
		int64_t word = off >> __builtin_ctz(bits);   /* floor division */
		ea += (uint64_t)(word * (int64_t)in->size);
	}
	if (in->addr32)
		ea &= 0xffffffffu;
	if (in->seg == CTS_SEG_FS)
		ea += regs->fs_base;
	else if (in->seg == CTS_SEG_GS)
		ea += regs->gs_base;
	return ea;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void one_range(uint64_t addr, uint64_t count, unsigned elem, bool down, uint64_t *lo,
		      uint64_t *hi)
{
	if (!down) {
		*lo = addr;
		*hi = sat_add(addr, sat_mul(count, elem));
	} else {
		uint64_t span = sat_mul(count - 1, elem);
		*lo = addr >= span ? addr - span : 0;
		*hi = sat_add(addr, elem);
	}
}

void cts_disasm_string_ranges(const struct cts_insn *in, const struct user_regs_struct *regs,
			      uint64_t *src_lo, uint64_t *src_hi, uint64_t *dst_lo,
			      uint64_t *dst_hi)
{
	*src_lo = *src_hi = *dst_lo = *dst_hi = 0;
	if (in->access != CTS_ACC_STRING || !in->elem)
		return;
	uint64_t mask = in->addr32 ? 0xffffffffu : UINT64_MAX;
	uint64_t count = in->rep ? regs->rcx & mask : 1;
	bool down = regs->eflags & (1u << 10);
	if (!count)
		return;
	if (in->str_reads_src) {
		uint64_t a = regs->rsi & mask;
		if (in->seg == CTS_SEG_FS)
			a += regs->fs_base;
		else if (in->seg == CTS_SEG_GS)
			a += regs->gs_base;
		one_range(a, count, in->elem, down, src_lo, src_hi);
	}
	if (in->str_writes_dst || in->str_reads_dst)
		one_range(regs->rdi & mask, count, in->elem, down, dst_lo, dst_hi);
}

/* ---- scan --------------------------------------------------------------- */

bool cts_disasm_may_share(const struct cts_insn *in)
{
	switch (in->access) {
	case CTS_ACC_READ: case CTS_ACC_WRITE: case CTS_ACC_RMW: case CTS_ACC_ATOMIC:
	case CTS_ACC_STRING:
		return true;
	case CTS_ACC_UNKNOWN:
		return in->has_mem;
	default:
		return false;
	}
}

bool cts_disasm_rip_call(const struct cts_insn *in)
{
	return (in->is_call || in->is_branch) && in->has_mem && in->rip_rel && in->len;
}

bool cts_disasm_mem_operand(const struct cts_insn *in)
{
	return (in->access == CTS_ACC_STACK || in->is_call || in->is_branch) && in->has_mem &&
	       in->ea_valid && !in->is_ret && in->base != X86_REG_RSP && in->base != X86_REG_ESP;
}

int cts_disasm_scan(struct cts_disasm *d, uint64_t base, const uint8_t *code, size_t len,
		    unsigned what, cts_disasm_scan_fn fn, void *arg)
{
	struct cts_insn in;
	int reported = 0;

	if (!d || !fn || (!code && len)) {
		errno = EINVAL;
		return -1;
	}
	for (size_t off = 0; off < len;) {
		decode_raw(d, base + off, code + off, len - off, &in);
		if (((what & CTS_SCAN_SHARED) &&
		     (cts_disasm_may_share(&in) || cts_disasm_rip_call(&in))) ||
		    ((what & CTS_SCAN_OPERANDS) && cts_disasm_mem_operand(&in))) {
			fn(&in, arg);
			reported++;
		}
		off += in.len ? in.len : 1;
	}
	return reported;
}

/* ---- relocation (tracer/stub.c's out-of-line copies) --------------------- */

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static void put32(uint8_t *p, int64_t v)
{
	uint32_t u = (uint32_t)(int32_t)v;
	memcpy(p, &u, 4);
}

int cts_disasm_relocate(struct cts_disasm *d, uint64_t pc, const uint8_t *bytes, size_t len,
			size_t min, uint64_t to, uint8_t *out, size_t cap, size_t *used)
{
	size_t in_off = 0, o = 0;

	if (!d || !bytes || !out || !used) {
		errno = EINVAL;
		return -1;
	}
	while (in_off < min) {
		const uint8_t *p = bytes + in_off;
		size_t n = len - in_off;
		uint64_t addr = pc + in_off;
		if (!n || !cs_disasm_iter(d->cs, &p, &n, &addr, d->ci))
			return -1;
		const cs_insn *ci = d->ci;
		const cs_x86 *x = &ci->detail->x86;
		size_t il = ci->size;
		uint64_t next_old = pc + in_off + il;
		if (cs_insn_group(d->cs, ci, X86_GRP_CALL) || cs_insn_group(d->cs, ci, X86_GRP_RET) ||
		    cs_insn_group(d->cs, ci, X86_GRP_INT) || cs_insn_group(d->cs, ci, X86_GRP_IRET) ||
		    ci->id == X86_INS_SYSCALL || ci->id == X86_INS_SYSENTER || ci->id == X86_INS_LOOP ||
		    ci->id == X86_INS_LOOPE || ci->id == X86_INS_LOOPNE || ci->id == X86_INS_JRCXZ ||
		    ci->id == X86_INS_JECXZ || ci->id == X86_INS_INT3)
			return -1;
		bool jump = cs_insn_group(d->cs, ci, X86_GRP_JUMP);
		if (jump && ci->id == X86_INS_JMP && in_off + il < min)
			return -1; /* what follows it would never run here */
		if (jump && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			/* jmp rel or jcc rel: a rel32 form aimed at the same target */
			int64_t target = x->operands[0].imm;
			uint8_t op = x->opcode[0];
			size_t nl = ci->id == X86_INS_JMP ? 5 : 6;
			if (o + nl > cap)
				return -1;
			int64_t rel = target - (int64_t)(to + o + nl);
			if (!fits32(rel))
				return -1;
			if (ci->id == X86_INS_JMP) {
				out[o] = 0xE9;
			} else {
				uint8_t cc = op >= 0x70 && op <= 0x7F ? op - 0x70 :
					     op == 0x0F ? (uint8_t)(x->opcode[1] - 0x80) : 0xFF;
				if (cc > 15)
					return -1;
				out[o] = 0x0F;
				out[o + 1] = (uint8_t)(0x80 + cc);
			}
			put32(out + o + nl - 4, rel);
			o += nl;
			in_off += il;
			continue;
		}
		if (o + il > cap)
			return -1;
		memcpy(out + o, bytes + in_off, il);
		for (int i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];
			if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP)
				continue;
			if (x->encoding.disp_size != 4 || !x->encoding.disp_offset)
				return -1;
			int64_t target = (int64_t)next_old + op->mem.disp;
			int64_t disp = target - (int64_t)(to + o + il);
			if (!fits32(disp))
				return -1;
			put32(out + o + x->encoding.disp_offset, disp);
		}
		if (jump && x->op_count == 1 && x->operands[0].type != X86_OP_MEM &&
		    x->operands[0].type != X86_OP_REG)
			return -1;
		o += il;
		in_off += il;
	}
	*used = in_off;
	return (int)o;
}
