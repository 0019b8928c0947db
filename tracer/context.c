/* Cheap calling contexts: cached CFI rules, one stack read (see context.h). */
#include "tracer/context.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "models/error.h"
#include "tracer/proc.h"

#define STACK_WINDOW 2048   /* bytes read at once from rsp up (deeper words: one read each) */
#define MAX_SKIP 8          /* frames searched for the statement's own */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/* How to find the caller's frame from a pc (x86-64 DWARF register numbers). */
struct rule {
	uint64_t pc;        /* 0 = empty slot */
	bool ok;
	uint8_t cfa_reg;    /* REG_RSP or REG_RBP */
	bool rbp_saved;     /* rbp at CFA + rbp_off, else unchanged */
	int64_t cfa_off, ra_off, rbp_off;
};

struct cts_ctx {
	Dwfl *dwfl;
	pid_t reported;     /* the process whose maps the modules came from */
	struct rule *rules; /* open addressing by pc */
	size_t cap, n;
	uint64_t nrules, ncaptures;
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

struct cts_ctx *cts_ctx_new(void)
{
	return cts_xcalloc(1, sizeof(struct cts_ctx));
}

void cts_ctx_free(struct cts_ctx *c)
{
	if (!c)
		return;
	if (c->dwfl)
		dwfl_end(c->dwfl);
	free(c->rules);
	free(c);
}

void cts_ctx_stats(const struct cts_ctx *c, uint64_t *rules, uint64_t *captures)
{
	*rules = c ? c->nrules : 0;
	*captures = c ? c->ncaptures : 0;
}

static int report(struct cts_ctx *c, pid_t pid)
{
	if (!c->dwfl && !(c->dwfl = dwfl_begin(&callbacks)))
		return -1;
	dwfl_report_begin(c->dwfl);
	int r = dwfl_linux_proc_report(c->dwfl, pid);
	if (dwfl_report_end(c->dwfl, NULL, NULL) != 0 || r != 0)
		return -1;
	c->reported = pid;
	return 0;
}

/* DW_OP_call_frame_cfa [DW_OP_plus_uconst N]: the offset from the CFA. */
static bool cfa_offset(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops < 1 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*off = nops == 2 && ops[1].atom == DW_OP_plus_uconst ? (int64_t)ops[1].number : 0;
	return nops == 1 || ops[1].atom == DW_OP_plus_uconst;
}

/* Decode the rules at pc (a return address minus one for callers). */
static void decode(struct cts_ctx *c, uint64_t pc, struct rule *r)
{
	r->ok = false;
	Dwfl_Module *mod = c->dwfl ? dwfl_addrmodule(c->dwfl, pc) : NULL;
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	if (!cfi && mod)
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
	Dwarf_Frame *fr = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
		return;
	Dwarf_Op *ops, mem[3];
	size_t nops;
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1)
		goto out;
	/* libdw writes def_cfa(reg, off) as DW_OP_bregx reg off. */
	uint64_t reg = ops[0].atom == DW_OP_bregx ? ops[0].number : (uint64_t)ops[0].atom - DW_OP_breg0;
	int64_t off = (int64_t)(ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number);
	if ((ops[0].atom != DW_OP_bregx && (ops[0].atom < DW_OP_breg0 || ops[0].atom > DW_OP_breg31)) ||
	    (reg != REG_RSP && reg != REG_RBP))
		goto out;
	r->cfa_reg = (uint8_t)reg;
	r->cfa_off = off;
	if (dwarf_frame_register(fr, REG_RA, mem, &ops, &nops) != 0 ||
	    !cfa_offset(ops, nops, &r->ra_off))
		goto out;
	if (dwarf_frame_register(fr, REG_RBP, mem, &ops, &nops) != 0)
		goto out;
	if (nops == 0 && !ops)
		r->rbp_saved = false;      /* same value */
	else if (cfa_offset(ops, nops, &r->rbp_off))
		r->rbp_saved = true;
	else
		goto out;
	r->ok = true;
out:
	free(fr);
}

static const struct rule *rule_at(struct cts_ctx *c, uint64_t pc)
{
	if (2 * (c->n + 1) > c->cap) {
		size_t ocap = c->cap, ncap = ocap ? 2 * ocap : 1024;
		struct rule *old = c->rules;
		c->rules = cts_xcalloc(ncap, sizeof(*c->rules));
		c->cap = ncap;
		for (size_t i = 0; i < ocap; i++) {
			if (!old[i].pc)
				continue;
			size_t j = (old[i].pc * 0x9E3779B97F4A7C15ull) & (ncap - 1);
			while (c->rules[j].pc)
				j = (j + 1) & (ncap - 1);
			c->rules[j] = old[i];
		}
		free(old);
	}
	size_t j = (pc * 0x9E3779B97F4A7C15ull) & (c->cap - 1);
	while (c->rules[j].pc && c->rules[j].pc != pc)
		j = (j + 1) & (c->cap - 1);
	if (!c->rules[j].pc) {
		c->rules[j].pc = pc;
		decode(c, pc, &c->rules[j]);
		c->n++;
		c->nrules++;
	}
	return &c->rules[j];
}

/* The stack window read at once; words outside it are read one by one. */
struct window {
	pid_t tid;
	uint64_t lo;
	size_t len;
	uint8_t buf[STACK_WINDOW];
};

static bool word_at(struct window *w, uint64_t addr, uint64_t *v)
{
	if (addr >= w->lo && addr + 8 <= w->lo + w->len) {
		memcpy(v, w->buf + (addr - w->lo), 8);
		return true;
	}
	return cts_mem_read(w->tid, addr, v, 8) == 0;
}

int cts_ctx_capture(struct cts_ctx *c, pid_t pid, pid_t tid, const struct user_regs_struct *regs,
		    uint64_t stmt_pc, int k, uint64_t *ret)
{
	uint64_t frames[MAX_SKIP + 16];
	int maxf = k + MAX_SKIP + 1, nf = 0;
	if (k < 0 || maxf > (int)(sizeof(frames) / sizeof(frames[0])))
		return -1;
	memset(ret, 0, (size_t)k * sizeof(*ret));
	if (k == 0)
		return 0;
	if (c->reported != pid && report(c, pid) != 0)
		return -1;
	c->ncaptures++;
	static struct window w;   /* not on the stack */
	w.tid = tid;
	w.lo = regs->rsp;
	struct iovec local = { w.buf, sizeof(w.buf) }, remote = { (void *)(uintptr_t)regs->rsp,
								   sizeof(w.buf) };
	ssize_t got = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	w.len = got > 0 ? (size_t)got : 0;
	uint64_t pc = regs->rip, sp = regs->rsp, bp = regs->rbp;
	frames[nf++] = pc;
	while (nf < maxf) {
		/* Callers stand after their call: look their rule up inside it. */
		const struct rule *r = rule_at(c, nf == 1 ? pc : pc - 1);
		if (!r->ok)
			break;
		uint64_t cfa = (r->cfa_reg == REG_RSP ? sp : bp) + (uint64_t)r->cfa_off, ra, nbp = bp;
		if (!word_at(&w, cfa + (uint64_t)r->ra_off, &ra) || ra == 0)
			break;
		if (r->rbp_saved && !word_at(&w, cfa + (uint64_t)r->rbp_off, &nbp))
			break;
		pc = ra;
		sp = cfa;
		bp = nbp;
		frames[nf++] = pc;
	}
	/* The statement's own frame: where the thread stands (an access), or the
	 * frame whose call it is (a library call held at the callee's entry). */
	int own = 0;
	for (int i = 0; i < nf && i <= MAX_SKIP; i++) {
		if ((i == 0 && frames[0] == stmt_pc) || (i > 0 && frames[i] - 1 == stmt_pc)) {
			own = i;
			break;
		}
	}
	int n = 0;
	for (int i = own + 1; i < nf && n < k; i++)
		ret[n++] = frames[i];
	return n;
}
