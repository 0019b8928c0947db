#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "models/error.h"
#include "models/race.h"
#include "models/report.h"

struct cts_report_out {
	char *target;  /* where the report ends up (symlinks resolved) */
	char *tmp;     /* temporary file renamed over target; NULL: written in place */
	int fd;        /* open on tmp or target; -1 for standard output */
	bool keep;     /* an inherited descriptor: never truncated */
};

/* ---- strings -------------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence at p (Unicode table 3-7), 0 if none. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* no overlong forms */
	else if (c == 0xed)
		hi = 0x9f; /* no surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f; /* nothing above U+10FFFF */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

char *cts_report_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p);
	char *out = cts_xmalloc(len * 3 + 1), *q = out; /* U+FFFD is 3 bytes */

	while (*p) {
		size_t n = utf8_len(p);
		if (n) {
			memcpy(q, p, n);
			q += n;
			p += n;
		} else {
			memcpy(q, "\xef\xbf\xbd", 3);
			q += 3;
			p++;
		}
	}
	*q = 0;
	return out;
}

json_t *cts_report_jstr(const char *s)
{
	char *clean = cts_report_utf8(s);
	json_t *j = json_string(clean);
	free(clean);
	return j ? j : json_null();
}

char *cts_report_replay_cmd(const char *self, const char *schedule)
{
	size_t n = strlen(self) + strlen(schedule) + 16;
	char *cmd = cts_xmalloc(n);
	snprintf(cmd, n, "%s --replay %s", self, schedule);
	return cmd;
}

static json_t *jstr(const char *s)
{
	return cts_report_jstr(s);
}

static json_t *jhex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

/* json_integer takes a signed 64-bit value; counts never get near 2^63. */
static json_t *jint(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *cts_report_frame(const struct cts_describer *be, uint64_t pc)
{
	struct cts_pc_info in;
	json_t *o = json_object();
	json_object_set_new(o, "pc", jhex(pc));
	if (!be || !be->pc_info || be->pc_info(be->be, pc, &in) != 0)
		memset(&in, 0, sizeof(in));
	json_object_set_new(o, "function", in.function ? jstr(in.function) : json_null());
	json_object_set_new(o, "offset", in.function ? jint(in.offset) : json_null());
	if (in.file && in.file[0] != '/' && in.comp_dir && in.comp_dir[0]) {
		size_t n = strlen(in.comp_dir) + strlen(in.file) + 2;
		char *path = cts_xmalloc(n);
		snprintf(path, n, "%s/%s", in.comp_dir, in.file);
		json_object_set_new(o, "file", jstr(path));
		free(path);
	} else {
		json_object_set_new(o, "file", in.file ? jstr(in.file) : json_null());
	}
	json_object_set_new(o, "line", in.line > 0 ? json_integer(in.line) : json_null());
	json_object_set_new(o, "module", in.module ? jstr(in.module) : json_null());
	return o;
}

/* ---- content -------------------------------------------------------------- */

static json_t *bug_json(const struct cts_bug *b, const char *self,
			const struct cts_describer *info_backend)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", jstr(cts_bug_kind_name(b->kind)));
	json_object_set_new(o, "message", jstr(b->message));
	json_object_set_new(o, "detail", jstr(b->detail));
	json_object_set_new(o, "thread", json_integer(b->tid));
	json_object_set_new(o, "run", jint(b->run));
	json_object_set_new(o, "steps", jint(b->steps));
	json_object_set_new(o, "hits", jint(b->hits));
	if (b->instance[0])
		json_object_set_new(o, "instance", jstr(b->instance));
	json_object_set_new(o, "preemptions", jint(b->preemptions));
	json_object_set_new(o, "original_preemptions", jint(b->original_preemptions));
	json_object_set_new(o, "threads", json_integer(b->threads));
	json_object_set_new(o, "original_threads", json_integer(b->original_threads));
	json_object_set_new(o, "original_schedule", b->orig_path[0] ? jstr(b->orig_path) : json_null());
	json_object_set_new(o, "timeline", b->timeline_path[0] ? jstr(b->timeline_path) : json_null());
	if (b->npair) {
		json_t *cp = json_object(), *ev = json_array();
		for (int i = 0; i < b->npair; i++) {
			json_t *e = json_object();
			char where[512] = "";
			const struct cts_describer *be = info_backend;
			if (be && be->describe_pc)
				be->describe_pc(be->be, b->pair[i].pc, where, sizeof(where));
			json_object_set_new(e, "thread", json_integer(b->pair[i].tid));
			json_object_set_new(e, "step", jint(b->pair_step[i]));
			json_object_set_new(e, "op", jstr(cts_op_name(b->pair[i].op)));
			json_object_set_new(e, "object", jhex(b->pair[i].obj));
			json_object_set_new(e, "pc", jhex(b->pair[i].pc));
			json_object_set_new(e, "location", where[0] ? jstr(where) : json_null());
			json_object_set_new(e, "frame", cts_report_frame(be, b->pair[i].pc));
			json_array_append_new(ev, e);
		}
		json_object_set_new(cp, "events", ev);
		json_object_set_new(cp, "headline", jstr(b->headline));
		json_object_set_new(o, "critical_pair", cp);
	} else {
		json_object_set_new(o, "critical_pair", json_null());
	}
	if (b->schedule_path[0]) {
		char *cmd = cts_report_replay_cmd(self, b->schedule_path);
		json_object_set_new(o, "schedule", jstr(b->schedule_path));
		json_object_set_new(o, "replay", jstr(cmd));
		free(cmd);
	} else {
		json_object_set_new(o, "schedule", json_null());
		json_object_set_new(o, "replay", json_null());
	}
	return o;
}

struct race_ctx {
	const struct cts_describer *backend;
	json_t *list;
};

/* A call stack's frames, innermost first. */
static json_t *stack_json(const struct cts_describer *be, const struct cts_bug_stack *s)
{
	json_t *a = json_array();
	for (int k = 0; k < s->n; k++)
		json_array_append_new(a, cts_report_frame(be, s->pc[k]));
	return a;
}

/* Thread tid's creation: {thread, stack} of the pthread_create call, null
 * for the main thread or when not seen. */
static json_t *created_json(const struct cts_describer *be, int tid, int parent,
			    const struct cts_bug_stack *s)
{
	if (tid == 0 || parent < 0)
		return json_null();
	return json_pack("{s:i,s:o}", "thread", parent, "stack", stack_json(be, s));
}

static json_t *access_json(const struct cts_describer *be, int tid, cts_op op, uint64_t pc,
			   bool previous, const struct cts_bug_stack *stack, json_t *created)
{
	char where[512] = "";
	json_t *o = json_object();
	if (be && be->describe_pc)
		be->describe_pc(be->be, pc, where, sizeof(where));
	json_object_set_new(o, "thread", json_integer(tid));
	json_object_set_new(o, "op", jstr(cts_op_name(op)));
	json_object_set_new(o, "write", json_boolean(cts_op_is_write(op)));
	json_object_set_new(o, "pc", jhex(pc));
	json_object_set_new(o, "location", where[0] ? jstr(where) : json_null());
	json_object_set_new(o, "frame", cts_report_frame(be, pc));
	json_object_set_new(o, "previous", json_boolean(previous));
	json_object_set_new(o, "stack", stack_json(be, stack));
	json_object_set_new(o, "created_by", created);
	return o;
}

static int race_json(const struct cts_race *r, void *arg)
{
	struct race_ctx *c = arg;
	const struct cts_race_detail *d = &r->detail;
	const struct cts_bug_stack none = { 0 };
	char var[256] = "";
	json_t *o = json_object(), *acc = json_array();
	if (c->backend && c->backend->describe_data)
		c->backend->describe_data(c->backend->be, r->addr, var, sizeof(var));
	json_object_set_new(o, "address", jhex(r->addr));
	json_object_set_new(o, "size", json_integer(r->size));
	json_object_set_new(o, "variable", var[0] ? jstr(var) : json_null());
	json_array_append_new(acc, access_json(c->backend, r->tid1, r->op1, r->pc1, true,
					       d->known ? &d->stack1 : &none,
					       d->known ? created_json(c->backend, r->tid1, d->parent1,
								       &d->created1) : json_null()));
	json_array_append_new(acc, access_json(c->backend, r->tid2, r->op2, r->pc2, false,
					       d->known ? &d->stack2 : &none,
					       d->known ? created_json(c->backend, r->tid2, d->parent2,
								       &d->created2) : json_null()));
	json_object_set_new(o, "accesses", acc);
	if (d->known && d->block)
		json_object_set_new(o, "heap_block", json_pack("{s:o,s:I,s:I,s:o,s:o}", "address",
			jhex(d->block), "size", (json_int_t)d->block_size, "offset",
			(json_int_t)(r->addr - d->block), "allocated_by", d->alloc_tid >= 0 ?
			json_integer(d->alloc_tid) : json_null(), "stack",
			stack_json(c->backend, &d->alloc)));
	else
		json_object_set_new(o, "heap_block", json_null());
	json_object_set_new(o, "first_run", jint(r->run));
	json_object_set_new(o, "runs", jint(r->runs));
	/* both plain moves: may be a C11 atomic a binary cannot tell apart */
	json_object_set_new(o, "plain", json_boolean(r->plain));
	json_array_append_new(c->list, o);
	return 0;
}

static void report_describe(void *ctx, uint64_t pc, char *buf, size_t len)
{
	const struct cts_describer *be = ctx;
	buf[0] = 0;
	if (be && be->describe_pc)
		be->describe_pc(be->be, pc, buf, len);
}

static json_t *report_json(const struct cts_report_info *info, const struct cts_explore_result *res)
{
	json_t *root = json_object(), *args = json_array(), *bugs = json_array();

	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "program", jstr(info->program));
	for (int i = 1; info->argv && info->argv[0] && info->argv[i]; i++)
		json_array_append_new(args, jstr(info->argv[i]));
	json_object_set_new(root, "args", args);
	json_object_set_new(root, "strategy", jstr(info->strategy));
	json_object_set_new(root, "mode", jstr(info->mode));
	json_object_set_new(root, "races_mode", jstr(info->races ? info->races : "off"));
	json_object_set_new(root, "seed", jint(info->seed));
	json_object_set_new(root, "runs", jint(res->runs));
	json_object_set_new(root, "schedules", jint(res->runs));
	json_object_set_new(root, "steps", jint(res->steps));
	json_object_set_new(root, "elapsed_seconds", json_real(round(res->elapsed * 1000) / 1000));
	json_object_set_new(root, "complete", json_boolean(res->complete));
	/* complete = exhausted and nothing shared unseen (docs/report-format.md) */
	json_object_set_new(root, "exhausted", json_boolean(res->exhausted));
	json_object_set_new(root, "unseen", res->unseen[0] ? jstr(res->unseen) : json_null());
	json_object_set_new(root, "interrupted", json_boolean(info->interrupted));
	/* What the exploration exercised: the text summary's "covered" line. */
	json_t *sum = json_object(), *ops = json_object();
	int nreal = 0;
	for (int i = 0; i < res->nbugs; i++)
		nreal += res->bugs[i].kind != CTS_BUG_DIVERGED;
	for (int op = 1; op < CTS_OP__COUNT; op++)
		if (res->ops[op])
			json_object_set_new(ops, cts_op_name((cts_op)op), jint(res->ops[op]));
	json_object_set_new(sum, "runs", jint(res->runs));
	json_object_set_new(sum, "distinct_bugs", json_integer(nreal));
	json_object_set_new(sum, "races", json_integer(cts_race_count(res->races)));
	json_object_set_new(sum, "inconclusive", jint(res->ninconclusive));
	json_object_set_new(sum, "cut", jint(res->ncut));
	json_object_set_new(sum, "relearned", jint(res->relearned));
	json_object_set_new(sum, "discarded", jint(res->discarded));
	json_object_set_new(sum, "spin_restarts", jint(res->spin_restarts));
	json_object_set_new(sum, "quiet_repeats", jint(res->quiet_repeats));
	json_object_set_new(sum, "complete", json_boolean(res->complete));
	json_object_set_new(sum, "operations", ops);
	json_object_set_new(root, "summary", sum);
	if (!res->own.estimated)
		json_object_set_new(root, "ownership_estimate", json_null());
	else
		json_object_set_new(root, "ownership_estimate",
				    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I}}",
					      "plain_accesses", (json_int_t)res->own.accesses,
					      "native", (json_int_t)res->own.native,
					      "visible", (json_int_t)res->own.visible,
					      "handoffs", (json_int_t)res->own.handoffs,
					      "void_runs", (json_int_t)res->own.void_runs,
					      "pages_learned", (json_int_t)res->own.pages_learned,
					      "lines", "native", (json_int_t)res->own.line_native,
					      "void_runs", (json_int_t)res->own.line_void_runs,
					      "learned", (json_int_t)res->own.lines_learned));
	json_object_set(root, "learned", info->learned_json ? info->learned_json : json_null());
	if (info->backend_json)
		json_object_set(root, "tracer", info->backend_json);
	if (info->strategy_json)
		json_object_set(root, "state_matching", info->strategy_json);
	if (info->instances_json)
		json_object_set(root, "instances", info->instances_json);
	/* --watch and --races catch: absent without them */
	/* [] in sync mode: no code is scanned for accesses */
	json_object_set_new(root, "traced_code",
			    info->code_json ? json_incref(info->code_json) : json_array());
	if (info->watch_json) {
		json_object_set(root, "watch_backend", json_object_get(info->watch_json, "backend"));
		json_object_set(root, "watch", info->watch_json);
	}
	if (info->catch_json)
		json_object_set(root, "catch", info->catch_json);
	/* --jobs, --shard: which slice of the work this is (cts-trace merge) */
	if (info->shard)
		json_object_set(root, "shard", info->shard);
	if (info->hapset_json)
		json_object_set(root, "hapset", info->hapset_json);
	if (info->coverage_json)
		json_object_set(root, "coverage", info->coverage_json);
	if (info->attach_json)
		json_object_set(root, "attach", info->attach_json);
	json_object_set_new(root, "internal_error",
			    res->internal_error ? jstr(res->error) : json_null());
	/* A divergence says the program does not repeat itself under one
	 * schedule: no bug of the program, so not in "bugs". */
	json_t *divs = json_array();
	for (int i = 0; i < res->nbugs; i++)
		json_array_append_new(res->bugs[i].kind == CTS_BUG_DIVERGED ? divs : bugs,
				      bug_json(&res->bugs[i], info->self ? info->self : "cts-trace",
					       info->backend));
	json_object_set_new(root, "bugs", bugs);
	json_object_set_new(root, "divergences", divs);
	json_t *inc = json_object(), *incl = json_array();
	json_object_set_new(inc, "count", jint(res->ninconclusive));
	for (int i = 0; i < res->nlisted; i++) {
		const struct cts_inconclusive *c = &res->inconclusive[i];
		json_t *o = json_object();
		json_object_set_new(o, "run", jint(c->run));
		json_object_set_new(o, "steps", jint(c->steps));
		json_object_set_new(o, "kind", jstr(cts_inconclusive_kind_name(c->kind)));
		json_object_set_new(o, "reason", jstr(c->reason));
		json_object_set_new(o, "schedule", c->schedule_path[0] ? jstr(c->schedule_path) :
									json_null());
		json_array_append_new(incl, o);
	}
	json_object_set_new(inc, "runs", incl);
	json_object_set_new(root, "inconclusive", inc);
	struct race_ctx rc = { info->backend, json_array() };
	cts_race_each(res->races, race_json, &rc);
	json_object_set_new(root, "races", rc.list);
	/* Active testing: phase-1 suspects against what phase 2 confirmed. */
	if (info->suspects || info->breaks) {
		json_t *a = cts_suspects_json(info->suspects, report_describe, (void *)info->backend);
		if (info->breaks)
			json_object_set_new(a, "breakpoints", cts_suspects_json(info->breaks,
						report_describe, (void *)info->backend));
		json_object_set_new(root, "active", a);
	}
	return root;
}

/* ---- the file --------------------------------------------------------------- */

json_t *cts_json_load_path(const char *what, const char *path, const char *not_json, size_t flags,
			   char *err, size_t errlen)
{
	json_error_t je;
	struct stat sb;
	/* jansson says "unable to open X: ..." (line -1) or, for a directory,
	 * "'[' or '{' expected near end of file": say what is wrong instead. */
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s%s: %s", what, path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		snprintf(err, errlen, "%s%s: is a directory", what, path);
		return NULL;
	}
	json_t *o = json_loadf(f, flags, &je);
	fclose(f);
	if (!o && je.line > 0)
		snprintf(err, errlen, "%s%s: %s%s (line %d)", what, path, not_json, je.text,
			 je.line);
	else if (!o)
		snprintf(err, errlen, "%s%s: %s%s", what, path, not_json, je.text);
	return o;
}

__attribute__((format(printf, 3, 4)))
static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void out_free(struct cts_report_out *o)
{
	free(o->target);
	free(o->tmp);
	free(o);
}

/* A temporary file beside target, with the mode the report should get. */
static int open_temp(struct cts_report_out *o, mode_t mode, char *err, size_t errlen)
{
	const char *slash = strrchr(o->target, '/');
	const char *base = slash ? slash + 1 : o->target;
	size_t n = strlen(o->target) + 32;
	o->tmp = cts_xmalloc(n);
	if (slash)
		snprintf(o->tmp, n, "%.*s/.%s.XXXXXX", (int)(slash - o->target), o->target, base);
	else
		snprintf(o->tmp, n, "./.%s.XXXXXX", base);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0 || fchmod(o->fd, mode) != 0) {
		say(err, errlen, "cannot write report %s: %s", o->target, strerror(errno));
		if (o->fd >= 0) {
			close(o->fd);
			unlink(o->tmp);
		}
		return -1;
	}
	return 0;
}

struct cts_report_out *cts_report_open(const char *path, char *err, size_t errlen)
{
	struct cts_report_out *o = cts_xcalloc(1, sizeof(*o));
	struct stat sb;

	o->fd = -1;
	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) {
		o->target = cts_xstrdup(path);
		return o;
	}
	/* A descriptor we already have (/dev/stderr, /dev/fd/N): write to it
	 * as it is, neither reopened from offset 0 nor truncated. */
	int n = -1, len = 0;
	if (strcmp(path, "/dev/stderr") == 0)
		n = 2;
	else if ((sscanf(path, "/dev/fd/%d%n", &n, &len) == 1 ||
		  sscanf(path, "/proc/self/fd/%d%n", &n, &len) == 1) && path[len])
		n = -1;
	if (n >= 0) {
		o->target = cts_xstrdup(path);
		o->fd = n == 1 ? -1 : fcntl(n, F_DUPFD_CLOEXEC, 3);
		if (n != 1 && o->fd < 0) {
			say(err, errlen, "cannot write report %s: %s", path, strerror(errno));
			out_free(o);
			return NULL;
		}
		o->keep = true;
		return o;
	}
	/* Follow symlinks to what they name: the link itself stays. */
	o->target = realpath(path, NULL);
	if (!o->target)
		o->target = cts_xstrdup(path);
	if (stat(o->target, &sb) != 0) {
		if (errno != ENOENT) {
			say(err, errlen, "cannot write report %s: %s", path, strerror(errno));
			out_free(o);
			return NULL;
		}
		if (lstat(o->target, &sb) == 0) {
			/* A dangling symlink: create what it names, in place. */
			o->fd = open(o->target, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
			if (o->fd < 0) {
				say(err, errlen, "cannot write report %s: %s", path, strerror(errno));
				out_free(o);
				return NULL;
			}
			return o;
		}
		mode_t mask = umask(0);
		umask(mask);
		if (open_temp(o, 0666 & ~mask, err, errlen) != 0) {
			out_free(o);
			return NULL;
		}
		return o;
	}
	if (S_ISDIR(sb.st_mode)) {
		say(err, errlen, "cannot write report %s: is a directory", path);
		out_free(o);
		return NULL;
	}
	if (S_ISREG(sb.st_mode)) {
		if (access(o->target, W_OK) != 0) {
			say(err, errlen, "cannot write report %s: %s", path, strerror(errno));
			out_free(o);
			return NULL;
		}
		if (open_temp(o, sb.st_mode & 07777, err, errlen) != 0) {
			out_free(o);
			return NULL;
		}
		return o;
	}
	/* A device, FIFO or socket: written in place. O_NONBLOCK so a FIFO
	 * without a reader is an error now rather than a hang. */
	o->fd = open(o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (o->fd < 0) {
		say(err, errlen, "cannot write report %s: %s", path,
		    errno == ENXIO ? "nobody reads it" : strerror(errno));
		out_free(o);
		return NULL;
	}
	fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) & ~O_NONBLOCK);
	return o;
}

void cts_report_discard(struct cts_report_out *o)
{
	if (!o)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	out_free(o);
}

void cts_report_abandon(struct cts_report_out *o)
{
	if (!o)
		return;
	if (o->fd >= 0)
		close(o->fd);
	out_free(o);
}

int cts_report_write(struct cts_report_out *o, const struct cts_report_info *info,
		     const struct cts_explore_result *res, char *err, size_t errlen)
{
	return cts_report_write_json(o, report_json(info, res), err, errlen);
}

int cts_report_write_json(struct cts_report_out *o, struct json_t *root, char *err, size_t errlen)
{
	FILE *f = o->fd < 0 ? stdout : fdopen(o->fd, "w");
	int rc = -1;
	struct stat sb;

	if (!f) {
		say(err, errlen, "cannot write report %s: %s", o->target, strerror(errno));
		json_decref(root);
		cts_report_discard(o);
		return -1;
	}
	o->fd = -1; /* f owns it now */
	/* In place on a regular file (a dangling symlink's new target). */
	if (f != stdout && !o->tmp && !o->keep && fstat(fileno(f), &sb) == 0 &&
	    S_ISREG(sb.st_mode))
		(void)ftruncate(fileno(f), 0);
	errno = 0;
	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) == 0 &&
	    fputc('\n', f) != EOF && fflush(f) == 0 && !ferror(f))
		rc = 0;
	int e = errno ? errno : EIO;
	if (f != stdout && fclose(f) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	json_decref(root);
	if (rc == 0 && o->tmp && rename(o->tmp, o->target) != 0) {
		rc = -1;
		e = errno;
	}
	if (rc != 0) {
		say(err, errlen, "cannot write report %s: %s", o->target, strerror(e));
		if (o->tmp)
			unlink(o->tmp);
	}
	out_free(o);
	return rc;
}
