/* Internal state of the live backend and its lower layer: thread control
 * blocks, registers, the breakpoint table and single-stepping over it
 * (thread.c, bp.c). Every file of tracer/ may use these; access.c uses
 * nothing else of the backend (docs/design.md, "tracer/ layering"). */
#ifndef CTS_TRACER_INT_H
#define CTS_TRACER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/filter.h>
#include <sys/user.h>
#include "hw/hw.h"
#include "models/event.h"
#include "strategies/backend.h"
#include "tracer/tracer.h"

enum th_state {
	TH_NEW,       /* cloned, first stop not seen yet */
	TH_HELD,      /* stopped at its next visible operation */
	TH_RUNNING,
	TH_OUTSIDE,   /* asleep in a system call, outside the schedule (syscall.c) */
	TH_DEAD,
};

enum held_at {
	AT_START,      /* first stop of a thread (or the program's entry) */
	AT_BREAKPOINT, /* on an int3 we planted, rip rewound to it */
	AT_SYSCALL,    /* seccomp stop at syscall entry */
	AT_STEP,       /* step mode: before an access found by single-stepping */
	AT_SYSEXIT,    /* syscall-exit stop: back from a call that slept outside */
};

/* Range events one library call makes (sync.c): memcpy reads, then writes;
 * a printf reads its format and each %s argument. */
#define LC_MAX_EVENTS 8

/* One control block per thread. */
struct thread {
	pid_t tid;
	int num;                   /* creation order: the only name schedules use */
	enum th_state state;
	enum held_at at;
	struct cts_event pending;  /* its next visible operation */
	struct user_regs_struct regs;
	bool regs_valid;
	bool regs_dirty;           /* regs changed here, not yet written back */
	uint64_t handle;           /* pthread_t (= fs_base) */
	uint64_t bp_addr;          /* breakpoint it is held on */
	uint64_t stepping_bp;      /* stepping over this breakpoint */
	bool after_step;           /* access.c wants to see the step's result */
	/* inside a modeled pthread call: its futex words are internal;
	 * call_sp its stack pointer at the entry, call_ret the return
	 * address there (cts_tr_in_call) */
	bool in_call;
	uint64_t call_sp, call_ret;
	int call_fn;
	uint64_t call_lo[2], call_hi[2];
	bool in_proc_exit;
	/* its exit syscall ran as a step: no more user code, so it no longer
	 * counts for arming (a schedule point, unlike the reap that follows) */
	bool exit_taken;
	/* a library call's range events (sync.c), lc_i the pending one */
	struct cts_event lc_ev[LC_MAX_EVENTS];
	int lc_n, lc_i, lc_fn;
	signed char lc_r[LC_MAX_EVENTS]; /* table range of each, -1 a %s argument */
	uint64_t lc_args[6], lc_sp, lc_ret; /* lc_sp: rsp at the callee's entry */
	uint64_t lc_hidden_sig;    /* the last call whose ranges all stayed invisible */
	uint64_t ret_pc, ret_sp;   /* armed return breakpoint of that call */
	int ret_spec;              /* its range that waits for the result, -1 none */
	bool ret_seen;             /* returned: the exact range is ret_start/len */
	uint64_t ret_start, ret_len;
	/* futex model */
	bool fblocked, fwoken;
	bool sig_interrupt;        /* a signal came while parked: the wait returns EINTR */
	uint64_t fwait_addr, fseq;
	/* blocking system calls (syscall.c) */
	bool in_kcall;             /* resumed into a call that may sleep: its exit stops */
	bool kcall_creates;        /* ...a call that creates a pipe, eventfd... */
	bool sys_blocked;          /* TH_OUTSIDE, or a parked timed signal wait */
	bool sig_parked;           /* timed sigwait parked at its entry (time is not modelled) */
	int sys_nr;                /* the call in flight or waited in */
	uint64_t sys_arg[6];
	uint64_t sys_set;          /* signal wait: the set (sigwait) or mask (sigsuspend, pause) */
	int early_signals;         /* signals taken before a wait's syscall, in a row */
	/* shared accesses (access.c) */
	bool stepping;             /* step mode: single-stepping traced code */
	bool last_was_call;
	uint64_t stack_lo, stack_hi; /* its own stack mapping */
	/* Its static TLS and TCB around the thread pointer tls_fs, within the
	 * mapping that holds it (access.c own_stack) */
	uint64_t tls_fs, tls_lo, tls_hi;
	uint64_t acc_addr;         /* the access being executed */
	uint32_t acc_size;
	bool acc_capture;          /* read the written value after the step */
	uint64_t acc_written;
	/* the value read when it was held, still memory's if no thread has
	 * stopped or run since (access.c, emulate: no second read) */
	bool acc_val_ok;
	uint64_t acc_val, acc_val_stops;
	bool probe_requested;      /* SIGSTOP sent: probe it for a spin loop */
	bool probing;              /* single-stepping a spin probe */
	int probe_left;
	uint64_t probe_pc[16], probe_addr[16], probe_val[16];
	uint64_t probe_hash[16];   /* its state at the load (spinstate.c) */
	bool probe_hashed[16];
	int probe_n;
	int watch_idx;             /* --watch fallback: watch hit by this access, -1 */
	uint64_t watch_pc;
	int watch_kind;            /* its enum cts_attr_kind: write, rmw or atomic */
	struct cts_hw_regs hw;
	/* its last cold (invisible) reads: a repeat is a possible spin, read
	 * visibly so that spin.c sees it (cold.h) */
	uint64_t cold_pc[4], cold_addr[4];
	unsigned cold_next;
	uint32_t cold_progress[4]; /* own_progress at each of those reads */
	uint32_t own_progress;     /* its writes and events but yields and sleeps: a loop
	                            * that makes them is no busy-wait (own.h) */
	bool own_recheck;          /* its pending access met a line another thread used
	                            * unordered (as far as the clocks knew): ask again
	                            * when it runs (own.h) */
	/* fault mode (fault.h): its PKRU as last written, opened for a step or
	 * a system call; stopped at a seccomp stop; the call it runs open */
	uint32_t pkru;
	bool pkru_set, pkru_open;
	bool pkru_call;             /* fault.h: open for the libc body of a modeled sync call */
	bool sys_entry;
	bool flt_sys;
	long flt_nr;
	uint64_t flt_arg[4];
	uint64_t flt_addr;          /* the fault being decided (access.c) */
	bool stepping_over;         /* single-stepping an instruction the tracer decided on */
	int last_stop;              /* wait.h's kind of the stop it is at: where fault.c's
	                             * mprotect mechanism can inject a call */
	bool flt_exit_apply;        /* ...at this call's exit stop, before user code */
	bool flt_ranged;            /* ...open on some pages only (fault.c's open) */
	bool lib_mode;              /* in library code with every page open and the traced
	                             * text not executable (fault.h cts_fault_lib_enter) */
	uint32_t lib_faults;        /* library-code faults performed in epoch lib_epoch */
	uint32_t lib_epoch;
	/* the program's own seccomp filters (pfilter.h): the newest of its
	 * chain (-1: none); a filter read at the entry of the call that installs
	 * it, kept at its exit stop if the call succeeded */
	int pf_head;
	bool pf_installing;
	struct sock_filter *pf_insns;
	size_t pf_n;
	uint64_t pf_flags;
};

enum bp_kind {
	BP_SYNC,      /* libc entry point */
	BP_ACCESS,    /* instruction that may touch shared memory */
	BP_RETURN,    /* step mode: return from an untraced call */
	BP_LIBCALL,   /* PLT stub of an imported function (sync.c) */
	BP_LIBRET,    /* return address of a library call whose result is needed */
};

struct cts_insn;

struct bp {
	uint64_t addr;     /* 0 = empty slot */
	uint8_t orig;
	enum bp_kind kind;
	int fn;            /* BP_SYNC, BP_LIBCALL: index into sync.c's tables */
	bool active;
	uint32_t local_hits, shared_hits;
	/* Fault mode, the run numbered run_gen (older: all zero): shared
	 * hits, those on tracked pages, out of its text after enough of them;
	 * and thread-local hits, which keep it in. */
	uint32_t run_gen, run_hits, tracked_hits, run_local;
	bool run_off;
	struct cts_insn *insn;  /* BP_ACCESS: decoded once (access.c) */
	bool learned;           /* a spin loop's load: visible in every mode */
	bool in_server;         /* int3 written in the fork server's text */
	/* Out-of-line trap (stub.c). On a patched libc entry point: planting
	 * writes a 5-byte jmp to its stub (patch), removing it puts saved back.
	 * On the stub's int3: entry is the entry point it serves, and the trap
	 * is never written or removed (it lives in the stub page). */
	uint8_t plen;           /* 5 on a patched entry, 0 for a plain int3 */
	uint8_t saved[5], patch[5];
	uint64_t entry;
	bool early;             /* BP_LIBCALL of an allocator with cfg.early_allocs: never gated */
	/* BP_LIBCALL on a `call *slot(%rip)` in traced code (no PLT stub): the
	 * call's length; the return address is not pushed yet. 0 on a stub or
	 * a `jmp *slot(%rip)`, where [rsp] holds it. */
	uint8_t call_len;
	/* A learned call site (lcret.h): where its stub's GOT slot sends the
	 * call, once known (0: not yet). */
	uint64_t site_to;
};

struct cts_got_slot {
	uint64_t addr;
	int fn;         /* BP_LIBCALL fn */
	bool early;     /* bp.early */
};

/* qsort/bsearch order of struct cts_got_slot: by address. */
int cts_tr_got_slot_cmp(const void *a, const void *b);

struct cts_access_state;
struct cts_pf;
struct cts_libcalls;
struct cts_catch;

struct cts_tracer {
	struct cts_tracer_config cfg;
	struct cts_objmodel *model;
	struct cts_run_state *st;
	pid_t pid;
	bool pid_reaped;
	bool proc_exiting;
	bool exec_free;             /* a thread exec'd: the new image runs free */
	int self_sig;               /* last signal the program sent itself */
	bool cancel_seen;           /* a pthread_cancel ran in this run */
	bool mute;                  /* a report's re-run: no --watch lines (tr_mute) */
	uint64_t standin_off[2];    /* of cfg.stdout_fd, stderr_fd: shown so far */
	/* Control blocks of the threads not yet reaped, in creation order (so
	 * by number): loops over threads walk these. A reaped thread's block
	 * is freed before the next step (cts_tr_free_reaped): the tracer's
	 * memory follows live threads (docs/design.md, "Thread tables"). */
	struct thread **live;
	int nlive;
	size_t livecap;
	struct thread **reaped;
	int nreaped;
	size_t reapcap;
	int nthreads;                 /* threads created this run: the next number */
	/* pthread_t -> number of reaped threads, for a join after the exit */
	struct handle_num { uint64_t handle; int num; } *dead_handles;
	int ndead_handles;
	size_t dead_handle_cap;
	pid_t *early;                 /* first stops seen before their clone event */
	size_t earlycap;
	pid_t *foreign;               /* processes the program forked and their */
	int nforeign;                 /* threads: run free, killed with the run */
	size_t foreigncap;
	int nearly;
	struct thread *running;
	int last_created;
	uint64_t fseq;
	uint32_t run_gen;             /* runs started (struct bp's run counts) */
	double run_started, step_started; /* on the run clock (cts_tr_run_clock) */
	double clock, clock_at;           /* the run clock, and the wall time it was read */
	long slice_us;                    /* the time slice (SLICE_US, CTS_SLICE_MS) */
	/* breakpoints: open addressing by address */
	struct bp *bps;
	size_t bpcap, nbps;
	uint64_t libc_base;
	char libc_path[256];        /* libc's file as mapped (cts_tr_setup_libc) */
	uint64_t exe_base;          /* where the executable's first page is mapped */
	uint64_t main_addr;         /* 0: unknown (stripped) */
	bool main_known;
	bool no_main;               /* threads before main: runs start at the entry point */
	bool no_emulate;            /* always single-step displaced instructions */
	/* access breakpoints (break mode) and library-call ones (sync, break)
	 * are in the text only while >= 2 threads live (access.c,
	 * cts_access_threads_changed) */
	bool gate_access, gate_libcalls;
	bool access_armed;
	/* attach mode with --races: resume with PTRACE_SYSCALL, every system
	 * call a stop (no seccomp filter there to show them) */
	bool trace_syscalls;
	/* stub.c: the page of out-of-line traps for libc entry points */
	uint64_t stub_base;         /* where it is mapped in every run, 0 none */
	uint8_t *stub_code;         /* its bytes, written at every launch */
	size_t stub_len;
	uint64_t stub_syscall;      /* syscall; int3 in it (the fork server's clone), 0 none */
	struct cts_stub *stubs;     /* per stub: entry, trap, instruction offsets */
	int nstubs;
	bool no_stubs;              /* CTS_NO_STUBS, or the page could not be made */
	pid_t server;               /* fork server stopped at main, 0 if none */
	bool bps_dirty;             /* breakpoints changed since the server was synced */
	bool no_server;
	struct user_regs_struct server_regs;
	unsigned server_iso_gen;    /* the run overlays the server works in (isolate.h), 0: unknown */
	uint64_t entropy;           /* getrandom's generator state (entropy.c), reset per run */
	char image[256];            /* the program's image: cfg.path, or what a script exec'd */
	bool script;                /* cfg.path is a #! script (wrapper.c) */
	char interp[256];           /* its interpreter */
	uint64_t libc_lo[4], libc_hi[4];
	int nlibc_ranges;
	struct cts_sym *sym;
	struct cts_ctx *ctx;          /* calling contexts (context.h), made on first use */
	struct cts_view *view;        /* what each thread sees of affinity, personality (native.h) */
	struct cts_access_state *acc;
	struct cts_cold *cold;          /* cfg.cold_reads: cold lines (cold.h), else NULL */
	struct cts_own *own;            /* or ownership of lines (own.h), else NULL */
	struct cts_fault *flt;          /* with own: protection-key faults (fault.h), else NULL */
	bool fault_rules;               /* ...so the seccomp filter stops at pointer calls */
	const char *fault_why;          /* ...or why not (a static string) */
	struct cts_catch *ct;           /* --races catch (catch.c), NULL otherwise */
	struct cts_lcret *lcret;        /* library calls out of the text (lcret.h) */
	struct cts_libcalls *lc;        /* sync.c: imported functions, what was unseen */
	/* sync.c: the traced files' GOT slots of watched imported functions,
	 * sorted by address; access.c puts a BP_LIBCALL on each call or jmp
	 * through one (code without PLT stubs: -fno-plt, Rust) */
	struct cts_got_slot *got;
	size_t ngot;
	struct cts_tracer_stats stats;
	struct sock_filter *bpf;        /* compiled seccomp filter */
	struct sock_fprog bpf_prog;
	struct cts_pf *pf;              /* the program's own filters (pfilter.h), NULL attached */
	int pf_start;                   /* the chain a run's first thread starts with, -1 none */
	/* blocking system calls (syscall.c), per run */
	uint64_t sent_sigs;             /* signals the program sent itself (bit n-1) */
	bool sig_dirty;                 /* parked signal waiters may have become ready */
	uint64_t steps_since_sig_check;
	bool came_back;                 /* a thread left its wait: the explorer looks again */
#define MAX_CHANNELS 64
	uint64_t channels[MAX_CHANNELS];/* pipes, eventfds the program created this run */
	int nchannels;
	bool channels_shared;           /* a fork or fd passing: none is private any more */
};

/* thread.c: control blocks, registers, hold/resume, the interrupt flag */
bool cts_tr_interrupted(void);
struct thread *cts_tr_by_tid(struct cts_tracer *tr, pid_t tid);
/* The control block of thread number num, NULL once it is reaped. */
struct thread *cts_tr_by_num(struct cts_tracer *tr, int num);
/* NULL past the run's --max-threads. */
struct thread *cts_tr_new_thread(struct cts_tracer *tr, pid_t tid);
/* Thread number of a pthread_t (the newest thread with it), -1 if none. */
int cts_tr_num_of_handle(struct cts_tracer *tr, uint64_t handle);
/* th's exit status was reaped: no event of it can come any more. */
void cts_tr_reaped(struct cts_tracer *tr, struct thread *th);
/* Free the blocks of reaped threads (between steps: nobody points at them). */
void cts_tr_free_reaped(struct cts_tracer *tr);
/* Forget every thread (a new run, or the end). */
void cts_tr_free_threads(struct cts_tracer *tr);
/* Remember a first stop seen before its clone event. */
void cts_tr_add_early(struct cts_tracer *tr, pid_t tid);
int cts_tr_getregs(struct thread *th);
int cts_tr_setregs(struct thread *th);
int cts_tr_flush_regs(struct thread *th);
void cts_tr_set_error(struct cts_tracer *tr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cts_tr_publish(struct cts_tracer *tr, struct thread *th);
void cts_tr_hold(struct cts_tracer *tr, struct thread *th, enum held_at at);
int cts_tr_resume(struct cts_tracer *tr, struct thread *th, int sig);
int cts_tr_poke(struct cts_tracer *tr, uint64_t addr, const void *buf, size_t len);

/* bp.c: the breakpoint table, single-stepping over a breakpoint */
struct bp *cts_tr_bp_find(struct cts_tracer *tr, uint64_t addr);
struct bp *cts_tr_bp_add(struct cts_tracer *tr, uint64_t addr, enum bp_kind kind, int fn);
int cts_tr_bp_plant(struct cts_tracer *tr, struct bp *b);
int cts_tr_bp_unplant(struct cts_tracer *tr, struct bp *b);
int cts_tr_bp_plant_all(struct cts_tracer *tr);
void cts_tr_bp_retire(struct cts_tracer *tr, struct bp *b);
/* b's int3 belongs in the text now: active, and not an access breakpoint
 * gated off while one thread lives; in_server: in the fork server's text
 * (stopped at main, one thread: gated ones never are). */
bool cts_tr_bp_in_text(const struct cts_tracer *tr, const struct bp *b, bool in_server);
void cts_tr_bp_sync_server(struct cts_tracer *tr);
/* b's bytes in the copy of the text another process has, written through
 * pid (the fork server, a forked child, a stopped thread of an attached
 * process): its trap when planted, the bytes it displaces when not. */
int cts_tr_bp_write_to(pid_t pid, const struct bp *b, bool planted);
int cts_tr_single_step_over(struct cts_tracer *tr, struct thread *th, struct bp *b, bool after);
/* A thread held on a stub's trap (b->entry) is put back on the entry point
 * with its registers as they were there: resumed, it traps again. For a
 * thread resumed without running its operation, or left behind (detach). */
void cts_tr_bp_rewind(struct cts_tracer *tr, struct thread *th);

#endif
