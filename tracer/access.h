/* Shared-memory accesses as visible operations (--mode break / step) and
 * hardware watchpoints (--watch). Internal to the live backend. */
#ifndef CTS_ACCESS_H
#define CTS_ACCESS_H

#include <stddef.h>
#include "tracer/tracer_int.h"

int cts_access_init(struct cts_tracer *tr, char *err, size_t errlen);
void cts_access_fini(struct cts_tracer *tr);
/* Each run, after libc is found: resolve --watch, create access breakpoints
 * (break/step mode, or --watch without hardware), arm the main thread. */
int cts_access_setup(struct cts_tracer *tr);
/* An access breakpoint was hit by th (rip rewound to it). */
int cts_access_hit(struct cts_tracer *tr, struct thread *th, struct bp *b);
/* Fault mode (fault.h): th faulted on the tracked page of addr. */
int cts_access_fault(struct cts_tracer *tr, struct thread *th, uint64_t addr);
/* Execute th's pending access: step the instruction, fill done's value. */
int cts_access_execute(struct cts_tracer *tr, struct thread *th, struct cts_event *done);
/* Execute the instruction displaced by breakpoint b (b NULL: the one at rip,
 * in step mode): performed here when it is a plain move, else single-stepped
 * (cts_tr_single_step_over). after: see the result (cts_access_after_step). */
int cts_access_step_over(struct cts_tracer *tr, struct thread *th, struct bp *b, bool after);
/* th finished single-stepping an instruction access.c asked to see. */
int cts_access_after_step(struct cts_tracer *tr, struct thread *th);
/* Step mode: th stopped after one single-step. */
int cts_access_single_step(struct cts_tracer *tr, struct thread *th);
/* --watch: arm a new thread's debug registers at its first stop. */
void cts_access_watch_thread(struct cts_tracer *tr, struct thread *th);
/* A watchpoint trap (si_code TRAP_HWBKPT); trap_pc is its si_addr (0:
 * unknown). */
int cts_access_watch_hit(struct cts_tracer *tr, struct thread *th, uint64_t trap_pc);
/* th stopped after a single-step: report a watchpoint trap that came with it. */
void cts_access_watch_step(struct cts_tracer *tr, struct thread *th, bool debug_exception);
/* --races catch: do debug registers trap here (probed once) and may they be
 * used (--watch-backend)? Arm a watch on [addr, addr+len) in every stopped
 * thread (and each new one): its slot, or -1 (no free slot, refused). */
bool cts_access_hw_traps(struct cts_tracer *tr);
int cts_access_hw_arm(struct cts_tracer *tr, uint64_t addr, unsigned len, enum cts_hw_kind k);
void cts_access_hw_disarm(struct cts_tracer *tr, int slot);
/* See cts_tracer_watch_json. */
struct json_t *cts_access_watch_json(const struct cts_tracer *tr);
/* A thread ran a whole time slice without a visible operation: single-step
 * it a little to find a busy-wait load, and learn that load as a visible
 * breakpoint (the "learned hot address"), so spin loops cannot hang a run. */
int cts_access_probe_start(struct cts_tracer *tr, struct thread *th);
int cts_access_probe_step(struct cts_tracer *tr, struct thread *th);
/* --watch is served by debug registers (their traps are SIGTRAPs too). */
bool cts_access_hw_watching(const struct cts_tracer *tr);
/* A thread was created or died: break mode keeps the access breakpoints
 * in the text only while at least two threads live (0, or -1 on error). */
int cts_access_threads_changed(struct cts_tracer *tr);
/* The general register a plain load at pc (th held there) overwrites whole,
 * whatever it held (mov r32/r64, [mem]; movzx/movsx r32/r64, [mem]): a
 * capstone register id, or -1 for any other instruction. */
int cts_access_load_dest(struct cts_tracer *tr, struct thread *th, uint64_t pc);
/* Decode the instruction at pc of tid's process, our int3 there undone
 * (cts_disasm_decode's result). */
int cts_access_decode(struct cts_tracer *tr, pid_t tid, uint64_t pc, struct cts_insn *in);
/* Learn a load at pc ahead of time (replaying a schedule that used one). */
void cts_access_learn(struct cts_tracer *tr, uint64_t pc);

/* For library calls (sync.c): threads not dead yet; is addr memory another
 * thread could touch (writable, not th's own stack); where addr's mapping
 * ends; is pc in traced code (the program, --trace-lib); is the library at
 * path one that --trace-lib names. */
int cts_access_live_threads(const struct cts_tracer *tr);
bool cts_access_shared(struct cts_tracer *tr, struct thread *th, uint64_t addr);
/* A new run: access breakpoints retired in the last one (fault mode) are in
 * its text again, counted from zero. */
void cts_access_run_start(struct cts_tracer *tr);
/* A library call's range [start, start+len) that th reads or writes (sync.c),
 * from call site pc: may it stay invisible, as a plain access of the same
 * lines would (ownership, own.h)? If so it is recorded as th's access. The
 * caller keeps a call that repeats the thread's last one visible (a spin
 * through a library call: the explorer tells it by the values read). */
bool cts_access_range_hidden(struct cts_tracer *tr, struct thread *th, bool write, uint64_t pc,
			     uint64_t start, uint64_t len);
uint64_t cts_access_mapping_end(struct cts_tracer *tr, uint64_t addr);
/* The bounds of addr's mapping, joined with its neighbours of the same
 * permissions and file (a protection key splits a mapping); false: none. */
bool cts_access_mapping(struct cts_tracer *tr, uint64_t addr, uint64_t *lo, uint64_t *hi);
bool cts_access_traced_pc(const struct cts_tracer *tr, uint64_t pc);
/* The traced code's address ranges (at most CTS_ACCESS_RANGES; as many as
 * fit in lo/hi); how many. */
#define CTS_ACCESS_RANGES 32
size_t cts_access_traced_ranges(const struct cts_tracer *tr, uint64_t *lo, uint64_t *hi, size_t max);
/* The PROT_* bits of addr's mapping (-1: none); the mappings changed (an
 * mmap, an mprotect): read them again when next asked. */
int cts_access_prot(struct cts_tracer *tr, uint64_t addr);
void cts_access_maps_changed(struct cts_tracer *tr);
bool cts_access_lib_wanted(const struct cts_tracer *tr, const char *path);
/* Sync mode: the atomic instructions of the program's own code and of
 * --trace-lib libraries (libsync.c), which sync mode does not see; else 0. */
int cts_access_own_atomics(const struct cts_tracer *tr);
/* Break and step mode: the code traced in each file (the program,
 * --trace-lib libraries), where its function boundaries came from and how
 * much of .text they cover: a one-line summary in buf; a JSON array (NULL
 * before the code was scanned). */
char *cts_access_code_str(const struct cts_tracer *tr, char *buf, size_t len);
struct json_t *cts_access_code_json(const struct cts_tracer *tr);

#endif
