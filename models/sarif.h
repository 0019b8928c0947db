/* SARIF 2.1.0 (--sarif FILE): one result per distinct bug and per race,
 * for code-scanning tools and editors. Each result names the rule of its
 * kind (deadlock, assert, crash, race, livelock, exit-status, wrong-output,
 * atomicity-violation), where it happened, every thread's steps as a
 * codeFlow of threadFlows (source file and line from the symbolizer, the
 * bare pc where there is none) and the command that replays it.
 * Format notes: docs/report-format.md, "SARIF". */
#ifndef CTS_SARIF_H
#define CTS_SARIF_H

#include <stddef.h>
#include "models/report.h"

struct json_t;

/* The SARIF log (a new reference); write it with cts_report_write_json. */
struct json_t *cts_sarif_json(const struct cts_report_info *info,
			      const struct cts_explore_result *res, const char *version);

/* A step as people read it: "read counter", "lock m1", "create thread 2",
 * the object named by the backend when it can. Returns buf. */
char *cts_sarif_step_text(const struct cts_describer *be, const struct cts_event *ev, char *buf,
			  size_t len);

#endif
