/* Attributing a data-breakpoint trap to its instruction (see attrib.h). */
#include "hw/attrib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <capstone/capstone.h>

#include "disasm/disasm.h"

#define MAX_INSN 15

/* Does [lo, lo+len) overlap the watched bytes [wlo, whi)? */
static bool overlaps(uint64_t lo, uint64_t len, uint64_t wlo, uint64_t whi)
{
	return len && lo < whi && wlo < lo + len;
}

/* push, pushf, call, enter: the stack slot is written; pop, popf, ret,
 * leave: read.  Anything else is not a stack operation. */
static bool stack_op(const struct cts_insn *x, bool *pushes)
{
	const char *m = x->mnemonic;
	*pushes = x->is_call || strncmp(m, "push", 4) == 0 || strcmp(m, "enter") == 0;
	return *pushes || x->is_ret || strncmp(m, "pop", 3) == 0 || strcmp(m, "leave") == 0;
}

enum cts_attr_kind cts_attr_insn_kind(const struct cts_insn *x)
{
	bool pushes;
	if (x->access == CTS_ACC_STRING)
		return x->str_writes_dst ? CTS_ATTR_WRITE : CTS_ATTR_READ;
	if (stack_op(x, &pushes) || x->is_branch) {
		/* push [m], call/jmp *[m] only read the operand, pop [m] only
		 * writes it; without one, the stack slot's kind. */
		if (x->has_mem && !x->is_ret)
			return strncmp(x->mnemonic, "pop", 3) == 0 ? CTS_ATTR_WRITE : CTS_ATTR_READ;
		return pushes ? CTS_ATTR_WRITE : CTS_ATTR_READ;
	}
	if (x->access == CTS_ACC_ATOMIC || x->lock)
		return CTS_ATTR_ATOMIC;
	if (x->reads && x->writes)
		return CTS_ATTR_RMW;
	return x->writes ? CTS_ATTR_WRITE : CTS_ATTR_READ;
}

int cts_attr_accesses(const struct cts_insn *x, const struct user_regs_struct *r, bool after,
		      struct cts_attr_access acc[3])
{
	int n = 0;
	bool pushes;

	if (x->access == CTS_ACC_STRING) {
		uint64_t mask = x->addr32 ? 0xffffffffu : UINT64_MAX;
		if (!x->elem || (!after && x->rep && !(r->rcx & mask)))
			return 0;
		/* After an iteration rsi/rdi have moved one element on (back for DF). */
		int64_t step = (r->eflags & 0x400) ? -(int64_t)x->elem : (int64_t)x->elem;
		uint64_t back = after ? (uint64_t)step : 0;
		uint64_t src = (r->rsi - back) & mask, dst = (r->rdi - back) & mask;
		if (x->seg == CTS_SEG_FS)
			src += r->fs_base;
		else if (x->seg == CTS_SEG_GS)
			src += r->gs_base;
		if (x->str_writes_dst || x->str_reads_dst)
			acc[n++] = (struct cts_attr_access){ dst, x->elem, x->str_writes_dst ?
							     CTS_ATTR_WRITE : CTS_ATTR_READ };
		if (x->str_reads_src)
			acc[n++] = (struct cts_attr_access){ src, x->elem, CTS_ATTR_READ };
		return n;
	}
	bool stack = stack_op(x, &pushes);
	if (x->has_mem && x->ea_valid && x->access != CTS_ACC_NONE) {
		uint64_t ea = cts_disasm_ea(x, r);
		/* push [rsp+d] computed its address before rsp moved down */
		if (after && pushes && !x->is_call && x->base == X86_REG_RSP)
			ea += x->size ? x->size : 8;
		acc[n++] = (struct cts_attr_access){ ea, x->size, cts_attr_insn_kind(x) };
	}
	if (stack) {
		uint32_t sz = x->has_mem || !x->size ? 8 : x->size;
		uint64_t slot;
		if (pushes)
			slot = after ? r->rsp : r->rsp - sz;
		else if (strcmp(x->mnemonic, "leave") == 0)
			slot = after ? r->rsp - sz : r->rbp;
		else
			slot = after ? r->rsp - sz : r->rsp;
		acc[n++] = (struct cts_attr_access){ slot, sz, pushes ? CTS_ATTR_WRITE : CTS_ATTR_READ };
	}
	return n;
}

/* Could x have changed a register its own address was computed from?
 * Loads and exchanges write a register; a plain store does not. */
static bool may_move_address(const struct cts_insn *x)
{
	return x->reads || x->access == CTS_ACC_ATOMIC || x->access == CTS_ACC_UNKNOWN;
}

/* How x, just executed (registers r are those after it), touched the
 * watched bytes: 1 proven (address recomputed and overlapping), 0 it touches
 * memory but the address cannot be recomputed, -1 it did not touch them. */
static int verify(const struct cts_insn *x, const struct user_regs_struct *r, uint64_t wlo,
		  uint64_t whi, enum cts_attr_kind *kind, uint32_t *size,
		  uint64_t *addr)
{
	struct cts_attr_access acc[3];
	bool pushes;

	*addr = 0;
	if (x->is_call || x->is_ret || x->is_branch)
		return -1; /* the trap pc would be its target, not the next instruction */
	int n = cts_attr_accesses(x, r, true, acc);
	for (int i = 0; i < n; i++) {
		if (overlaps(acc[i].addr, acc[i].size ? acc[i].size : 1, wlo, whi)) {
			*kind = acc[i].kind;
			*size = acc[i].size;
			*addr = acc[i].addr;
			return 1;
		}
	}
	if (x->access == CTS_ACC_STRING)
		return -1;
	if (stack_op(x, &pushes) && !x->has_mem) {
		*size = n ? acc[0].size : 8;
		*kind = cts_attr_insn_kind(x);
		return strncmp(x->mnemonic, "pop", 3) == 0 ? 0 : -1; /* pop rsp moves it */
	}
	if (!x->has_mem || x->access == CTS_ACC_NONE)
		return -1;
	*kind = cts_attr_insn_kind(x);
	*size = x->size;
	if (!x->ea_valid)
		return 0;
	return may_move_address(x) ? 0 : -1;
}

static void fill(struct cts_attr *out, const struct cts_insn *x, enum cts_attr_kind k,
		 uint32_t size, uint64_t addr)
{
	out->pc = x->pc;
	out->addr = addr;
	out->kind = k;
	out->size = size;
	out->exact = true;
	out->located = true;
	/* "mnemonic operands": at every trap, so no printf; both fit */
	_Static_assert(sizeof(x->mnemonic) + sizeof(x->op_str) <= sizeof(out->text),
		       "an instruction's text fits");
	size_t n = strlen(x->mnemonic), ops = strlen(x->op_str);
	memcpy(out->text, x->mnemonic, n);
	if (ops) {
		out->text[n++] = ' ';
		memcpy(out->text + n, x->op_str, ops);
		n += ops;
	}
	out->text[n] = '\0';
}

static int decode(struct cts_disasm *d, const struct cts_attr_input *in, uint64_t pc,
		  struct cts_insn *x)
{
	if (pc < in->code_lo || pc >= in->code_lo + in->code_len)
		return -1;
	size_t off = (size_t)(pc - in->code_lo);
	size_t n = in->code_len - off;
	if (cts_disasm_decode(d, pc, in->code + off, n < MAX_INSN ? n : MAX_INSN, x) != 0 ||
	    !x->len)
		return -1; /* x->len may still be known (see cts_disasm_decode) */
	return 0;
}

/* The instruction ending exactly at the trap pc, decoded forward from a
 * known boundary: 0 and *x, 1 and *x undecoded but of a known length (a
 * VEX/EVEX instruction capstone 4 cannot decode, such as AVX-512 kmovq:
 * its length carries the sweep over it), or -1 (the sweep does not land
 * on the trap pc). */
static int predecessor(struct cts_disasm *d, const struct cts_attr_input *in,
		       struct cts_insn *x)
{
	uint64_t pc = in->code_lo;
	while (pc < in->trap_pc) {
		int rc = decode(d, in, pc, x);
		if (rc != 0 && !x->len)
			return -1;
		if (pc + x->len == in->trap_pc)
			return rc == 0 ? 0 : 1;
		pc += x->len;
	}
	return -1;
}

int cts_attr_locate(struct cts_disasm *d, const struct cts_attr_input *in,
		    struct cts_attr_site *site)
{
	if (!d || !in || !site || !in->code || in->code_lo > in->trap_pc) {
		errno = EINVAL;
		return -1;
	}
	memset(site, 0, sizeof(*site));
	site->trap_pc = in->trap_pc;
	site->boundary = in->boundary;
	/* A rep string instruction with iterations left traps with rip still on it. */
	site->rep_here = decode(d, in, in->trap_pc, &site->self) == 0 && site->self.rep &&
			 site->self.access == CTS_ACC_STRING;
	if (in->boundary) {
		site->pred = predecessor(d, in, &site->x);
		return 0;
	}
	/* No boundary: every start 1..15 bytes back that decodes to an
	 * instruction ending at the trap pc, nearest first. */
	uint64_t span = in->trap_pc - in->code_lo;
	site->nbefore = span < MAX_INSN ? (int)span : MAX_INSN;
	if (in->code_len >= span)
		memcpy(site->before + MAX_INSN - site->nbefore, in->code + span - site->nbefore,
		       (size_t)site->nbefore);
	else
		site->nbefore = 0; /* the trap pc is past what could be read */
	for (int back = 1; back <= site->nbefore; back++) {
		struct cts_insn *x = &site->cand[site->ncand];
		uint64_t pc = in->trap_pc - (uint64_t)back;
		if (decode(d, in, pc, x) == 0 && pc + x->len == in->trap_pc)
			site->ncand++;
	}
	return 0;
}

/* Are the bytes [lo, hi) before the trap pc all legacy or REX prefixes?
 * Then the candidate at lo is the one at hi with its prefixes (lock, rep,
 * operand size, REX): the longer reading wins. */
static bool only_prefixes(const struct cts_attr_site *site, uint64_t lo, uint64_t hi)
{
	static const uint8_t legacy[] = { 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64,
					  0x65, 0x66, 0x67 };
	for (uint64_t pc = lo; pc < hi; pc++) {
		uint8_t b = site->before[MAX_INSN - (site->trap_pc - pc)];
		if (b >= 0x40 && b <= 0x4f)
			continue;
		if (!memchr(legacy, b, sizeof(legacy)))
			return false;
	}
	return true;
}

const char *cts_attr_kind_name(enum cts_attr_kind k)
{
	switch (k) {
	case CTS_ATTR_READ: return "read";
	case CTS_ATTR_WRITE: return "write";
	case CTS_ATTR_RMW: return "rmw";
	case CTS_ATTR_ATOMIC: return "atomic";
	default: return "access";
	}
}

int cts_attr_judge(const struct cts_attr_site *site, const struct cts_hw_set *set, int slot,
		   const struct user_regs_struct *regs, struct cts_attr *out)
{
	if (!site || !out || !set || !regs || slot < 0 || slot >= CTS_HW_SLOTS ||
	    !set->w[slot].used) {
		errno = EINVAL;
		return -1;
	}
	const struct cts_hw_watch *w = &set->w[slot];
	uint64_t wlo = w->addr, whi = w->addr + w->len;
	enum cts_attr_kind k = CTS_ATTR_ACCESS;
	uint32_t size = 0;
	uint64_t ea = 0;

	memset(out, 0, sizeof(*out));
	out->pc = site->trap_pc;
	out->kind = w->kind == CTS_HW_WRITE ? CTS_ATTR_WRITE : CTS_ATTR_ACCESS;

	if (site->boundary) {
		const struct cts_insn *x = &site->x;
		int v = site->pred == 0 ? verify(x, regs, wlo, whi, &k, &size, &ea) : -1;
		if (v == 1) {
			fill(out, x, k, size, ea);
			return 0;
		}
		enum cts_attr_kind sk = CTS_ATTR_ACCESS;
		uint32_t ssize = 0;
		uint64_t sea = 0;
		if (site->rep_here && verify(&site->self, regs, wlo, whi, &sk, &ssize, &sea) == 1) {
			fill(out, &site->self, sk, ssize, sea);
			return 0;
		}
		if (v == 0) {
			fill(out, x, k, size, ea);
			return 0;
		}
		if (site->pred == 1 && x->has_mem) {
			/* It made the access (nothing else ends here), how is not
			 * known: its pc, the watch's own kind. */
			out->pc = x->pc;
			out->located = true;
			snprintf(out->text, sizeof(out->text), "(undecoded)");
		}
		return 0;
	}

	/* Exactly one candidate provably touching the watched bytes (or one
	 * pc) is an answer. */
	if (site->rep_here && verify(&site->self, regs, wlo, whi, &k, &size, &ea) == 1) {
		fill(out, &site->self, k, size, ea);
		return 0;
	}
	int found = 0;
	const struct cts_insn *best = NULL;
	enum cts_attr_kind bk = CTS_ATTR_ACCESS;
	uint32_t bsize = 0;
	uint64_t bea = 0;
	for (int i = 0; i < site->ncand; i++) {
		const struct cts_insn *x = &site->cand[i];
		if (verify(x, regs, wlo, whi, &k, &size, &ea) != 1)
			continue;
		if (found && !only_prefixes(site, x->pc, best->pc)) {
			found = 2; /* two readings of the bytes: no answer */
			break;
		}
		best = x;
		bea = ea;
		bk = k;
		bsize = size;
		found = 1;
	}
	if (found == 1)
		fill(out, best, bk, bsize, bea);
	return 0;
}

/* Did call x, through memory, read [wlo, whi)?  r: after it (rsp 8 lower,
 * rip its target); its operand's address was computed before the push. */
static bool call_read(const struct cts_insn *x, const struct user_regs_struct *r, uint64_t wlo,
		      uint64_t whi, uint64_t *ea)
{
	if (!x->is_call || !x->has_mem || !x->ea_valid)
		return false;
	struct user_regs_struct before = *r;
	before.rsp += 8;
	*ea = cts_disasm_ea(x, &before);
	return overlaps(*ea, x->size ? x->size : 8, wlo, whi);
}

int cts_attr_judge_call(const struct cts_attr_site *ret_site, const struct cts_hw_set *set,
			int slot, const struct user_regs_struct *regs, struct cts_attr *out)
{
	if (!ret_site || !out || !set || !regs || slot < 0 || slot >= CTS_HW_SLOTS ||
	    !set->w[slot].used) {
		errno = EINVAL;
		return -1;
	}
	uint64_t wlo = set->w[slot].addr, whi = wlo + set->w[slot].len, ea = 0, bea = 0;
	const struct cts_insn *best = NULL;
	if (ret_site->boundary) {
		if (ret_site->pred == 0 && call_read(&ret_site->x, regs, wlo, whi, &bea))
			best = &ret_site->x;
	} else {
		for (int i = 0; i < ret_site->ncand; i++) {
			const struct cts_insn *x = &ret_site->cand[i];
			if (!call_read(x, regs, wlo, whi, &ea))
				continue;
			if (best && !only_prefixes(ret_site, x->pc, best->pc))
				return -1; /* two readings of the bytes */
			best = x;
			bea = ea;
		}
	}
	if (!best)
		return -1;
	fill(out, best, cts_attr_insn_kind(best), best->size ? best->size : 8, bea);
	return 0;
}

/* Does verify's answer on x depend on the registers? Only through the
 * address: a string, a stack slot, a base, an index, a bit offset or a
 * segment base; branches are never verified. */
static bool reads_regs(const struct cts_insn *x)
{
	bool pushes;
	if (x->is_call || x->is_ret || x->is_branch)
		return false;
	if (x->access == CTS_ACC_STRING || stack_op(x, &pushes))
		return true;
	return x->has_mem && ((!x->rip_rel && x->base) || x->index || x->bit_reg ||
			      x->seg != CTS_SEG_NONE);
}

bool cts_attr_site_uses_regs(const struct cts_attr_site *site)
{
	if (site->rep_here)
		return true;
	if (site->boundary)
		return site->pred == 0 && reads_regs(&site->x);
	for (int i = 0; i < site->ncand; i++)
		if (reads_regs(&site->cand[i]))
			return true;
	return false;
}

/* The plain move at->pc is, if the judged instruction is one. */
static const struct cts_insn *judged(const struct cts_attr_site *site, const struct cts_attr *at)
{
	if (!at->exact || !at->size || at->size > 8)
		return NULL;
	if (site->pred == 0 && site->x.pc == at->pc)
		return &site->x;
	for (int i = 0; i < site->ncand; i++)
		if (site->cand[i].pc == at->pc)
			return &site->cand[i];
	return NULL; /* a rep string instruction, or none */
}

int cts_attr_moved_reg(const struct cts_attr_site *site, const struct cts_attr *at)
{
	const struct cts_insn *x = site && at ? judged(site, at) : NULL;
	if (!x)
		return -1;
	switch (x->emu) {
	case CTS_EMU_LOAD:      /* the register holds what it loaded */
	case CTS_EMU_STORE_REG: /* and what it stored (a store leaves it as it was) */
		return x->emu_reg > 0 ? x->emu_reg : -1;
	case CTS_EMU_STORE_IMM:
		return 0;
	default:
		return -1;
	}
}

int cts_attr_moved(const struct cts_attr_site *site, const struct cts_attr *at,
		   const struct user_regs_struct *regs, uint64_t *value)
{
	int reg = cts_attr_moved_reg(site, at);
	uint64_t v;
	if (reg < 0 || !regs)
		return -1;
	if (reg == 0)
		v = (uint64_t)judged(site, at)->emu_imm;
	else if (cts_disasm_reg_value(reg, regs, &v) != 0)
		return -1;
	*value = at->size == 8 ? v : v & ((1ULL << (8 * at->size)) - 1);
	return 0;
}

int cts_attr_find(struct cts_disasm *d, const struct cts_attr_input *in, struct cts_attr *out)
{
	struct cts_attr_site site;
	if (!in || !in->set || !in->regs || in->slot < 0 || in->slot >= CTS_HW_SLOTS ||
	    !in->set->w[in->slot].used) {
		errno = EINVAL;
		return -1;
	}
	if (cts_attr_locate(d, in, &site) != 0)
		return -1;
	return cts_attr_judge(&site, in->set, in->slot, in->regs, out);
}
