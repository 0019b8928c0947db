#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "models/error.h"
#include "models/schedule.h"

struct cts_schedule *cts_schedule_new(void)
{
	return cts_xcalloc(1, sizeof(struct cts_schedule));
}

static void free_args(struct cts_schedule *s)
{
	for (int i = 0; i < s->argc; i++)
		free(s->argv[i]);
	free(s->argv);
	s->argv = NULL;
	s->argc = 0;
}

void cts_schedule_free(struct cts_schedule *s)
{
	if (!s)
		return;
	free(s->program);
	free_args(s);
	free(s->mode);
	free(s->strategy);
	free(s->bug);
	free(s->steps);
	free(s);
}

void cts_schedule_clear_steps(struct cts_schedule *s)
{
	s->n = 0;
}

void cts_schedule_add(struct cts_schedule *s, int tid, cts_op op, uint64_t obj)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->steps = cts_xrealloc(s->steps, s->cap * sizeof(*s->steps));
	}
	s->steps[s->n++] = (struct cts_sched_step){ .tid = tid, .op = op, .obj = obj };
}

void cts_schedule_set(char **field, const char *value)
{
	free(*field);
	*field = value ? cts_xstrdup(value) : NULL;
}

void cts_schedule_set_args(struct cts_schedule *s, int argc, char *const *argv)
{
	free_args(s);
	s->argv = cts_xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++)
		s->argv[i] = cts_xstrdup(argv[i]);
	s->argc = argc;
}

/* A value is the rest of its line; control bytes, '%' and edge spaces are
 * percent-escaped so every string survives the round trip. */
static void put_escaped(FILE *f, const char *v)
{
	size_t n = strlen(v);
	if (!n) {
		fputs("%00", f); /* empty string marker */
		return;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c < ' ' || c == '%' || c == 0x7f || (c == ' ' && (i == 0 || i == n - 1)))
			fprintf(f, "%%%02X", c);
		else
			fputc(c, f);
	}
}

static int unescape(const char *in, char **out)
{
	size_t n = strlen(in);
	char *o = cts_xmalloc(n + 1), *q = o;
	if (strcmp(in, "%00") == 0) {
		*o = 0;
		*out = o;
		return 0;
	}
	for (const char *p = in; *p; p++) {
		if (*p == '%') {
			unsigned v;
			if (!isxdigit((unsigned char)p[1]) || !isxdigit((unsigned char)p[2]) ||
			    sscanf(p + 1, "%2x", &v) != 1 || v == 0) {
				free(o);
				return -1;
			}
			*q++ = (char)v;
			p += 2;
		} else {
			*q++ = *p;
		}
	}
	*q = 0;
	*out = o;
	return 0;
}

int cts_schedule_save(const struct cts_schedule *s, const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "cts-schedule %d\n", CTS_SCHEDULE_VERSION);
	fprintf(f, "# replay: cts-trace --replay FILE [-- program args]\n");
	if (s->program) {
		fputs("program ", f);
		put_escaped(f, s->program);
		fputc('\n', f);
	}
	for (int i = 0; i < s->argc; i++) {
		fputs("arg ", f);
		put_escaped(f, s->argv[i]);
		fputc('\n', f);
	}
	if (s->mode) {
		fputs("mode ", f);
		put_escaped(f, s->mode);
		fputc('\n', f);
	}
	if (s->strategy) {
		fputs("strategy ", f);
		put_escaped(f, s->strategy);
		fputc('\n', f);
	}
	if (s->bug) {
		fputs("bug ", f);
		put_escaped(f, s->bug);
		fputc('\n', f);
	}
	fprintf(f, "steps %zu\n", s->n);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%zu %d %s 0x%" PRIx64 "\n", i, s->steps[i].tid,
			cts_op_name(s->steps[i].op), s->steps[i].obj);
	fprintf(f, "end\n");
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

__attribute__((format(printf, 5, 6)))
static int fail(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s:%d: ", name, line);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

int cts_schedule_parse(const char *text, const char *name, struct cts_schedule **out,
		       char *err, size_t errlen)
{
	struct cts_schedule *s = cts_schedule_new();
	const char *p = text;
	int line = 0;
	long long declared = -1;
	bool header = false, ended = false;
	int rc = -1;
	char *buf = NULL;
	size_t bufcap = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char key[32];
		const char *val;
		line++;
		if (len >= (1u << 20)) {
			fail(err, errlen, name, line, "line too long");
			goto out;
		}
		if (len + 1 > bufcap)
			buf = cts_xrealloc(buf, bufcap = len + 1);
		memcpy(buf, p, len);
		buf[len] = 0;
		p = nl ? nl + 1 : p + len;
		if (len && buf[len - 1] == '\r')
			buf[--len] = 0;
		if (!len || buf[0] == '#')
			continue;
		if (ended) {
			fail(err, errlen, name, line, "text after 'end'");
			goto out;
		}
		if (!header) {
			int v;
			char extra;
			if (sscanf(buf, "cts-schedule %d %c", &v, &extra) != 1) {
				fail(err, errlen, name, line,
				     "not a cts schedule (first line must be 'cts-schedule %d')",
				     CTS_SCHEDULE_VERSION);
				goto out;
			}
			if (v != CTS_SCHEDULE_VERSION) {
				fail(err, errlen, name, line,
				     "schedule format version %d not supported (this cts reads %d)", v,
				     CTS_SCHEDULE_VERSION);
				goto out;
			}
			header = true;
			continue;
		}
		if (isdigit((unsigned char)buf[0])) {
			unsigned long long idx, obj;
			int tid, used = 0;
			char opname[32];
			if (declared < 0) {
				fail(err, errlen, name, line, "step before the 'steps' line");
				goto out;
			}
			if (sscanf(buf, "%llu %d %31s %llx%n", &idx, &tid, opname, &obj, &used) != 4 ||
			    buf[used] != 0) {
				fail(err, errlen, name, line,
				     "malformed step (want: INDEX THREAD OP 0xOBJECT)");
				goto out;
			}
			if (idx != s->n) {
				fail(err, errlen, name, line, "step %llu out of order (expected %zu)", idx,
				     s->n);
				goto out;
			}
			if (tid < 0 || tid >= CTS_MAX_THREADS) {
				fail(err, errlen, name, line, "thread %d out of range", tid);
				goto out;
			}
			cts_op op = cts_op_from_name(opname);
			if (op == CTS_OP_NONE) {
				fail(err, errlen, name, line, "unknown operation '%s'", opname);
				goto out;
			}
			cts_schedule_add(s, tid, op, obj);
			continue;
		}
		if (strcmp(buf, "end") == 0) {
			ended = true;
			continue;
		}
		const char *sp = strchr(buf, ' ');
		if (!sp || sp == buf || (size_t)(sp - buf) >= sizeof(key) || !sp[1]) {
			fail(err, errlen, name, line, "malformed line '%.40s'", buf);
			goto out;
		}
		memcpy(key, buf, (size_t)(sp - buf));
		key[sp - buf] = 0;
		val = sp + 1;
		char *v = NULL;
		if (strcmp(key, "steps") == 0) {
			char *end;
			errno = 0;
			declared = strtoll(val, &end, 10);
			if (*end || errno || declared < 0) {
				fail(err, errlen, name, line, "bad step count '%s'", val);
				goto out;
			}
			continue;
		}
		if (unescape(val, &v) != 0) {
			fail(err, errlen, name, line, "bad %%-escape in '%.40s'", val);
			goto out;
		}
		if (strcmp(key, "program") == 0) {
			free(s->program);
			s->program = v;
		} else if (strcmp(key, "arg") == 0) {
			s->argv = cts_xrealloc(s->argv, ((size_t)s->argc + 2) * sizeof(char *));
			s->argv[s->argc++] = v;
			s->argv[s->argc] = NULL;
		} else if (strcmp(key, "mode") == 0) {
			free(s->mode);
			s->mode = v;
		} else if (strcmp(key, "strategy") == 0) {
			free(s->strategy);
			s->strategy = v;
		} else if (strcmp(key, "bug") == 0) {
			free(s->bug);
			s->bug = v;
		} else {
			free(v);
			fail(err, errlen, name, line, "unknown key '%s'", key);
			goto out;
		}
	}
	if (!header) {
		fail(err, errlen, name, line, "empty file (not a cts schedule)");
		goto out;
	}
	if (declared < 0) {
		fail(err, errlen, name, line, "no 'steps' line");
		goto out;
	}
	if (!ended) {
		fail(err, errlen, name, line, "truncated: no 'end' line");
		goto out;
	}
	if ((size_t)declared != s->n) {
		fail(err, errlen, name, line, "truncated: 'steps %lld' but %zu steps present",
		     declared, s->n);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	if (rc == 0)
		*out = s;
	else
		cts_schedule_free(s);
	return rc;
}

int cts_schedule_load(const char *path, struct cts_schedule **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = cts_xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap)
			buf = cts_xrealloc(buf, cap *= 2);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: read error", path);
		free(buf);
		return -1;
	}
	buf[n] = 0;
	if (memchr(buf, 0, n)) {
		snprintf(err, errlen, "%s: binary data (not a cts schedule)", path);
		free(buf);
		return -1;
	}
	int rc = cts_schedule_parse(buf, path, out, err, errlen);
	free(buf);
	return rc;
}
