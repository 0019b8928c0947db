/* The breakpoint table (open addressing by address): adding, finding,
 * planting and retiring int3s, keeping the fork server's copy of the text in
 * step, and stepping a thread over the instruction a breakpoint displaces. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include "models/error.h"
#include "tracer/fault.h"
#include "tracer/proc.h"
#include "tracer/tracer_int.h"

static size_t bp_slot(uint64_t addr, size_t cap)
{
	return (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

struct bp *cts_tr_bp_find(struct cts_tracer *tr, uint64_t addr)
{
	if (!tr->bpcap)
		return NULL;
	for (size_t i = bp_slot(addr, tr->bpcap);; i = (i + 1) & (tr->bpcap - 1)) {
		if (tr->bps[i].addr == addr)
			return &tr->bps[i];
		if (!tr->bps[i].addr)
			return NULL;
	}
}

struct bp *cts_tr_bp_add(struct cts_tracer *tr, uint64_t addr, enum bp_kind kind, int fn)
{
	struct bp *b = cts_tr_bp_find(tr, addr);
	if (b)
		return b;
	if ((tr->nbps + 1) * 2 > tr->bpcap) {
		size_t oldcap = tr->bpcap;
		struct bp *old = tr->bps;
		tr->bpcap = oldcap ? oldcap * 2 : 1024;
		tr->bps = cts_xcalloc(tr->bpcap, sizeof(*tr->bps));
		for (size_t i = 0; i < oldcap; i++) {
			if (!old[i].addr)
				continue;
			size_t j = bp_slot(old[i].addr, tr->bpcap);
			while (tr->bps[j].addr)
				j = (j + 1) & (tr->bpcap - 1);
			tr->bps[j] = old[i];
		}
		free(old);
	}
	size_t i = bp_slot(addr, tr->bpcap);
	while (tr->bps[i].addr)
		i = (i + 1) & (tr->bpcap - 1);
	b = &tr->bps[i];
	memset(b, 0, sizeof(*b));
	b->addr = addr;
	b->kind = kind;
	b->fn = fn;
	b->active = true;
	tr->nbps++;
	tr->bps_dirty = true;
	return b;
}

/* Write int3 over the first byte (orig saved on first planting); a patched
 * entry point gets its jmp, a stub's trap is always there. */
int cts_tr_bp_plant(struct cts_tracer *tr, struct bp *b)
{
	uint8_t byte;
	if (b->entry)
		return 0;
	if (b->plen)
		return cts_tr_poke(tr, b->addr, b->patch, b->plen);
	if (cts_mem_read(tr->pid, b->addr, &byte, 1) != 0)
		return -1;
	if (byte != 0xCC)
		b->orig = byte;
	uint8_t cc = 0xCC;
	return cts_tr_poke(tr, b->addr, &cc, 1);
}

int cts_tr_bp_unplant(struct cts_tracer *tr, struct bp *b)
{
	if (b->entry)
		return 0;
	if (b->plen)
		return cts_tr_poke(tr, b->addr, b->saved, b->plen);
	return cts_tr_poke(tr, b->addr, &b->orig, 1);
}

bool cts_tr_bp_in_text(const struct cts_tracer *tr, const struct bp *b, bool in_server)
{
	if (!b->active || (!in_server && b->run_off && b->run_gen == tr->run_gen))
		return false;
	bool gated = (tr->gate_access && b->kind == BP_ACCESS && !b->learned) ||
		     (tr->gate_libcalls && b->kind == BP_LIBCALL && !b->early);
	return !gated || (!in_server && tr->access_armed);
}

/* Plant every active breakpoint in a freshly started process. Text pages
 * are private copies, so each run needs its own. */
int cts_tr_bp_plant_all(struct cts_tracer *tr)
{
	for (size_t i = 0; i < tr->bpcap; i++) {
		struct bp *b = &tr->bps[i];
		if (!b->addr || !cts_tr_bp_in_text(tr, b, false))
			continue;
		if (cts_tr_bp_plant(tr, b) != 0)
			return -1;
		if ((i & 255) == 0 && cts_tr_interrupted()) {
			errno = EINTR; /* tens of thousands take a while */
			return -1;
		}
	}
	return 0;
}

void cts_tr_bp_retire(struct cts_tracer *tr, struct bp *b)
{
	if (!b->active)
		return;
	b->active = false;
	tr->bps_dirty = true;
	cts_tr_bp_unplant(tr, b);
}

int cts_tr_bp_write_to(pid_t pid, const struct bp *b, bool planted)
{
	if (b->entry)
		return 0;
	uint8_t byte = planted ? 0xCC : b->orig;
	const uint8_t *bytes = !b->plen ? &byte : planted ? b->patch : b->saved;
	return cts_mem_write(pid, b->addr, bytes, b->plen ? b->plen : 1);
}

/* Children are copies of the fork server's text: breakpoints learned or
 * retired during runs must reach the server before the next fork. */
void cts_tr_bp_sync_server(struct cts_tracer *tr)
{
	if (!tr->bps_dirty || tr->server <= 0)
		return;
	for (size_t i = 0; i < tr->bpcap; i++) {
		struct bp *b = &tr->bps[i];
		bool want = b->addr && cts_tr_bp_in_text(tr, b, true);
		if (!b->addr || b->entry || want == b->in_server)
			continue;
		if (cts_tr_bp_write_to(tr->server, b, want) == 0)
			b->in_server = want;
	}
	tr->bps_dirty = false;
}

/* Single-step th over the instruction displaced by breakpoint b (b NULL: the
 * one at rip, in step mode): restore the byte and step it; the SINGLESTEP
 * handler puts int3 back. Every other thread is stopped, so no hit is lost.
 * after: access.c wants to see the result (cts_access_after_step).
 * cts_access_step_over tries emulating the instruction first. */
int cts_tr_single_step_over(struct cts_tracer *tr, struct thread *th, struct bp *b, bool after)
{
	/* still out of the text when th steps on inside it (dispatch.c: a
	 * rep string instruction's next element) */
	if (b && b->active && th->stepping_bp != b->addr && cts_tr_bp_unplant(tr, b) != 0)
		return -1;
	if (cts_tr_flush_regs(th) != 0)
		return -1;
	th->stepping_bp = b ? b->addr : 0;
	th->after_step = after;
	/* The access was decided: a key fault in the step opens every key
	 * for it (access.c, cts_access_fault; fault.h). */
	th->stepping_over = true;
	if (cts_fault_resume(tr, th, NULL) != 0)
		return -1;
	th->regs_valid = false;
	th->state = TH_RUNNING;
	if (ptrace(PTRACE_SINGLESTEP, th->tid, 0, 0) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

void cts_tr_bp_rewind(struct cts_tracer *tr, struct thread *th)
{
	struct bp *b = th->bp_addr ? cts_tr_bp_find(tr, th->bp_addr) : NULL;
	if (!b || !b->entry || th->state != TH_HELD || th->at != AT_BREAKPOINT ||
	    cts_tr_getregs(th) != 0 || th->regs.rip != b->addr + 1)
		return;
	th->regs.rip = b->entry; /* only r11 differs, and nobody keeps it across a call */
	th->regs_dirty = true;
}
