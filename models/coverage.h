/* Coverage over runs (--coverage): metric sources (MAP coverage, and any
 * other) fed the executed events of every run, one row per run of their
 * cumulative values next to the bugs found so far, the JSON "coverage"
 * object of the report and an SVG plot of coverage and bugs against runs.
 * Format: docs/report-format.md. */
#ifndef CTS_COVERAGE_H
#define CTS_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include "models/event.h"

#define CTS_COVERAGE_MAX_METRICS 8  /* per source */

/* A metric source. Metric names become JSON keys of each row ("map_covered");
 * percent metrics (0..100) are plotted as they are, count metrics as a
 * percentage of their last value. */
struct cts_coverage_source {
	const char *name;                 /* "map": the key of its "totals" object */
	void *ctx;
	int nmetrics;
	const char *metrics[CTS_COVERAGE_MAX_METRICS];
	bool percent[CTS_COVERAGE_MAX_METRICS];
	bool plot[CTS_COVERAGE_MAX_METRICS];
	void (*begin_run)(void *ctx);
	/* Optional: thread tid (a normalized number) is about to run ev, still
	 * stopped before it (where its calling context can be read). */
	void (*pending)(void *ctx, int tid, const struct cts_event *ev);
	void (*event)(void *ctx, const struct cts_event *ev);
	void (*end_run)(void *ctx, bool bug);
	/* The cumulative values now, one per metric. */
	void (*values)(void *ctx, double *out);
	/* Optional: a JSON object of totals, malloc'd text. */
	char *(*totals_json)(void *ctx);
	/* Optional: one line for humans ("MAP coverage 12/40 (30.0%)"). */
	void (*summary)(void *ctx, char *buf, size_t len);
	/* Optional: frees ctx with the coverage (a source it alone owns). */
	void (*destroy)(void *ctx);
};

struct cts_coverage;

struct cts_coverage *cts_coverage_new(void);
void cts_coverage_free(struct cts_coverage *c);
/* At most 8 sources; the source is copied. */
void cts_coverage_add_source(struct cts_coverage *c, const struct cts_coverage_source *src);

void cts_coverage_begin_run(struct cts_coverage *c);
void cts_coverage_pending(struct cts_coverage *c, int tid, const struct cts_event *ev);
void cts_coverage_event(struct cts_coverage *c, const struct cts_event *ev);
/* A run ended (bug: with a bug); bugs = distinct bugs found so far.
 * Appends its row. */
void cts_coverage_end_run(struct cts_coverage *c, uint64_t run, uint64_t bugs, bool bug);

/* The last row's summary lines, "run N: ..." with per_run. */
void cts_coverage_print(const struct cts_coverage *c, FILE *f, bool per_run);
/* {"columns": [...], "series": [{...}, ...], "totals": {...}}: a new
 * reference the caller releases (json_decref). */
json_t *cts_coverage_json(const struct cts_coverage *c);
/* A self-contained SVG of the plotted metrics and bugs against runs.
 * 0, or -1 with the reason in err. */
int cts_coverage_plot(const struct cts_coverage *c, const char *path, const char *title,
		      char *err, size_t errlen);

#endif
