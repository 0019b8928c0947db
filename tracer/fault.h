/* Break mode on memory ownership, stage 3 (docs/design.md, "Break mode on
 * memory ownership"): protection-key faults find the accesses of memory a
 * thread does not own, so an instruction whose accesses stay on the running
 * thread's pages needs no int3.
 *
 * Every page of the program's writable data (heap, anonymous maps, its own
 * .data/.bss; not stacks, not libraries' data) carries a key every thread is
 * denied. A fault (SIGSEGV, SEGV_PKUERR, seen by the tracer before the
 * program) is decoded by access.c and decided on the line states (own.h):
 * when the page's lines are all the faulting thread's (or untouched), the
 * page is granted to it (a key its PKRU allows) and the instruction runs
 * again natively, as do the thread's later accesses to the page. When the
 * thread stops at its next visible event, its grants are revoked (its PKRU
 * denies their keys: no system call into the process), so what it did on
 * them unseen is claimed for it at that event's epoch before anyone asks
 * about those lines. Only one thread runs at a time, so at most the running
 * thread holds grants. Keys are recycled by retagging a revoked key's pages
 * (pkey_mprotect injected in a stopped thread) when none is free.
 *
 * The kernel checks PKRU for the calling thread's buffers: a system call
 * other than the pointer-free ones runs with every key allowed, and the
 * thread's PKRU is put back at its exit stop. Internal to the live backend. */
#ifndef CTS_FAULT_H
#define CTS_FAULT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "tracer/tracer_int.h"

struct cts_fault;
struct cts_own;

/* May fault mode run on this machine (protection keys)? why: the reason not. */
bool cts_fault_possible(const char **why);
/* mprot: the mprotect mechanism (no keys needed: fault.c). */
struct cts_fault *cts_fault_new(struct cts_own *own, bool mprot);
void cts_fault_free(struct cts_fault *f);
/* The seccomp rules fault mode adds: every call that takes a user pointer. */
int cts_fault_seccomp_rules(void *scmp_ctx);

/* A run's main thread th, stopped at main (or the entry point), before it
 * runs: allocate the keys in the process, tag its writable data; a run
 * forked from a server given them (below) inherits them, nothing to do. */
int cts_fault_setup(struct cts_tracer *tr, struct thread *th);
/* The fork server, stopped at main, before its first fork: the keys and
 * tags every run forked from it inherits. */
void cts_fault_server_setup(struct cts_tracer *tr);
/* Does [addr, addr+len) reach a tracked page (one faults may decide)? */
bool cts_fault_reaches(const struct cts_tracer *tr, uint64_t addr, uint64_t len);
/* Is fault mode live in this run? */
bool cts_fault_on(const struct cts_tracer *tr);
/* At least two threads live (armed), or one: with one, nothing is denied
 * (what a lone thread does happens before every later thread's accesses;
 * as for access breakpoints, access.c's arming). */
void cts_fault_gate(struct cts_tracer *tr, bool armed);
/* A new thread's first stop, a forked process's: their PKRU. */
void cts_fault_thread_start(struct cts_tracer *tr, struct thread *th);
void cts_fault_foreign(struct cts_tracer *tr, pid_t tid);
/* th is handed to another tracer (release.c): its PKRU allows every key. */
void cts_fault_release(struct cts_tracer *tr, struct thread *th);
/* th runs (open) or has left (close) the libc body of a modeled sync call
 * that runs no program code: every key open meanwhile, as for a system
 * call (the mutex words it works on are the model's, not the program's
 * accesses: without it each one faulted). */
void cts_fault_call(struct cts_tracer *tr, struct thread *th, bool open, uint64_t lo,
		    uint64_t len);
/* th is held at a visible event: revoke its grants (and close the above). */
void cts_fault_held(struct cts_tracer *tr, struct thread *th);
/* Is si one of ours (a key fault on a tracked page)? */
bool cts_fault_ours(const struct cts_tracer *tr, const siginfo_t *si);
/* th took a fault of ours (cts_fault_ours) at addr. True: with the
 * mprotect mechanism, on a page th may use that the last switch left closed
 * (it opens when th resumes, to run the access again); else it is a key
 * fault, counted, for the caller to decide. */
bool cts_fault_taken(struct cts_tracer *tr, struct thread *th, uint64_t addr);
/* Does the program's write of [addr, addr+len) land on a page of the
 * read key (the writable pages holding the GOT, which every thread reads
 * unseen) while two threads live? Then who read it is unknown: the page is
 * learned as decided per access when the run is voided, as it must be.
 * Traced code's writes, a modeled library call's write range, and library
 * code's faulting writes are asked (not the GOT's slots themselves: lazy
 * binding). */
bool cts_fault_ro_write(struct cts_tracer *tr, uint64_t addr, uint64_t len);
/* Is addr in memory fault mode tracks? */
bool cts_fault_tracked(const struct cts_tracer *tr, uint64_t addr);
/* Would th's access of [addr, addr+len) run without a fault now (pages of
 * its live keys)? An access breakpoint there lets it run as the CPU would:
 * what a run shows must not depend on which int3s are retired yet. */
bool cts_fault_allows(const struct cts_tracer *tr, const struct thread *th, uint64_t addr,
		      uint64_t len, bool write);
/* Library code in its own mode (the mprotect mechanism): a thread whose
 * library code keeps faulting on pages no thread can be granted (each
 * access performed by the tracer, recorded nowhere: no event) runs with
 * every page open instead, and the traced text not executable, so that its
 * first traced instruction (a return, a callback, a signal handler) faults
 * before it runs and ends the mode (lib_exit, at that fault). enter: true if
 * th is in the mode now and may run the access again. */
bool cts_fault_lib_enter(struct cts_tracer *tr, struct thread *th);
bool cts_fault_lib_exit(struct cts_tracer *tr, struct thread *th, uint64_t addr);
/* Grant th the page of addr (its lines allow it: own.h), with prot (PROT_*
 * bits of the mapping): true if done, and th may run the access again. */
bool cts_fault_grant(struct cts_tracer *tr, struct thread *th, uint64_t addr, bool write, int prot);
/* th's PKRU allows every key (a step the tracer decided, a system call)
 * until cts_fault_close. */
int cts_fault_open(struct cts_tracer *tr, struct thread *th);
/* ...where [lo, lo+len) is what it touches: all keys open with keys, those
 * pages with the mprotect mechanism. */
int cts_fault_open_at(struct cts_tracer *tr, struct thread *th, uint64_t lo, uint64_t len);
int cts_fault_close(struct cts_tracer *tr, struct thread *th);
/* th resumes from a seccomp stop into call nr: open if the call may touch
 * user memory (true: resume with PTRACE_SYSCALL; th->flt_sys set). */
bool cts_fault_sys_enter(struct cts_tracer *tr, struct thread *th, long nr);
/* ...its exit stop: close, and track the memory mmap, brk or mremap made. */
void cts_fault_sys_exit(struct cts_tracer *tr, struct thread *th);

/* The mprotect mechanism: th is about to run (resumed or stepped, with
 * *sig delivered if sig): the pages' protections follow its rights first.
 * *sig may come back 0: delivered already (th stopped at its handler's
 * first instruction) or dropped (ignored). 0, or -1 (the run failed). */
int cts_fault_resume(struct cts_tracer *tr, struct thread *th, int *sig);
/* ...its /proc/PID/maps shows our protections: the program's in maps. */
struct cts_mapping;
void cts_fault_fix_maps(const struct cts_tracer *tr, struct cts_mapping **maps, size_t *n);
/* ...th went to sleep outside the schedule (syscall.c) in a call whose
 * buffers it opened, which no switch could leave open to the kernel alone:
 * true if so, the pages then learned as decided per access when the run
 * is voided (the next runs leave them to access breakpoints). */
bool cts_fault_io_learn(struct cts_tracer *tr, const struct thread *th);

struct cts_fault_stats {
	uint64_t faults, grants, revivals, opens, revokes, sweeps, retags, syscalls;
	uint64_t protects;      /* mprotect calls injected (the mprotect mechanism) */
	uint64_t lazy;          /* ...faults that opened a page its switch left closed */
	uint64_t ro_pages;      /* pages of the read key (the GOT's) in the last run */
	uint64_t ro_writes;     /* writes there while two threads lived: runs voided */
	uint64_t lib_modes;     /* stretches of library code run in its own mode */
	int keys;
	bool mprot;
};
void cts_fault_get_stats(const struct cts_tracer *tr, struct cts_fault_stats *s);

#endif
