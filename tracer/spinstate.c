/* Thread state hashes for spin detection (spinstate.h).
 *
 * What a spinning thread could change between two reads of the same
 * location, short of a visible store: its registers and its own stack,
 * which accesses never report (the own-stack test in access.c). So the hash
 * covers every general register but the flags, and the stack from the red
 * zone below rsp up to STACK_SPAN bytes above it: a loop counter kept in a
 * register or in a frame up to there makes every iteration hash apart.
 * That holds only for code whose stores to shared memory are all seen: a
 * load in a library cts does not trace (one the time-slice probe learned)
 * may sit in a loop that works on heap state through invisible stores, so
 * there the state cannot be told and a spin is never proven. Nor once the
 * run's traced code has called an untraced library function with a pointer
 * to shared memory (the "unseen" calls of sync.c). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "disasm/disasm.h"
#include "tracer/access.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/spinstate.h"
#include "tracer/tracer_int.h"

#define RED_ZONE 128
#define STACK_SPAN (16 * 1024)
#define PAGE 4096

/* FNV-1a over 8-byte words (len a multiple of 8). */
static uint64_t mix(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		h ^= w;
		h *= 0x100000001b3ull;
	}
	return h;
}

int cts_tr_thread_state(void *be, int tid, uint64_t *hash)
{
	struct cts_tracer *tr = be;
	struct thread *th = tr->cfg.mode == CTS_MODE_SYNC ? NULL : cts_tr_by_num(tr, tid);
	if (!th)
		return -1;
	if (th->state != TH_HELD || cts_tr_getregs(th) != 0)
		return -1;
	cts_op op = th->pending.op;
	if ((op == CTS_OP_READ || op == CTS_OP_ATOMIC || op == CTS_OP_RMW) &&
	    !cts_access_traced_pc(tr, th->pending.pc))
		return -1;
	/* A call into an untraced function with a pointer to shared memory was
	 * seen: a loop around such a call may progress through stores nobody
	 * sees, so from then on no spin is proven (no livelock verdict). The
	 * hash still tells a loop that counts in its registers or stack from a
	 * stutter: without it every loop that re-read a field of its own
	 * (ripgrep's searcher asking its line buffer for its length) counted as
	 * a spin after three reads and was held back for good while a worker
	 * polling with sleeps ran (issue 8). */
	int hint = cts_tr_libcalls_unseen(tr, NULL, 0) > 0;
	int skip = op == CTS_OP_READ ? cts_access_load_dest(tr, th, th->pending.pc) : -1;
	if (cts_tr_state_hash(th, skip, hash) != 0)
		return -1;
	return hint;
}

int cts_tr_state_hash(struct thread *th, int skip_reg, uint64_t *hash)
{
	static unsigned char buf[RED_ZONE + STACK_SPAN + 8];
	struct user_regs_struct r = th->regs;
	r.eflags = 0;
	long slot = skip_reg >= 0 ? cts_disasm_reg_slot(skip_reg) : -1;
	if (slot >= 0)
		memset((char *)&r + slot, 0, 8);
	uint64_t h = mix(0xcbf29ce484222325ull, &r, sizeof(r));

	uint64_t lo = (r.rsp - RED_ZONE) & ~7ull, hi = (r.rsp + STACK_SPAN) & ~7ull;
	if (th->stack_hi && th->stack_hi < hi && th->stack_hi > lo)
		hi = th->stack_hi & ~7ull;
	size_t len = (size_t)(hi - lo);
	if (cts_mem_read(th->tid, lo, buf, len) != 0) {
		/* The stack ends sooner: hash what is there, page by page. */
		size_t got = 0;
		for (uint64_t a = lo; a < hi;) {
			uint64_t next = (a & ~(uint64_t)(PAGE - 1)) + PAGE;
			size_t n = (size_t)((next < hi ? next : hi) - a);
			if (cts_mem_read(th->tid, a, buf + got, n) != 0)
				break;
			got += n;
			a += n;
		}
		if (got < RED_ZONE)
			return -1;
		len = got;
	}
	*hash = mix(h, buf, len);
	return 0;
}
