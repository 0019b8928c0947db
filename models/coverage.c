/* Coverage rows over runs, their JSON and an SVG plot (models/coverage.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "models/coverage.h"
#include "models/error.h"

#define MAX_SOURCES 8

struct cts_coverage {
	struct cts_coverage_source src[MAX_SOURCES];
	int nsrc, ncols;           /* metric columns over all sources */
	/* rows: run, bugs, then ncols values */
	double *rows;
	size_t nrows, cap;
};

struct cts_coverage *cts_coverage_new(void)
{
	return cts_xcalloc(1, sizeof(struct cts_coverage));
}

void cts_coverage_free(struct cts_coverage *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nsrc; i++)
		if (c->src[i].destroy)
			c->src[i].destroy(c->src[i].ctx);
	free(c->rows);
	free(c);
}

void cts_coverage_add_source(struct cts_coverage *c, const struct cts_coverage_source *src)
{
	if (c->nsrc == MAX_SOURCES || c->nrows) {
		if (src->destroy)
			src->destroy(src->ctx);
		return;
	}
	c->src[c->nsrc++] = *src;
	c->ncols += src->nmetrics;
}

void cts_coverage_begin_run(struct cts_coverage *c)
{
	for (int i = 0; c && i < c->nsrc; i++)
		if (c->src[i].begin_run)
			c->src[i].begin_run(c->src[i].ctx);
}

void cts_coverage_pending(struct cts_coverage *c, int tid, const struct cts_event *ev)
{
	for (int i = 0; c && i < c->nsrc; i++)
		if (c->src[i].pending)
			c->src[i].pending(c->src[i].ctx, tid, ev);
}

void cts_coverage_event(struct cts_coverage *c, const struct cts_event *ev)
{
	for (int i = 0; c && i < c->nsrc; i++)
		if (c->src[i].event)
			c->src[i].event(c->src[i].ctx, ev);
}

static size_t width(const struct cts_coverage *c)
{
	return 2 + (size_t)c->ncols;
}

static const double *row(const struct cts_coverage *c, size_t r)
{
	return c->rows + r * width(c);
}

void cts_coverage_end_run(struct cts_coverage *c, uint64_t run, uint64_t bugs, bool bug)
{
	if (!c)
		return;
	for (int i = 0; i < c->nsrc; i++)
		if (c->src[i].end_run)
			c->src[i].end_run(c->src[i].ctx, bug);
	if (c->nrows == c->cap) {
		size_t nc = cts_grow_cap(c->cap, c->nrows + 1);
		c->rows = cts_xgrow(c->rows, c->cap * width(c), nc * width(c), sizeof(double));
		c->cap = nc;
	}
	double *r = c->rows + c->nrows * width(c);
	r[0] = (double)run;
	r[1] = (double)bugs;
	for (int i = 0, col = 2; i < c->nsrc; col += c->src[i].nmetrics, i++)
		c->src[i].values(c->src[i].ctx, r + col);
	c->nrows++;
}

void cts_coverage_print(const struct cts_coverage *c, FILE *f, bool per_run)
{
	if (!c)
		return;
	for (int i = 0; i < c->nsrc; i++) {
		char buf[512] = "";
		if (!c->src[i].summary)
			continue;
		c->src[i].summary(c->src[i].ctx, buf, sizeof(buf));
		if (per_run && c->nrows)
			fprintf(f, "run %.0f: %s\n", row(c, c->nrows - 1)[0], buf);
		else if (!per_run)
			fprintf(f, "cts-trace: coverage: %s\n", buf);
	}
}

static json_t *num(double v)
{
	return v == floor(v) && fabs(v) < 9e15 ? json_integer((json_int_t)v) :
						  json_real(round(v * 1000) / 1000);
}

json_t *cts_coverage_json(const struct cts_coverage *c)
{
	json_t *o = json_object(), *cols = json_array(), *series = json_array();
	json_t *totals = json_object();
	json_array_append_new(cols, json_string("run"));
	json_array_append_new(cols, json_string("bugs"));
	for (int i = 0; i < c->nsrc; i++)
		for (int j = 0; j < c->src[i].nmetrics; j++)
			json_array_append_new(cols, json_string(c->src[i].metrics[j]));
	for (size_t r = 0; r < c->nrows; r++) {
		json_t *e = json_object();
		const double *v = row(c, r);
		json_object_set_new(e, "run", num(v[0]));
		json_object_set_new(e, "bugs", num(v[1]));
		for (int i = 0, col = 2; i < c->nsrc; i++)
			for (int j = 0; j < c->src[i].nmetrics; j++, col++)
				json_object_set_new(e, c->src[i].metrics[j], num(v[col]));
		json_array_append_new(series, e);
	}
	json_object_set_new(totals, "runs", json_integer((json_int_t)c->nrows));
	json_object_set_new(totals, "bugs", num(c->nrows ? row(c, c->nrows - 1)[1] : 0));
	for (int i = 0; i < c->nsrc; i++) {
		char *t = c->src[i].totals_json ? c->src[i].totals_json(c->src[i].ctx) : NULL;
		json_t *tj = t ? json_loads(t, 0, NULL) : NULL;
		free(t);
		if (tj)
			json_object_set_new(totals, c->src[i].name, tj);
	}
	json_object_set_new(o, "columns", cols);
	json_object_set_new(o, "series", series);
	json_object_set_new(o, "totals", totals);
	return o;
}

/* ---- the SVG ------------------------------------------------------------- */

static const char *const colors[] = { "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf",
				      "#bcbd22", "#7f7f7f", "#e377c2" };

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

int cts_coverage_plot(const struct cts_coverage *c, const char *path, const char *title,
		      char *err, size_t errlen)
{
	const double W = 720, H = 400, L = 60, Rm = 60, Tm = 40, Bm = 80;
	const double pw = W - L - Rm, ph = H - Tm - Bm;
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	double maxrun = c->nrows ? row(c, c->nrows - 1)[0] + 1 : 1, maxbugs = 1;
	for (size_t r = 0; r < c->nrows; r++)
		if (row(c, r)[1] > maxbugs)
			maxbugs = row(c, r)[1];
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H, W, H);
	fprintf(f, "<text x=\"%.0f\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">", W / 2);
	xml_text(f, title ? title : "coverage");
	fputs("</text>\n", f);
	/* axes and grid: left 0..100 %, right 0..maxbugs, bottom runs */
	fprintf(f, "<g stroke=\"#ccc\">\n");
	for (int i = 0; i <= 4; i++) {
		double y = Tm + ph - ph * i / 4;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L, y, L + pw, y);
	}
	fputs("</g>\n<g stroke=\"black\">\n", f);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L, Tm, L, Tm + ph);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L, Tm + ph, L + pw,
		Tm + ph);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L + pw, Tm, L + pw,
		Tm + ph);
	fputs("</g>\n", f);
	for (int i = 0; i <= 4; i++) {
		double y = Tm + ph - ph * i / 4;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n", L - 4,
			y + 4, 25 * i);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%.3g</text>\n", L + pw + 4, y + 4,
			maxbugs * i / 4);
	}
	for (int i = 0; i <= 5; i++)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
			L + pw * i / 5, Tm + ph + 16, maxrun * i / 5);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">runs</text>\n", L + pw / 2,
		Tm + ph + 32);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-90 %.1f "
		"%.1f)\">bugs found</text>\n", L + pw + 44, Tm, L + pw + 44, Tm);
	/* one polyline per plotted metric, then the bugs as a step line */
	int legend = 0;
	for (int i = 0, col = 2; i < c->nsrc; i++)
		for (int j = 0; j < c->src[i].nmetrics; j++, col++) {
			if (!c->src[i].plot[j])
				continue;
			double scale = 1;
			if (!c->src[i].percent[j]) {
				double last = c->nrows ? row(c, c->nrows - 1)[col] : 0;
				scale = last > 0 ? 100 / last : 0;
			}
			const char *color = colors[legend % 8];
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
				color);
			for (size_t r = 0; r < c->nrows; r++) {
				double v = row(c, r)[col] * scale;
				v = v < 0 ? 0 : v > 100 ? 100 : v;
				fprintf(f, "%.1f,%.1f ", L + pw * (row(c, r)[0] + 1) / maxrun,
					Tm + ph - ph * v / 100);
			}
			fputs("\"/>\n", f);
			double ly = H - Bm + 46 + 14 * (legend / 2);
			double lx = L + (legend % 2) * pw / 2;
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"2\"/>\n<text x=\"%.1f\" y=\"%.1f\">", lx, ly - 4, lx + 20,
				ly - 4, color, lx + 24, ly);
			xml_text(f, c->src[i].metrics[j]);
			if (!c->src[i].percent[j])
				fprintf(f, " (%% of final %.0f)",
					c->nrows ? row(c, c->nrows - 1)[col] : 0);
			fputs("</text>\n", f);
			legend++;
		}
	fputs("<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" "
	      "stroke-dasharray=\"6 3\" points=\"", f);
	double prev = 0, x0 = L;
	fprintf(f, "%.1f,%.1f ", x0, Tm + ph);
	for (size_t r = 0; r < c->nrows; r++) {
		double x = L + pw * (row(c, r)[0] + 1) / maxrun, b = row(c, r)[1];
		fprintf(f, "%.1f,%.1f %.1f,%.1f ", x, Tm + ph - ph * prev / maxbugs, x,
			Tm + ph - ph * b / maxbugs);
		prev = b;
	}
	fputs("\"/>\n", f);
	double ly = H - Bm + 46 + 14 * (legend / 2), lx = L + (legend % 2) * pw / 2;
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
		"stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n<text x=\"%.1f\" y=\"%.1f\">bugs "
		"found (right axis)</text>\n</svg>\n", lx, ly - 4, lx + 20, ly - 4, lx + 24, ly);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
