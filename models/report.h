/* The JSON report (--report FILE): every bug with its schedule and replay
 * command, every race, and the totals. Format: docs/report-format.md.
 *
 * Opened before exploring, so an unwritable target is an error before an
 * hour of work, and written at the end. A regular file (or a new name) is
 * replaced atomically: a temporary file beside it, renamed over it at the
 * end. Anything else (a device, a FIFO, /dev/stdout) is written in place,
 * and symlinks are followed, never replaced. "-" is standard output. */
#ifndef CTS_REPORT_H
#define CTS_REPORT_H

#include <stddef.h>
#include "models/suspects.h"
#include "models/bug.h"

struct json_t;

struct cts_report_info {
	const char *program;
	char *const *argv;
	const char *strategy;
	const char *mode;
	const char *races;        /* "off", "report", "fail" */
	uint64_t seed;
	const char *self;         /* cts-trace path for replay commands */
	/* Optional jansson objects of their producers (borrowed; NULL = absent). */
	struct json_t *backend_json;  /* backend counters ("tracer") */
	struct json_t *strategy_json; /* the strategy's counters ("state_matching") */
	struct json_t *watch_json;    /* --watch backend and hits */
	struct json_t *code_json;     /* break/step mode: the code traced, per file */
	struct json_t *catch_json;    /* --races catch sites, windows, catches */
	struct json_t *instances_json; /* --instance/--instances (strategies/tiles.h) */
	struct json_t *hapset_json;    /* HaPSet coverage (strategies/hapset.h) */
	struct json_t *coverage_json;  /* --coverage series and totals */
	struct json_t *attach_json;    /* -p PID: the attach session (tracer/attach.c) */
	const struct cts_describer *backend; /* optional: names pcs and variables (cts_backend_describer) */
	const struct cts_suspects *suspects; /* active testing: suspects and confirmations, or NULL */
	const struct cts_suspects *breaks;   /* --break groups and their hits, or NULL */
	struct json_t *shard;     /* --jobs/--shard: the slice of the work, or NULL (borrowed) */
	struct json_t *learned_json; /* break mode's learned set of shared lines: {lines,
	                              * from, agree}, or NULL (none learned: "learned" null) */
	bool interrupted;         /* SIGINT, SIGTERM or SIGHUP ended the session */
};

struct cts_report_out;

/* NULL with a one-line reason in err when path cannot be written. */
struct cts_report_out *cts_report_open(const char *path, char *err, size_t errlen);

/* Write the report and close; out is freed either way. 0, or -1 with a
 * one-line reason in err (a full device, a write error, the rename). */
int cts_report_write(struct cts_report_out *out, const struct cts_report_info *info,
		     const struct cts_explore_result *res, char *err, size_t errlen);

/* Write root (its reference is taken) the same way and close; out is freed
 * either way. For other JSON documents opened with cts_report_open (SARIF) and
 * reports built elsewhere (cts-trace merge). */
struct json_t;
int cts_report_write_json(struct cts_report_out *out, struct json_t *root, char *err,
			  size_t errlen);

/* No report after all: close, remove the temporary file, free. NULL is fine. */
void cts_report_discard(struct cts_report_out *out);

/* In a forked worker: close this process's copy and free, leaving the file
 * (and its temporary) to the process that opened it. NULL is fine. */
void cts_report_abandon(struct cts_report_out *out);

/* s with every byte that is not part of well-formed UTF-8 replaced by
 * U+FFFD, so any C string becomes a JSON string; malloc'd. */
char *cts_report_utf8(const char *s);
/* The JSON string of any C string (cts_report_utf8; NULL is ""): a new
 * reference, never NULL. */
struct json_t *cts_report_jstr(const char *s);
/* pc as a frame object: {pc, function, offset, file, line, module}, each
 * null when unknown (file joined to its compilation directory). */
struct json_t *cts_report_frame(const struct cts_describer *be, uint64_t pc);
/* The command that replays a bug's schedule, "SELF --replay SCHEDULE":
 * malloc'd. */
char *cts_report_replay_cmd(const char *self, const char *schedule);

/* A JSON file read whole (jansson flags), or NULL with a one-line reason in
 * err: "WHAT PATH: reason" (what is a prefix such as "--suspects-from "),
 * not_json put before the parser's complaint ("" or e.g. "not a JSON report: "). */
struct json_t *cts_json_load_path(const char *what, const char *path, const char *not_json,
				  size_t flags, char *err, size_t errlen);

#endif
