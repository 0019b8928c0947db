/* What a finished exploration found, as the reports read it (models/report.h,
 * sarif.h, timeline.h): the bugs with their steps, the inconclusive runs and
 * the totals. The explorer (strategies/explorer.h) fills it; the reports name
 * pcs and data through a describer, the few backend functions they use. */
#ifndef CTS_BUG_H
#define CTS_BUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "models/event.h"

struct cts_race_detector;

enum cts_bug_kind {
	CTS_BUG_NONE = 0,
	CTS_BUG_CRASH,      /* fatal signal */
	CTS_BUG_ASSERT,
	CTS_BUG_DEADLOCK,
	CTS_BUG_LIVELOCK,   /* every live thread spins without progress or is blocked */
	CTS_BUG_EXIT,       /* non-zero exit with --fail-on-exit */
	CTS_BUG_RACE,       /* data race with --races fail */
	CTS_BUG_CHECK,      /* the --check command failed after the run */
	CTS_BUG_DIVERGED,   /* replay: the program did something else */
};

/* A run cut short without a verdict: the step budget or the run's wall clock
 * ran out while some thread was still making progress (as far as cts saw). */
enum cts_inconclusive_kind {
	CTS_INC_STEPS = 1,  /* --max-steps */
	CTS_INC_TIMEOUT,    /* --timeout */
	CTS_INC_CHECK,      /* the --check command ran out of --timeout or stopped itself */
};

struct cts_inconclusive {
	enum cts_inconclusive_kind kind;
	uint64_t run;
	uint64_t steps;
	char reason[512];
	char schedule_path[512]; /* "" if not saved */
};

/* Inconclusive runs listed (with schedules) in a result; more are only counted. */
#define CTS_INCONCLUSIVE_LISTED 20

const char *cts_bug_kind_name(enum cts_bug_kind k);
const char *cts_inconclusive_kind_name(enum cts_inconclusive_kind k);

/* Frames of a step's call stack kept for the timeline. */
#define CTS_STACK_MAX 8

/* A step's call stack, innermost first: the op's pc, then each caller's
 * call site (return address - 1). n = 0: none was taken. */
struct cts_bug_stack {
	int n;
	uint64_t pc[CTS_STACK_MAX];
};

/* One step of a bug's run, for the reports that draw it (SARIF, timeline):
 * an executed step, or (pending) where a live thread stood at the end. */
struct cts_bug_step {
	struct cts_event ev;     /* ev.tid, ev.op, ev.obj, ev.pc */
	uint64_t step;           /* index in the run's schedule */
	bool pending;            /* not executed: where the thread stood at the end */
	bool blocked;            /* pending and unable to run (a lock held, a join...) */
	bool preempt;            /* a context switch away from a thread that could go on */
	bool site;               /* pending, and the bug's own site instead of a next
	                          * step: a crash's faulting instruction (ev.pc) or a
	                          * failed assert's call, where the failing thread ended */
	struct cts_bug_stack stack; /* taken in the bug's last re-run, else n = 0 */
};

/* Executed steps kept per bug: the last ones of its run, and those within
 * CTS_BUG_CONTEXT of the bug's own steps (its critical pair, a race's two
 * accesses) however far back. */
#define CTS_BUG_TRACE 512
#define CTS_BUG_CONTEXT 24

struct cts_bug {
	enum cts_bug_kind kind;
	uint64_t run;
	uint64_t steps;
	int tid;                 /* thread that crashed / asserted, -1 if none */
	char message[1024];      /* one line */
	/* The bug's own site: the faulting pc of a crash, the call of a failed
	 * assert, a race's second access; 0 if none (a deadlock's are its
	 * blocked threads' steps). An assert also names its file and line
	 * (__FILE__, __LINE__): site_file "" and site_line 0 if not. */
	uint64_t site_pc;
	char site_file[256];
	int site_line;
	char detail[4096];       /* wait-for cycle, stacks: multi-line */
	char schedule_path[512]; /* saved schedule, "" if none */
	uint64_t hits;           /* runs that hit this same bug */
	char instance[512];      /* --instance spec of the run (strategies/tiles.h), "" if none */
	uint64_t preemptions;    /* in the whole run's schedule (the saved, minimized one) */
	uint64_t original_preemptions; /* before --minimize (= preemptions without it) */
	int threads;             /* threads with a step in the saved schedule, 0 if not counted */
	int original_threads;    /* the same before --minimize */
	bool minimized;          /* the saved schedule is minimized; the original is beside it */
	char orig_path[512];     /* the original schedule's file, "" if none */
	int npair;               /* the critical pair: 2, 3 with the first thread's next
	                          * conflicting step, 0 if none was found */
	struct cts_event pair[3];
	uint64_t pair_step[3];   /* their step indexes in the saved schedule */
	char timeline_path[512]; /* the bug's HTML timeline, "" if none */
	char headline[1024];     /* the critical pair in words, "" if none */
	int replays_ok;          /* fresh replays of the saved schedule that ended with
	                          * the bug (cts_explorer_config.verify_replays asked) */
	char replay_note[1400];  /* why the saved schedule is not the one expected, or
	                          * does not replay; "" when all is well */
	int ntrace;              /* the executed steps kept (ascending, with gaps), then each
	                          * live thread's pending one */
	struct cts_bug_step *trace; /* malloc'd for a recorded bug, NULL otherwise */
};

struct cts_explore_result {
	uint64_t runs;
	uint64_t steps;           /* total decisions over all runs */
	double elapsed;
	bool exhausted;           /* strategy exhausted its space */
	bool complete;            /* exhausted, and nothing shared went unseen */
	char unseen[1024];        /* what the backend could not see, "" if nothing */
	int nbugs;
	struct cts_bug *bugs;     /* distinct bugs found (malloc'd) */
	uint64_t ninconclusive;   /* runs cut short without a verdict */
	uint64_t relearned;       /* runs thrown away and run again because they hid
	                           * events (cts_run_state.relearn): not in runs */
	uint64_t discarded;       /* runs of a search that began again after one of them
	                           * (with the bigger learned set): not in runs either */
	bool relearn_ended;       /* a void run ended the search (cts_explorer_config.
	                           * relearn_ends): its caller begins again */
	uint64_t spin_restarts;   /* times a systematic search began again because a run
	                           * learned a busy-wait load (cts_run_state.learned) */
	uint64_t quiet_repeats;   /* accesses run without a step (repeats made alone) */
	uint64_t ncut;            /* runs the strategy cut short as redundant (a DPOR
	                           * sleep set, a bound): the program did not finish */
	int nlisted;              /* the first of them (at most CTS_INCONCLUSIVE_LISTED) */
	struct cts_inconclusive *inconclusive;
	bool internal_error;
	bool bad_input;           /* the error is about the program (cannot exec it...) */
	char error[512];
	struct cts_race_detector *races; /* every race seen, NULL with races off */
	uint64_t ops[CTS_OP__COUNT]; /* visible operations executed, per kind, over all runs */
	/* What break mode on memory ownership would make of the visible plain
	 * accesses (models/pages.h), estimated with the race detector's clocks:
	 * how many would run natively, stay visible, how many runs it would void
	 * and how many pages it would learn shared. */
	struct {
		bool estimated;
		uint64_t accesses, native, visible, handoffs, void_runs, pages_learned;
		uint64_t line_native, line_void_runs, lines_learned; /* on 64-byte lines */
	} own;
};

/* A pc as a report's frame object names it (strings owned by the backend,
 * NULL when unknown; line 0 when unknown). */
struct cts_pc_info {
	const char *function;
	uint64_t offset;      /* pc - the function's start */
	const char *file;     /* as the debug info records it */
	const char *comp_dir; /* the directory a relative file is relative to */
	int line;
	const char *module;   /* the mapped file */
};

/* What the reports ask of the backend that ran the program (its pcs and data
 * named); each function may be NULL. cts_backend_describer fills one. */
struct cts_describer {
	void *be;
	/* pc -> "func (file:line)" */
	void (*describe_pc)(void *be, uint64_t pc, char *buf, size_t len);
	/* data address -> "symbol+off", "" if unknown */
	void (*describe_data)(void *be, uint64_t addr, char *buf, size_t len);
	/* pc -> source file (absolute when the compilation directory is known)
	 * and line; 0, or -1 if unknown */
	int (*source_pc)(void *be, uint64_t pc, char *file, size_t len, int *line);
	/* pc -> its parts; 0, or -1 if pc is in no known module */
	int (*pc_info)(void *be, uint64_t pc, struct cts_pc_info *out);
};

#endif
