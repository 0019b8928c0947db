#include "tracer/lcret.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "disasm/disasm.h"
#include "models/error.h"
#include "models/htab.h"
#include "models/symbolize.h"
#include "tracer/access.h"
#include "tracer/fault.h"
#include "tracer/own.h"
#include "tracer/proc.h"

/* Calls in a row that qualify before a breakpoint leaves the text; the
 * instructions of one implementation walked at most. */
#define RETIRE_CALLS 32
#define WALK_MAX 8192
/* bp.tracked_hits of a library call's breakpoint that stays in this run */
#define NEVER UINT32_MAX

struct iv {
	uint64_t lo, hi;
};

/* An implementation (the address a GOT slot resolved to): its code. */
struct impl {
	bool leaf;      /* no call, indirect jump or system call: its extent is known */
	size_t n;
	struct iv *iv;  /* sorted, disjoint */
};

/* A breakpoint out of the text in this run, and the code it let run. */
struct out {
	uint64_t bp, entry;
	bool back;      /* cts_lcret_keep put it back */
};

struct cts_lcret {
	uint64_t noreturn[8];   /* libc's functions that never return (a path's end) */
	int nnoreturn;
	struct cts_htab *impls; /* entry -> struct impl, for every run (same addresses) */
	uint32_t gen;           /* tr->run_gen of `outs` */
	struct out *outs;
	size_t nouts, cap;
};

void cts_lcret_free(struct cts_lcret *l)
{
	if (!l)
		return;
	size_t pos = 0;
	const void *k;
	void *v;
	while (cts_htab_next(l->impls, &pos, &k, &v))
		free(((struct impl *)v)->iv);
	cts_htab_free(l->impls);
	free(l->outs);
	free(l);
}

static struct cts_lcret *lcret_of(struct cts_tracer *tr)
{
	struct cts_lcret *l = tr->lcret;
	if (!l) {
		l = tr->lcret = cts_xcalloc(1, sizeof(*l));
		l->impls = cts_htab_new(sizeof(uint64_t), sizeof(struct impl));
		static const char *const names[] = { "__assert_fail", "__assert_perror_fail",
						     "abort", "__stack_chk_fail", "__chk_fail",
						     "__fortify_fail", "__libc_fatal", "_exit" };
		for (size_t i = 0; tr->sym && i < sizeof(names) / sizeof(names[0]); i++) {
			uint64_t a, size;
			if (cts_sym_lookup(tr->sym, names[i], &a, &size) == 0 &&
			    !cts_access_traced_pc(tr, a))
				l->noreturn[l->nnoreturn++] = a;
		}
	}
	if (l->gen != tr->run_gen) {
		l->gen = tr->run_gen;
		l->nouts = 0;
	}
	return l;
}

/* Decode the instruction at pc of th's process (our int3 there undone).
 * capstone 4 misses some AVX-512 ones (kmovd): their length is known from
 * the VEX/EVEX layout, and none of them is a jump. */
static bool decode(struct cts_tracer *tr, pid_t tid, uint64_t pc, struct cts_insn *in)
{
	return (cts_access_decode(tr, tid, pc, in) == 0 || !in->decoded) && in->len;
}

/* The PLT stub's library call breakpoint that the `call rel32` at addr in
 * pid's text calls (our int3 on it: a learned site's), or NULL. */
static struct bp *called_stub(struct cts_tracer *tr, pid_t pid, uint64_t addr)
{
	uint8_t c[5];
	int32_t rel;
	if (cts_mem_read(pid, addr, c, sizeof(c)) != 0)
		return NULL;
	const struct bp *at = cts_tr_bp_find(tr, addr);
	if (c[0] != 0xe8 && !(c[0] == 0xCC && at && at->orig == 0xe8))
		return NULL;
	memcpy(&rel, c + 1, sizeof(rel));
	struct bp *stub = cts_tr_bp_find(tr, addr + 5 + (uint64_t)(int64_t)rel);
	return stub && stub->kind == BP_LIBCALL && !stub->call_len ? stub : NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void push(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = cts_xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

/* Where a jump or call goes: its direct target, or the value of the GOT
 * slot it goes through (libc calls its own IFUNC'd functions so: strcoll's
 * strcmp); 0 for any other indirect one. */
static uint64_t target(struct cts_tracer *tr, pid_t tid, const struct cts_insn *in)
{
	uint64_t to = in->target;
	if (!to && cts_disasm_rip_call(in) &&
	    cts_mem_read(tid, in->pc + in->len + (uint64_t)in->disp, &to, sizeof(to)) != 0)
		to = 0;
	int prot = to ? cts_access_prot(tr, to) : -1;
	return prot >= 0 && (prot & PROT_EXEC) ? to : 0;
}

/* Every instruction reachable from entry by falling through, jumps and
 * calls that go to known code (callees return), up to returns: a leaf's
 * whole code, however its labels are laid out (glibc's mempcpy jumps into
 * memmove's body) and whatever it calls. Not a leaf: a system call, an
 * atomic, an indirect jump or call (a callback), program code. */
static void walk(struct cts_lcret *l, struct cts_tracer *tr, pid_t tid, uint64_t entry,
		 struct impl *im)
{
	struct cts_htab *seen = cts_htab_new(sizeof(uint64_t), sizeof(uint8_t));
	uint64_t *todo = NULL;
	size_t nt = 0, tcap = 0;
	bool leaf = true;
	push(&todo, &nt, &tcap, entry);
	while (nt && leaf) {
		uint64_t pc = todo[--nt];
		struct cts_insn in;
		while (leaf && !cts_htab_get(seen, &pc)) {
			uint64_t to = 0;
			if (cts_htab_count(seen) >= WALK_MAX || cts_access_traced_pc(tr, pc) ||
			    !decode(tr, tid, pc, &in) || in.is_syscall || in.lock ||
			    in.access == CTS_ACC_ATOMIC ||
			    ((in.is_branch || in.is_call) && !(to = target(tr, tid, &in)))) {
				cts_debug_msg("library call at 0x%" PRIx64 ": 0x%" PRIx64 " (%s %s) ends the walk",
					      entry, pc, in.mnemonic, in.op_str);
				leaf = false;
				break;
			}
			*(uint8_t *)cts_htab_put(seen, &pc, NULL) = in.len;
			if (in.is_ret || strcmp(in.mnemonic, "ud2") == 0 || strcmp(in.mnemonic, "hlt") == 0 ||
			    strcmp(in.mnemonic, "int3") == 0)
				break;
			bool dies = false;
			for (int i = 0; i < l->nnoreturn; i++)
				dies |= to == l->noreturn[i];
			if (dies)
				break; /* __assert_fail and the like: the path ends */
			if (in.is_branch || in.is_call) {
				push(&todo, &nt, &tcap, to); /* a callee returns here */
				if (in.is_branch && strstr(in.mnemonic, "jmp"))
					break; /* unconditional */
			}
			pc += in.len;
		}
	}
	free(todo);
	im->leaf = leaf;
	if (leaf) {
		size_t n = cts_htab_count(seen), pos = 0, k = 0;
		uint64_t *pcs = cts_xcalloc(n + 1, sizeof(*pcs));
		const void *key;
		void *val;
		while (cts_htab_next(seen, &pos, &key, &val))
			pcs[k++] = *(const uint64_t *)key;
		qsort(pcs, n, sizeof(*pcs), cmp_u64);
		im->iv = cts_xcalloc(n + 1, sizeof(*im->iv));
		for (size_t i = 0; i < n; i++) {
			uint64_t end = pcs[i] + *(uint8_t *)cts_htab_get(seen, &pcs[i]);
			if (im->n && im->iv[im->n - 1].hi >= pcs[i])
				im->iv[im->n - 1].hi = end > im->iv[im->n - 1].hi ? end : im->iv[im->n - 1].hi;
			else
				im->iv[im->n++] = (struct iv){ pcs[i], end };
		}
		free(pcs);
	}
	cts_htab_free(seen);
}

/* Where the call at b goes: its GOT slot's value (the PLT stub's or the
 * call's `jmp/call *slot(%rip)`), 0 when unknown. */
static uint64_t entry_of(struct cts_tracer *tr, pid_t tid, const struct bp *b)
{
	struct cts_insn in;
	uint64_t pc = b->addr, to = 0;
	if (!decode(tr, tid, pc, &in))
		return 0;
	if (strcmp(in.mnemonic, "endbr64") == 0 && !decode(tr, tid, pc + in.len, &in))
		return 0;
	if (!cts_disasm_rip_call(&in) ||
	    cts_mem_read(tid, in.pc + in.len + (uint64_t)in.disp, &to, sizeof(to)) != 0)
		return 0;
	/* lazy binding not done yet: the slot still points into the PLT */
	int prot = cts_access_prot(tr, to);
	return prot >= 0 && (prot & PROT_EXEC) && !cts_access_traced_pc(tr, to) ? to : 0;
}

static const struct impl *impl_of(struct cts_lcret *l, struct cts_tracer *tr, pid_t tid,
				  uint64_t entry)
{
	bool added;
	struct impl *im = cts_htab_put(l->impls, &entry, &added);
	if (added) {
		struct impl w = { 0 };
		walk(l, tr, tid, entry, &w);
		im = cts_htab_put(l->impls, &entry, NULL);
		*im = w;
		cts_debug_msg("library call at 0x%" PRIx64 ": %s, %zu ranges of code", entry,
			      w.leaf ? "a leaf" : "not a leaf (never out of the text)", w.n);
	}
	return im;
}

void cts_lcret_call(struct cts_tracer *tr, struct thread *th, struct bp *b, bool qualifies)
{
	static int off = -1;
	if (off < 0)
		off = getenv("CTS_NO_LIBCALL_RETIRE") != NULL;
	if (off || !tr->own || !cts_fault_on(tr) || tr->cfg.nwatch || tr->cfg.mode != CTS_MODE_BREAK)
		return;
	struct cts_lcret *l = lcret_of(tr);
	if (b->run_gen != tr->run_gen) {
		b->run_gen = tr->run_gen;
		b->run_off = false;
		b->run_hits = 0;
		b->tracked_hits = cts_own_stays(tr->own, b->addr) || cts_own_site(tr->own, b->addr)
					  ? NEVER : 0;
	}
	if (b->tracked_hits == NEVER)
		return;
	if (!qualifies) {
		b->tracked_hits = 0;
		return;
	}
	if (++b->tracked_hits < RETIRE_CALLS)
		return;
	uint64_t entry = entry_of(tr, th->tid, b);
	if (!entry)
		return; /* not resolved yet: asked again at the next call */
	const struct impl *im = impl_of(l, tr, th->tid, entry);
	if (!im->leaf) {
		b->tracked_hits = NEVER;
		return;
	}
	if (l->nouts == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->outs = cts_xrealloc(l->outs, l->cap * sizeof(*l->outs));
	}
	l->outs[l->nouts++] = (struct out){ b->addr, entry, false };
	b->run_off = true;
	b->tracked_hits = NEVER;
	cts_tr_bp_unplant(tr, b);
	tr->stats.lc_retired++;
	cts_debug_msg("thread %d: the library call at 0x%" PRIx64 " (to 0x%" PRIx64 ") leaves the "
		      "text for this run", th->num, b->addr, entry);
}

static bool in_impl(const struct impl *im, uint64_t pc)
{
	size_t lo = 0, hi = im->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pc < im->iv[mid].lo)
			hi = mid;
		else if (pc >= im->iv[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static bool out_has(struct cts_lcret *l, const struct out *o, uint64_t pc)
{
	const struct impl *im = cts_htab_get(l->impls, &o->entry);
	return im && in_impl(im, pc);
}

bool cts_lcret_in_body(struct cts_tracer *tr, uint64_t pc)
{
	struct cts_lcret *l = tr->lcret;
	if (!l || l->gen != tr->run_gen)
		return false;
	/* one put back still decides the body of a call it let start */
	for (size_t i = 0; i < l->nouts; i++)
		if (out_has(l, &l->outs[i], pc))
			return true;
	return false;
}

static bool out_now(const struct cts_tracer *tr, const struct bp *b)
{
	return b->run_off && b->run_gen == tr->run_gen;
}

enum cts_lc_origin cts_lcret_origin(struct cts_tracer *tr, struct thread *th, uint64_t pc,
				    uint64_t *site)
{
	struct cts_lcret *l = tr->lcret;
	uint64_t w[64];
	size_t nw = sizeof(w) / sizeof(w[0]);
	*site = 0;
	if (!l || l->gen != tr->run_gen)
		return CTS_LC_UNKNOWN;
	while (nw && cts_mem_read(th->tid, th->regs.rsp, w, nw * sizeof(w[0])) != 0)
		nw /= 4; /* near the top of its stack */
	/* the innermost return address on th's stack after a call of a
	 * library call's breakpoint: its stub's `call rel32`, or a `call
	 * *slot(%rip)` that is a breakpoint itself */
	for (size_t i = 0; i < nw; i++) {
		if (w[i] < 6 || !cts_access_traced_pc(tr, w[i]))
			continue;
		const struct bp *at = cts_tr_bp_find(tr, w[i] - 6);
		if (at && at->kind == BP_LIBCALL && at->call_len == 6) {
			if (!out_now(tr, at))
				return CTS_LC_DECIDED;
			for (size_t k = 0; k < l->nouts; k++)
				if (l->outs[k].bp == at->addr && out_has(l, &l->outs[k], pc))
					return CTS_LC_RETIRED; /* the breakpoint is its site's own */
			continue;
		}
		const struct bp *sb = cts_tr_bp_find(tr, w[i] - 5);
		if (sb && sb->kind == BP_LIBCALL && sb->call_len == 5)
			return CTS_LC_DECIDED; /* a learned site's stop */
		const struct bp *stub = called_stub(tr, th->tid, w[i] - 5);
		if (!stub)
			continue; /* a call of the program's own, or of an unwatched function */
		if (!out_now(tr, stub))
			return CTS_LC_DECIDED; /* its stub stopped it: an impl shared with a retired one */
		for (size_t k = 0; k < l->nouts; k++)
			if (l->outs[k].bp == stub->addr && out_has(l, &l->outs[k], pc)) {
				*site = w[i] - 5;
				return CTS_LC_RETIRED;
			}
	}
	return CTS_LC_UNKNOWN;
}

void cts_lcret_stays(struct cts_tracer *tr, uint64_t pc, uint64_t site)
{
	struct cts_lcret *l = tr->lcret;
	if (site) {
		cts_own_pend_site(tr->own, site);
		return;
	}
	for (size_t i = 0; l && l->gen == tr->run_gen && i < l->nouts; i++)
		if (out_has(l, &l->outs[i], pc))
			cts_own_pend_stays(tr->own, l->outs[i].bp);
}

uint64_t cts_lcret_site_entry(struct cts_tracer *tr, pid_t tid, struct bp *site)
{
	if (site->site_to)
		return site->site_to;
	const struct bp *stub = site->call_len == 5 ? called_stub(tr, tid, site->addr) : NULL;
	if (!stub)
		return 0;
	/* resolved (not lazy binding's way back into the PLT): it stays */
	site->site_to = entry_of(tr, tid, stub);
	return site->site_to;
}

void cts_lcret_plant_sites(struct cts_tracer *tr, pid_t pid)
{
	size_t n = tr->own ? cts_own_sites(tr->own, NULL, 0) : 0;
	if (!n || pid <= 0)
		return;
	uint64_t *v = cts_xcalloc(n, sizeof(*v));
	cts_own_sites(tr->own, v, n);
	for (size_t i = 0; i < n; i++) {
		const struct bp *stub = cts_tr_bp_find(tr, v[i]) ? NULL : called_stub(tr, pid, v[i]);
		if (!stub)
			continue;
		int fn = stub->fn;
		bool early = stub->early;
		struct bp *b = cts_tr_bp_add(tr, v[i], BP_LIBCALL, fn); /* may move stub */
		b->early = early;
		b->call_len = 5;
		b->orig = 0xe8;
		b->active = true;
		tr->bps_dirty = true;
	}
	free(v);
}

void cts_lcret_keep(struct cts_tracer *tr, uint64_t pc)
{
	struct cts_lcret *l = tr->lcret;
	for (size_t i = 0; l && l->gen == tr->run_gen && i < l->nouts; i++) {
		struct out *o = &l->outs[i];
		struct bp *b = o->back || !out_has(l, o, pc) ? NULL : cts_tr_bp_find(tr, o->bp);
		if (!b)
			continue;
		o->back = true;
		b->run_off = false; /* tracked_hits stays NEVER: not out again this run */
		cts_tr_bp_plant(tr, b);
	}
}
