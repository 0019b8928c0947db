/* The live backend: a real program under ptrace, one thread at a time. */
#ifndef CTS_TRACER_H
#define CTS_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "strategies/backend.h"

struct cts_objmodel;

enum cts_mode {
	CTS_MODE_SYNC = 0,  /* pthread calls, futexes, thread events */
	CTS_MODE_BREAK,     /* + shared accesses of the program's own code (int3 per instruction) */
	CTS_MODE_STEP,      /* + shared accesses, found by single-stepping */
};

enum cts_watch_backend {
	CTS_WATCH_AUTO = 0,     /* debug registers if the start-up probe sees a trap */
	CTS_WATCH_HARDWARE,     /* debug registers, or a usage error where they do not trap */
	CTS_WATCH_BREAKPOINTS,  /* access breakpoints filtered by address */
};

struct cts_tracer_config {
	const char *path;          /* the program file (resolved path) */
	const char *exec_path;     /* the path to exec it by (as given), NULL: path */
	char *const *argv;         /* argv[0] included */
	enum cts_mode mode;
	double timeout;            /* per-run wall clock, seconds (0 = none) */
	bool show_output;          /* let the program's stdout/stderr through */
	int stdout_fd, stderr_fd;  /* with show_output, where they go instead of
	                            * cts-trace's own (a replay's stand-in files,
	                            * tracer/main.c); 0: cts-trace's own */
	const char *const *trace_libs; /* extra libraries to instrument (break/step), NULL-terminated */
	int ntrace_libs;
	const char *const *watch;  /* --watch SYMBOL|ADDR[:LEN] specs */
	int nwatch;
	int watch_backend;         /* enum cts_watch_backend (--watch-backend) */
	bool catch_races;          /* --races catch (sync mode): see tracer/catch.h */
	unsigned catch_sites;      /* sites sampled, 0 = all */
	unsigned catch_window;     /* steps of the other threads per catch */
	uint64_t catch_seed;       /* which sites */
	bool symbolize;            /* use libdw for source lines */
	bool no_fork_server;       /* exec every run instead of forking from main */
	bool early_allocs;         /* break mode: allocations are visible while one thread
	                            * lives too, so heap locks are named by their site
	                            * (active testing's abstractions) */
	bool cold_reads;           /* break/step mode: reads of lines no thread wrote stay
	                            * invisible (tracer/cold.h); the explorer must handle
	                            * cts_run_state.relearn */
	struct cts_iso *iso;       /* run isolation (tracer/isolate.h), NULL: none; the
	                            * caller's, outliving the tracer */
	const char *hot_lines;     /* with cold_reads: lines hot from the start (a replayed
	                            * schedule's hot-lines), NULL; "own:..." for ownership */
	const char *learned;       /* with cold_reads, a search (not a replay): the learned
	                            * set it starts from (--hot-lines, a --jobs round), NULL:
	                            * none; in the form this search's own sets take (own:,
	                            * ownk: or cold), else cts_tracer_new fails */
	bool no_ownership;         /* with cold_reads: cold reads (tracer/cold.h) instead of
	                            * ownership of lines (tracer/own.h) */
	bool faults;               /* with ownership: protection-key faults (tracer/fault.h)
	                            * where the machine has keys */
	bool faults_mprotect;      /* ...by the mprotect mechanism instead (any machine) */
	const pid_t *guarded;      /* --jobs: the coordinator's and every worker's pid, which
	                            * the program may not signal (besides this tracer's own);
	                            * shared memory, an entry 0 once its process is gone */
	size_t nguarded;
};

struct cts_tracer;

/* NULL on failure, with a one-line reason in err. */
struct cts_tracer *cts_tracer_new(const struct cts_tracer_config *cfg, struct cts_objmodel *model,
				  char *err, size_t errlen);
void cts_tracer_free(struct cts_tracer *t);
struct cts_backend cts_tracer_backend(struct cts_tracer *t);

/* Signal-safe: abort the current run (the program is killed and reaped). */
void cts_tracer_interrupt(void);

/* Statistics for benchmarks and -v. */
struct cts_tracer_stats {
	uint64_t stops;            /* ptrace stops handled during steps (launch excluded) */
	uint64_t bp_hits;          /* int3 hits */
	uint64_t internal_skips;   /* libc-internal lock calls let through */
	uint64_t futex_calls;
	uint64_t accesses;         /* shared accesses made visible */
	uint64_t local_accesses;   /* access breakpoint hits on thread-local memory */
	uint64_t retired;          /* access breakpoints retired as thread-local */
	uint64_t emulated;         /* displaced instructions performed by the tracer */
	uint64_t cold_reads;       /* shared reads left invisible on cold lines (cold.h) */
	uint64_t owned_accesses;   /* shared accesses left invisible on owned lines (own.h) */
	uint64_t lc_retired;       /* library-call breakpoints out of the text for a run (lcret.h) */
	uint64_t lc_faults;        /* faults of those calls' bodies decided on their lines */
};
void cts_tracer_get_stats(const struct cts_tracer *t, struct cts_tracer_stats *out);

/* The report's "tracer" counters (docs/report-format.md): a new jansson
 * object. */
struct json_t;
struct json_t *cts_tracer_stats_json(const struct cts_tracer *t);

/* --watch for the report: {"backend", "watches", "hits_total", "hits"} as a
 * jansson object (a new reference), NULL without --watch. */
struct json_t;
struct json_t *cts_tracer_watch_json(const struct cts_tracer *t);
/* Break and step mode: the code traced (tracer/access.h); NULL or "" before
 * any was scanned. */
struct json_t *cts_tracer_code_json(const struct cts_tracer *t);
char *cts_tracer_code_str(const struct cts_tracer *t, char *buf, size_t len);
/* Learned sets of break mode's shared lines, as schedules' hot-lines and
 * reports' learned.lines write them (own:..., ownk:..., or cold reads'
 * form): their union in the same form, a new string; NULL when either is
 * malformed or they are of different forms (different event models). */
char *cts_tracer_learned_union(const char *a, const char *b);
/* The learned set this search's runs show now (its hot-lines), a new
 * string; NULL without learning (sync mode, ownership off). */
char *cts_tracer_learned(const struct cts_tracer *t);

/* Break mode: how the ownership of memory was decided (protection-key faults
 * and their work, or access breakpoints alone and why), one line; "" when
 * ownership is off. */
char *cts_tracer_ownership_str(const struct cts_tracer *t, char *buf, size_t len);
/* --races catch for the report: sites, windows, catches with both stacks;
 * a jansson object (a new reference), NULL without it. */
struct cts_race_detector;
struct json_t *cts_tracer_catch_json(const struct cts_tracer *t, const struct cts_race_detector *d);

#endif
