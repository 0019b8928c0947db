/* The live backend above its lower layer (tracer_int.h) and access.c:
 * launching, the fork server, libc entry points, the futex model and the
 * event pump, shared between tracer.c, launch.c, server.c, sync.c, futex.c
 * and dispatch.c. access.c, thread.c and bp.c must not include it
 * (docs/design.md, "tracer/ layering"). */
#ifndef CTS_RUN_INT_H
#define CTS_RUN_INT_H

#include "tracer/tracer_int.h"

/* glibc 2.36's struct pthread keeps the thread's tid at this offset from the
 * thread pointer: CLONE_CHILD_CLEARTID clears it and futex-wakes it when the
 * thread dies (the wake pthread_join waits for). */
#define GLIBC_TID_OFFSET 0x2d0
/* glibc's cancellation signal (SIGRTMIN-2 of the kernel's numbering), and
 * struct pthread's cancelhandling word with the bits pthread_cancel and the
 * cancellation points use. */
#define CTS_SIGCANCEL 32
#define GLIBC_CANCEL_OFFSET 0x308
#define GLIBC_CANCEL_DISABLED 0x1
#define GLIBC_CANCELED 0x8
#define GLIBC_EXITING 0x10

/* A thread running this long without a visible operation is probed for a
 * busy-wait loop (access.c learns its load as a breakpoint): the default of
 * tr->slice_us, which CTS_SLICE_MS overrides for testing only (a short slice
 * makes a spin load be learned while a systematic run replays its prefix). */
#define SLICE_US 200000

/* launch.c: exec a run, run it to main, kill it */
int cts_tr_build_seccomp(struct cts_tracer *tr);
int cts_tr_launch(struct cts_tracer *tr, struct user_regs_struct *entry_regs);
int cts_tr_run_to_main(struct cts_tracer *tr, struct user_regs_struct *regs);
void cts_tr_kill_and_reap(struct cts_tracer *tr);
/* libc's mappings and entry points in tr->pid, breakpoints created (not planted) */
int cts_tr_setup_libc(struct cts_tracer *tr);

/* wrapper.c: a #! script's process runs free until it execs the program
 * (tr->image); -1 with the reason set if it never does */
int cts_tr_follow_wrapper(struct cts_tracer *tr, pid_t pid);

/* entropy.c: getrandom(2) from a generator restarted at every run */
int cts_tr_on_getrandom(struct cts_tracer *tr, struct thread *th);

/* stub.c: out-of-line traps for libc entry points (docs/design.md, "Break
 * mode speed"): make the stub page in a process stopped at its entry point
 * (regs), once per exec; map a fault pc in a stub back to libc (0: not in one) */
int cts_tr_stubs_setup(struct cts_tracer *tr, const struct user_regs_struct *regs);
uint64_t cts_tr_stub_orig_pc(const struct cts_tracer *tr, uint64_t pc);
void cts_tr_stubs_free(struct cts_tracer *tr);

/* server.c: the fork server */
bool cts_tr_become_server(struct cts_tracer *tr, const struct user_regs_struct *regs);
pid_t cts_tr_fork_from_server(struct cts_tracer *tr);
void cts_tr_stop_server(struct cts_tracer *tr);

/* sync.c: libc entry points */
int cts_tr_sync_resolve(struct cts_tracer *tr, const char *libc_path, uint64_t libc_base);
/* May the entry point of syncfns[fn] trap out of line (not assert)? Are
 * libc's own calls to it let through (its stub skips the trap for them)? */
bool cts_tr_sync_stubbable(int fn);
bool cts_tr_sync_internal_ok(int fn);
int cts_tr_on_sync_bp(struct cts_tracer *tr, struct thread *th, struct bp *b);
/* Is pc in libc's text (its executable mappings, found by cts_tr_setup_libc)? */
bool cts_tr_in_libc(const struct cts_tracer *tr, uint64_t pc);
int cts_tr_step_over_at(struct cts_tracer *tr, struct thread *th, uint64_t addr);
/* Is th held at pthread_spin_lock (a lock that never calls futex)? */
bool cts_tr_call_spins(const struct thread *th);
void cts_tr_enter_call(struct cts_tracer *tr, struct thread *th);
bool cts_tr_in_call(const struct cts_tracer *tr, struct thread *th);
/* sync.c: library calls as range events (break/step mode) */
int cts_tr_on_libcall_bp(struct cts_tracer *tr, struct thread *th, struct bp *b);
int cts_tr_libcall_execute(struct cts_tracer *tr, struct thread *th);
void cts_tr_libcall_returned(struct cts_tracer *tr, struct thread *th);
/* th faulted at a rep string instruction in (library code) on a page the
 * tracer cannot grant it, the access to be performed unseen: its whole
 * range opened up to the next instruction (a return breakpoint there), so
 * it runs natively instead of a single step per element. 1 done (resume
 * th), 0 not possible (step it). */
int cts_tr_rep_open(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in);
int cts_tr_on_libret_bp(struct cts_tracer *tr, struct thread *th, struct bp *b);
void cts_tr_libcall_done(struct thread *th, struct cts_event *done);
int cts_tr_libcalls_unseen(struct cts_tracer *tr, char *buf, size_t len);
void cts_tr_libcalls_free(struct cts_tracer *tr);

/* futex.c: the futex model, seccomp stops */
void cts_tr_skip_syscall(struct thread *th, long ret);
int cts_tr_futex_wake(struct cts_tracer *tr, uint64_t uaddr, int n);
void cts_tr_park(struct cts_tracer *tr, struct thread *th, uint64_t uaddr, bool timed);
int cts_tr_on_seccomp(struct cts_tracer *tr, struct thread *th);
void cts_tr_mark_dead(struct cts_tracer *tr, struct thread *th);

/* syscall.c: signals and calls that may sleep (docs/design.md, "Blocking system calls") */
int cts_tr_sys_seccomp_rules(void *scmp_ctx);
void cts_tr_sys_reset(struct cts_tracer *tr);
void cts_tr_sys_forked(struct cts_tracer *tr);
int cts_tr_sys_entry(struct cts_tracer *tr, struct thread *th, long nr);
int cts_tr_sys_exit_stop(struct cts_tracer *tr, struct thread *th);
bool cts_tr_sys_went_outside(struct cts_tracer *tr, struct thread *th);
/* 0 resumed, 1 parked (the step is over), -1 error */
int cts_tr_sys_execute(struct cts_tracer *tr, struct thread *th, bool give_up,
		       struct cts_event *done);
int cts_tr_sys_after_step(struct cts_tracer *tr);
int cts_tr_sys_wait(struct cts_tracer *tr, double limit_s);
bool cts_tr_sys_signal_kills(const struct thread *th, int sig);
/* A thread stopped at a signal-sending call it makes outside the schedule
 * (a process the program started, its start-up before main): the call is
 * refused (EPERM) if it aims at cts-trace. */
void cts_tr_sys_guard_free(const struct cts_tracer *tr, pid_t tid);
bool cts_tr_sys_asleep(const struct thread *th);
size_t cts_tr_sys_describe_outside(const struct cts_tracer *tr, char *buf, size_t len);

/* dispatch.c: the event pump */
int cts_tr_pump(struct cts_tracer *tr);
int cts_tr_cancel_sent(struct cts_tracer *tr, int target);
void cts_tr_note_cancels(struct cts_tracer *tr);
/* Wait for one stop (timeout_us < 0: block) and dispatch it: 1 done, 0 none
 * came (or the run ended: interrupt, run timeout), -1 error. */
int cts_tr_next_event(struct cts_tracer *tr, long timeout_us);
double cts_tr_now_s(void);
double cts_tr_run_clock(struct cts_tracer *tr);
void cts_tr_catch_alarm(void);
void cts_tr_clear_alarm(void);
/* The processes the program forked (tr->foreign): kill them, their run's
 * process group (group, 0: none) and reap every thread; forget one reaped
 * elsewhere. */
void cts_tr_kill_foreign(struct cts_tracer *tr, pid_t group);
void cts_tr_forget_foreign(struct cts_tracer *tr, pid_t tid);

/* release.c: the backend's release op (strategies/backend.h) */
int cts_tr_release(struct cts_tracer *tr, struct cts_run_state *st, pid_t *tids);

#endif
