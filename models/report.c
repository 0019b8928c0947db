#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "models/report.h"

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

int cts_report_write(const char *path, const struct cts_report_info *info,
		     const struct cts_explore_result *res)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "{\n  \"version\": 1,\n  \"program\": ");
	json_str(f, info->program);
	fprintf(f, ",\n  \"args\": [");
	for (int i = 1; info->argv && info->argv[i]; i++) {
		if (i > 1)
			fputs(", ", f);
		json_str(f, info->argv[i]);
	}
	fprintf(f, "],\n  \"strategy\": ");
	json_str(f, info->strategy);
	fprintf(f, ",\n  \"mode\": ");
	json_str(f, info->mode);
	fprintf(f, ",\n  \"seed\": %" PRIu64 ",\n", info->seed);
	fprintf(f, "  \"runs\": %" PRIu64 ",\n  \"schedules\": %" PRIu64 ",\n", res->runs, res->runs);
	fprintf(f, "  \"steps\": %" PRIu64 ",\n  \"elapsed_seconds\": %.3f,\n", res->steps,
		res->elapsed);
	fprintf(f, "  \"complete\": %s,\n", res->complete ? "true" : "false");
	if (info->backend_json)
		fprintf(f, "  \"tracer\": %s,\n", info->backend_json);
	fprintf(f, "  \"internal_error\": ");
	if (res->internal_error)
		json_str(f, res->error);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"bugs\": [");
	for (int i = 0; i < res->nbugs; i++) {
		const struct cts_bug *b = &res->bugs[i];
		char cmd[1200];
		fprintf(f, "%s\n    {\n      \"kind\": ", i ? "," : "");
		json_str(f, cts_bug_kind_name(b->kind));
		fprintf(f, ",\n      \"message\": ");
		json_str(f, b->message);
		fprintf(f, ",\n      \"detail\": ");
		json_str(f, b->detail);
		fprintf(f, ",\n      \"thread\": %d,\n      \"run\": %" PRIu64 ",\n", b->tid, b->run);
		fprintf(f, "      \"steps\": %" PRIu64 ",\n      \"hits\": %" PRIu64 ",\n", b->steps,
			b->hits);
		fprintf(f, "      \"schedule\": ");
		if (b->schedule_path[0]) {
			json_str(f, b->schedule_path);
			snprintf(cmd, sizeof(cmd), "%s --replay %s", info->self ? info->self : "cts-trace",
				 b->schedule_path);
			fprintf(f, ",\n      \"replay\": ");
			json_str(f, cmd);
		} else {
			fprintf(f, "null,\n      \"replay\": null");
		}
		fprintf(f, "\n    }");
	}
	fprintf(f, "%s],\n  \"inconclusive\": {\"count\": %" PRIu64 ", \"runs\": [",
		res->nbugs ? "\n  " : "", res->ninconclusive);
	for (int i = 0; i < res->nlisted; i++) {
		const struct cts_inconclusive *c = &res->inconclusive[i];
		fprintf(f, "%s\n    {\"run\": %" PRIu64 ", \"steps\": %" PRIu64 ", \"kind\": ",
			i ? "," : "", c->run, c->steps);
		json_str(f, cts_inconclusive_kind_name(c->kind));
		fprintf(f, ", \"reason\": ");
		json_str(f, c->reason);
		fprintf(f, ", \"schedule\": ");
		if (c->schedule_path[0])
			json_str(f, c->schedule_path);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fprintf(f, "%s]}\n}\n", res->nlisted ? "\n  " : "");
	int bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}
