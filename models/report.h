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
#include "strategies/explorer.h"

struct cts_report_info {
	const char *program;
	char *const *argv;
	const char *strategy;
	const char *mode;
	const char *races;        /* "off", "report", "fail" */
	uint64_t seed;
	const char *self;         /* cts-trace path for replay commands */
	const char *backend_json; /* optional: a JSON object of backend counters */
	const char *strategy_json;/* optional: a JSON object of the strategy's counters */
	const char *watch_json;   /* optional: --watch backend and hits (JSON object) */
	const char *catch_json;   /* optional: --races catch sites, windows, catches */
	const struct cts_backend *backend; /* optional: names the pcs and variables of races */
	const struct cts_suspects *suspects; /* active testing: suspects and confirmations, or NULL */
	const struct cts_suspects *breaks;   /* --break groups and their hits, or NULL */
};

struct cts_report_out;

/* NULL with a one-line reason in err when path cannot be written. */
struct cts_report_out *cts_report_open(const char *path, char *err, size_t errlen);

/* Write the report and close; out is freed either way. 0, or -1 with a
 * one-line reason in err (a full device, a write error, the rename). */
int cts_report_write(struct cts_report_out *out, const struct cts_report_info *info,
		     const struct cts_explore_result *res, char *err, size_t errlen);

/* Write root (its reference is taken) the same way and close; out is freed
 * either way. For other JSON documents opened with cts_report_open (SARIF). */
struct json_t;
int cts_report_write_json(struct cts_report_out *out, struct json_t *root, char *err,
			  size_t errlen);

/* No report after all: close, remove the temporary file, free. NULL is fine. */
void cts_report_discard(struct cts_report_out *out);

/* s with every byte that is not part of well-formed UTF-8 replaced by
 * U+FFFD, so any C string becomes a JSON string; malloc'd. */
char *cts_report_utf8(const char *s);

#endif
