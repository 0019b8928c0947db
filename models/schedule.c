#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "models/error.h"
#include "models/schedule.h"

/* Seconds; the same limit as --timeout. */
#define MAX_TIMEOUT 1e9

#define CTS_STR_(x) #x
#define CTS_STR(x) CTS_STR_(x)

struct cts_schedule *cts_schedule_new(void)
{
	struct cts_schedule *s = cts_xcalloc(1, sizeof(struct cts_schedule));
	s->timeout = -1;
	s->fail_on_exit = -1;
	s->isolate = -1;
	return s;
}

static void free_list(char ***list, int *n)
{
	for (int i = 0; i < *n; i++)
		free((*list)[i]);
	free(*list);
	*list = NULL;
	*n = 0;
}

static void free_args(struct cts_schedule *s)
{
	free_list(&s->argv, &s->argc);
}

/* NULL-terminated like argv. */
static void list_add(char ***list, int *n, const char *v)
{
	*list = cts_xrealloc(*list, ((size_t)*n + 2) * sizeof(char *));
	(*list)[(*n)++] = cts_xstrdup(v);
	(*list)[*n] = NULL;
}

int cts_schedule_add_watch(struct cts_schedule *s, const char *spec)
{
	if (s->nwatch >= CTS_SCHEDULE_MAX_WATCH)
		return -1;
	list_add(&s->watch, &s->nwatch, spec);
	return 0;
}

int cts_schedule_add_trace_lib(struct cts_schedule *s, const char *name)
{
	if (s->ntrace_libs >= CTS_SCHEDULE_MAX_TRACE_LIBS)
		return -1;
	list_add(&s->trace_libs, &s->ntrace_libs, name);
	return 0;
}

void cts_schedule_copy_options(struct cts_schedule *dst, const struct cts_schedule *src)
{
	cts_schedule_set(&dst->races, src->races);
	cts_schedule_set(&dst->catch_opts, src->catch_opts);
	dst->max_steps = src->max_steps;
	dst->timeout = src->timeout;
	dst->fail_on_exit = src->fail_on_exit;
	dst->isolate = src->isolate;
	dst->quiet_repeats = src->quiet_repeats;
	free_list(&dst->watch, &dst->nwatch);
	for (int i = 0; i < src->nwatch; i++)
		list_add(&dst->watch, &dst->nwatch, src->watch[i]);
	free_list(&dst->trace_libs, &dst->ntrace_libs);
	for (int i = 0; i < src->ntrace_libs; i++)
		list_add(&dst->trace_libs, &dst->ntrace_libs, src->trace_libs[i]);
	cts_schedule_set(&dst->exec_path, src->exec_path);
	cts_schedule_set(&dst->argv0, src->argv0);
	cts_schedule_set(&dst->cwd, src->cwd);
	cts_schedule_set(&dst->binary, src->binary);
	cts_schedule_set(&dst->env, src->env);
	cts_schedule_set(&dst->stdio, src->stdio);
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
	free(s->races);
	free(s->catch_opts);
	free_list(&s->watch, &s->nwatch);
	free_list(&s->trace_libs, &s->ntrace_libs);
	free(s->instance);
	free(s->hot_lines);
	free(s->exec_path);
	free(s->argv0);
	free(s->cwd);
	free(s->binary);
	free(s->env);
	free(s->stdio);
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

static void put_key(FILE *f, const char *key, const char *v)
{
	if (!v)
		return;
	fprintf(f, "%s ", key);
	put_escaped(f, v);
	fputc('\n', f);
}

int cts_schedule_write(const struct cts_schedule *s, FILE *f)
{
	fprintf(f, "cts-schedule %d\n", CTS_SCHEDULE_VERSION);
	fprintf(f, "# replay: cts-trace --replay FILE [-- program args]\n");
	put_key(f, "program", s->program);
	put_key(f, "exec", s->exec_path);
	put_key(f, "argv0", s->argv0);
	for (int i = 0; i < s->argc; i++)
		put_key(f, "arg", s->argv[i]);
	put_key(f, "cwd", s->cwd);
	put_key(f, "binary", s->binary);
	put_key(f, "env", s->env);
	put_key(f, "stdio", s->stdio);
	put_key(f, "mode", s->mode);
	put_key(f, "races", s->races);
	put_key(f, "catch", s->catch_opts);
	if (s->max_steps)
		fprintf(f, "max-steps %" PRIu64 "\n", s->max_steps);
	if (s->timeout >= 0)
		fprintf(f, "timeout %.17g\n", s->timeout);
	if (s->fail_on_exit >= 0)
		fprintf(f, "fail-on-exit %s\n", s->fail_on_exit ? "yes" : "no");
	if (s->isolate >= 0)
		fprintf(f, "isolate %s\n", s->isolate ? "yes" : "no");
	for (int i = 0; i < s->nwatch; i++)
		put_key(f, "watch", s->watch[i]);
	for (int i = 0; i < s->ntrace_libs; i++)
		put_key(f, "trace-lib", s->trace_libs[i]);
	put_key(f, "instance", s->instance);
	put_key(f, "hot-lines", s->hot_lines);
	if (s->quiet_repeats)
		fprintf(f, "repeats quiet\n");
	put_key(f, "strategy", s->strategy);
	put_key(f, "bug", s->bug);
	fprintf(f, "steps %zu\n", s->n);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%zu %d %s 0x%" PRIx64 "\n", i, s->steps[i].tid,
			cts_op_name(s->steps[i].op), s->steps[i].obj);
	fprintf(f, "end\n");
	if (fflush(f) != 0 || ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* A complete copy of the schedule in a fresh temporary file of dir. */
static int write_temp(const struct cts_schedule *s, const char *dir, char *tmp, size_t tmplen)
{
	if ((size_t)snprintf(tmp, tmplen, "%s/.cts-sched.XXXXXX", dir) >= tmplen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	mode_t mask = umask(0);
	umask(mask);
	FILE *f = fdopen(fd, "w");
	if (!f || fchmod(fd, 0666 & ~mask) != 0 || cts_schedule_write(s, f) != 0) {
		int e = errno;
		if (f)
			fclose(f);
		else
			close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (fclose(f) != 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

int cts_schedule_save(const struct cts_schedule *s, const char *path)
{
	char dir[4096], tmp[4200];
	dir_of(path, dir, sizeof(dir));
	if (write_temp(s, dir, tmp, sizeof(tmp)) != 0)
		return -1;
	if (rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* Names are tried in order; this many taken names means something is wrong. */
#define SAVE_NEW_TRIES 100000

int cts_schedule_save_new(const struct cts_schedule *s, const char *dir, const char *stem,
			  char *path, size_t pathlen)
{
	char tmp[4200];
	if (write_temp(s, dir, tmp, sizeof(tmp)) != 0)
		return -1;
	/* link() publishes the finished file under a name only if that name is
	 * free: no reader sees a partial file and nothing is overwritten. */
	bool use_link = true;
	for (int n = 1; n <= SAVE_NEW_TRIES; n++) {
		if ((size_t)snprintf(path, pathlen, "%s/%s-%d.sched", dir, stem, n) >= pathlen) {
			unlink(tmp);
			errno = ENAMETOOLONG;
			return -1;
		}
		if (use_link) {
			if (link(tmp, path) == 0) {
				unlink(tmp);
				return 0;
			}
			if (errno == EEXIST)
				continue;
			if (errno != EPERM && errno != ENOSYS && errno != EOPNOTSUPP &&
			    errno != EMLINK) {
				int e = errno;
				unlink(tmp);
				errno = e;
				return -1;
			}
			/* A file system without hard links: exclusive create in place. */
			use_link = false;
			unlink(tmp);
		}
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0) {
			if (errno == EEXIST)
				continue;
			return -1;
		}
		FILE *f = fdopen(fd, "w");
		if (!f) {
			int e = errno;
			close(fd);
			unlink(path);
			errno = e;
			return -1;
		}
		int rc = cts_schedule_write(s, f), e = errno;
		if (fclose(f) != 0 && rc == 0) {
			rc = -1;
			e = errno;
		}
		if (rc != 0) {
			unlink(path);
			errno = e;
		}
		return rc;
	}
	if (use_link)
		unlink(tmp);
	errno = EEXIST;
	return -1;
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
			if (tid < 0 || tid >= CTS_THREADS_CEILING) {
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
			declared = isdigit((unsigned char)val[0]) ? strtoll(val, &end, 10) : -1;
			if (declared < 0 || *end || errno) {
				fail(err, errlen, name, line, "bad step count '%.40s'", val);
				goto out;
			}
			continue;
		}
		if (strcmp(key, "max-steps") == 0) {
			char *end;
			errno = 0;
			unsigned long long m = isdigit((unsigned char)val[0]) ? strtoull(val, &end, 10) : 0;
			if (!m || *end || errno) {
				fail(err, errlen, name, line, "bad max-steps '%.40s'", val);
				goto out;
			}
			s->max_steps = m;
			continue;
		}
		if (strcmp(key, "timeout") == 0) {
			char *end;
			errno = 0;
			double t = isdigit((unsigned char)val[0]) ? strtod(val, &end) : -1;
			if (t < 0 || *end || errno || !(t <= MAX_TIMEOUT)) {
				fail(err, errlen, name, line, "bad timeout '%.40s'", val);
				goto out;
			}
			s->timeout = t;
			continue;
		}
		if (strcmp(key, "fail-on-exit") == 0) {
			if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0) {
				fail(err, errlen, name, line, "fail-on-exit wants yes or no, not '%.40s'",
				     val);
				goto out;
			}
			s->fail_on_exit = strcmp(val, "yes") == 0;
			continue;
		}
		if (strcmp(key, "repeats") == 0) {
			if (strcmp(val, "quiet") != 0) {
				fail(err, errlen, name, line, "repeats wants quiet, not '%.40s'", val);
				goto out;
			}
			s->quiet_repeats = true;
			continue;
		}
		if (strcmp(key, "isolate") == 0) {
			if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0) {
				fail(err, errlen, name, line, "isolate wants yes or no, not '%.40s'", val);
				goto out;
			}
			s->isolate = strcmp(val, "yes") == 0;
			continue;
		}
		if (strcmp(key, "races") == 0) {
			if (strcmp(val, "off") != 0 && strcmp(val, "report") != 0 &&
			    strcmp(val, "fail") != 0 && strcmp(val, "catch") != 0 &&
			    strcmp(val, "catch-fail") != 0) {
				fail(err, errlen, name, line, "races wants off, report, fail, catch or "
				     "catch-fail, not '%.40s'", val);
				goto out;
			}
			cts_schedule_set(&s->races, val);
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
		} else if (strcmp(key, "catch") == 0) {
			free(s->catch_opts);
			s->catch_opts = v;
		} else if (strcmp(key, "strategy") == 0) {
			free(s->strategy);
			s->strategy = v;
		} else if (strcmp(key, "instance") == 0) {
			free(s->instance);
			s->instance = v;
		} else if (strcmp(key, "hot-lines") == 0) {
			free(s->hot_lines);
			s->hot_lines = v;
		} else if (strcmp(key, "exec") == 0) {
			free(s->exec_path);
			s->exec_path = v;
		} else if (strcmp(key, "argv0") == 0) {
			free(s->argv0);
			s->argv0 = v;
		} else if (strcmp(key, "cwd") == 0) {
			free(s->cwd);
			s->cwd = v;
		} else if (strcmp(key, "binary") == 0) {
			free(s->binary);
			s->binary = v;
		} else if (strcmp(key, "env") == 0) {
			free(s->env);
			s->env = v;
		} else if (strcmp(key, "stdio") == 0) {
			free(s->stdio);
			s->stdio = v;
		} else if (strcmp(key, "bug") == 0) {
			free(s->bug);
			s->bug = v;
		} else if (strcmp(key, "watch") == 0 || strcmp(key, "trace-lib") == 0) {
			bool watch = key[0] == 'w';
			int full = !*v ? -1 : watch ? cts_schedule_add_watch(s, v) :
					      cts_schedule_add_trace_lib(s, v);
			free(v);
			if (full) {
				fail(err, errlen, name, line, "%s: %s", key,
				     watch ? "empty or more than " CTS_STR(CTS_SCHEDULE_MAX_WATCH) :
				     "empty or more than " CTS_STR(CTS_SCHEDULE_MAX_TRACE_LIBS));
				goto out;
			}
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

/* The whole file, NUL-terminated, or NULL with a reason in err. */
static char *read_bounded(const char *path, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO nobody writes to must not hang. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode) && !S_ISSOCK(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (not a cts schedule)", path);
		close(fd);
		return NULL;
	}
	if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > CTS_SCHEDULE_MAX_BYTES) {
		snprintf(err, errlen, "%s: too large for a schedule (%lld bytes, at most %u)", path,
			 (long long)sb.st_size, CTS_SCHEDULE_MAX_BYTES);
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	size_t cap = 1 << 16, n = 0;
	char *buf = cts_xmalloc(cap);
	const char *why = NULL;
	for (;;) {
		if (n + 1 == cap) {
			if (n > CTS_SCHEDULE_MAX_BYTES) {
				why = "too large for a schedule";
				break;
			}
			cap = cap * 2 < (size_t)CTS_SCHEDULE_MAX_BYTES + 2 ? cap * 2 :
			      (size_t)CTS_SCHEDULE_MAX_BYTES + 2;
			buf = cts_xrealloc(buf, cap);
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			why = strerror(errno);
			break;
		}
		if (got == 0)
			break;
		/* Binary data is refused at the first block, not after reading it all. */
		if (memchr(buf + n, 0, (size_t)got)) {
			why = "binary data (not a cts schedule)";
			break;
		}
		n += (size_t)got;
	}
	close(fd);
	if (why) {
		snprintf(err, errlen, "%s: %s", path, why);
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	return buf;
}

int cts_schedule_load(const char *path, struct cts_schedule **out, char *err, size_t errlen)
{
	char *buf = read_bounded(path, err, errlen);
	if (!buf)
		return -1;
	int rc = cts_schedule_parse(buf, path, out, err, errlen);
	free(buf);
	return rc;
}
