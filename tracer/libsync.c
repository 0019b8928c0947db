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
 * Libraries loaded later (dlopen) are not scanned. */
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
	int added;
	int decoded;                /* functions that needed decoding */
};

static void add_atomic(const struct cts_insn *in, void *arg)
{
	struct lib_ctx *c = arg;
	if (in->access != CTS_ACC_ATOMIC || !in->ea_valid)
		return;
	if (cts_tr_bp_find(c->tr, in->pc))
		return;
	cts_tr_bp_add(c->tr, in->pc, BP_ACCESS, 0);
	c->added++;
}

/* Can [p, p+n) hold an atomic instruction: a lock prefix, or an xchg
 * opcode whose ModRM byte names memory (mod != 3)? */
static bool may_hold_atomic(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i] == 0xf0 || ((p[i] == 0x86 || p[i] == 0x87) && i + 1 < n && p[i + 1] < 0xc0))
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
	cts_disasm_scan(c->dis, lo, p, size, add_atomic, c);
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
		struct lib_ctx c = { .tr = tr, .dis = dis, .base = m->lo, .lo = x->lo, .hi = x->hi };
		uint8_t *code = cts_xmalloc(x->hi - x->lo);
		if (cts_mem_read(tr->pid, x->lo, code, x->hi - x->lo) != 0) {
			free(code);
			continue;
		}
		c.code = code;
		int nf = cts_elf_fde_ranges(m->path, &c.lowest, scan_function, &c);
		if (nf == 0)
			nf = cts_elf_code_ranges(m->path, &c.lowest, scan_function, &c);
		free(code);
		if (nf < 0)
			cts_error_msg("warning: cannot read the code of %s: its atomics are not "
				      "synchronization to cts", m->path);
		cts_debug_msg("library atomics: %d in %s (%d of %d functions decoded)", c.added,
			      m->path, c.decoded, nf);
		total += c.added;
	}
	return total;
}
