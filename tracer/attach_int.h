/* Attach mode's internals, shared by its files (docs/design.md, "Attach
 * mode"): attach.c checks the target, seizes, plants and restores the
 * int3s, detaches and runs the session (in a tracing process of its
 * own, cts-trace's child); attach_event.c waits for and
 * handles each ptrace stop; attach_diag.c diagnoses what each thread is
 * blocked on; attach_control.c schedules the threads; attach_races.c is
 * --races and --watch. */
#ifndef CTS_ATTACH_INT_H
#define CTS_ATTACH_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>
#include "models/error.h"
#include "tracer/run_int.h"

struct cts_mapping;
struct cts_objmodel;
struct cts_race_detector;
struct cts_strategy;
struct cts_sym;

struct attach_cfg {
	pid_t pid;
	double time_limit;       /* seconds under control; 0 = until a bug, SIGINT or the end */
	const char *strategy;    /* "random" or "pct" */
	uint64_t seed;
	int depth;               /* pct */
	uint64_t max_steps;      /* pct's hint of the session's length */
	uint64_t max_threads;
	const char *out_dir;     /* where the observed schedule is written */
	const char *report;      /* --report FILE, or NULL */
	int races;               /* enum cts_races: off, report or fail */
	const char *const *watch; /* --watch specs */
	int nwatch;
	int watch_backend;
};

/* Why a PTRACE_INTERRUPT was sent: what its stop makes of the thread. */
enum intr { INTR_NONE, INTR_HOLD, INTR_PAUSE, INTR_DETACH };

/* Attach-only facts of a thread, by number. */
struct att_th {
	int sig;            /* a signal-delivery stop's signal, delivered when it runs on */
	bool stopped;       /* in a ptrace-stop now */
	bool jstop;         /* in a group-stop (job control) */
	bool listening;     /* PTRACE_LISTEN'd in that group-stop */
	enum intr intr;     /* an interrupt whose stop has not come yet */
	bool paused;        /* stopped by a diagnosis: goes back outside after it */
	bool was_stopped;   /* in state T (job control) when we seized it */
	/* --races: an acquire (lock, sem wait, join, a cond wait's mutex)
	 * observed only once its call has returned (see observe_step) */
	struct cts_event acq;
	bool has_acq;
};

struct att {
	const struct attach_cfg *cfg;
	struct cts_tracer *tr;
	struct cts_run_state st;
	struct cts_objmodel *model;
	struct cts_sym *sym;
	pid_t pid;
	char exe[256];
	struct att_th *x;
	size_t xcap;
	uint64_t *planted;      /* addresses of the int3s in the text now */
	size_t nplanted, plcap;
	struct thread *cur;     /* the scheduled thread, until its next stop */
	bool controlling;       /* seized and set up: new threads join the schedule */
	bool overflow;          /* a thread past --max-threads: control ends */
	/* Threads past --max-threads: not in the tables, kept in their first
	 * ptrace-stop (run now, they would meet our int3s untraced) and
	 * detached last, once the text is restored (cts_att_release_extra). */
	struct extra_th { pid_t tid; bool stopped; } *extra;
	size_t nextra, extracap;
	bool detaching;
	struct thread *bug_th;  /* its stack is read at the detach, every thread stopped */
	bool gone;              /* the process ended (or exec'd) while attached */
	char gone_how[160];
	bool bug;
	const char *bug_kind;   /* "deadlock", "assert", "crash" */
	char bug_head[640];
	char *bug_detail;
	size_t detail_len, detail_cap;
	uint64_t steps;
	/* libc's blocking pthread/sem functions, by wait kind, for the diagnosis */
	struct fnrange { uint64_t lo, hi; int kind; } *fns;
	int nfns;
	struct cts_mapping *maps;  /* executable mappings of the program's own code */
	size_t nmaps;
	FILE *log;
	char log_path[512];
	bool out_created;          /* --out made for the log: removed again if left empty */
	/* --report: the diagnosis at attach, operations scheduled, the clock */
	json_t *diag;
	uint64_t ops[CTS_OP__COUNT];
	double t_start;
	char error[512];        /* an internal error, for the report */
	/* --races: the detector over what is seen from attach on */
	struct cts_race_detector *races;
	uint64_t obs_step;
	int nsure, nunsure;
	/* Steps over an int3 lifted from the text (an instruction that could
	 * not be emulated) while a thread ran outside the schedule: that thread
	 * may have passed the spot unseen (a free, an unlock), so a race whose
	 * accesses straddle one is not sure. */
	uint64_t nblind, blind_last;
	/* --races/--watch: int3s in the program's own code too */
	bool accesses;
	/* The timed waits' clock: a child of ours that stops itself when the
	 * deadline we share passes while we wait (attach_event.c) */
	pid_t ticker;
	struct att_tick *tick;
};

/* Attach-only facts of thread th, grown on demand. */
static inline struct att_th *X(struct att *a, const struct thread *th)
{
	size_t n = (size_t)th->num;
	if (n >= a->xcap) {
		size_t cap = cts_grow_cap(a->xcap, n + 1);
		a->x = cts_xgrow(a->x, a->xcap, cap, sizeof(*a->x));
		a->xcap = cap;
	}
	return &a->x[n];
}

/* attach.c */
void cts_att_detail(struct att *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* attach_event.c: stops and the threads' states */
struct thread *cts_att_add_thread(struct att *a, pid_t tid);
/* One stop, decoded and handled. 1 handled, 0 none came, -1 error. */
int cts_att_event(struct att *a, long timeout_us);
/* The ticker of the timed waits, started before the first and stopped
 * (killed and reaped) at the end of the session; without one (fork
 * failed) a wait is timed with sigtimedwait. */
void cts_att_ticker_start(struct att *a);
void cts_att_ticker_stop(struct att *a);
int cts_att_interrupt(struct att *a, struct thread *th, enum intr why);
bool cts_att_is_planted(const struct att *a, uint64_t addr);
int cts_att_run_on(struct att *a, struct thread *th, enum th_state as);
/* Detach the threads past --max-threads, each in a ptrace-stop with its
 * debug registers clear (after the text is restored), waiting at most
 * limit_s for their first stops. */
int cts_att_release_extra(struct att *a, double limit_s);
/* Every known thread in a ptrace-stop (or gone): 0, or -1 with ETIMEDOUT
 * after limit_s, or EINTR at once on SIGINT/SIGTERM when interruptible
 * (never during the detach, which needs them all stopped). */
int cts_att_wait_all_stopped(struct att *a, double limit_s, bool interruptible);

/* attach_diag.c: the diagnosis, stacks */
void cts_att_describe_pc(struct att *a, uint64_t pc, char *buf, size_t len);
bool cts_att_diagnose(struct att *a, bool print);
bool cts_att_in_own_code(const struct att *a, uint64_t pc);
void cts_att_scan_setup(struct att *a);
void cts_att_stack_lines(struct att *a, struct thread *th, const char *indent);
void cts_att_stack_to(struct att *a, struct thread *th, const char *indent, FILE *f);
struct cts_sym *cts_att_sym(struct att *a);

/* attach_control.c: the control loop */
int cts_att_control(struct att *a, struct cts_strategy *s);
/* Opens the observed schedule's file in --out; -1 with the reason in err. */
int cts_att_open_log(struct att *a, char *err, size_t errlen);
int cts_att_step(struct att *a, struct thread *th);

/* attach_races.c: --races, --watch */
void cts_att_heap_free(struct att *a, struct thread *th);
void cts_att_observe_kernel(struct att *a, const struct thread *th);
void cts_att_observe_step(struct att *a, struct thread *th);
int cts_att_setup_accesses(struct att *a);

#endif
