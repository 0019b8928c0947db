/* The explorer drives a program through one of two interchangeable backends:
 * the live ptrace tracer (tracer/) and a simulated program from a script
 * (strategies/sim.c), so strategies and models are unit-tested without a kernel. */
#ifndef CTS_BACKEND_H
#define CTS_BACKEND_H

#include <stdint.h>
#include "models/event.h"

struct cts_objmodel;

/* Per-thread view the backend keeps up to date for the explorer. */
struct cts_thread_view {
	bool alive;              /* created and not yet exited */
	bool blocked;            /* backend-level block (parked in a futex wait) */
	struct cts_event pending;/* next visible operation, valid while alive */
};

enum cts_run_status {
	CTS_RUN_ACTIVE = 0,  /* threads are held, a choice is due */
	CTS_RUN_EXITED,      /* program exited; exit_code valid */
	CTS_RUN_SIGNALED,    /* fatal signal; sig, fault_pc, fault_tid valid */
	CTS_RUN_ASSERT,      /* assert() failed; message valid */
	CTS_RUN_TIMEOUT,     /* per-run wall clock ran out */
	CTS_RUN_ERROR,       /* tracer failure; message valid */
	CTS_RUN_INTERRUPTED, /* the user asked cts to stop (SIGINT/SIGTERM) */
};

struct cts_run_state {
	int nthreads;
	struct cts_thread_view t[CTS_MAX_THREADS];
	enum cts_run_status status;
	int exit_code;
	int sig;
	uint64_t fault_pc;
	uint64_t fault_addr;
	int fault_tid;
	char message[512];
	bool bad_input;      /* with CTS_RUN_ERROR: the program cannot be traced (exec
	                      * failed, no usable libc), not a fault of cts */
	/* Events the backend saw on its own during the last step besides the
	 * chosen op (e.g. shared accesses inside a step in future modes). */
};

struct cts_backend_ops {
	const char *name;
	/* Launch the program and hold every thread at its first visible op. */
	int (*start)(void *be, struct cts_run_state *st);
	/* Execute st->t[tid].pending and run tid to its next visible op.
	 * give_up: the op is a timed wait that should time out instead of block.
	 * On return *done is the executed op with its outcome. 0 or -1 (st->message). */
	int (*step)(void *be, struct cts_run_state *st, int tid, bool give_up, struct cts_event *done);
	/* Tear the run down: kill, reap, nothing left behind. */
	void (*stop)(void *be, struct cts_run_state *st);
	/* Optional: pc -> "func (file:line)" for reports; may be NULL. */
	void (*describe_pc)(void *be, uint64_t pc, char *buf, size_t len);
	/* Optional: data address -> "symbol+off", "" if unknown. */
	void (*describe_data)(void *be, uint64_t addr, char *buf, size_t len);
	/* Optional: a hash of held thread tid's own state (live: registers and
	 * the top of its stack; sim: statement and locals). Equal hashes before
	 * two reads of an unchanged location prove the thread made no progress in
	 * between: the explorer then treats it as blocked on that location, and
	 * only with this proof does a run where every thread spins end as a
	 * livelock. 0, or -1 when the backend cannot tell (e.g. its stores are
	 * invisible); without it spins are recognised by counting alone. */
	int (*thread_state)(void *be, int tid, uint64_t *hash);
};

struct cts_backend {
	const struct cts_backend_ops *ops;
	void *be;
};

#endif
