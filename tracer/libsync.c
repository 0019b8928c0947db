/* Atomic instructions inside untraced libraries, as synchronization.
 *
 * Locks built without libc's pthread calls (libgomp's `omp critical` and
 * barriers, glib's GMutex and GCond, hand-written spinlocks in any shared
 * library) are made of locked RMWs (`lock cmpxchg`, `lock xadd`, `xchg` with
 * memory) and futex calls. The futex calls stop at the seccomp filter in
 * every mode; the atomics are visible only where there is an access
 * breakpoint. In break and step mode every loaded library that is not libc,
 * ld.so, the program or a --trace-lib library (those are instrumented whole)
 * gets an access breakpoint on each of its atomic instructions and on nothing
 * else: a hit is an ATOMIC event, which the race detector takes as an
 * acquire and a release of its address (models/race.c) and DPOR as a
 * dependent access. The lock word's RMWs then order the critical sections
 * they guard.
 *
 * Finding the instructions needs instruction boundaries in stripped code:
 * the functions come from the unwind tables (.eh_frame_hdr lists every FDE,
 * static functions included), else from the symbol tables, and each is
 * decoded linearly. A function whose bytes hold neither a lock prefix (0xf0)
 * nor an xchg opcode (0x86, 0x87) followed by a memory ModRM byte cannot
 * contain one and is not decoded.
 * Libraries loaded later (dlopen) are not scanned.
 *
 * Sync mode puts no breakpoint on atomics, so a lock a program builds from
 * them in its own code (Rust's std Mutex takes an uncontended lock with a
 * `lock cmpxchg`, no pthread call, no futex) is invisible there: the same
 * scan counts the program's own atomic instructions (and --trace-lib
 * libraries'), and a search that has them is not complete in sync mode. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "disasm/disasm.h"
#include "models/error.h"
#include "tracer/access.h"
#include "tracer/elf.h"
#include "tracer/libsync.h"
#include "tracer/proc.h"

struct lib_ctx {
	struct cts_tracer *tr;
	struct cts_disasm *dis;
	uint64_t base;              /* where the file's first page is mapped */
	uint64_t lowest;            /* its first PT_LOAD address (filled before the callbacks) */
	uint64_t lo, hi;            /* the library's executable mapping */
	const uint8_t *code;        /* its bytes */
	bool count_only;            /* count the atomics, plant nothing */
	int added;
	int decoded;                /* functions that needed decoding */
};

static void add_atomic(const struct cts_insn *in, void *arg)
{
	struct lib_ctx *c = arg;
	if (in->access != CTS_ACC_ATOMIC || !in->ea_valid)
		return;
	if (c->count_only) {
		c->added++;
		return;
	}
	if (cts_tr_bp_find(c->tr, in->pc))
		return;
	cts_tr_bp_add(c->tr, in->pc, BP_ACCESS, 0);
	c->added++;
}

/* A legacy prefix (operand/address size, segment, rep/HLE) or REX. */
static bool prefix_byte(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf2: case 0xf3:
		return true;
	default:
		return b >= 0x40 && b <= 0x4f;
	}
}

/* Can a lock prefix at p[i] start a locked instruction: an opcode that
 * takes one (the ALU ops, grp1/3/5, xchg, and 0f: bts/btr/btc/bt-grp8,
 * cmpxchg, xadd, cmpxchg8b/16b), after other prefixes? */
static bool lockable(const uint8_t *p, uint64_t i, uint64_t n)
{
	for (i++; i < n && prefix_byte(p[i]); i++)
		;
	if (i >= n)
		return false;
	uint8_t op = p[i];
	if (op == 0x0f) {
		if (i + 1 >= n)
			return false;
		switch (p[i + 1]) {
		case 0xab: case 0xb0: case 0xb1: case 0xb3: case 0xba: case 0xbb:
		case 0xc0: case 0xc1: case 0xc7:
			return true;
		default:
			return false;
		}
	}
	return (op < 0x38 && (op & 7) < 2) || op == 0x80 || op == 0x81 || op == 0x83 ||
	       op == 0x86 || op == 0x87 || op == 0xf6 || op == 0xf7 || op == 0xfe || op == 0xff;
}

/* Can [p, p+n) hold an atomic instruction: a lock prefix before an opcode
 * that takes one, or an xchg opcode whose ModRM byte names memory (mod !=
 * 3)? Decoding a whole function is what costs (python3: a third of its
 * functions passed the bare 0xf0 test). */
static bool may_hold_atomic(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if ((p[i] == 0xf0 && lockable(p, i, n)) ||
		    ((p[i] == 0x86 || p[i] == 0x87) && i + 1 < n && p[i + 1] < 0xc0))
			return true;
	return false;
}

static void scan_function(uint64_t vaddr, uint64_t size, void *arg)
{
	struct lib_ctx *c = arg;
	uint64_t lo = c->base - c->lowest + vaddr;
	if (lo < c->lo || lo >= c->hi || size > c->hi - lo || cts_tr_interrupted())
		return;
	const uint8_t *p = c->code + (lo - c->lo);
	if (!may_hold_atomic(p, size))
		return;
	c->decoded++;
	cts_disasm_scan(c->dis, lo, p, size, CTS_SCAN_SHARED, add_atomic, c);
}

static bool is_libc(const struct cts_tracer *tr, const struct cts_mapping *m)
{
	for (int i = 0; i < tr->nlibc_ranges; i++)
		if (m->lo < tr->libc_hi[i] && tr->libc_lo[i] < m->hi)
			return true;
	return false;
}

/* The executable mapping of the file that maps[first] starts. */
static const struct cts_mapping *exec_mapping(const struct cts_mapping *maps, size_t n,
					      size_t first)
{
	for (size_t j = first; j < n && strcmp(maps[j].path, maps[first].path) == 0; j++)
		if (maps[j].perms[2] == 'x')
			return &maps[j];
	return NULL;
}

/* The atomics of the file whose first mapping is m (its executable mapping
 * x): planted, or counted only. -1 when its code cannot be read. */
static int scan_file(struct cts_tracer *tr, struct cts_disasm *dis, const struct cts_mapping *m,
		     const struct cts_mapping *x, bool count_only)
{
	struct lib_ctx c = { .tr = tr, .dis = dis, .base = m->lo, .lo = x->lo, .hi = x->hi,
			     .count_only = count_only };
	uint8_t *code = cts_xmalloc(x->hi - x->lo);
	if (cts_mem_read(tr->pid, x->lo, code, x->hi - x->lo) != 0) {
		free(code);
		return -1;
	}
	c.code = code;
	int nf = cts_elf_code_ranges(m->path, &c.lowest, scan_function, &c, NULL);
	free(code);
	cts_debug_msg("%s atomics: %d in %s (%d of %d functions decoded)",
		      count_only ? "own" : "library", c.added, m->path, c.decoded, nf);
	return nf < 0 ? -1 : c.added;
}

int cts_libsync_scan(struct cts_tracer *tr, struct cts_disasm *dis,
		     const struct cts_mapping *maps, size_t n)
{
	int total = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cts_mapping *m = &maps[i];
		if (m->off != 0 || m->path[0] != '/' || strcmp(m->path, tr->image) == 0 ||
		    cts_access_lib_wanted(tr, m->path))
			continue;
		const struct cts_mapping *x = exec_mapping(maps, n, i);
		if (!x || is_libc(tr, x))
			continue;
		int k = scan_file(tr, dis, m, x, false);
		if (k < 0)
			cts_error_msg("warning: cannot read the code of %s: its atomics are not "
				      "synchronization to cts", m->path);
		else
			total += k;
	}
	return total;
}

int cts_libsync_count_own(struct cts_tracer *tr, struct cts_disasm *dis,
			  const struct cts_mapping *maps, size_t n)
{
	int total = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cts_mapping *m = &maps[i];
		if (m->off != 0 || m->path[0] != '/' ||
		    (strcmp(m->path, tr->image) != 0 && !cts_access_lib_wanted(tr, m->path)))
			continue;
		const struct cts_mapping *x = exec_mapping(maps, n, i);
		int k = x ? scan_file(tr, dis, m, x, true) : 0;
		if (k < 0)
			cts_error_msg("warning: cannot read the code of %s to count its atomic "
				      "instructions", m->path);
		else
			total += k;
	}
	return total;
}
