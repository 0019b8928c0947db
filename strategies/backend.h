/* The explorer drives a program through one of two interchangeable backends:
 * the live ptrace tracer (tracer/) and a simulated program from a script
 * (strategies/sim.c), so strategies and models are unit-tested without a kernel. */
#ifndef CTS_BACKEND_H
#define CTS_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "models/bug.h"
#include "models/event.h"

struct cts_objmodel;
struct cts_race_detector;

/* Per-thread view the backend keeps up to date for the explorer. */
struct cts_thread_view {
	bool alive;              /* created and not yet exited */
	bool blocked;            /* backend-level block (parked in a futex wait) */
	bool outside;            /* blocked, but may come back without any step: in a
	                          * system call in the kernel, or waiting for a signal
	                          * from outside the program (backend->wait) */
	struct cts_event pending;/* next visible operation, valid while alive */
	bool deferred;           /* steps aside while another thread can run
	                          * (--races catch holds it at a sampled access) */
};

enum cts_run_status {
	CTS_RUN_ACTIVE = 0,  /* threads are held, a choice is due */
	CTS_RUN_EXITED,      /* program exited; exit_code valid */
	CTS_RUN_SIGNALED,    /* fatal signal; sig, fault_pc, fault_tid valid */
	CTS_RUN_ASSERT,      /* assert() failed; message, fault_pc, fault_tid valid */
	CTS_RUN_TIMEOUT,     /* per-run wall clock ran out */
	CTS_RUN_ERROR,       /* tracer failure; message valid */
	CTS_RUN_INTERRUPTED, /* the user asked cts to stop (SIGINT/SIGTERM) */
};

struct cts_run_state {
	int nthreads;                /* threads created so far: t[0..nthreads) */
	struct cts_thread_view *t;   /* grows through cts_run_state_thread */
	size_t tcap;
	int max_threads;             /* creating more is an error (0: the default) */
	enum cts_run_status status;
	int exit_code;
	int exit_sig;        /* CTS_RUN_EXITED by this signal (exit_code 128+sig), 0 */
	bool exit_sig_self;  /* ... which the program sent itself */
	int sig;
	uint64_t fault_pc;
	uint64_t fault_addr;
	int fault_tid;
	/* CTS_RUN_ASSERT: fault_pc is the call of the failing assert; the file and
	 * line its arguments name (__FILE__, __LINE__), "" and 0 if unknown. */
	char assert_file[256];
	int assert_line;
	char message[512];
	bool bad_input;      /* with CTS_RUN_ERROR: the program cannot be traced (exec
	                      * failed, no usable libc), not a fault of cts */
	bool blocked_outside;/* with CTS_RUN_TIMEOUT: a thread was blocked outside the
	                      * schedule (message says which): the run may only have
	                      * been waiting for the world, not stuck */
	bool relearn;        /* set by step, status still ACTIVE: the run hid events it
	                      * should have shown (a write to a line read cold,
	                      * tracer/cold.h); it is void: stop it, call
	                      * backend->relearn, run the schedule again */
	bool hid_reads;      /* some shared reads were no scheduling points (cold.h) */
	double hid_at;       /* when the last of them was hidden (CLOCK_MONOTONIC s) */
	/* Set by the explorer each run, NULL when it keeps no clocks: does event
	 * number n (from 1) of thread `earlier` happen before the current point
	 * of thread tid, as far as the events executed so far show? (Break
	 * mode's ownership of lines, tracer/own.h.) */
	bool (*ordered)(void *arg, int earlier, uint32_t n, int tid);
	void *ordered_arg;
	bool own_filters;    /* the program installed seccomp filters of its own: the
	                      * explorer asks native_call about the calls cts models */
	bool learned;        /* a busy-wait load was learned in this run (the time-slice
	                      * probe): every later run shows events this one's start
	                      * did not, so a search's prefixes from it would diverge */
	/* Events the backend saw on its own during the last step besides the
	 * chosen op (e.g. shared accesses inside a step in future modes). */
};

/* Thread tid's view, the table grown to hold it (nthreads raised to tid+1);
 * NULL when tid is beyond the run's limit of threads. */
struct cts_thread_view *cts_run_state_thread(struct cts_run_state *st, int tid);
int cts_run_state_limit(const struct cts_run_state *st);
/* Between runs: everything zero but the table's storage and the limit. */
void cts_run_state_reset(struct cts_run_state *st);
void cts_run_state_free(struct cts_run_state *st);

struct cts_backend_ops {
	const char *name;
	/* Launch the program and hold every thread at its first visible op. */
	int (*start)(void *be, struct cts_run_state *st);
	/* Execute st->t[tid].pending and run tid to its next visible op.
	 * give_up: the op is a timed wait that should time out instead of block.
	 * On return *done is the executed op with its outcome. 0 or -1 (st->message). */
	int (*step)(void *be, struct cts_run_state *st, int tid, bool give_up, struct cts_event *done);
	/* Optional: nothing can run but some thread is outside the schedule
	 * (st->t[].outside): wait until one comes back or limit_s seconds pass
	 * (limit_s <= 0: until the run's timeout). 1 if a thread's view changed,
	 * 0 if none did, -1 on error (st->message). */
	int (*wait)(void *be, struct cts_run_state *st, double limit_s);
	/* Tear the run down: kill, reap, nothing left behind. */
	void (*stop)(void *be, struct cts_run_state *st);
	/* Optional: pc -> "func (file:line)" for reports; may be NULL. */
	void (*describe_pc)(void *be, uint64_t pc, char *buf, size_t len);
	/* Optional: data address -> "symbol+off", "" if unknown. */
	void (*describe_data)(void *be, uint64_t addr, char *buf, size_t len);
	/* Optional: pc -> source file (a relative one the debug info records
	 * joined to its compilation directory) and line, for reports that link
	 * to the source (SARIF). 0, or -1 if unknown. */
	int (*source_pc)(void *be, uint64_t pc, char *file, size_t len, int *line);
	/* Optional: pc -> function, offset, file, line, module (struct
	 * cts_pc_info), for the reports' frame objects. 0, or -1 if unknown. */
	int (*pc_info)(void *be, uint64_t pc, struct cts_pc_info *out);
	/* Optional: how many things the runs so far may have missed (calls into
	 * untraced code with pointers to shared memory); buf says which. */
	int (*unseen)(void *be, char *buf, size_t len);
	/* Optional: a hash of held thread tid's own state (live: registers and
	 * the top of its stack; sim: statement and locals). Equal hashes before
	 * two reads of an unchanged location prove the thread made no progress in
	 * between: the explorer then treats it as blocked on that location, and
	 * only with this proof does a run where every thread spins end as a
	 * livelock. 0; 1 when equal hashes prove nothing (the thread may
	 * progress through stores cts cannot see) but different ones still show
	 * progress, so a loop that counts is not taken for a spin; -1 when the
	 * backend cannot tell at all, and spins are recognised by counting. */
	int (*thread_state)(void *be, int tid, uint64_t *hash);
	/* Optional (--races catch): add the races caught during the run to d
	 * (cts_race_add), at the end of the run. */
	void (*caught)(void *be, struct cts_race_detector *d);
	/* Optional: held thread tid's calling context (cts_context_fn). */
	int (*context)(void *be, int tid, int k, uint64_t *ret);
	/* Optional: the heap block holding addr in the running program (its
	 * user address and size), for a race's report. 0, or -1 if unknown. */
	int (*heap_block)(void *be, uint64_t addr, uint64_t *start, uint64_t *size);
	/* Optional: the runs from now on (on) are a report's re-runs, to take
	 * call stacks: the backend prints and counts nothing of them (--watch). */
	void (*mute)(void *be, bool on);
	/* Optional, for reports: the same, unwound also where context stops short
	 * (a thread held in a trap stub at a call's entry). */
	int (*stack)(void *be, int tid, int k, uint64_t *ret);
	/* Optional: the run just stopped ended with st->relearn: learn what it
	 * showed (the live tracer: its conflicting lines become hot, cold.h), so
	 * the next run shows more events; everything: show every event it can
	 * (all lines hot: the run hid reads and was inconclusive). */
	void (*relearn)(void *be, bool everything);
	/* Optional: the run is cut here (its schedules are covered by others)
	 * with these pending events never executed: would one of them have met
	 * memory the run used without showing it (tracer/own.h)? The strategy
	 * judged them independent of what ran, so such a run is void. */
	bool (*pending_conflict)(void *be, struct cts_run_state *st);
	/* Optional: what a schedule file must carry for a replay to see the
	 * same events (the hot lines): a new string, NULL if nothing. */
	char *(*hot_lines)(void *be);
	/* Optional: enter (true) or leave (false) the file-system view of the
	 * run that just stopped (the live tracer's isolated working directory,
	 * TMPDIR and /dev/shm: tracer/isolate.h), around spawning --check, which
	 * inherits it. Entering: 0, or -1 (errno). */
	int (*run_fs)(void *be, bool enter);
	/* Optional (--gdb, --core): give the held program to another tracer, a
	 * debugger: every thread left stopped (SIGSTOP) at its pending
	 * operation, the backend's code patches out of the text, every thread
	 * detached. tids[n] gets thread n's kernel thread id (0: gone) for n <
	 * st->nthreads. The process id, or -1 (st->message). stop() then kills
	 * and reaps whatever is left. */
	int (*release)(void *be, struct cts_run_state *st, pid_t *tids);
	/* Optional, asked only while st->own_filters: natively, thread tid
	 * makes a futex call here that cts does not let it make: a wait (its
	 * pending operation cannot go on: the object model blocks it) or a
	 * wake (its pending operation, about to run, releases what another
	 * thread is blocked on). The backend applies the program's own seccomp
	 * filters to that call (the live tracer: tracer/pfilter.h). 0: the call
	 * is allowed, or its failure changes nothing; 1: the run ended
	 * (st->status: the process killed, as natively); -1: cts cannot apply
	 * what the filter asks (st->message; st->bad_input). */
	int (*native_call)(void *be, struct cts_run_state *st, int tid, bool wake);
};

struct cts_backend {
	const struct cts_backend_ops *ops;
	void *be;
};

/* What the reports use of b (models/bug.h): its naming functions. */
struct cts_describer cts_backend_describer(const struct cts_backend *b);

#endif
