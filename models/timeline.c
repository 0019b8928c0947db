#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "models/error.h"
#include "models/report.h"
#include "models/sarif.h"
#include "models/timeline.h"

#define LANE_W 260
#define ROW_H 24
#define LEFT 64
#define TOP 34

/* Text into HTML (and SVG): UTF-8 made well-formed, markup escaped. */
static void put_esc(FILE *f, const char *s)
{
	char *clean = cts_report_utf8(s);
	for (const char *p = clean; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*p, f); break;
		}
	}
	free(clean);
}

/* "counter.c:17" out of "inc+0x3 (counter.c:17)", or the whole text. */
static const char *source_of(const char *where, char *buf, size_t len)
{
	const char *open = strrchr(where, '('), *close = open ? strchr(open, ')') : NULL;
	if (!open || !close)
		return where;
	snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
	return buf;
}

static int lane_of(const int *tids, int nt, int t)
{
	for (int i = 0; i < nt; i++)
		if (tids[i] == t)
			return i;
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static bool is_critical(const struct cts_bug *b, const struct cts_bug_step *s)
{
	for (int k = 0; k < b->npair; k++)
		if (!s->pending && s->step == b->pair_step[k] && s->ev.tid == b->pair[k].tid)
			return true;
	return false;
}

/* The failing event: the failing thread's last step, or the threads found
 * blocked at the end of a deadlock or livelock. */
static bool is_failing(const struct cts_bug *b, int i)
{
	const struct cts_bug_step *s = &b->trace[i];
	if (b->kind == CTS_BUG_DEADLOCK || b->kind == CTS_BUG_LIVELOCK)
		return s->pending;
	if (b->kind == CTS_BUG_RACE && b->npair >= 2) /* the second of the racing accesses */
		return !s->pending && s->step == b->pair_step[1] && s->ev.tid == b->pair[1].tid;
	if (b->tid < 0 || s->ev.tid != b->tid)
		return false;
	if (s->site)
		return true;
	for (int k = 0; k < b->ntrace; k++) /* the crash or assert itself is drawn */
		if (k > i ? b->trace[k].ev.tid == b->tid : b->trace[k].site)
			return false;
	return true;
}

/* A crash's or failed assert's own step: "crash" or "assert failed" (the
 * message says more) and the line (an assert's from __FILE__ and __LINE__,
 * a crash's from its pc). */
static void site_text(const struct cts_bug *b, const struct cts_describer *be, char *what,
		      size_t wlen, char *line, size_t llen)
{
	char where[512] = "", src[512];
	snprintf(what, wlen, "%s", b->kind == CTS_BUG_ASSERT ? "assert failed" : "crash");
	line[0] = 0;
	if (b->kind == CTS_BUG_ASSERT && b->site_file[0] && b->site_line > 0) {
		const char *base = strrchr(b->site_file, '/');
		snprintf(line, llen, "%s:%d", base ? base + 1 : b->site_file, b->site_line);
		return;
	}
	if (b->site_pc && be && be->describe_pc)
		be->describe_pc(be->be, b->site_pc, where, sizeof(where));
	if (where[0])
		snprintf(line, llen, "%s", source_of(where, src, sizeof(src)));
}

static void put_step(FILE *f, const struct cts_bug *b, const struct cts_describer *be, int i,
		     int lane, int row)
{
	const struct cts_bug_step *s = &b->trace[i];
	char what[320], where[512] = "", src[512], label[600], detail[1400 + CTS_STACK_MAX * 540];
	const char *cls[5];
	int ncls = 0;

	if (s->ev.pc && be && be->describe_pc)
		be->describe_pc(be->be, s->ev.pc, where, sizeof(where));
	const char *line = where[0] ? source_of(where, src, sizeof(src)) : "";
	if (s->site) {
		site_text(b, be, what, sizeof(what), src, sizeof(src));
		line = src;
	} else {
		cts_sarif_step_text(be, &s->ev, what, sizeof(what));
	}
	snprintf(label, sizeof(label), "%s%s%s%s", s->pending && !s->site ?
		 (s->blocked ? "blocked: " : "stands at: ") : "",
		 what, line[0] ? " \xc2\xb7 " : "", line);
	if (s->site)
		snprintf(detail, sizeof(detail), "end of run, after step %" PRIu64 " \xc2\xb7 thread "
			 "%d \xc2\xb7 %s\n%s\n%s%s\npc 0x%" PRIx64, s->step, s->ev.tid, what,
			 b->message, where[0] ? "at " : "location unknown", where, s->ev.pc);
	else
		snprintf(detail, sizeof(detail), "%s %" PRIu64 " \xc2\xb7 thread %d \xc2\xb7 %s%s\n"
			 "object 0x%" PRIx64 "\n%s%s\npc 0x%" PRIx64 "%s%s",
			 s->pending ? "end of run (not executed), after step" : "step", s->step,
			 s->ev.tid, s->pending ? (s->blocked ? "blocked at " : "next: ") : "", what,
			 s->ev.obj, where[0] ? "at " : "location unknown", where, s->ev.pc,
			 s->preempt ? "\npreemption: the thread that ran before could have gone on" : "",
			 is_critical(b, s) ? "\ncritical pair: flipped with its partner, the bug goes "
					     "away" : "");
	size_t off = strlen(detail);
	for (int k = 0; k < s->stack.n && off < sizeof(detail); k++) {
		char fr[512] = "";
		if (be && be->describe_pc)
			be->describe_pc(be->be, s->stack.pc[k], fr, sizeof(fr));
		off += (size_t)snprintf(detail + off, sizeof(detail) - off, "%s#%d %s", k ? "\n" :
					"\nstack:\n", k, fr[0] ? fr : "?");
		if (!fr[0] && off < sizeof(detail))
			off += (size_t)snprintf(detail + off, sizeof(detail) - off, " 0x%" PRIx64,
						s->stack.pc[k]);
	}
	if (is_critical(b, s))
		cls[ncls++] = "critical";
	if (is_failing(b, i))
		cls[ncls++] = "failing";
	if (s->site)
		cls[ncls++] = "site";
	else if (s->pending)
		cls[ncls++] = s->blocked ? "blocked" : "pending";
	int x = LEFT + lane * LANE_W + 6, y = TOP + row * ROW_H + 2;
	fprintf(f, "<g class=\"step");
	for (int k = 0; k < ncls; k++)
		fprintf(f, " %s", cls[k]);
	fprintf(f, "\" data-thread=\"%d\" data-step=\"%" PRIu64 "\" data-op=\"%s\" data-frames=\"%d\" "
		"data-detail=\"", s->ev.tid, s->step, s->site ? cts_bug_kind_name(b->kind) :
		cts_op_name(s->ev.op), s->stack.n);
	put_esc(f, detail);
	fprintf(f, "\"><title>");
	put_esc(f, detail);
	fprintf(f, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>"
		"<text class=\"label\" x=\"%d\" y=\"%d\">", x, y, LANE_W - 12, ROW_H - 4, x + 6,
		y + ROW_H - 9);
	/* SVG text does not wrap: long labels are cut, the title has it all. */
	if (strlen(label) > 36) {
		size_t k = 33;
		while (k > 0 && ((unsigned char)label[k] & 0xc0) == 0x80)
			k--; /* not inside a UTF-8 sequence */
		strcpy(label + k, "...");
	}
	put_esc(f, label);
	fprintf(f, "</text></g>\n");
	if (s->preempt)
		fprintf(f, "<g class=\"preempt\" data-step=\"%" PRIu64 "\"><title>preemption before "
			"step %" PRIu64 "</title><path d=\"M%d %d l10 6 l-10 6 z\"/></g>\n", s->step,
			s->step, LEFT - 14, y + (ROW_H - 4) / 2 - 6);
}

static void put_page(FILE *f, const struct cts_bug *b, const struct cts_describer *be,
		     const char *replay_cmd)
{
	int *tids = cts_xmalloc(((size_t)b->ntrace + 1) * sizeof(*tids)), nt = 0, nexec = 0;
	int ngaps = 0; /* rows saying "N steps not drawn" between two drawn ones */
	for (int i = 0; i < b->ntrace; i++) {
		if (lane_of(tids, nt, b->trace[i].ev.tid) < 0)
			tids[nt++] = b->trace[i].ev.tid;
		nexec += !b->trace[i].pending;
		ngaps += i > 0 && !b->trace[i].pending && b->trace[i].step > b->trace[i - 1].step + 1;
	}
	qsort(tids, (size_t)nt, sizeof(*tids), cmp_int);
	int rows = nexec + ngaps + (nexec < b->ntrace);
	int width = LEFT + nt * LANE_W + 10, height = TOP + rows * ROW_H + 10;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>cts: ", f);
	put_esc(f, cts_bug_kind_name(b->kind));
	fputs("</title>\n<style>\n"
	      "body{font:13px sans-serif;margin:12px;color:#222}\n"
	      "#wrap{display:flex;gap:16px;align-items:flex-start}\n"
	      /* never shrunk: a shrunk SVG scales its drawing down and centres
	       * it vertically, leaving a tall timeline's top blank */
	      "#timeline{flex:none}\n"
	      "#panel{position:sticky;top:8px;min-width:300px;max-width:420px;white-space:pre-wrap;"
	      "border:1px solid #aaa;padding:8px;font-family:monospace;background:#fafafa}\n"
	      ".lane{fill:#f4f6fa;stroke:#d0d4dc}.lane-title{font-weight:bold}\n"
	      ".step rect{fill:#dfe9f7;stroke:#7f9cc6}.step:hover rect{stroke:#000}\n"
	      ".step .label{font:11px monospace;pointer-events:none}\n"
	      ".step.critical rect{fill:#ffd27f;stroke:#d88a00;stroke-width:2}\n"
	      ".step.blocked rect{fill:#ddd;stroke:#888;stroke-dasharray:4 2}\n"
	      ".step.pending rect{fill:#fff;stroke:#888;stroke-dasharray:2 2}\n"
	      /* after pending and blocked: a failing step that is pending stays red */
	      ".step.failing rect{fill:#f7b5b5;stroke:#c00;stroke-width:2}\n"
	      ".step.blocked.failing rect{fill:#ddd;stroke:#c00}\n"
	      ".preempt path{fill:#c00}.stepno{font:10px monospace;fill:#777}\n"
	      ".legend span{display:inline-block;padding:1px 6px;margin-right:6px;border:1px solid #888}\n"
	      "</style></head>\n<body>\n<h1>", f);
	put_esc(f, cts_bug_kind_name(b->kind));
	fputs("</h1>\n<p id=\"message\">", f);
	put_esc(f, b->message);
	fputs("</p>\n", f);
	if (b->headline[0]) {
		fputs("<p id=\"headline\"><b>", f);
		put_esc(f, b->headline);
		fputs("</b></p>\n", f);
	}
	fprintf(f, "<p>run %" PRIu64 ", %" PRIu64 " steps, %" PRIu64 " preemption%s", b->run,
		b->steps, b->preemptions, b->preemptions == 1 ? "" : "s");
	if (b->original_preemptions != b->preemptions)
		fprintf(f, " (minimized from %" PRIu64 ")", b->original_preemptions);
	if (nexec && (uint64_t)nexec < b->steps)
		fprintf(f, "; %" PRIu64 " of them are not drawn (the last %d and those around the "
			"bug's own steps are)", b->steps - (uint64_t)nexec, CTS_BUG_TRACE);
	fputs(".<br>replay: <code>", f);
	put_esc(f, replay_cmd ? replay_cmd : "");
	fputs("</code></p>\n<p class=\"legend\"><span style=\"background:#ffd27f\">critical pair"
	      "</span><span style=\"background:#f7b5b5\">failing</span><span style=\"background:#ddd\">"
	      "blocked at the end</span><span style=\"color:#c00\">&#9654; preemption</span>"
	      " Click a step for its details and call stack.</p>\n<div id=\"wrap\">\n", f);
	fprintf(f, "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" preserveAspectRatio=\"xMinYMin meet\">\n",
		width, height, width, height);
	for (int k = 0; k < nt; k++)
		fprintf(f, "<g class=\"lane-group\"><rect class=\"lane\" data-thread=\"%d\" x=\"%d\" "
			"y=\"%d\" width=\"%d\" height=\"%d\"/><text class=\"lane-title\" x=\"%d\" "
			"y=\"%d\">thread %d</text></g>\n", tids[k], LEFT + k * LANE_W, TOP - 4,
			LANE_W, rows * ROW_H + 8, LEFT + k * LANE_W + 8, TOP - 12, tids[k]);
	for (int i = 0, row = 0; i < b->ntrace; i++) {
		const struct cts_bug_step *s = &b->trace[i];
		uint64_t from = i ? b->trace[i - 1].step + 1 : 0;
		if (!s->pending && s->step > from && (i > 0 || s->step > 0)) {
			fprintf(f, "<text class=\"gap\" data-from=\"%" PRIu64 "\" data-to=\"%" PRIu64
				"\" x=\"%d\" y=\"%d\">&#8942; steps %" PRIu64 "&#8211;%" PRIu64
				" not drawn</text>\n", from, s->step - 1, LEFT + 8,
				TOP + row * ROW_H + ROW_H - 7, from, s->step - 1);
			row++;
		}
		int r = s->pending ? nexec + ngaps : row++;
		if (!s->pending)
			fprintf(f, "<text class=\"stepno\" x=\"4\" y=\"%d\">%" PRIu64 "</text>\n",
				TOP + r * ROW_H + ROW_H - 7, s->step);
		else if (r == nexec + ngaps && (i == 0 || !b->trace[i - 1].pending))
			fprintf(f, "<text class=\"stepno\" x=\"4\" y=\"%d\">end</text>\n",
				TOP + r * ROW_H + ROW_H - 7);
		put_step(f, b, be, i, lane_of(tids, nt, s->ev.tid), r);
	}
	fputs("</svg>\n<div id=\"panel\">Click a step.</div>\n</div>\n<script>\n"
	      "(function(){\n"
	      "var panel=document.getElementById('panel');\n"
	      "var steps=document.querySelectorAll('#timeline .step');\n"
	      "var shown=0;\n"
	      "steps.forEach(function(g){\n"
	      "  var r=g.getBoundingClientRect(); if(r.width>0&&r.height>0) shown++;\n"
	      "  g.addEventListener('click',function(){panel.textContent=g.getAttribute('data-detail');});\n"
	      "});\n"
	      "/* what a browser laid out, for tests that load the page */\n"
	      "document.body.setAttribute('data-rendered-steps',String(shown));\n"
	      "document.body.setAttribute('data-lanes',String(document.querySelectorAll('#timeline .lane').length));\n"
	      "var f=document.querySelector('#timeline .step.failing')||document.querySelector('#timeline .step.critical');\n"
	      "if(f) panel.textContent=f.getAttribute('data-detail');\n"
	      "if(f) document.body.setAttribute('data-failing-fill',getComputedStyle(f.querySelector('rect')).fill);\n"
	      "})();\n</script>\n</body></html>\n", f);
	free(tids);
}

int cts_timeline_write(const char *path, const struct cts_bug *bug, const struct cts_describer *be,
		       const char *replay_cmd)
{
	size_t n = strlen(path) + 16;
	char *tmp = cts_xmalloc(n);
	snprintf(tmp, n, "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		errno = e;
		return -1;
	}
	put_page(f, bug, be, replay_cmd);
	int rc = ferror(f) ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0) {
		int e = errno ? errno : EIO;
		unlink(tmp);
		errno = e;
	}
	free(tmp);
	return rc;
}
