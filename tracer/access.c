/* Shared-memory accesses as visible operations.
 *
 * break mode: every instruction of the program's own text (and --trace-lib
 * libraries) that may touch shared memory gets an int3. A hit is decoded
 * (capstone, cached per breakpoint), its effective address computed from the
 * registers, and if the address is shared (writable, not the running
 * thread's own stack) it becomes a visible READ/WRITE/RMW/ATOMIC event; the
 * instruction is then performed by the tracer (moves, arithmetic, lock
 * RMWs: emulate) or single-stepped, with every other thread held.
 * Breakpoints whose hits only ever touch thread-local memory are retired,
 * and all of them are out of the text while one thread lives (arming).
 *
 * step mode: a thread inside traced code is single-stepped and every
 * instruction decoded; calls out of traced code run at full speed to a
 * breakpoint on their return address.
 *
 * --watch: hardware watchpoints where the CPU delivers them, else the same
 * access breakpoints, filtered by address (the fallback is automatic). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>
#include "disasm/disasm.h"
#include "hw/attrib.h"
#include "hw/hw.h"
#include "models/error.h"
#include "models/report.h"
#include "models/symbolize.h"
#include "tracer/access.h"
#include "tracer/catch.h"
#include "tracer/run_int.h"
#include "tracer/cold.h"
#include "tracer/own.h"
#include "tracer/lcret.h"
#include "tracer/elf.h"
#include "tracer/fault.h"
#include "tracer/libsync.h"
#include "tracer/proc.h"
#include "tracer/spinstate.h"

/* A thread's own TLS around its thread pointer: glibc's static TLS blocks
 * (with their surplus) below it, its struct pthread above. */
#define TLS_BELOW 8192u
#define TCB_ABOVE 4096u
/* Local-only hits before an access breakpoint is retired. */
#define RETIRE_AFTER 32
#define MAX_RANGES CTS_ACCESS_RANGES
/* Hardware path: trap pcs whose decoding is kept, pcs whose name is kept */
#define NSITES 64
#define NNAMES 64
#define NLINES 8

/* One file whose code is traced: where its functions came from, how much
 * of .text they cover, how many access breakpoints it got. */
struct traced_file {
	char *path;
	struct cts_elf_code code;
	int sites;
};

struct watch {
	char spec[128];
	uint64_t addr;
	unsigned len;
	char name[128];
};

struct cts_access_state {
	struct cts_disasm *dis;
	bool scanned;
	bool scan_needed;            /* break/step mode, or --watch without hardware */
	uint64_t lo[MAX_RANGES], hi[MAX_RANGES]; /* traced code */
	int nranges;
	struct cts_mapping *maps;    /* snapshot of the current run's mappings */
	size_t nmaps, last_map;
	pid_t maps_pid;
	int maps_fd;                 /* /proc/maps_fd_pid/maps, kept open for the run */
	pid_t maps_fd_pid;
	int mem_fd;                  /* /proc/PID/mem of mem_fd_pid, for arming */
	pid_t mem_fd_pid;
	uint8_t *text[MAX_RANGES];   /* each range's original bytes, read once */
	bool arm_check;              /* CTS_ARM_CHECK */
	struct watch watch[4];
	int nwatch;
	bool hw;                     /* watches use debug registers */
	bool backend_chosen;
	struct cts_hw_set hwset;
	struct watch_log *log;       /* watch hits for the report */
	unsigned catch_slots;        /* --races catch's debug registers (bit per slot) */
	/* Hardware path: the decoding at each trap pc, and the names of the
	 * pcs reported, kept for the run (site_at, pc_name) */
	struct cts_attr_site *sites[NSITES];
	struct pc_name { uint64_t pc; char text[256]; } *names;
	/* hit lines' text up to the value, and what they said, by pc and kind
	 * (a hot loop alternates a load and a store: two lines) */
	struct hit_line {
		int watch, thread;
		enum cts_attr_kind kind;
		bool exact;
		uint64_t pc;
		size_t len;
		char text[512];
	} line[NLINES];
	int own_atomics;             /* sync mode: the program's atomics (-1: not counted) */
	struct traced_file *files;   /* the program and --trace-lib libraries, as scanned */
	int nfiles;
};

static bool traced_pc(const struct cts_access_state *a, uint64_t pc)
{
	for (int i = 0; i < a->nranges; i++)
		if (pc >= a->lo[i] && pc < a->hi[i])
			return true;
	return false;
}

int cts_access_init(struct cts_tracer *tr, char *err, size_t errlen)
{
	struct cts_access_state *a = cts_xcalloc(1, sizeof(*a));
	a->dis = cts_disasm_new();
	if (!a->dis) {
		snprintf(err, errlen, "cannot initialise capstone");
		free(a);
		return -1;
	}
	for (int i = 0; i < tr->cfg.nwatch; i++) {
		struct watch *w = &a->watch[a->nwatch++];
		const char *spec = tr->cfg.watch[i];
		snprintf(w->spec, sizeof(w->spec), "%s", spec);
		const char *colon = strrchr(spec, ':');
		w->len = 0;
		if (colon) {
			char *end;
			unsigned long l = strtoul(colon + 1, &end, 0);
			if (*end || !(l == 1 || l == 2 || l == 4 || l == 8)) {
				snprintf(err, errlen, "--watch %s: length must be 1, 2, 4 or 8", spec);
				cts_disasm_free(a->dis);
				free(a);
				return -1;
			}
			w->len = (unsigned)l;
			w->spec[colon - spec] = 0;
		}
	}
	a->scan_needed = tr->cfg.mode != CTS_MODE_SYNC;
	a->own_atomics = -1;
	a->maps_fd = -1;
	a->mem_fd = -1;
	a->arm_check = getenv("CTS_ARM_CHECK") != NULL;
	tr->acc = a;
	return 0;
}

/* The decodings and names are the code's and the symbols' of one run (a
 * new run or session may map other code at the same addresses). */
static void forget_sites(struct cts_access_state *a)
{
	for (int i = 0; i < NSITES; i++) {
		free(a->sites[i]);
		a->sites[i] = NULL;
	}
	if (a->names)
		memset(a->names, 0, NNAMES * sizeof(*a->names));
	for (int i = 0; i < NLINES; i++)
		a->line[i].len = 0;
}

void cts_access_fini(struct cts_tracer *tr)
{
	struct cts_access_state *a = tr->acc;
	if (!a)
		return;
	for (size_t i = 0; i < tr->bpcap; i++)
		free(tr->bps && tr->bps[i].addr ? tr->bps[i].insn : NULL);
	cts_disasm_free(a->dis);
	free(a->maps);
	if (a->maps_fd >= 0)
		close(a->maps_fd);
	if (a->mem_fd >= 0)
		close(a->mem_fd);
	for (int r = 0; r < a->nranges; r++)
		free(a->text[r]);
	free(a->log);
	forget_sites(a);
	free(a->names);
	for (int i = 0; i < a->nfiles; i++)
		free(a->files[i].path);
	free(a->files);
	free(a);
	tr->acc = NULL;
}

static int refresh_maps(struct cts_tracer *tr)
{
	struct cts_access_state *a = tr->acc;
	free(a->maps);
	a->maps = NULL;
	a->nmaps = 0;
	a->last_map = 0;
	a->maps_pid = tr->pid;
	/* New threads' stacks refresh it a few times a run: one pread each. */
	for (int tries = 0; tries < 2; tries++) {
		if (a->maps_fd < 0 || a->maps_fd_pid != tr->pid) {
			char path[64];
			if (a->maps_fd >= 0)
				close(a->maps_fd);
			snprintf(path, sizeof(path), "/proc/%d/maps", (int)tr->pid);
			a->maps_fd = open(path, O_RDONLY | O_CLOEXEC);
			a->maps_fd_pid = tr->pid;
			if (a->maps_fd < 0)
				return -1;
		}
		if (cts_maps_read_fd(a->maps_fd, &a->maps, &a->nmaps) == 0) {
			cts_fault_fix_maps(tr, &a->maps, &a->nmaps);
			return 0;
		}
		close(a->maps_fd); /* an earlier process's, its pid reused: open it again */
		a->maps_fd = -1;
	}
	return -1;
}

static const struct cts_mapping *mapping_of(struct cts_tracer *tr, uint64_t addr)
{
	struct cts_access_state *a = tr->acc;
	for (int pass = 0; pass < 2; pass++) {
		if (a->maps_pid == tr->pid) {
			/* Consecutive accesses mostly hit the same mapping. */
			if (a->last_map < a->nmaps && addr >= a->maps[a->last_map].lo &&
			    addr < a->maps[a->last_map].hi)
				return &a->maps[a->last_map];
			for (size_t i = 0; i < a->nmaps; i++) {
				if (addr >= a->maps[i].lo && addr < a->maps[i].hi) {
					a->last_map = i;
					return &a->maps[i];
				}
			}
		}
		if (pass == 0 && refresh_maps(tr) != 0)
			return NULL;
	}
	return NULL;
}

/* --watch on access breakpoints: every instruction that may touch a
 * watched variable carries one, push/pop/call/jmp through memory included. */
static bool watch_on_breakpoints(const struct cts_access_state *a)
{
	return a->nwatch && !a->hw;
}

/* ---- scanning the code ------------------------------------------------------ */

struct scan_ctx {
	struct cts_tracer *tr;
	uint64_t base;     /* where the file's first page is mapped */
	uint64_t lowest;   /* its first PT_LOAD address (filled before the callbacks) */
	const uint8_t *code; /* the range being scanned, at code_lo */
	uint64_t code_lo;
	int added;
};

int cts_tr_got_slot_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct cts_got_slot *)a)->addr;
	uint64_t y = ((const struct cts_got_slot *)b)->addr;
	return x < y ? -1 : x > y;
}

/* A call or jmp *slot(%rip) through the GOT slot of a watched imported
 * function (no PLT stub): a BP_LIBCALL there, as on a stub. Returns true
 * when it is one. */
static bool got_call(struct scan_ctx *c, const struct cts_insn *in)
{
	struct cts_tracer *tr = c->tr;
	struct cts_got_slot key = { .addr = in->pc + in->len + (uint64_t)in->disp }, *g;
	if (!cts_disasm_rip_call(in) || !tr->ngot || !(g = bsearch(&key, tr->got, tr->ngot, sizeof(key), cts_tr_got_slot_cmp)))
		return false;
	if (cts_tr_bp_find(tr, in->pc))
		return true;
	struct bp *b = cts_tr_bp_add(tr, in->pc, BP_LIBCALL, g->fn);
	b->early = g->early;
	b->call_len = in->is_call ? in->len : 0;
	if (c->code[in->pc - c->code_lo] != 0xCC)
		b->orig = c->code[in->pc - c->code_lo];
	c->added++;
	return true;
}

static void scan_one(const struct cts_insn *in, void *arg)
{
	struct scan_ctx *c = arg;
	if (got_call(c, in))
		return;
	bool operand = watch_on_breakpoints(c->tr->acc) && cts_disasm_mem_operand(in);
	if ((in->is_branch || in->is_call || in->is_ret || in->is_syscall) && !operand)
		return;
	if (in->access == CTS_ACC_UNKNOWN && !in->ea_valid)
		return;
	struct bp *b = cts_tr_bp_add(c->tr, in->pc, BP_ACCESS, 0);
	/* A gated breakpoint may be stepped over before it was ever planted. */
	if (b->kind == BP_ACCESS && c->code[in->pc - c->code_lo] != 0xCC)
		b->orig = c->code[in->pc - c->code_lo];
	c->added++;
}

static void scan_range(uint64_t vaddr, uint64_t size, void *arg)
{
	struct scan_ctx *c = arg;
	struct cts_access_state *a = c->tr->acc;
	uint64_t lo = c->base - c->lowest + vaddr;
	if (cts_tr_interrupted())
		return; /* tr_start sees it and ends the run */
	uint8_t *code = cts_xmalloc(size);
	c->code = code;
	c->code_lo = lo;
	if (cts_mem_read(c->tr->pid, lo, code, size) == 0)
		cts_disasm_scan(a->dis, lo, code, size,
				CTS_SCAN_SHARED | (watch_on_breakpoints(a) ? CTS_SCAN_OPERANDS : 0),
				scan_one, c);
	free(code);
}

int cts_access_own_atomics(const struct cts_tracer *tr)
{
	return tr->acc && tr->acc->own_atomics > 0 ? tr->acc->own_atomics : 0;
}

bool cts_access_lib_wanted(const struct cts_tracer *tr, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (int i = 0; i < tr->cfg.ntrace_libs; i++)
		if (strstr(base, tr->cfg.trace_libs[i]))
			return true;
	return false;
}

/* "prog: 12 functions (unwind tables) cover 97% of .text, the other 3%
 * decoded linearly; 40 access sites" */
static char *traced_file_str(const struct traced_file *f, char *buf, size_t len)
{
	const char *base = strrchr(f->path, '/');
	const struct cts_elf_code *c = &f->code;
	double pct = c->text_bytes ? 100.0 * (double)c->function_bytes / (double)c->text_bytes : 0;
	snprintf(buf, len, "%s: %d function%s (%s%s%s) cover %.0f%% of .text, the other %.0f%% "
		 "decoded linearly; %d access site%s", base ? base + 1 : f->path, c->functions,
		 c->functions == 1 ? "" : "s", cts_elf_code_source_name(c->source),
		 c->debug_file[0] ? " " : "", c->debug_file, pct, 100.0 - pct, f->sites,
		 f->sites == 1 ? "" : "s");
	return buf;
}

char *cts_access_code_str(const struct cts_tracer *tr, char *buf, size_t len)
{
	const struct cts_access_state *a = tr->acc;
	buf[0] = 0;
	for (int i = 0; a && i < a->nfiles; i++) {
		char one[512];
		size_t off = strlen(buf);
		snprintf(buf + off, len - off, "%s%s", i ? "; " : "",
			 traced_file_str(&a->files[i], one, sizeof(one)));
	}
	return buf;
}

json_t *cts_access_code_json(const struct cts_tracer *tr)
{
	const struct cts_access_state *a = tr->acc;
	if (!a || !a->nfiles)
		return NULL;
	json_t *arr = json_array();
	for (int i = 0; i < a->nfiles; i++) {
		const struct traced_file *f = &a->files[i];
		json_t *o = json_pack("{s:o, s:s, s:i, s:I, s:I, s:I, s:i}",
				      "file", cts_report_jstr(f->path),
				      "source", cts_elf_code_source_name(f->code.source),
				      "functions", f->code.functions,
				      "text_bytes", (json_int_t)f->code.text_bytes,
				      "function_bytes", (json_int_t)f->code.function_bytes,
				      "linear_bytes", (json_int_t)f->code.gap_bytes,
				      "access_sites", f->sites);
		if (f->code.debug_file[0])
			json_object_set_new(o, "debug_file", json_string(f->code.debug_file));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Instrument the program's functions (and --trace-lib libraries'). */
static int scan_code(struct cts_tracer *tr)
{
	struct cts_access_state *a = tr->acc;
	struct scan_ctx c = { .tr = tr };

	if (refresh_maps(tr) != 0)
		return -1;
	for (size_t i = 0; i < a->nmaps; i++) {
		const struct cts_mapping *m = &a->maps[i];
		if (m->off != 0 || !m->path[0])
			continue;
		if (strcmp(m->path, tr->image) != 0 && !cts_access_lib_wanted(tr, m->path))
			continue;
		/* The executable mappings of this file are the traced code range. */
		for (size_t j = 0; j < a->nmaps && a->nranges < MAX_RANGES; j++) {
			if (strcmp(a->maps[j].path, m->path) == 0 && a->maps[j].perms[2] == 'x') {
				a->lo[a->nranges] = a->maps[j].lo;
				a->hi[a->nranges] = a->maps[j].hi;
				a->nranges++;
			}
		}
		c.base = m->lo;
		int before = c.added;
		struct cts_elf_code code;
		if (cts_elf_code_ranges(m->path, &c.lowest, scan_range, &c, &code) < 0) {
			cts_error_msg("warning: cannot read the code of %s", m->path);
			continue;
		}
		a->files = cts_xrealloc(a->files, (size_t)(a->nfiles + 1) * sizeof(*a->files));
		a->files[a->nfiles++] = (struct traced_file){ cts_xstrdup(m->path), code,
							      c.added - before };
		if (cts_verbosity >= 2) {
			char line[512];
			fprintf(stderr, "cts-trace: traced code: %s\n",
				traced_file_str(&a->files[a->nfiles - 1], line, sizeof(line)));
		}
	}
	for (int i = 0; i < tr->cfg.ntrace_libs; i++) {
		bool found = false;
		for (size_t j = 0; j < a->nmaps; j++)
			found |= a->maps[j].path[0] && strstr(a->maps[j].path, tr->cfg.trace_libs[i]);
		if (!found)
			cts_error_msg("warning: --trace-lib %s: no such library mapped at startup",
				      tr->cfg.trace_libs[i]);
	}
	cts_debug_msg("access breakpoints: %d in %d code ranges (%zu GOT slots watched)", c.added,
		      a->nranges, tr->ngot);
	/* Other libraries' locks: their atomics (libsync.c). */
	if (tr->cfg.mode != CTS_MODE_SYNC)
		cts_libsync_scan(tr, a->dis, a->maps, a->nmaps);
	a->scanned = true;
	return 0;
}

/* ---- arming: access breakpoints only while >= 2 threads live ----------------
 *
 * With one live thread no access can race: a thread not created yet is
 * ordered after everything before its pthread_create (the clone event stops
 * the creator before the new thread runs), and the live-thread test of
 * on_access already made such hits invisible. So in break mode the gated
 * access breakpoints (cts_tr_bp_in_text) leave the text while one thread
 * lives, and the fork server never has them: single-threaded start-up and
 * main's set-up run at full speed. A thread stops counting when its exit
 * syscall runs as a step, not when the kernel reports it reaped: that report
 * comes at no fixed point of the schedule, and what is visible must not
 * depend on it (replay, DPOR and state matching need the same events every
 * time). The rule leaves one hole, documented in docs/design.md: an access
 * by the last thread to memory an exited thread touched, with no join or
 * other synchronization between them, is not seen in that run.
 * Arming rewrites each traced code range that holds a gated breakpoint with
 * one write to /proc/pid/mem instead of a poke per breakpoint (python3 has
 * ~10^5 of them). What the range must hold is known without reading it: its
 * original bytes, read once per program (every run's text is a copy of the
 * same file at the same address), with every breakpoint that belongs in the
 * text now planted; the mem file is opened once per run. CTS_ARM_CHECK=1
 * reads the range before each rewrite and aborts if it is not what the
 * table says it is (for the tests). */

/* A thread of the process that can still be read and written. */
static pid_t live_tid(const struct cts_tracer *tr)
{
	for (int i = 0; i < tr->nlive; i++)
		if (tr->live[i]->state == TH_HELD || tr->live[i]->state == TH_NEW)
			return tr->live[i]->tid;
	return tr->pid;
}

/* One write through the run's /proc/pid/mem, opened on first use. A
 * descriptor kept from an earlier process (its pid reused) fails: once
 * more with a fresh one. */
static int text_write(struct cts_tracer *tr, uint64_t addr, const uint8_t *buf, size_t len)
{
	struct cts_access_state *a = tr->acc;
	for (int tries = 0; tries < 2; tries++) {
		if (a->mem_fd < 0 || a->mem_fd_pid != tr->pid) {
			char path[64];
			if (a->mem_fd >= 0)
				close(a->mem_fd);
			snprintf(path, sizeof(path), "/proc/%d/mem", (int)live_tid(tr));
			a->mem_fd = open(path, O_RDWR | O_CLOEXEC);
			a->mem_fd_pid = tr->pid;
			if (a->mem_fd < 0)
				return -1;
		}
		ssize_t n = pwrite(a->mem_fd, buf, len, (off_t)addr);
		if (n == (ssize_t)len)
			return 0;
		if (n >= 0)
			errno = EIO;
		int err = errno;
		close(a->mem_fd);
		a->mem_fd = -1;
		errno = err;
	}
	return -1;
}

static int range_of(const struct cts_access_state *a, uint64_t addr)
{
	for (int r = 0; r < a->nranges; r++)
		if (addr >= a->lo[r] && addr < a->hi[r])
			return r;
	return -1;
}

/* Range r's original bytes, read from the process the first time (its
 * planted breakpoints taken out): NULL if it cannot be read. */
static const uint8_t *text_orig(struct cts_tracer *tr, int r)
{
	struct cts_access_state *a = tr->acc;
	if (a->text[r])
		return a->text[r];
	size_t len = a->hi[r] - a->lo[r];
	uint8_t *buf = cts_xmalloc(len);
	if (cts_mem_read(live_tid(tr), a->lo[r], buf, len) != 0) {
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < tr->bpcap; i++) {
		const struct bp *b = &tr->bps[i];
		if (!b->addr || b->entry || range_of(a, b->addr) != r)
			continue;
		uint8_t *p = &buf[b->addr - a->lo[r]];
		if (b->plen && b->addr + b->plen <= a->hi[r] && memcmp(p, b->patch, b->plen) == 0)
			memcpy(p, b->saved, b->plen);
		else if (!b->plen && *p == 0xCC)
			*p = b->orig;
	}
	a->text[r] = buf;
	return buf;
}

/* What range r holds with the breakpoint table and tr->access_armed as they
 * are: a malloc'd copy, or NULL. */
static uint8_t *text_now(struct cts_tracer *tr, int r)
{
	struct cts_access_state *a = tr->acc;
	const uint8_t *orig = text_orig(tr, r);
	if (!orig)
		return NULL;
	size_t len = a->hi[r] - a->lo[r];
	uint8_t *buf = cts_xmalloc(len);
	memcpy(buf, orig, len);
	for (size_t i = 0; i < tr->bpcap; i++) {
		struct bp *b = &tr->bps[i];
		if (!b->addr || b->entry || range_of(a, b->addr) != r)
			continue;
		uint8_t *p = &buf[b->addr - a->lo[r]];
		/* A gated breakpoint never planted one by one learns its byte
		 * here (stepping over it and decoding it need it). */
		if (!b->plen)
			b->orig = *p;
		if (!cts_tr_bp_in_text(tr, b, false))
			continue;
		if (!b->plen)
			*p = 0xCC;
		else if (b->addr + b->plen <= a->hi[r])
			memcpy(p, b->patch, b->plen);
	}
	return buf;
}

/* CTS_ARM_CHECK: range r holds what text_now says (armed as before). */
static void arm_check(struct cts_tracer *tr, int r, bool was)
{
	struct cts_access_state *a = tr->acc;
	bool now = tr->access_armed;
	size_t len = a->hi[r] - a->lo[r];
	tr->access_armed = was;
	uint8_t *want = text_now(tr, r), *have = cts_xmalloc(len);
	tr->access_armed = now;
	if (want && cts_mem_read(live_tid(tr), a->lo[r], have, len) == 0) {
		for (size_t i = 0; i < len; i++) {
			if (want[i] != have[i]) {
				cts_error_msg("CTS_ARM_CHECK: text at 0x%" PRIx64 " is 0x%02x, "
					      "the breakpoint table says 0x%02x", a->lo[r] + i,
					      have[i], want[i]);
				abort();
			}
		}
	}
	free(want);
	free(have);
}

static int set_armed(struct cts_tracer *tr, bool on)
{
	struct cts_access_state *a = tr->acc;
	bool gated[MAX_RANGES] = { 0 };
	int rc = 0;

	tr->access_armed = on;
	for (size_t i = 0; i < tr->bpcap; i++) {
		struct bp *b = &tr->bps[i];
		if (!b->addr || !b->active || cts_tr_bp_in_text(tr, b, true))
			continue; /* not gated: its int3 stays as it is */
		int r = range_of(a, b->addr);
		if (r >= 0)
			gated[r] = true;
		else if ((on ? cts_tr_bp_plant(tr, b) : cts_tr_bp_unplant(tr, b)) != 0 &&
			 errno != ESRCH)
			rc = -1;
	}
	for (int r = 0; r < a->nranges; r++) {
		if (!gated[r])
			continue;
		if (a->arm_check)
			arm_check(tr, r, !on);
		uint8_t *buf = text_now(tr, r);
		if (!buf) {
			if (errno != ESRCH && errno != EIO)
				rc = -1;
			continue;
		}
		if (text_write(tr, a->lo[r], buf, a->hi[r] - a->lo[r]) != 0 && errno != ESRCH &&
		    errno != EIO && errno != ENOENT)
			rc = -1;
		free(buf);
	}
	return rc;
}

bool cts_access_hw_watching(const struct cts_tracer *tr)
{
	return tr->acc && tr->acc->hw;
}

int cts_access_threads_changed(struct cts_tracer *tr)
{
	cts_fault_gate(tr, cts_access_live_threads(tr) >= 2);
	if (!tr->gate_access && !tr->gate_libcalls)
		return 0;
	bool want = cts_access_live_threads(tr) >= 2;
	if (want == tr->access_armed)
		return 0;
	if (tr->exec_free) {
		/* The process is another program now: its text is not ours. */
		tr->access_armed = want;
		return 0;
	}
	if (set_armed(tr, want) != 0) {
		cts_tr_set_error(tr, "cannot %s access breakpoints: %s", want ? "plant" : "remove",
				 strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- watches --------------------------------------------------------------------- */

/* Watch hits kept for the JSON report (the stderr lines show them all). */
#define MAX_WATCH_HITS 256

struct watch_hit {
	int watch, thread;
	enum cts_attr_kind kind;
	bool exact;
	uint64_t pc, value;
};

struct watch_log {
	struct watch_hit hit[MAX_WATCH_HITS];
	int n;
	uint64_t total;
	char where[MAX_WATCH_HITS][96];
};

static const char *backend_name(const struct cts_access_state *a)
{
	return a->hw ? "hardware" : "breakpoints";
}

/* Hardware or access breakpoints, decided once (the probe is cached). */
static int choose_watch_backend(struct cts_tracer *tr)
{
	struct cts_access_state *a = tr->acc;
	bool trap = tr->cfg.watch_backend != CTS_WATCH_BREAKPOINTS && cts_hw_available();
	const char *why = tr->cfg.watch_backend == CTS_WATCH_BREAKPOINTS ? "asked for" :
			  trap ? "debug registers trap on this machine" :
				 "debug registers do not trap on this machine";

	if (tr->cfg.watch_backend == CTS_WATCH_HARDWARE && !trap) {
		snprintf(tr->st->message, sizeof(tr->st->message),
			 "--watch-backend hardware: debug registers do not trap on this machine");
		tr->st->status = CTS_RUN_ERROR;
		tr->st->bad_input = true;
		return -1;
	}
	a->hw = trap;
	for (int i = 0; a->hw && i < a->nwatch; i++) {
		char err[128];
		if (cts_hw_validate(a->watch[i].addr, a->watch[i].len, err, sizeof(err)) != 0 ||
		    cts_hw_add(&a->hwset, a->watch[i].addr, a->watch[i].len, CTS_HW_RW) < 0) {
			/* cli.c checked the rules; an address known only now may still fail */
			cts_error_msg("warning: %s: using access breakpoints", err);
			memset(&a->hwset, 0, sizeof(a->hwset));
			a->hw = false;
		}
	}
	a->backend_chosen = true;
	if (cts_verbosity >= 2)
		fprintf(stderr, "cts-trace: watch backend: %s (%s)\n", backend_name(a), why);
	if (!a->hw)
		a->scan_needed = true;
	return 0;
}

static int resolve_watches(struct cts_tracer *tr)
{
	struct cts_access_state *a = tr->acc;
	for (int i = 0; i < a->nwatch; i++) {
		struct watch *w = &a->watch[i];
		if (w->addr)
			continue;
		char *end;
		/* decimal or 0x hex, as tracer/cli.c checked it: no octal, no sign */
		bool hex = strncmp(w->spec, "0x", 2) == 0 || strncmp(w->spec, "0X", 2) == 0;
		errno = 0;
		unsigned long long v = strtoull(w->spec, &end, hex ? 16 : 10);
		uint64_t size = 0;
		if (isdigit((unsigned char)w->spec[0]) && !*end && !errno) {
			w->addr = v;
			snprintf(w->name, sizeof(w->name), "0x%llx", v);
		} else if (tr->sym && cts_sym_lookup(tr->sym, w->spec, &w->addr, &size) == 0) {
			memcpy(w->name, w->spec, sizeof(w->name)); /* same size, NUL-terminated */
		} else {
			snprintf(tr->st->message, sizeof(tr->st->message),
				 "--watch %s: no such symbol in %s (and not an address)", w->spec,
				 tr->cfg.path);
			tr->st->status = CTS_RUN_ERROR;
			tr->st->bad_input = true;
			return -1;
		}
		if (!w->len)
			w->len = size == 1 || size == 2 || size == 4 ? (unsigned)size : 8;
		if (!w->len || w->len > 8)
			w->len = 8;
	}
	if (!a->backend_chosen) {
		if (a->scan_needed && tr->cfg.watch_backend != CTS_WATCH_HARDWARE) {
			/* break/step mode: every access stops anyway, the filter is
			 * exact; the debug registers only when asked for */
			a->backend_chosen = true;
			if (cts_verbosity >= 2)
				fprintf(stderr, "cts-trace: watch backend: breakpoints (mode %s)\n",
					tr->cfg.mode == CTS_MODE_STEP ? "step" : "break");
			return 0;
		}
		return choose_watch_backend(tr);
	}
	return 0;
}

static int watched(const struct cts_access_state *a, uint64_t addr, uint32_t size)
{
	for (int i = 0; i < a->nwatch; i++)
		if (addr < a->watch[i].addr + a->watch[i].len && a->watch[i].addr < addr + size)
			return i;
	return -1;
}

/* pc as the reports name it ("func+0x1c (file.c:12)"), looked up once per
 * pc and run: a watched variable is hit from a few places, often. */
static const char *pc_name(struct cts_tracer *tr, uint64_t pc)
{
	struct cts_access_state *a = tr->acc;
	if (!a->names)
		a->names = cts_xcalloc(NNAMES, sizeof(*a->names));
	struct pc_name *n = &a->names[(pc ^ (pc >> 6)) % NNAMES];
	if (n->pc == pc && n->text[0])
		return n->text;
	n->pc = pc;
	if (tr->sym)
		cts_sym_format(tr->sym, pc, n->text, sizeof(n->text));
	else
		snprintf(n->text, sizeof(n->text), "0x%" PRIx64, pc);
	return n->text;
}

/* digits of v in base 10 or 16 at the end of buf[0, 20): their start */
static char *digits(char *end, uint64_t v, unsigned base)
{
	do {
		*--end = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	return end;
}

/* "cts-trace: watch W: thread N KIND at|near WHERE value V (0xV)": what
 * comes before V is kept from an earlier hit that said the same (a hot
 * access, hit after hit from one place or two), so a hit costs one write
 * and no printf. */
static void print_hit(struct cts_access_state *a, int w, int thread, enum cts_attr_kind kind,
		      bool exact, uint64_t pc, const char *where, uint64_t value)
{
	struct hit_line *h = &a->line[(pc ^ (pc >> 4) ^ (uint64_t)kind) % NLINES];
	if (!h->len || h->watch != w || h->thread != thread || h->kind != kind ||
	    h->exact != exact || h->pc != pc) {
		h->watch = w;
		h->thread = thread;
		h->kind = kind;
		h->exact = exact;
		h->pc = pc;
		char text[sizeof(h->text)];
		int n = snprintf(text, sizeof(text), "cts-trace: watch %s: thread %d %s %s %s value ",
				 a->watch[w].name, thread, cts_attr_kind_name(kind), exact ? "at" : "near",
				 where);
		h->len = n < 0 ? 0 : (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1;
		memcpy(h->text, text, h->len);
	}
	char out[sizeof(h->text) + 48], dec[20], hex[20];
	char *d = digits(dec + sizeof(dec), value, 10), *x = digits(hex + sizeof(hex), value, 16);
	size_t n = h->len, nd = (size_t)(dec + sizeof(dec) - d), nx = (size_t)(hex + sizeof(hex) - x);
	memcpy(out, h->text, n);
	memcpy(out + n, d, nd);
	n += nd;
	memcpy(out + n, " (0x", 4);
	n += 4;
	memcpy(out + n, x, nx);
	n += nx;
	memcpy(out + n, ")\n", 2);
	fwrite(out, 1, n + 2, stderr);
}

static void log_watch(struct cts_tracer *tr, struct thread *th, int w, enum cts_attr_kind kind,
		      bool exact, uint64_t pc, uint64_t value)
{
	struct cts_access_state *a = tr->acc;
	if (tr->mute)
		return;
	const char *where = pc_name(tr, pc);
	print_hit(a, w, th->num, kind, exact, pc, where, value);
	if (!a->log)
		a->log = cts_xcalloc(1, sizeof(*a->log));
	struct watch_log *l = a->log;
	l->total++;
	if (l->n < MAX_WATCH_HITS) {
		l->hit[l->n] = (struct watch_hit){ .watch = w, .thread = th->num, .kind = kind,
						   .exact = exact, .pc = pc, .value = value };
		snprintf(l->where[l->n], sizeof(l->where[0]), "%s", where);
		l->n++;
	}
}

/* The fallback path's reports: the access breakpoint stood on the very
 * instruction, so pc and kind are exact. */
static void report_watch(struct cts_tracer *tr, struct thread *th, int w,
			 enum cts_attr_kind kind, uint64_t pc, uint64_t value)
{
	log_watch(tr, th, w, kind, true, pc, value);
}

int cts_access_setup(struct cts_tracer *tr)
{
	struct cts_access_state *a = tr->acc;
	struct thread *main_th = cts_tr_by_num(tr, 0);

	a->maps_pid = 0;
	forget_sites(a);
	if (a->nwatch && resolve_watches(tr) != 0)
		return -1;
	if (a->scan_needed && !a->scanned && scan_code(tr) != 0) {
		snprintf(tr->st->message, sizeof(tr->st->message), "cannot scan the code of %s",
			 tr->cfg.path);
		tr->st->status = CTS_RUN_ERROR;
		return -1;
	}
	/* Sync mode sees no atomic instruction: count the program's own, once
	 * (the text is the same in every run), for what the search saw. */
	if (tr->cfg.mode == CTS_MODE_SYNC && a->own_atomics < 0 && refresh_maps(tr) == 0)
		a->own_atomics = cts_libsync_count_own(tr, a->dis, a->maps, a->nmaps);
	if (a->hw)
		cts_access_watch_thread(tr, main_th);
	/* --watch reports single-threaded accesses too: never gate then. */
	tr->gate_access = tr->cfg.mode == CTS_MODE_BREAK && !a->nwatch;
	/* sync.c lets every library call of a lone thread through */
	tr->gate_libcalls = tr->cfg.mode != CTS_MODE_STEP;
	return 0;
}

/* Every thread's registers are its own: the main thread of each run (also
 * a fork-server child, which inherits none) and each new thread at its
 * first stop, before it has run an instruction. */
void cts_access_watch_thread(struct cts_tracer *tr, struct thread *th)
{
	struct cts_access_state *a = tr->acc;
	if (!a->hw && !a->catch_slots)
		return;
	memset(&th->hw, 0, sizeof(th->hw));
	if (cts_hw_apply(th->tid, &th->hw, &a->hwset) != 0 && errno != ESRCH)
		cts_error_msg("warning: cannot arm watchpoints on thread %d: %s", th->num,
			      strerror(errno));
}

/* The code from the start of the function holding pc to 16 bytes past
 * it, int3s replaced by the bytes they displace. */
static uint8_t *code_before(struct cts_tracer *tr, uint64_t pc, uint64_t *lo, size_t *len,
			    bool *boundary)
{
	struct cts_srcloc loc;
	*boundary = tr->sym && cts_sym_pc(tr->sym, pc, &loc) == 0 && loc.func &&
		    loc.func_off <= 65536;
	*lo = *boundary ? pc - loc.func_off : pc - 15;
	*len = (size_t)(pc - *lo) + 16;
	uint8_t *code = cts_xmalloc(*len);
	while (*len > 0 && cts_mem_read(tr->pid, *lo, code, *len) != 0)
		(*len)--; /* the end of a mapping */
	for (size_t i = 0; i < tr->bpcap; i++) {
		const struct bp *b = &tr->bps[i];
		if (b->addr >= *lo && b->addr < *lo + *len && code[b->addr - *lo] == 0xCC)
			code[b->addr - *lo] = b->orig;
	}
	return code;
}

/* The decoding of the code ending at pc, made now from the code of its
 * function (one read of the target's memory): 0, or -1. */
static int locate(struct cts_tracer *tr, uint64_t pc, struct cts_attr_site *site)
{
	uint64_t lo;
	size_t len;
	bool boundary;
	uint8_t *code = code_before(tr, pc, &lo, &len, &boundary);
	struct cts_attr_input in = { .trap_pc = pc, .code_lo = lo, .boundary = boundary,
				     .code = code, .code_len = len };
	int rc = cts_attr_locate(tr->acc->dis, &in, site);
	free(code);
	return rc;
}

/* The decoding at trap pc pc: kept from an earlier trap there, or made
 * now (locate). */
static const struct cts_attr_site *site_at(struct cts_tracer *tr, uint64_t pc)
{
	struct cts_access_state *a = tr->acc;
	struct cts_attr_site **e = &a->sites[(pc ^ (pc >> 7)) % NSITES];
	if (*e && (*e)->trap_pc == pc)
		return *e;
	if (!*e)
		*e = cts_xmalloc(sizeof(**e));
	if (locate(tr, pc, *e) != 0) {
		free(*e);
		*e = NULL;
	}
	return *e;
}

/* A trap its site does not explain may be at the target of `call *[m]`
 * through the watched bytes: the call ends at the return address [rsp]
 * and its operand holds the trap pc (a jump leaves a stale return address
 * whose call went elsewhere).  Then *at is the call, as an access
 * breakpoint reports it.  Rare (a call through a watched variable), so
 * the caller's site is decoded afresh, not kept. */
static void call_through(struct cts_tracer *tr, struct thread *th,
			 const struct user_regs_struct *regs, int slot, struct cts_attr *at)
{
	struct cts_attr_site site;
	struct cts_attr call;
	uint64_t ret = 0, target = 0;
	if (cts_mem_read(th->tid, regs->rsp, &ret, sizeof(ret)) != 0 || ret <= 15 ||
	    locate(tr, ret, &site) != 0 ||
	    cts_attr_judge_call(&site, &tr->acc->hwset, slot, regs, &call) != 0 ||
	    cts_mem_read(th->tid, call.addr, &target, sizeof(target)) != 0 || target != regs->rip)
		return;
	*at = call;
}

/* The decoding kept for trap pc pc, if any. */
static const struct cts_attr_site *site_kept(const struct cts_access_state *a, uint64_t pc)
{
	const struct cts_attr_site *e = a->sites[(pc ^ (pc >> 7)) % NSITES];
	return e && e->trap_pc == pc ? e : NULL;
}

/* The value of the watched bytes the hit at moved through a register or
 * an immediate (cts_attr_moved), into *v: 0, or -1 (read the memory).
 * few: registers not read from the thread yet; the one needed is, alone. */
static int moved_value(struct thread *th, const struct cts_attr_site *site, const struct cts_attr *at,
		       struct user_regs_struct *regs, bool few, uint64_t *v)
{
	int reg = cts_attr_moved_reg(site, at);
	if (reg < 0)
		return -1;
	if (reg > 0 && few) {
		long off = cts_disasm_reg_slot(reg);
		if (off < 0)
			return -1;
		errno = 0;
		long r = ptrace(PTRACE_PEEKUSER, th->tid, (void *)off, NULL);
		if (r == -1 && errno)
			return -1;
		memcpy((char *)regs + off, &r, sizeof(r));
	}
	return cts_attr_moved(site, at, regs, v);
}

/* Report the hits DR6 names (hardware path). trap_pc: the trap's pc when
 * its SIGTRAP said it (si_addr), else 0. At a pc whose decoding is kept
 * and does not depend on the registers (a global variable's access), they
 * are not read (GETREGS): only the one the value moved through, if any. */
static void watch_traps(struct cts_tracer *tr, struct thread *th, uint64_t dr6, uint64_t trap_pc)
{
	struct cts_access_state *a = tr->acc;
	struct user_regs_struct few_regs, *regs;
	const struct cts_attr_site *site = NULL;
	bool few = trap_pc && cts_hw_siginfo_pc() && (site = site_kept(a, trap_pc)) &&
		   !cts_attr_site_uses_regs(site);
	if (few) {
		memset(&few_regs, 0, sizeof(few_regs));
		few_regs.rip = trap_pc;
		regs = &few_regs;
	} else {
		if (cts_tr_getregs(th) != 0)
			return;
		regs = &th->regs;
		site = site_at(tr, th->regs.rip);
	}
	for (int slot = 0; site && slot < CTS_HW_SLOTS; slot++) {
		if (!(dr6 & (1ULL << slot)) || !a->hwset.w[slot].used)
			continue;
		const struct cts_hw_watch *hw = &a->hwset.w[slot];
		int w = watched(a, hw->addr, hw->len);
		struct cts_attr at;
		if (cts_attr_judge(site, &a->hwset, slot, regs, &at) != 0)
			continue;
		if (!at.located) {
			if (few && cts_tr_getregs(th) != 0)
				continue;
			if (few) {
				few = false;
				regs = &th->regs;
			}
			call_through(tr, th, regs, slot, &at);
		}
		if (a->catch_slots & (1u << slot)) {
			if (few && cts_tr_getregs(th) != 0)
				continue;
			cts_catch_trap(tr, th, slot, &at);
			continue;
		}
		if (w < 0)
			continue;
		/* the value moved, when exactly the watched bytes went through
		 * a register: no read of the target's memory */
		uint64_t v = 0;
		if (at.addr != a->watch[w].addr || at.size != a->watch[w].len ||
		    moved_value(th, site, &at, regs, few, &v) != 0)
			cts_mem_read(th->tid, a->watch[w].addr, &v, a->watch[w].len);
		log_watch(tr, th, w, at.kind, at.located, at.pc, v);
	}
}

/* The slot of a watchpoint trap (si_code TRAP_HWBKPT) when no DR6 read is
 * needed to tell: one slot armed, for the whole run (--watch; a catch
 * window's slots come and go, a trap may be an earlier window's). */
static int only_slot(const struct cts_access_state *a)
{
	if (a->catch_slots || cts_hw_used(&a->hwset) != 1)
		return -1;
	for (int i = 0; i < CTS_HW_SLOTS; i++)
		if (a->hwset.w[i].used)
			return i;
	return -1;
}

/* A watchpoint trap (si_code TRAP_HWBKPT; trap_pc its si_addr): DR6 is
 * read only to tell the slots apart, and reset only where the kernel keeps
 * its bits from one trap to the next (cts_hw_dr6_fresh): the floor of a
 * trap is a wait, its siginfo, the registers (or the one a value moved
 * through) and a PTRACE_CONT. */
int cts_access_watch_hit(struct cts_tracer *tr, struct thread *th, uint64_t trap_pc)
{
	uint64_t dr6 = 0;
	int slot = only_slot(tr->acc);
	bool fresh = cts_hw_dr6_fresh();
	if (slot >= 0) {
		dr6 = 1ULL << slot;
		if (!fresh)
			cts_hw_reset_dr6(th->tid);
	} else if (cts_hw_read_dr6(th->tid, &dr6) == 0) {
		if (!fresh)
			cts_hw_reset_dr6(th->tid);
	}
	watch_traps(tr, th, dr6, trap_pc);
	return cts_tr_resume(tr, th, 0);
}

/* A single-step and a watchpoint trap on the same instruction arrive as
 * one SIGTRAP reported as a single-step: DR6 still names the slot. Where
 * DR6 is fresh at each debug exception, only a step that was one (si_code
 * TRAP_TRACE, not a step completing a system call) can show a new hit. */
void cts_access_watch_step(struct cts_tracer *tr, struct thread *th, bool debug_exception)
{
	uint64_t dr6 = 0;
	bool fresh = cts_hw_dr6_fresh();
	if ((!tr->acc->hw && !tr->acc->catch_slots) || (fresh && !debug_exception) ||
	    cts_hw_read_dr6(th->tid, &dr6) != 0 || !(dr6 & 0xf))
		return;
	if (!fresh)
		cts_hw_reset_dr6(th->tid);
	watch_traps(tr, th, dr6, 0);
}

/* A move the tracer performed itself (emulate) never reaches the CPU's
 * debug registers: report it from the instruction (a watch, or a catch). */
static void watch_moved(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in,
			uint64_t addr, size_t size)
{
	struct cts_access_state *a = tr->acc;
	if (a->catch_slots)
		cts_catch_moved(tr, th, in->writes ? CTS_OP_WRITE : CTS_OP_READ, in->pc, addr,
				(uint32_t)size);
	int w = a->hw ? watched(a, addr, (uint32_t)size) : -1;
	if (w < 0)
		return;
	uint64_t v = 0;
	cts_mem_read(th->tid, a->watch[w].addr, &v, a->watch[w].len);
	log_watch(tr, th, w, cts_attr_insn_kind(in), true, in->pc, v);
}

bool cts_access_hw_traps(struct cts_tracer *tr)
{
	return tr->cfg.watch_backend != CTS_WATCH_BREAKPOINTS && cts_hw_available();
}

static void apply_all(struct cts_tracer *tr)
{
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *t = tr->live[i];
		/* Threads asleep in the kernel are not stopped: armed at their next stop
		 * would be too late, so a window can miss them (documented). */
		if (t->state == TH_HELD || (t->state == TH_RUNNING && t == tr->running))
			if (cts_hw_apply(t->tid, &t->hw, &tr->acc->hwset) != 0 && errno != ESRCH)
				cts_debug_msg("cannot program thread %d's debug registers: %s",
					      t->num, strerror(errno));
	}
}

int cts_access_hw_arm(struct cts_tracer *tr, uint64_t addr, unsigned len, enum cts_hw_kind k)
{
	struct cts_access_state *a = tr->acc;
	if (!cts_access_hw_traps(tr))
		return -1;
	int slot = cts_hw_add(&a->hwset, addr, len, k);
	if (slot < 0)
		return -1;
	a->catch_slots |= 1u << slot;
	apply_all(tr);
	return slot;
}

void cts_access_hw_disarm(struct cts_tracer *tr, int slot)
{
	struct cts_access_state *a = tr->acc;
	if (slot < 0 || slot >= CTS_HW_SLOTS || !(a->catch_slots & (1u << slot)))
		return;
	cts_hw_remove(&a->hwset, slot);
	a->catch_slots &= ~(1u << slot);
	apply_all(tr);
}

json_t *cts_access_watch_json(const struct cts_tracer *tr)
{
	const struct cts_access_state *a = tr->acc;
	if (!a || !a->nwatch)
		return NULL;
	json_t *o = json_object(), *hits = json_array(), *ws = json_array();
	const struct watch_log *l = a->log;
	for (int i = 0; i < a->nwatch; i++) {
		json_t *w = json_object();
		char addr[32];
		snprintf(addr, sizeof(addr), "0x%" PRIx64, a->watch[i].addr);
		json_object_set_new(w, "name", cts_report_jstr(a->watch[i].name));
		json_object_set_new(w, "address", json_string(addr));
		json_object_set_new(w, "size", json_integer(a->watch[i].len));
		json_array_append_new(ws, w);
	}
	for (int i = 0; l && i < l->n; i++) {
		const struct watch_hit *h = &l->hit[i];
		json_t *o2 = json_object();
		char pc[32];
		snprintf(pc, sizeof(pc), "0x%" PRIx64, h->pc);
		json_object_set_new(o2, "watch", cts_report_jstr(a->watch[h->watch].name));
		json_object_set_new(o2, "thread", json_integer(h->thread));
		json_object_set_new(o2, "kind", json_string(cts_attr_kind_name(h->kind)));
		json_object_set_new(o2, "exact", json_boolean(h->exact));
		json_object_set_new(o2, "pc", json_string(pc));
		json_object_set_new(o2, "location", cts_report_jstr(l->where[i]));
		json_object_set_new(o2, "value", json_integer((json_int_t)h->value));
		json_array_append_new(hits, o2);
	}
	json_object_set_new(o, "backend", json_string(a->backend_chosen ? backend_name(a) : "none"));
	json_object_set_new(o, "watches", ws);
	json_object_set_new(o, "hits_total", json_integer(l ? (json_int_t)l->total : 0));
	json_object_set_new(o, "hits", hits);
	return o;
}

/* ---- hits ---------------------------------------------------------------------- */

/* Decode at pc with b's original byte in place of our int3 (always, or
 * only where the int3 is in the text). */
static int decode_with(struct cts_tracer *tr, pid_t tid, uint64_t pc, const struct bp *b,
		       bool always, struct cts_insn *in)
{
	uint8_t bytes[16];
	if (cts_mem_read(tid, pc, bytes, sizeof(bytes)) != 0)
		return -1;
	if (b && (always || bytes[0] == 0xCC))
		bytes[0] = b->orig;
	/* Later bytes may hold our int3s only at other instruction starts,
	 * past this instruction's end, so they do not change the decoding. */
	return cts_disasm_decode(tr->acc->dis, pc, bytes, sizeof(bytes), in);
}

int cts_access_decode(struct cts_tracer *tr, pid_t tid, uint64_t pc, struct cts_insn *in)
{
	return decode_with(tr, tid, pc, cts_tr_bp_find(tr, pc), false, in);
}

static const struct cts_insn *decode_at(struct cts_tracer *tr, struct thread *th, uint64_t pc,
					struct bp *b)
{
	static struct cts_insn tmp;
	if (b && b->insn)
		return b->insn;
	if (decode_with(tr, th->tid, pc, b, true, &tmp) != 0)
		return NULL;
	if (b) {
		b->insn = cts_xmalloc(sizeof(*b->insn));
		*b->insn = tmp;
		return b->insn;
	}
	return &tmp;
}

int cts_access_load_dest(struct cts_tracer *tr, struct thread *th, uint64_t pc)
{
	const struct cts_insn *in = decode_at(tr, th, pc, cts_tr_bp_find(tr, pc));
	return in ? cts_disasm_load_dest(in) : -1;
}

static bool own_stack(struct cts_tracer *tr, struct thread *th, uint64_t addr)
{
	if (!th->stack_hi) {
		const struct cts_mapping *m = mapping_of(tr, th->regs.rsp);
		if (!m)
			return false;
		th->stack_lo = m->lo;
		th->stack_hi = m->hi;
	}
	/* Its static TLS (below the thread pointer) and its TCB (above): in
	 * its stack mapping for threads libc creates, elsewhere for the main
	 * thread, whose errno every failing libc call writes and much code
	 * reads after a call (GNU sort after each strcoll). Never past the
	 * mapping that holds them: a libc thread's TCB is near the top of its
	 * stack, and the next mapping up (a block main allocated before it
	 * created the thread) is not the thread's (above_stack_race). */
	uint64_t fs = th->regs.fs_base;
	if (fs != th->tls_fs) {
		const struct cts_mapping *m = fs > TLS_BELOW ? mapping_of(tr, fs) : NULL;
		th->tls_fs = fs;
		th->tls_lo = m ? (fs - TLS_BELOW > m->lo ? fs - TLS_BELOW : m->lo) : 0;
		th->tls_hi = m ? (fs + TCB_ABOVE < m->hi ? fs + TCB_ABOVE : m->hi) : 0;
	}
	if (addr >= th->tls_lo && addr < th->tls_hi)
		return true;
	return addr >= th->stack_lo && addr < th->stack_hi;
}

int cts_access_live_threads(const struct cts_tracer *tr)
{
	int n = 0;
	for (int i = 0; i < tr->nlive; i++)
		n += tr->live[i]->state != TH_DEAD && !tr->live[i]->exit_taken;
	return n;
}

bool cts_access_shared(struct cts_tracer *tr, struct thread *th, uint64_t addr)
{
	if (addr < 0x10000 || addr >= 0x800000000000ull || own_stack(tr, th, addr))
		return false;
	const struct cts_mapping *m = mapping_of(tr, addr);
	return m && m->perms[1] == 'w';
}

static bool same_memory(const struct cts_mapping *a, const struct cts_mapping *b)
{
	return a->hi == b->lo && strcmp(a->perms, b->perms) == 0 && strcmp(a->path, b->path) == 0;
}

/* addr's mapping, with its neighbours of the same permissions and file:
 * the kernel splits a mapping where a page's protection key differs (fault
 * mode's grants and untracked pages), and a block's bounds must not end
 * there (a free's range stopped at such a page, and dpor took the free to
 * be independent of a write beyond it: big_alloc_race). */
bool cts_access_mapping(struct cts_tracer *tr, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	const struct cts_mapping *m = mapping_of(tr, addr);
	if (!m)
		return false;
	const struct cts_access_state *a = tr->acc;
	size_t i = (size_t)(m - a->maps), j = i;
	while (i > 0 && same_memory(&a->maps[i - 1], &a->maps[i]))
		i--;
	while (j + 1 < a->nmaps && same_memory(&a->maps[j], &a->maps[j + 1]))
		j++;
	*lo = a->maps[i].lo;
	*hi = a->maps[j].hi;
	return true;
}

uint64_t cts_access_mapping_end(struct cts_tracer *tr, uint64_t addr)
{
	uint64_t lo, hi;
	return cts_access_mapping(tr, addr, &lo, &hi) ? hi : addr;
}

int cts_access_prot(struct cts_tracer *tr, uint64_t addr)
{
	const struct cts_mapping *m = mapping_of(tr, addr);
	if (!m)
		return -1;
	return (m->perms[0] == 'r' ? PROT_READ : 0) | (m->perms[1] == 'w' ? PROT_WRITE : 0) |
	       (m->perms[2] == 'x' ? PROT_EXEC : 0);
}

void cts_access_maps_changed(struct cts_tracer *tr)
{
	tr->acc->maps_pid = 0; /* read again at the next question */
}

bool cts_access_traced_pc(const struct cts_tracer *tr, uint64_t pc)
{
	return traced_pc(tr->acc, pc);
}

size_t cts_access_traced_ranges(const struct cts_tracer *tr, uint64_t *lo, uint64_t *hi, size_t max)
{
	const struct cts_access_state *a = tr->acc;
	size_t n = a && a->nranges > 0 ? (size_t)a->nranges : 0;
	for (size_t i = 0; i < n && i < max; i++) {
		lo[i] = a->lo[i];
		hi[i] = a->hi[i];
	}
	return n;
}

static bool others_stopped(const struct cts_tracer *tr, const struct thread *th)
{
	for (int i = 0; i < tr->nlive; i++) {
		const struct thread *t = tr->live[i];
		if (t != th && t->state != TH_HELD && t->state != TH_DEAD)
			return false;
	}
	return true;
}

/* Classify the access th is about to make; fills ev, true if it is shared. */
static bool classify(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in,
		     uint64_t pc, struct cts_event *ev)
{
	uint64_t addr, size;
	cts_op op;

	switch (in->access) {
	case CTS_ACC_READ: op = CTS_OP_READ; break;
	case CTS_ACC_WRITE: op = CTS_OP_WRITE; break;
	case CTS_ACC_RMW: op = CTS_OP_RMW; break;
	case CTS_ACC_ATOMIC: op = CTS_OP_ATOMIC; break;
	case CTS_ACC_STRING: op = in->str_writes_dst ? CTS_OP_WRITE : CTS_OP_READ; break;
	case CTS_ACC_UNKNOWN: op = in->writes ? CTS_OP_WRITE : CTS_OP_READ; break;
	default: return false;
	}
	if (in->access == CTS_ACC_STRING) {
		uint64_t slo, shi, dlo, dhi;
		cts_disasm_string_ranges(in, &th->regs, &slo, &shi, &dlo, &dhi);
		addr = in->str_writes_dst || in->str_reads_dst ? dlo : slo;
		size = in->str_writes_dst || in->str_reads_dst ? dhi - dlo : shi - slo;
		if (!size)
			return false;
	} else {
		if (!in->ea_valid)
			return false;
		addr = cts_disasm_ea(in, &th->regs);
		size = in->size ? in->size : 1;
	}
	if (own_stack(tr, th, addr))
		return false;
	const struct cts_mapping *m = mapping_of(tr, addr);
	if (!m || m->perms[1] != 'w')
		return false;
	cts_event_init(ev, th->num, op);
	ev->obj = addr;
	ev->size = (uint32_t)(size > UINT32_MAX ? UINT32_MAX : size);
	ev->pc = pc;
	th->acc_val_ok = false;
	if (size <= 8 && cts_mem_read(th->tid, addr, &ev->value, size) == 0) {
		th->acc_val = ev->value;
		th->acc_val_stops = tr->stats.stops;
		th->acc_val_ok = others_stopped(tr, th);
	}
	return true;
}

/* May the value th read at its hold stand for memory now? Yes while no
 * other thread of the run can have run or stopped since: each is held or
 * gone, and no stop came (a thread resumed since is running or has
 * stopped; a new one, not yet stopped, may be writing its tid words). */
static bool held_value_valid(const struct cts_tracer *tr, const struct thread *th,
			     uint64_t addr, uint32_t size)
{
	return th->acc_val_ok && th->acc_val_stops == tr->stats.stops && addr == th->acc_addr &&
	       size == th->acc_size && others_stopped(tr, th);
}

/* An SSE move (disasm.h CTS_EMU_XMM_*) through the thread's FXSAVE image,
 * whose xmm slots are all a legacy SSE move touches: 1 done, 0 not (step
 * it: an unaligned movdqa, memory the program itself may not use so). */
static int emulate_xmm(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in)
{
	struct user_regs_struct r = th->regs;
	uint64_t addr = cts_disasm_ea(in, &r);
	int x = cts_disasm_xmm_index(in->emu_reg);
	const struct cts_mapping *m = mapping_of(tr, addr);
	const struct cts_mapping *last = mapping_of(tr, addr + in->size - 1);
	bool load = in->emu == CTS_EMU_XMM_LOAD;
	if (x < 0 || (in->emu_aligned && addr % 16) || !m || m != last ||
	    m->perms[load ? 0 : 1] != (load ? 'r' : 'w'))
		return 0;
	struct user_fpregs_struct fp;
	if (ptrace(PTRACE_GETFPREGS, th->tid, 0, &fp) != 0)
		return errno == ESRCH ? 0 : -1;
	uint8_t *reg = (uint8_t *)&fp.xmm_space[4 * x];
	if (load) {
		uint8_t buf[16] = { 0 };
		if (cts_mem_read(th->tid, addr, buf, in->size) != 0)
			return 0;
		memcpy(reg, buf, sizeof(buf)); /* a shorter load clears the rest */
		if (ptrace(PTRACE_SETFPREGS, th->tid, 0, &fp) != 0)
			return errno == ESRCH ? 0 : -1;
	} else if (cts_mem_write_data(th->tid, addr, reg, in->size) != 0) {
		return 0;
	}
	th->regs.rip += in->len;
	if (cts_tr_setregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	tr->stats.emulated++;
	watch_moved(tr, th, in, addr, in->size);
	return 1;
}

/* Perform the plain move displaced by breakpoint b (th is held on it) in
 * the tracer instead of single-stepping it: 1 done (registers set, rip past
 * it), 0 not possible (step it), -1 error. */
static int emulate(struct cts_tracer *tr, struct thread *th, uint64_t pc, struct bp *b, bool *known)
{
	if (th->stepping || tr->no_emulate)
		return 0;
	const struct cts_insn *in = decode_at(tr, th, pc, b);
	if (!in || in->emu == CTS_EMU_NONE || cts_tr_getregs(th) != 0 || th->regs.rip != pc)
		return 0;
	if (in->emu == CTS_EMU_XMM_LOAD || in->emu == CTS_EMU_XMM_STORE)
		return emulate_xmm(tr, th, in);
	struct user_regs_struct r = th->regs;
	uint64_t addr = 0, out = 0, val = 0;
	if (cts_disasm_emulate(in, &r, &addr, &out, NULL) != 0)
		return 0;
	if (in->emu == CTS_EMU_ALU) {
		/* Every other thread is stopped, so a lock'ed one is atomic here,
		 * except on memory another process maps too. A store the CPU
		 * would fault on is left to the CPU (ptrace could force it). */
		const struct cts_mapping *m = mapping_of(tr, addr);
		if (!m || (in->writes && m->perms[1] != 'w') || m->perms[3] == 's')
			return 0;
		if (held_value_valid(tr, th, addr, in->size))
			val = th->acc_val;
		else if (cts_mem_read(th->tid, addr, &val, in->size) != 0)
			return 0;
		if (cts_disasm_emulate(in, &r, &addr, &out, &val) != 0)
			return 0;
		if (in->writes && cts_mem_write_data(th->tid, addr, &out, in->size) != 0)
			return 0;
	} else if (in->emu == CTS_EMU_JMP_MEM) {
		/* A PLT stub let through (the call goes on into the library):
		 * the jump's target from memory, no single-step. Debug
		 * registers watching the GOT see the CPU's read only. */
		if (tr->acc->hw || tr->acc->catch_slots || cts_mem_read(th->tid, addr, &val, 8) != 0 ||
		    cts_disasm_emulate(in, &r, &addr, &out, &val) != 0)
			return 0;
	} else if (in->emu == CTS_EMU_LOAD) {
		/* A load the CPU would fault on is left to the CPU. */
		if (held_value_valid(tr, th, addr, in->size))
			val = th->acc_val;
		else if (cts_mem_read(th->tid, addr, &val, in->size) != 0)
			return 0;
		if (cts_disasm_emulate(in, &r, &addr, &out, &val) != 0)
			return 0;
	} else if (in->emu != CTS_EMU_MOV_IMM) {
		size_t n = in->emu == CTS_EMU_PUSH ? 8 : in->size;
		if (cts_mem_write_data(th->tid, addr, &out, n) != 0)
			return 0;
	}
	th->regs = r;
	if (cts_tr_setregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	tr->stats.emulated++;
	/* The value a held access leaves in memory is known: no read back. */
	if (th->acc_capture && addr == th->acc_addr && in->size == th->acc_size &&
	    (in->emu == CTS_EMU_LOAD || in->emu == CTS_EMU_ALU || in->emu == CTS_EMU_STORE_REG ||
	     in->emu == CTS_EMU_STORE_IMM)) {
		th->acc_written = in->writes ? out : val;
		*known = true;
	}
	if (in->emu != CTS_EMU_MOV_IMM && in->emu != CTS_EMU_JMP_MEM)
		watch_moved(tr, th, in, addr, in->emu == CTS_EMU_PUSH ? 8 : in->size);
	return 1;
}

static int after_step(struct cts_tracer *tr, struct thread *th, bool known);

int cts_access_step_over(struct cts_tracer *tr, struct thread *th, struct bp *b, bool after)
{
	if (b && b->entry) {
		/* A stub's trap: the displaced instructions follow the int3. */
		th->stepping_bp = 0;
		return after ? after_step(tr, th, false) : cts_tr_resume(tr, th, 0);
	}
	/* Fault mode: an access a fault brought (no breakpoint) is performed
	 * the same way, through memory writes that no key denies. */
	bool at_fault = !b && !th->stepping && cts_fault_on(tr) && cts_tr_getregs(th) == 0;
	if ((b && b->active) || at_fault) {
		bool known = false;
		int e = emulate(tr, th, b ? b->addr : th->regs.rip, b, &known);
		if (e < 0)
			return -1;
		if (e > 0) {
			th->stepping_bp = 0;
			if (after)
				return after_step(tr, th, known);
			return cts_tr_resume(tr, th, 0);
		}
	}
	return cts_tr_single_step_over(tr, th, b, after);
}

/* A read of a cold line stays invisible (cold.h), unless th made it from
 * the same pc at the same address among its last few cold reads: a loop
 * re-reading a location may be a busy-wait, which spin.c must see. */
static bool cold_read(struct cts_tracer *tr, struct thread *th, const struct cts_event *ev)
{
	const unsigned n = sizeof(th->cold_pc) / sizeof(th->cold_pc[0]);
	for (unsigned i = 0; i < n; i++)
		if (th->cold_pc[i] == ev->pc && th->cold_addr[i] == ev->obj)
			return false;
	if (!cts_cold_read(tr->cold, th->num, ev->obj, ev->size))
		return false;
	th->cold_pc[th->cold_next % n] = ev->pc;
	th->cold_addr[th->cold_next++ % n] = ev->obj;
	tr->stats.cold_reads++;
	tr->st->hid_reads = true;
	tr->st->hid_at = cts_tr_now_s();
	return true;
}

/* Ownership of lines (own.h): may the access stay invisible? Every access
 * seen is the thread's access to its lines (an atomic too: it stays
 * visible). One that meets a line another thread used unordered, as far
 * as the clocks know, is held visibly and asked again when it runs
 * (tracer.c). A repeated read from the same pc of the same address is
 * visible when the thread's last few reads were of at most two words: a
 * busy-wait, which spin.c must see. */
/* Do the line states let th make this access unseen? If so it is recorded
 * as th's; a conflict asks for the run to be checked again. */
static bool own_native(struct cts_tracer *tr, struct thread *th, uint64_t addr, uint64_t len,
		       bool write)
{
	enum cts_page_verdict v = cts_own_check(tr->own, th->num, addr, len, write);
	if (v == CTS_PAGE_CONFLICT)
		th->own_recheck = true;
	if (v != CTS_PAGE_NATIVE)
		return false;
	cts_own_access(tr->own, th->num, addr, len, write);
	return true;
}

static void own_hid(struct cts_tracer *tr)
{
	tr->stats.owned_accesses++;
	tr->st->hid_reads = true;
	tr->st->hid_at = cts_tr_now_s();
}

static bool own_hidden(struct cts_tracer *tr, struct thread *th, const struct cts_event *ev,
		       bool learned)
{
	if (ev->op == CTS_OP_ATOMIC) {
		th->own_recheck = true; /* an atomic is an event wherever it lands */
		return false;
	}
	if (!own_native(tr, th, ev->obj, ev->size ? ev->size : 1, cts_op_is_write(ev->op)))
		return false;
	if (learned)
		return false;
	const unsigned n = sizeof(th->cold_pc) / sizeof(th->cold_pc[0]);
	if (ev->op == CTS_OP_READ) {
		/* A busy-wait re-reads one or two words and nothing else; a loop
		 * that re-reads its bound while it walks an array does not. */
		bool again = false;
		uint64_t other = 0;
		unsigned distinct = 0;
		for (unsigned i = 0; i < n && i < th->cold_next; i++) {
			again |= th->cold_pc[i] == ev->pc && th->cold_addr[i] == ev->obj &&
				 th->cold_progress[i] == th->own_progress;
			if (th->cold_addr[i] != ev->obj && th->cold_addr[i] != other) {
				other = th->cold_addr[i];
				distinct++;
			}
		}
		th->cold_pc[th->cold_next % n] = ev->pc;
		th->cold_progress[th->cold_next % n] = th->own_progress;
		th->cold_addr[th->cold_next++ % n] = ev->obj;
		if (again && distinct <= 1)
			return false;
	} else {
		th->own_progress++;
	}
	own_hid(tr);
	return true;
}

/* Access breakpoints: does the instruction th is about to run at pc touch
 * a watched variable?  Each of its accesses (one element of a rep string
 * instruction per iteration, the operand of push/pop/call) with its own
 * kind from hw/attrib.c's table, as a debug register would see it: one hit
 * per execution, a store's kind over a read's.  A read is reported now, a
 * store after the step with the new value. */
static void watch_before(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in,
			 uint64_t pc)
{
	struct cts_access_state *a = tr->acc;
	struct cts_attr_access acc[3];
	int n = cts_attr_accesses(in, &th->regs, false, acc), best = -1, w = -1;
	for (int i = 0; i < n; i++) {
		int wi = watched(a, acc[i].addr, acc[i].size ? acc[i].size : 1);
		if (wi >= 0 && (best < 0 || acc[best].kind == CTS_ATTR_READ)) {
			best = i;
			w = wi;
		}
	}
	if (best < 0)
		return;
	if (acc[best].kind == CTS_ATTR_READ) {
		uint64_t v = 0;
		cts_mem_read(th->tid, a->watch[w].addr, &v, a->watch[w].len);
		report_watch(tr, th, w, CTS_ATTR_READ, pc, v);
		return;
	}
	th->watch_idx = w;
	th->watch_pc = pc;
	th->watch_kind = acc[best].kind;
}

void cts_access_run_start(struct cts_tracer *tr)
{
	tr->run_gen++; /* every breakpoint's counts of the last run are old */
}

bool cts_access_range_hidden(struct cts_tracer *tr, struct thread *th, bool write, uint64_t pc,
			     uint64_t start, uint64_t len)
{
	(void)pc;
	if (!tr->own || !len || len > UINT32_MAX || cts_access_live_threads(tr) < 2)
		return false;
	if (!own_native(tr, th, start, len, write))
		return false;
	th->own_progress += write;
	own_hid(tr);
	return true;
}

/* An access th is about to make at pc (from a breakpoint, or stepping). */
static int on_access(struct cts_tracer *tr, struct thread *th, uint64_t pc, struct bp *b)
{
	struct cts_access_state *a = tr->acc;
	const struct cts_insn *in = decode_at(tr, th, pc, b);
	struct cts_event ev;

	th->acc_val_ok = false;
	th->watch_idx = -1;
	if (in && watch_on_breakpoints(a))
		watch_before(tr, th, in, pc);
	/* push/pop/call/jmp through memory carry an int3 for --watch only */
	if (!in || !cts_disasm_may_share(in) || (b && (in->is_branch || in->is_call)))
		return cts_access_step_over(tr, th, b, th->watch_idx >= 0);
	bool shared = classify(tr, th, in, pc, &ev);
	th->acc_capture = false;
	if (shared) {
		th->acc_addr = ev.obj;
		th->acc_size = ev.size;
	}
	bool visible = shared && (tr->cfg.mode != CTS_MODE_SYNC || (b && b->learned) ||
				  cts_catch_access(tr, th, b, &ev)) &&
		       cts_access_live_threads(tr) > 1;
	if (b && !shared) {
		tr->stats.local_accesses++;
		/* Thread-local so far: after enough hits, stop paying for it. */
		if (++b->local_hits >= RETIRE_AFTER && !b->shared_hits && !a->nwatch) {
			tr->stats.retired++;
			cts_tr_bp_retire(tr, b);
			return cts_tr_resume(tr, th, 0);
		}
	} else if (b) {
		b->shared_hits++;
		if (b->run_gen != tr->run_gen) {
			b->run_gen = tr->run_gen;
			b->run_off = false;
			b->run_hits = b->tracked_hits = 0;
		}
		b->run_hits++;
	}
	bool tracked = shared && cts_fault_tracked(tr, ev.obj);
	/* The program writes a page every thread reads unseen (fault.h's read
	 * key): the run is void, held here (tr_step returns at once). */
	bool ro_write = tracked && visible && cts_op_is_write(ev.op) &&
			cts_fault_ro_write(tr, ev.obj, ev.size);
	if (ro_write)
		tr->st->relearn = true;
	/* On a page th's PKRU lets this access through, the CPU would not
	 * have stopped: no question to the states (the busy-wait rule asks
	 * at every hit), or what a run shows would depend on retirement. */
	bool passes = b && tracked && ev.op != CTS_OP_ATOMIC && !b->learned && !ro_write &&
		      cts_fault_allows(tr, th, ev.obj, ev.size, cts_op_is_write(ev.op));
	if (passes)
		visible = false;
	if (visible && !ro_write && ev.op == CTS_OP_READ && tr->cold && !(b && b->learned) &&
	    cold_read(tr, th, &ev))
		visible = false;
	if (visible && !ro_write && tr->own && own_hidden(tr, th, &ev, b && b->learned))
		visible = false;
	if (b && tracked && ++b->tracked_hits >= RETIRE_AFTER && b->tracked_hits == b->run_hits &&
	    !b->local_hits && !b->learned && !a->nwatch && ev.op != CTS_OP_ATOMIC) {
		/* Its accesses are on tracked pages: faults find the foreign ones.
		 * Never an atomic: it is an event wherever it lands (its
		 * happens-before), which a fault on a page it owns would not be.
		 * For this run only (the server's text keeps it): whether a hit
		 * is an int3's or a fault's must follow from the run's own
		 * schedule, or a later run with the same prefix shows other
		 * events (a dpor prefix diverged on glib_seq_race). */
		tr->stats.retired++;
		b->run_off = true;
		cts_tr_bp_unplant(tr, b);
	}
	if (passes)
		return cts_access_step_over(tr, th, b, false);
	if (!visible && tracked && ev.op != CTS_OP_ATOMIC) {
		/* What a thread may do unseen on its line, it may do on the whole
		 * page while its lines allow (fault.h); the same whether an int3
		 * or a fault brought it here. */
		uint64_t at = th->flt_addr ? th->flt_addr : ev.obj;
		if (cts_fault_grant(tr, th, at, cts_op_is_write(ev.op), cts_access_prot(tr, at)) &&
		    !b)
			return cts_tr_resume(tr, th, 0); /* runs again, natively */
	}
	if (!visible)
		return cts_access_step_over(tr, th, b, th->watch_idx >= 0);
	tr->stats.accesses++;
	th->pending = ev;
	/* reads too: the value a held read shows was read when it stopped,
	 * before the other threads ran; the spin proof needs what it loaded. */
	th->acc_capture = ev.size <= 8;
	th->bp_addr = b ? b->addr : 0;
	cts_tr_hold(tr, th, b ? AT_BREAKPOINT : AT_STEP);
	return 0;
}

int cts_access_hit(struct cts_tracer *tr, struct thread *th, struct bp *b)
{
	if (b->kind == BP_RETURN) {
		/* Back in traced code from an untraced call: step again. */
		th->stepping = true;
		return cts_access_step_over(tr, th, b, false);
	}
	if (tr->cfg.mode == CTS_MODE_STEP)
		th->stepping = true;
	return on_access(tr, th, b->addr, b);
}

/* What instruction in (at pc) does at addr: the range of its operand
 * holding addr, and its kind. False when unknown. */
static bool access_at(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in,
		      uint64_t pc, uint64_t addr, uint64_t *lo, uint64_t *len, bool *write)
{
	struct cts_event ev;
	uint8_t bytes[16];
	unsigned vlen;
	bool reads_only;
	if ((!in || !in->decoded) && cts_mem_read(th->tid, pc, bytes, sizeof(bytes)) == 0 &&
	    cts_disasm_vex_mem(bytes, sizeof(bytes), &vlen, &reads_only)) {
		/* capstone cannot decode it (AVX-512 compares in glibc's string
		 * functions): every byte it may touch on the faulting page from
		 * the fault's address on, which is the lowest address it touches
		 * there (the access's start, the page's first byte for one that
		 * runs into it, the first element a masked access touches:
		 * elements fault in order) */
		uint64_t page = addr & ~(CTS_PAGE_SIZE - 1);
		*lo = addr;
		*len = (addr + vlen < page + CTS_PAGE_SIZE ? addr + vlen : page + CTS_PAGE_SIZE) - *lo;
		*write = !reads_only;
		return true;
	}
	if (!in || !cts_disasm_may_share(in) || in->access == CTS_ACC_ATOMIC)
		return false;
	if (in->access == CTS_ACC_STRING) {
		uint64_t slo, shi, dlo, dhi;
		cts_disasm_string_ranges(in, &th->regs, &slo, &shi, &dlo, &dhi);
		bool dst = addr >= dlo && addr < dhi;
		if (!dst && !(addr >= slo && addr < shi))
			return false;
		*lo = dst ? dlo : slo;
		*len = dst ? dhi - dlo : shi - slo;
		*write = dst && in->str_writes_dst;
		return true;
	}
	if (!classify(tr, th, in, pc, &ev) || addr < ev.obj || addr - ev.obj >= (ev.size ? ev.size : 1))
		return false;
	*lo = ev.obj;
	*len = ev.size ? ev.size : 1;
	if (in->masked && addr > ev.obj) { /* masked-off bytes below addr: not touched */
		*len -= addr - ev.obj;
		*lo = addr;
	}
	*write = cts_op_is_write(ev.op);
	return true;
}

/* Perform library code's access at a fault unseen: one step, or a rep
 * string instruction run whole with its range open (cts_tr_rep_open). */
static int perform(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in)
{
	if (cts_tr_rep_open(tr, th, in) > 0)
		return cts_tr_resume(tr, th, 0);
	return cts_access_step_over(tr, th, NULL, false);
}

/* A fault of the body of a library call whose breakpoint is out of the
 * text (lcret.h): its access is decided on its lines as the call's range
 * was at the breakpoint. The thread's to make unseen: the page granted, or
 * the access performed and recorded as its own. Else the run is void and
 * the call's breakpoint learned to stay (its ranges are events again). */
static int retired_body(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in,
			uint64_t pc, uint64_t addr)
{
	uint64_t lo = 0, len = 0;
	bool write = true;
	tr->stats.lc_faults++;
	bool known = access_at(tr, th, in, pc, addr, &lo, &len, &write) && len <= UINT32_MAX;
	enum cts_page_verdict v =
		known ? cts_own_check(tr->own, th->num, lo, len, write) : CTS_PAGE_VISIBLE;
	uint64_t site = 0;
	if (v != CTS_PAGE_NATIVE && cts_lcret_origin(tr, th, pc, &site) == CTS_LC_DECIDED) {
		/* A breakpoint's stop decided its call's ranges (a learned
		 * site's, or a stub's sharing the implementation): library code
		 * after it, no event (cts_access_fault). */
		if (cts_fault_grant(tr, th, addr, write, cts_access_prot(tr, addr)))
			return cts_tr_resume(tr, th, 0);
		return perform(tr, th, in);
	}
	if (v != CTS_PAGE_NATIVE) {
		/* A conflict: its line (or page) is learned, and the next run
		 * asks again, on the learned line (a line learned shared: the
		 * call must show its range, so its breakpoint stays). */
		bool stays = !known || cts_own_learned_in(tr->own, lo, len);
		if (v == CTS_PAGE_CONFLICT)
			cts_own_access(tr->own, th->num, lo, len, write);
		else if (stays) /* not a line that turned shared in this run */
			cts_lcret_stays(tr, pc, site);
		cts_debug_msg("thread %d: a retired library call's access of 0x%" PRIx64 " at 0x%"
			      PRIx64 " (%s: 0x%" PRIx64 "+%" PRIu64 ", %s) is no native one: the run "
			      "is void%s", th->num, addr, pc, in ? in->mnemonic : "?", lo, len,
			      known ? "known" : "unknown",
			      v != CTS_PAGE_CONFLICT && stays ? ", its breakpoint stays" : "");
		tr->st->relearn = true;
		return perform(tr, th, in);
	}
	if (cts_own_is_per_access(tr->own, addr / CTS_PAGE_SIZE))
		cts_lcret_keep(tr, pc); /* a fault per access there: its breakpoint back */
	else if (cts_fault_grant(tr, th, addr, write, cts_access_prot(tr, addr)))
		return cts_tr_resume(tr, th, 0);
	cts_own_access(tr->own, th->num, lo, len, write);
	own_hid(tr);
	return perform(tr, th, in);
}

/* Library code performed fault by fault (no event, recorded nowhere):
 * after LIB_FAULTS in one epoch of the thread, the rest of the stretch runs
 * in library code's own mode (fault.h cts_fault_lib_enter). */
#define LIB_FAULTS 8

static bool lib_stretch(struct cts_tracer *tr, struct thread *th)
{
	uint32_t ep = cts_own_epoch(tr->own, th->num);
	if (ep != th->lib_epoch) {
		th->lib_epoch = ep;
		th->lib_faults = 0;
	}
	return ++th->lib_faults >= LIB_FAULTS && cts_fault_lib_enter(tr, th);
}

int cts_access_fault(struct cts_tracer *tr, struct thread *th, uint64_t addr)
{
	if (cts_tr_getregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	th->probing = false; /* as any signal: the probe is over */
	if (addr == th->regs.rip && cts_fault_lib_exit(tr, th, addr))
		return cts_tr_resume(tr, th, 0); /* back in traced code: its protections */
	if (cts_fault_taken(tr, th, addr))
		return cts_tr_resume(tr, th, 0);
	if (th->stepping_bp || th->after_step || th->stepping_over) {
		/* A step the tracer decided on touches a denied page. */
		cts_fault_open_at(tr, th, addr, 1);
		return cts_tr_resume(tr, th, 0);
	}
	uint64_t pc = th->regs.rip;
	int rc;
	th->flt_addr = addr;
	if (tr->own && !traced_pc(tr->acc, pc) && cts_lcret_in_body(tr, pc)) {
		/* First: in_call lasts to the thread's next event, past the
		 * return of the sync call it was set for (a retired memcpy
		 * right after a lock is no lock's own word). */
		const struct cts_insn *in = decode_at(tr, th, pc, NULL);
		bool write = !in || in->writes;
		if (write && cts_fault_ro_write(tr, addr, in && in->size ? in->size : 1)) {
			tr->st->relearn = true;
			rc = perform(tr, th, in);
		} else {
			rc = retired_body(tr, th, in, pc, addr);
		}
	} else if (!traced_pc(tr->acc, pc) && cts_tr_in_call(tr, th)) {
		/* A modeled pthread call's own words (the mutex a lock event
		 * stands for): the access is performed, as without faults.
		 * Granting the page would make the thread's later work on it
		 * count at a later epoch than the call's. (The GOT's pages are
		 * never tagged: fault.c's tag_except.) */
		rc = perform(tr, th, decode_at(tr, th, pc, NULL));
	} else if (traced_pc(tr->acc, pc)) {
		rc = on_access(tr, th, pc, NULL);
	} else {
		/* Libraries' code, the stub page: no event, as without faults;
		 * the page is the thread's while its lines are. */
		const struct cts_insn *in = decode_at(tr, th, pc, NULL);
		bool write = !in || in->writes;
		if (write && cts_fault_ro_write(tr, addr, in && in->size ? in->size : 1)) {
			/* the program's data beside the GOT, written by library
			 * code (a memset on a global) while two threads live:
			 * void, as a write of its own would be */
			tr->st->relearn = true;
			rc = perform(tr, th, in);
		} else if (cts_fault_grant(tr, th, addr, write, cts_access_prot(tr, addr))) {
			rc = cts_tr_resume(tr, th, 0);
		} else if (lib_stretch(tr, th)) {
			rc = cts_tr_resume(tr, th, 0);
		} else {
			rc = perform(tr, th, in);
		}
	}
	th->flt_addr = 0;
	return rc;
}

int cts_access_execute(struct cts_tracer *tr, struct thread *th, struct cts_event *done)
{
	(void)done; /* the written value is filled in after the step */
	struct bp *b = th->bp_addr ? cts_tr_bp_find(tr, th->bp_addr) : NULL;
	return cts_access_step_over(tr, th, b, true);
}

static int after_step(struct cts_tracer *tr, struct thread *th, bool known)
{
	th->after_step = false;
	if (th->acc_capture && !known) {
		uint64_t v = 0;
		if (cts_mem_read(th->tid, th->acc_addr, &v, th->acc_size) == 0)
			th->acc_written = v;
	}
	if (th->watch_idx >= 0) {
		uint64_t v = 0;
		const struct watch *w = &tr->acc->watch[th->watch_idx];
		cts_mem_read(th->tid, w->addr, &v, w->len);
		report_watch(tr, th, th->watch_idx, th->watch_kind, th->watch_pc, v);
		th->watch_idx = -1;
	}
	return cts_tr_resume(tr, th, 0);
}

int cts_access_after_step(struct cts_tracer *tr, struct thread *th)
{
	return after_step(tr, th, false);
}

int cts_access_single_step(struct cts_tracer *tr, struct thread *th)
{
	struct cts_access_state *a = tr->acc;
	if (!th->stepping || tr->cfg.mode != CTS_MODE_STEP)
		return cts_tr_resume(tr, th, 0);
	if (cts_tr_getregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	uint64_t pc = th->regs.rip;
	if (!traced_pc(a, pc)) {
		/* Left traced code. After a call, run the callee at full speed
		 * to a breakpoint on the return address. */
		uint64_t ret = 0;
		th->stepping = false;
		if (th->last_was_call && cts_mem_read(th->tid, th->regs.rsp, &ret, 8) == 0 &&
		    traced_pc(a, ret)) {
			struct bp *rb = cts_tr_bp_find(tr, ret);
			if (!rb) {
				rb = cts_tr_bp_add(tr, ret, BP_RETURN, 0);
				uint8_t orig, cc = 0xCC;
				if (cts_mem_read(tr->pid, ret, &orig, 1) == 0) {
					rb->orig = orig;
					cts_tr_poke(tr, ret, &cc, 1);
				}
			}
		}
		th->last_was_call = false;
		return cts_tr_resume(tr, th, 0);
	}
	struct bp *b = cts_tr_bp_find(tr, pc);
	if (b && cts_tr_bp_in_text(tr, b, false)) {
		/* Our int3 is here: executing it reports the hit. */
		th->last_was_call = false;
		return cts_tr_resume(tr, th, 0);
	}
	const struct cts_insn *in = decode_at(tr, th, pc, NULL);
	th->last_was_call = in && in->is_call;
	if (!in || (!cts_disasm_may_share(in) &&
		    !(watch_on_breakpoints(a) && cts_disasm_mem_operand(in))))
		return cts_tr_resume(tr, th, 0);
	return on_access(tr, th, pc, NULL);
}

/* ---- spin probes ------------------------------------------------------------ */

#define PROBE_STEPS 256

void cts_access_learn(struct cts_tracer *tr, uint64_t pc)
{
	struct bp *b = cts_tr_bp_find(tr, pc);
	if (b && b->kind != BP_ACCESS)
		return; /* a libc entry point already stops there */
	if (!b)
		b = cts_tr_bp_add(tr, pc, BP_ACCESS, 0);
	b->learned = true;
	b->active = true;
	tr->bps_dirty = true;
}

int cts_access_probe_start(struct cts_tracer *tr, struct thread *th)
{
	th->probing = true;
	th->probe_left = PROBE_STEPS;
	th->probe_n = 0;
	return cts_access_probe_step(tr, th);
}

static int probe_end(struct cts_tracer *tr, struct thread *th)
{
	th->probing = false;
	return cts_tr_resume(tr, th, 0);
}

/* May a load at pc be a busy-wait's? Not one made by a jump or call through
 * memory (a PLT's jmp *GOT: calling a function twice is not waiting), nor
 * one in the dynamic loader, whose loops are symbol lookups re-reading a
 * link map and whose locks are futex mutexes. Learning those (a step that
 * ran long under load was probed in lazy binding) made library reads
 * visible in every later run: which reads are visible depended on the
 * machine's load, and a schedule recorded before the learning no longer
 * replayed. */
static bool spin_candidate(struct cts_tracer *tr, const struct cts_insn *in, uint64_t pc)
{
	if (in->is_branch || in->is_call)
		return false;
	const struct cts_mapping *m = mapping_of(tr, pc);
	const char *base = m ? strrchr(m->path, '/') : NULL;
	return !base || strncmp(base + 1, "ld-", 3) != 0;
}

/* A candidate load at pc in the probe: true when it proves a spin, and its
 * pc is learned. */
static bool probe_load(struct cts_tracer *tr, struct thread *th, uint64_t pc,
		       const struct cts_event *ev)
{
	/* The hash reads up to 16 KiB of stack: only for a load that is kept
	 * or compared, not for one dropped (a full table, a moved value). */
	uint64_t h = 0;
	bool hashed;
	for (int i = 0; i < th->probe_n; i++) {
		if (th->probe_pc[i] != pc)
			continue;
		if (th->probe_addr[i] != ev->obj || th->probe_val[i] != ev->value) {
			th->probe_n = 0; /* the value moved: it is working, not waiting */
			break;
		}
		/* An unreadable stack: the same address and value must do. */
		hashed = th->probe_hashed[i] && cts_tr_state_hash(th, -1, &h) == 0;
		if (hashed && th->probe_hash[i] != h) {
			th->probe_hash[i] = h; /* the thread moved on: working */
			return false;
		}
		cts_access_learn(tr, pc);
		if (tr->st)
			tr->st->learned = true;
		struct bp *nb = cts_tr_bp_find(tr, pc);
		uint8_t orig, cc = 0xCC;
		if (nb && cts_mem_read(tr->pid, pc, &orig, 1) == 0 && orig != 0xCC) {
			nb->orig = orig;
			cts_tr_poke(tr, pc, &cc, 1);
		}
		cts_debug_msg("spin probe: thread %d spins on 0x%" PRIx64 " at 0x%" PRIx64
			      ": learned", th->num, ev->obj, pc);
		return true;
	}
	if (th->probe_n < 16) {
		hashed = cts_tr_state_hash(th, -1, &h) == 0;
		th->probe_pc[th->probe_n] = pc;
		th->probe_addr[th->probe_n] = ev->obj;
		th->probe_val[th->probe_n] = ev->value;
		th->probe_hash[th->probe_n] = h;
		th->probe_hashed[th->probe_n] = hashed;
		th->probe_n++;
	}
	return false;
}

/* One instruction of the probe: th is stopped before it. A load whose pc
 * comes round again with the same address and value, with no shared store
 * in between, and the thread's registers and stack top as they were
 * (spinstate.c's hash), is a spin. A loop that works while it re-reads a
 * constant (a liblzma encoder loop re-reading a table entry under pixz: its
 * counters and pointers move) is not: learning its load made every
 * iteration a visible read, and the run ran out of steps. */
int cts_access_probe_step(struct cts_tracer *tr, struct thread *th)
{
	if (th->probe_left-- <= 0 || cts_tr_getregs(th) != 0)
		return probe_end(tr, th);
	uint64_t pc = th->regs.rip;
	struct bp *b = cts_tr_bp_find(tr, pc);
	if (b && cts_tr_bp_in_text(tr, b, false))
		return probe_end(tr, th); /* about to reach a visible operation anyway */
	const struct cts_insn *in = decode_at(tr, th, pc, NULL);
	if (!in || in->is_syscall)
		return probe_end(tr, th);
	struct cts_event ev;
	if (cts_disasm_may_share(in) && classify(tr, th, in, pc, &ev)) {
		if (ev.op != CTS_OP_READ) {
			th->probe_n = 0; /* it writes shared memory: not a pure spin */
		} else if (spin_candidate(tr, in, pc)) {
			if (probe_load(tr, th, pc, &ev))
				return probe_end(tr, th);
		}
	}
	if (cts_tr_flush_regs(th) != 0 || cts_fault_resume(tr, th, NULL) != 0)
		return -1;
	th->regs_valid = false;
	if (ptrace(PTRACE_SINGLESTEP, th->tid, 0, 0) != 0 && errno != ESRCH)
		return -1;
	return 0;
}
