/* The command line of cts-trace, parsed without opening a file or starting
 * anything: main calls it, and so does the fuzzer (tests/fuzz). */
#ifndef CTS_CLI_H
#define CTS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTS_CLI_MAX_WATCH 4       /* the four debug registers */
#define CTS_CLI_MAX_TRACE_LIBS 16
#define CTS_CLI_MAX_BREAKS 16
#define CTS_CLI_MAX_JOBS 256
#define CTS_CLI_MAX_SHARDS 1000000
/* --time and --timeout: seconds, finite, at most this (about 31 years). */
#define CTS_CLI_MAX_SECONDS 1e9

enum cts_cli_status {
	CTS_CLI_RUN = 0,  /* options are valid: go on */
	CTS_CLI_HELP,     /* --help: print the usage to stdout, exit 0 */
	CTS_CLI_VERSION,  /* --version */
	CTS_CLI_USAGE,    /* bad command line: one line in err, exit 2 */
};

struct cts_cli {
	const char *strategy;          /* "random" unless -s */
	uint64_t runs, seed, depth, bound, max_steps;
	uint64_t max_threads;          /* threads one run may create, counting every one */
	double time_limit;             /* seconds, 0 = none */
	double timeout;                /* per run, seconds, 0 = none */
	bool keep_going, fail_on_exit, output, no_fork_server;
	int isolate;                   /* --isolate 1, --no-isolate 0, -1 = not given */
	bool fail_on_inconclusive;     /* exit 4 when runs were inconclusive and no bug found */
	const char *check;             /* --check CMD, NULL */
	const char *mode;              /* "sync", "break", "step"; NULL = not given */
	int races;                     /* enum cts_races; -1 = not given */
	int watch_backend;             /* --watch-backend: 0 auto, 1 hardware, 2 breakpoints */
	uint64_t catch_sites;          /* --races catch: sites sampled (0 = all) */
	uint64_t catch_window;         /* --races catch: steps of the others per catch */
	uint64_t catch_seed;           /* --races catch: which sites (--seed, or a replayed
	                                * schedule's); set by main, not by the parser */
	const char *watch[CTS_CLI_MAX_WATCH];
	int nwatch;
	const char *trace_libs[CTS_CLI_MAX_TRACE_LIBS];
	int ntrace_libs;
	const char *out_dir;           /* "cts-out" unless -o */
	const char *report;            /* NULL, a path, or "-" for stdout */
	const char *sarif;             /* --sarif: NULL, a path, or "-" */
	bool no_minimize;              /* --no-minimize: save bugs' schedules as found */
	const char *replay;            /* schedule file, NULL */
	/* --replay into gdb (tracer/gdb.h) */
	bool gdb;                      /* --gdb: interactive */
	const char *gdb_batch;         /* --gdb-batch CMDS, NULL */
	const char *core;              /* --core FILE, NULL */
	uint64_t stop_at;              /* --stop-at N: before step N */
	bool stop_at_given;
	int verbosity;                 /* 0 quiet, 1 normal, 2 -v, 3 -d */
	const char *state_match;       /* --state-match: NULL, "petri", "petri-writes" */
	bool no_cutoffs;               /* --no-cutoffs: unfold without terminal events */
	/* What the command line set explicitly (--replay takes the rest from the file). */
	bool runs_given, max_steps_given, timeout_given, fail_on_exit_given;
	char **prog_argv;              /* PROGRAM ARGS... (NULL-terminated), or NULL */
	int prog_argc;
	/* Active testing (strategies/active.h). */
	const char *breaks[CTS_CLI_MAX_BREAKS]; /* --break groups, each "ITEM,ITEM..." */
	int nbreaks;
	const char *suspects_out;      /* --suspects FILE */
	const char *suspects_from;     /* --suspects-from FILE */
	uint64_t tries;                /* --tries, 0 = default */
	bool dlf_paper;                /* --dlf-paper: DeadlockFuzzer's pausing as published */
	uint64_t attach_pid;           /* -p PID: attach to a running process, 0 = none */
	/* Instances (strategies/tiles.h). */
	const char *instance;          /* --instance SPEC, checked by main */
	uint64_t instances;            /* --instances N: drawn at random, 0 = none */
	uint64_t tile, tiles_per_thread; /* --tile T (16), --tiles-per-thread Z (2) */
	bool tiles_given;
	bool tile_uniform;               /* --tile-pick uniform (default conflicts) */
	/* Statements with contexts; HaPSet (strategies/hapset.h). */
	int context;                   /* --context K return addresses (default 1) */
	const char *guide;             /* --guide hapset, NULL */
	const char *hapset_save;       /* --hapset-save FILE */
	const char *hapset_load;       /* --hapset-load FILE */
	uint64_t hapset_learn;         /* --hapset-learn N random learning runs */
	bool hapset_learn_given;
	bool hapset_prune;             /* --hapset-prune: the paper's unsafe pruning */
	bool coverage;                 /* --coverage (or --coverage-plot) */
	const char *coverage_plot;     /* --coverage-plot FILE.svg, NULL */
	/* Scale-out (strategies/split.h): --jobs N workers, --shard I/N (0/0 = none),
	 * --split-depth: branching states above the subtrees of a systematic search. */
	uint64_t jobs, shard, nshards, split_depth;
	bool split_depth_given;
	/* --hot-lines FILE: break mode's learned set of shared lines to start
	 * from (a report's, a schedule's, or the set alone), NULL */
	const char *hot_lines;
};

/* Fills *c from argv (argv is not modified; getopt's state is reset). */
enum cts_cli_status cts_cli_parse(int argc, char **argv, struct cts_cli *c, char *err,
				  size_t errlen);

/* A --watch spec, SYM[:LEN] or ADDR[:LEN], checked against the x86 debug
 * register rules where it can be without the program. */
struct cts_watch_spec {
	char name[128];   /* the symbol, or the address as written */
	bool is_addr;
	uint64_t addr;    /* when is_addr */
	unsigned len;     /* 1, 2, 4, 8; 0 = not given (a symbol's size decides) */
};

/* 0, or -1 with the reason in err. */
int cts_cli_parse_watch(const char *spec, struct cts_watch_spec *w, char *err, size_t errlen);

/* --races: off, report (the happens-before detector), fail (a race is a bug),
 * catch and catch-fail (races caught in the act, DataCollider-style). */
enum cts_races {
	CTS_RACES_OFF, CTS_RACES_REPORT, CTS_RACES_FAIL, CTS_RACES_CATCH, CTS_RACES_CATCH_FAIL,
};

/* "off", "report", "fail", "catch", "catch-fail". */
const char *cts_cli_races_name(int races);

/* Which options go with the session the command line asks for (launch,
 * --replay, -p, --jobs/--shard, --state-match) and with its strategy: one
 * table in cli.c. 0, or -1 with a one-line usage error in err (exit 2).
 * With --replay, call it once c->strategy is the schedule file's. */
int cts_cli_check(const struct cts_cli *c, char *err, size_t errlen);

#endif
