/* Out-of-line traps for libc's entry points: a pthread call costs one stop
 * that needs no register write and no step to go on.
 *
 * A plain int3 on an entry point costs, per call, the stop, a register read,
 * a read of the return address, a register write (rip rewound, or the
 * emulated first instruction's result) and the resume. Here the first
 * instructions of each entry point (at least 5 bytes, whole instructions)
 * are copied into a stub, and the entry point gets a jmp to it:
 *
 *     stub:  mov (%rsp),%r11     the return address, for the tracer
 *            int3                the trap: the thread stops here
 *            <the displaced instructions, relocated>
 *            jmp entry+len
 *
 * The stop's registers carry the arguments and, in r11 (a scratch register
 * at any call), the return address; the thread held there goes on with a
 * plain PTRACE_CONT from just past the int3: wait4, one GETREGS, one CONT.
 *
 * The stub page is mapped by an injected mmap(2) in the process stopped at
 * its ELF entry point, at the same address in every exec'd run (ASLR is
 * off), and the fork server's runs inherit it. The patch table (struct bp's
 * saved bytes) undoes every jmp. An entry point is left to the plain int3
 * when its first instructions cannot run elsewhere (cts_disasm_relocate) or
 * when any direct jump in libc's or ld.so's text, read as bytes at every
 * offset (so more than the real instructions), lands inside the bytes the
 * jmp covers. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "disasm/disasm.h"
#include "models/error.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"

#define SLOT 128           /* bytes per stub */
#define HEAD 4             /* mov (%rsp),%r11 */
#define MAX_INSNS 8
/* After the stubs: syscall; int3 (the fork server's clone), then the
 * libc/ld.so text ranges the filters compare the return address with. */
#define AUX_SYSCALL 0
#define AUX_RANGES 16
#define AUX_LEN (AUX_RANGES + 4 * 16)

struct cts_stub {
	uint64_t entry, code;  /* the entry point; its stub */
	size_t used;           /* bytes of the entry point the jmp displaces */
	uint8_t trap_off;      /* the int3 */
	int n;                 /* displaced instructions: offsets in libc and in the stub */
	uint8_t old_off[MAX_INSNS], new_off[MAX_INSNS];
};

/* Run mmap(2) in pid, stopped at regs (its rip on code we may overwrite for
 * a moment). The mapping's address, or 0. */
static uint64_t inject_mmap(pid_t pid, const struct user_regs_struct *regs, uint64_t hint,
			    size_t len, int flags)
{
	const uint64_t args[6] = { hint, len, PROT_READ | PROT_EXEC, (uint64_t)flags,
				   (uint64_t)-1, 0 };
	int64_t res;
	if (cts_inject_syscall(pid, regs, 0, SYS_mmap, args, &res) != 0 ||
	    (uint64_t)res >= (uint64_t)-4096)
		return 0;
	return (uint64_t)res;
}

/* The targets of every direct jump or call in libc's and ld.so's text that
 * land in [lo, hi), sorted. Every byte offset is read as an instruction
 * start, so there are more than the real ones: a target found may be a
 * false alarm, one not found is sure for direct branches. */
struct text {
	uint64_t *targets;
	size_t n, cap;
	bool unreadable;        /* some text could not be read: trust nothing */
};

static void add_target(struct text *t, int64_t target, uint64_t lo, uint64_t hi)
{
	if ((uint64_t)target < lo || (uint64_t)target >= hi)
		return;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 4096;
		t->targets = cts_xrealloc(t->targets, t->cap * sizeof(*t->targets));
	}
	t->targets[t->n++] = (uint64_t)target;
}

static void scan_branches(struct text *t, const uint8_t *code, size_t n, uint64_t base,
			  uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i + 2 <= n; i++) {
		uint8_t op = code[i];
		int32_t rel;
		if ((op == 0xE8 || op == 0xE9) && i + 5 <= n) {
			memcpy(&rel, code + i + 1, 4);
			add_target(t, (int64_t)(base + i + 5) + rel, lo, hi);
		}
		if (op == 0x0F && (code[i + 1] & 0xF0) == 0x80 && i + 6 <= n) {
			memcpy(&rel, code + i + 2, 4);
			add_target(t, (int64_t)(base + i + 6) + rel, lo, hi);
		}
		if (op == 0xEB || (op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3))
			add_target(t, (int64_t)(base + i + 2) + (int8_t)code[i + 1], lo, hi);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Does a direct branch land in (lo, hi)? */
static bool text_branch_into(const struct text *t, uint64_t lo, uint64_t hi)
{
	if (t->unreadable)
		return true;
	size_t a = 0, b = t->n; /* the first target > lo */
	while (a < b) {
		size_t m = (a + b) / 2;
		if (t->targets[m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a < t->n && t->targets[a] < hi;
}

/* Build the stub of entry point b at code (slot k); false if it cannot have
 * one. ranges: where the libc/ld.so text ranges are in the page (0: no
 * filter). */
static bool make_stub(struct cts_tracer *tr, struct cts_disasm *d, const struct text *t,
		      struct bp *b, uint64_t code, uint8_t *slot, uint64_t ranges,
		      struct cts_stub *s)
{
	uint8_t bytes[32];
	size_t used = 0;
	int64_t back, to_stub = (int64_t)code - (int64_t)(b->addr + 5);

	if (to_stub < INT32_MIN || to_stub > INT32_MAX ||
	    cts_mem_read(tr->pid, b->addr, bytes, sizeof(bytes)) != 0)
		return false;
	static const uint8_t head[HEAD] = { 0x4C, 0x8B, 0x1C, 0x24 };
	memcpy(slot, head, sizeof(head));
	size_t o = HEAD;
	if (ranges && cts_tr_sync_internal_ok(b->fn)) {
		/* libc's own calls (its locks) go past the int3: the tracer would
		 * let them through anyway (sync.c), here without a stop. Flags
		 * are scratch at a call (the ABI keeps only DF). */
		size_t skip = HEAD + (size_t)tr->nlibc_ranges * 18 + 1;
		for (int i = 0; i < tr->nlibc_ranges; i++) {
			for (int k = 0; k < 2; k++) { /* cmp lo/hi(%rip),%r11; jb */
				int32_t rel = (int32_t)((int64_t)(ranges + (uint64_t)(16 * i + 8 * k)) -
						      (int64_t)(code + o + 7));
				slot[o] = 0x4C, slot[o + 1] = 0x3B, slot[o + 2] = 0x1D;
				memcpy(slot + o + 3, &rel, 4);
				size_t to = k ? skip : o + 18;
				slot[o + 7] = 0x72;
				slot[o + 8] = (uint8_t)(to - (o + 9));
				o += 9;
			}
		}
	}
	s->trap_off = (uint8_t)o;
	slot[o++] = 0xCC;
	/* One instruction at a time, to know where each one went. */
	s->n = 0;
	while (used < 5) {
		struct cts_insn in;
		size_t one = 0;
		if (s->n == MAX_INSNS ||
		    cts_disasm_decode(d, 0, bytes + used, sizeof(bytes) - used, &in) != 0 || !in.len ||
		    (strcmp(in.mnemonic, "jmp") == 0 && used + in.len < 5))
			return false; /* what follows a jmp would never run in the stub */
		int n = cts_disasm_relocate(d, b->addr + used, bytes + used, sizeof(bytes) - used, 1,
					    code + o, slot + o, SLOT - o - 5, &one);
		if (n < 0)
			return false;
		s->old_off[s->n] = (uint8_t)used;
		s->new_off[s->n++] = (uint8_t)o;
		used += one;
		o += (size_t)n;
	}
	if (text_branch_into(t, b->addr, b->addr + used))
		return false;
	back = (int64_t)(b->addr + used) - (int64_t)(code + o + 5);
	if (back < INT32_MIN || back > INT32_MAX)
		return false;
	int32_t rel = (int32_t)back;
	slot[o] = 0xE9;
	memcpy(slot + o + 1, &rel, 4);
	s->entry = b->addr;
	s->code = code;
	s->used = used;
	b->plen = 5;
	memcpy(b->saved, bytes, 5);
	b->orig = bytes[0];
	b->patch[0] = 0xE9;
	rel = (int32_t)to_stub;
	memcpy(b->patch + 1, &rel, 4);
	return true;
}

/* First exec: choose the entry points, map the page, build the stubs. */
static int stubs_build(struct cts_tracer *tr, const struct user_regs_struct *regs)
{
	struct cts_disasm *d = cts_disasm_new();
	struct text t = { .n = 0 };
	int cand = 0;
	uint64_t lowest = UINT64_MAX;

	for (size_t i = 0; i < tr->bpcap; i++)
		cand += tr->bps[i].addr && tr->bps[i].kind == BP_SYNC && !tr->bps[i].entry &&
			cts_tr_sync_stubbable(tr->bps[i].fn);
	if (!d || !cand) {
		cts_disasm_free(d);
		tr->no_stubs = true;
		return 0;
	}
	uint64_t elo = UINT64_MAX, ehi = 0; /* the entry points' span */
	for (size_t i = 0; i < tr->bpcap; i++) {
		const struct bp *b = &tr->bps[i];
		if (b->addr && b->kind == BP_SYNC && !b->entry && cts_tr_sync_stubbable(b->fn)) {
			elo = b->addr < elo ? b->addr : elo;
			ehi = b->addr + 32 > ehi ? b->addr + 32 : ehi;
		}
	}
	for (int i = 0; i < tr->nlibc_ranges && i < 4; i++) {
		uint64_t lo = tr->libc_lo[i], hi = tr->libc_hi[i];
		uint8_t *code = cts_xmalloc(hi - lo);
		if (cts_mem_read(tr->pid, lo, code, hi - lo) == 0)
			scan_branches(&t, code, hi - lo, lo, elo, ehi);
		else
			t.unreadable = true;
		free(code);
		lowest = lo < lowest ? lo : lowest;
	}
	if (t.n)
		qsort(t.targets, t.n, sizeof(*t.targets), cmp_u64);
	size_t len = ((size_t)cand * SLOT + AUX_LEN + 4095) & ~(size_t)4095;
	uint64_t hint = lowest != UINT64_MAX && lowest > (1u << 24) ? (lowest - (1u << 22) - len) & ~4095ull : 0;
	uint64_t base = inject_mmap(tr->pid, regs, hint, len, MAP_PRIVATE | MAP_ANONYMOUS);
	if (!base) {
		cts_debug_msg("stubs: no page for out-of-line traps; plain int3s");
		goto out;
	}
	tr->stub_base = base;
	tr->stub_len = len;
	tr->stub_code = cts_xcalloc(1, len);
	memset(tr->stub_code, 0xCC, len);
	tr->stubs = cts_xcalloc((size_t)cand, sizeof(*tr->stubs));
	uint64_t aux = base + (uint64_t)cand * SLOT, ranges = 0;
	static const uint8_t sys[3] = { 0x0f, 0x05, 0xcc }; /* syscall; int3 */
	memcpy(tr->stub_code + (aux - base) + AUX_SYSCALL, sys, sizeof(sys));
	tr->stub_syscall = aux + AUX_SYSCALL;
	if (tr->nlibc_ranges > 0 && tr->nlibc_ranges <= 4) {
		ranges = aux + AUX_RANGES;
		for (int i = 0; i < tr->nlibc_ranges; i++) {
			memcpy(tr->stub_code + (ranges - base) + 16 * i, &tr->libc_lo[i], 8);
			memcpy(tr->stub_code + (ranges - base) + 16 * i + 8, &tr->libc_hi[i], 8);
		}
	}
	/* Collect first: adding the traps may grow (move) the table. */
	uint64_t *entries = cts_xcalloc((size_t)cand, sizeof(*entries));
	int ne = 0;
	for (size_t i = 0; i < tr->bpcap && ne < cand; i++)
		if (tr->bps[i].addr && tr->bps[i].kind == BP_SYNC && !tr->bps[i].entry &&
		    cts_tr_sync_stubbable(tr->bps[i].fn))
			entries[ne++] = tr->bps[i].addr;
	for (int i = 0; i < ne; i++) {
		struct bp *b = cts_tr_bp_find(tr, entries[i]);
		uint64_t code = base + (uint64_t)tr->nstubs * SLOT;
		struct cts_stub *s = &tr->stubs[tr->nstubs];
		if (!b || !make_stub(tr, d, &t, b, code, tr->stub_code + (code - base), ranges, s)) {
			if (b)
				cts_debug_msg("stubs: entry 0x%" PRIx64 " keeps a plain int3", b->addr);
			continue;
		}
		int fn = b->fn;
		struct bp *trap = cts_tr_bp_add(tr, code + s->trap_off, BP_SYNC, fn);
		trap->entry = entries[i];
		trap->orig = 0xCC;
		tr->nstubs++;
	}
	free(entries);
	cts_debug_msg("stubs: %d of %d libc entry points trap out of line (page at 0x%" PRIx64 ")",
		      tr->nstubs, cand, base);
out:
	free(t.targets);
	cts_disasm_free(d);
	return 0;
}

int cts_tr_stubs_setup(struct cts_tracer *tr, const struct user_regs_struct *regs)
{
	if (tr->no_stubs)
		return 0;
	if (!tr->stub_code) {
		if (getenv("CTS_NO_STUBS")) {
			tr->no_stubs = true;
			return 0;
		}
		if (stubs_build(tr, regs) != 0)
			return -1;
		if (!tr->stub_code) {
			tr->no_stubs = true;
			return 0;
		}
	} else if (inject_mmap(tr->pid, regs, tr->stub_base, tr->stub_len,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE) != tr->stub_base) {
		cts_tr_set_error(tr, "cannot map the stub page at 0x%" PRIx64 " again: %s",
				 tr->stub_base, strerror(errno));
		return -1;
	}
	/* One write through /proc/PID/mem, not a ptrace poke per word (pages
	 * of them: seconds under load, deaf to an interrupt). */
	if (cts_mem_pwrite(tr->pid, tr->stub_base, tr->stub_code, tr->stub_len) != 0 &&
	    cts_mem_write(tr->pid, tr->stub_base, tr->stub_code, tr->stub_len) != 0) {
		cts_tr_set_error(tr, "cannot write the stub page: %s", strerror(errno));
		return -1;
	}
	return 0;
}

uint64_t cts_tr_stub_orig_pc(const struct cts_tracer *tr, uint64_t pc)
{
	if (!tr->stub_base || pc < tr->stub_base || pc >= tr->stub_base + tr->stub_len)
		return 0;
	uint64_t k = (pc - tr->stub_base) / SLOT;
	if (k >= (uint64_t)tr->nstubs)
		return 0;
	const struct cts_stub *s = &tr->stubs[k];
	uint64_t off = pc - s->code;
	if (off <= (uint64_t)s->trap_off + 1)
		return s->entry;
	for (int i = s->n - 1; i >= 0; i--)
		if (off >= s->new_off[i])
			return s->entry + s->old_off[i];
	return s->entry;
}

void cts_tr_stubs_free(struct cts_tracer *tr)
{
	free(tr->stub_code);
	free(tr->stubs);
	tr->stub_code = NULL;
	tr->stubs = NULL;
	tr->nstubs = 0;
	tr->stub_base = 0;
	tr->stub_syscall = 0;
}
