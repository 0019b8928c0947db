/* The JSON report (--report FILE): every bug with its schedule and replay
 * command, and the totals. Format documented in docs/report-format.md. */
#ifndef CTS_REPORT_H
#define CTS_REPORT_H

#include "strategies/explorer.h"

struct cts_report_info {
	const char *program;
	char *const *argv;
	const char *strategy;
	const char *mode;
	uint64_t seed;
	const char *self;      /* cts-trace path for replay commands */
	const char *backend_json; /* optional: a JSON object of backend counters */
};

/* 0 or -1 (errno). Written atomically. */
int cts_report_write(const char *path, const struct cts_report_info *info,
		     const struct cts_explore_result *res);

#endif
