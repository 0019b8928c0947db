#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "models/error.h"
#include "models/race.h"
#include "models/sarif.h"

/* Threads drawn per result, and steps per thread (the last ones). */
#define FLOW_THREADS 16
#define FLOW_STEPS 32

static const struct {
	const char *id, *text;
} rules[] = {
	{ "crash", "A thread was killed by a fatal signal" },
	{ "assert", "An assertion failed" },
	{ "deadlock", "Threads wait for each other forever" },
	{ "livelock", "Every live thread spins without progress or is blocked" },
	{ "exit-status", "The program exited with a non-zero status (--fail-on-exit)" },
	{ "race", "Two threads access the same memory, at least one writes, unordered" },
	{ "wrong-output", "The --check command rejected the run's output" },
	{ "atomicity-violation", "A read-then-write under a lock was interleaved by another writer" },
};

static json_t *jstr(const char *s)
{
	return cts_report_jstr(s);
}

static json_t *text(const char *s)
{
	return json_pack("{s:o}", "text", jstr(s));
}

static int rule_index(const char *id)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strcmp(rules[i].id, id) == 0)
			return (int)i;
	return -1;
}

static const char *bug_rule(enum cts_bug_kind k)
{
	return k == CTS_BUG_CHECK ? "wrong-output" : cts_bug_kind_name(k);
}

/* What the locations are written against: the backend naming pcs, and the
 * source root (SRCROOT) their files are given relative to. */
struct sarif_ctx {
	const struct cts_describer *be;
	char root[4096];  /* absolute, with a trailing '/'; "" if unknown */
};

/* A file name as a URI reference: absolute paths get file://, every byte
 * outside the unreserved set and '/' is percent-encoded (so any bytes do). */
static json_t *file_uri(const char *file)
{
	size_t n = strlen(file);
	char *u = cts_xmalloc(n * 3 + 8), *q = u;
	if (file[0] == '/')
		q += sprintf(q, "file://");
	for (const unsigned char *p = (const unsigned char *)file; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	}
	*q = 0;
	json_t *j = json_string(u);
	free(u);
	return j;
}

/* A file's artifactLocation: relative to SRCROOT when under it (so code
 * scanning places it in the repository), else as the debug info has it. */
static json_t *artifact(const struct sarif_ctx *c, const char *file)
{
	size_t n = strlen(c->root);
	if (n && strncmp(file, c->root, n) == 0 && file[n])
		return json_pack("{s:o,s:s}", "uri", file_uri(file + n), "uriBaseId", "SRCROOT");
	return json_pack("{s:o}", "uri", file_uri(file));
}

static json_t *line_location(const struct sarif_ctx *c, const char *file, int line)
{
	return json_pack("{s:{s:o,s:{s:i}}}", "physicalLocation", "artifactLocation",
			 artifact(c, file), "region", "startLine", line);
}

/* pc's function as a logicalLocation of loc, when the backend names it. */
static void add_function(const struct sarif_ctx *c, json_t *loc, uint64_t pc)
{
	char where[512] = "";
	if (c->be && c->be->describe_pc)
		c->be->describe_pc(c->be->be, pc, where, sizeof(where));
	/* "func+0x12 (file.c:34)": the function's name alone. */
	where[strcspn(where, "+ ")] = 0;
	if (where[0] && strncmp(where, "0x", 2) != 0)
		json_object_set_new(loc, "logicalLocations",
				    json_pack("[{s:o,s:s}]", "name", jstr(where), "kind", "function"));
}

/* A location: the source line when the symbolizer knows it, the pc otherwise. */
static json_t *pc_location(const struct sarif_ctx *c, uint64_t pc, const char *msg)
{
	const struct cts_describer *be = c->be;
	char file[1024];
	int line = 0;
	json_t *loc;

	if (be && be->source_pc && be->source_pc(be->be, pc, file, sizeof(file), &line) == 0)
		loc = line_location(c, file, line);
	else
		loc = json_pack("{s:{s:{s:I}}}", "physicalLocation", "address", "absoluteAddress",
				(json_int_t)(pc > INT64_MAX ? INT64_MAX : pc));
	add_function(c, loc, pc);
	if (msg)
		json_object_set_new(loc, "message", text(msg));
	return loc;
}

char *cts_sarif_step_text(const struct cts_describer *be, const struct cts_event *ev, char *buf,
			  size_t len)
{
	char obj[256] = "";
	const char *op = cts_op_name(ev->op);

	switch (ev->op) {
	case CTS_OP_CREATE:
	case CTS_OP_JOIN:
	case CTS_OP_CANCEL:
		if (ev->target >= 0)
			snprintf(buf, len, "%s thread %d", op, ev->target);
		else
			snprintf(buf, len, "%s", op);
		return buf;
	case CTS_OP_START:
	case CTS_OP_THREAD_EXIT:
	case CTS_OP_PROC_EXIT:
	case CTS_OP_YIELD:
	case CTS_OP_SLEEP:
		snprintf(buf, len, "%s", op);
		return buf;
	default:
		break;
	}
	if (ev->fn)
		snprintf(obj, sizeof(obj), "%s ", ev->fn);
	if (ev->obj && be && be->describe_data)
		be->describe_data(be->be, ev->obj, obj + strlen(obj), sizeof(obj) - strlen(obj));
	if (!obj[0] || obj[strlen(obj) - 1] == ' ')
		snprintf(obj + strlen(obj), sizeof(obj) - strlen(obj), "0x%" PRIx64, ev->obj);
	snprintf(buf, len, "%s %s", op, obj);
	return buf;
}

static bool is_lock(enum cts_op op)
{
	switch (op) {
	case CTS_OP_LOCK:
	case CTS_OP_TRYLOCK:
	case CTS_OP_RDLOCK:
	case CTS_OP_WRLOCK:
	case CTS_OP_TRYRDLOCK:
	case CTS_OP_TRYWRLOCK:
	case CTS_OP_COND_REACQUIRE:
		return true;
	default:
		return false;
	}
}

/* SARIF's well-known threadFlowLocation kinds for a step, NULL if none fits. */
static json_t *step_kinds(enum cts_op op)
{
	if (is_lock(op))
		return json_pack("[s,s]", "acquire", "lock");
	switch (op) {
	case CTS_OP_UNLOCK:
	case CTS_OP_RWUNLOCK:
		return json_pack("[s,s]", "release", "lock");
	case CTS_OP_READ:
	case CTS_OP_WRITE:
	case CTS_OP_RMW:
	case CTS_OP_ATOMIC:
	case CTS_OP_LIB_READ:
	case CTS_OP_LIB_WRITE:
		return json_pack("[s]", "memory");
	default:
		return NULL;
	}
}

/* A SARIF stack of thread tid's frames, innermost first, with a message
 * when msg is not NULL. */
static json_t *sarif_stack(const struct sarif_ctx *c, const struct cts_bug_stack *st, int tid,
			   const char *msg)
{
	json_t *frames = json_array();
	for (int k = 0; k < st->n; k++)
		json_array_append_new(frames, json_pack("{s:o,s:i}", "location",
							pc_location(c, st->pc[k], NULL),
							"threadId", tid));
	json_t *o = json_pack("{s:o}", "frames", frames);
	if (msg)
		json_object_set_new(o, "message", text(msg));
	return o;
}

/* A step's call stack (taken in the bug's last re-run), innermost first. */
static json_t *step_stack(const struct sarif_ctx *c, const struct cts_bug_step *s)
{
	return sarif_stack(c, &s->stack, s->ev.tid, NULL);
}

/* "thread 1 blocked at lock m1 (after a preemption)" */
static char *step_msg(const struct sarif_ctx *c, const struct cts_bug_step *s, char *buf,
		      size_t len)
{
	char what[320];
	if (s->site) { /* the crash or the failed assert itself */
		snprintf(buf, len, "thread %d fails here", s->ev.tid);
		return buf;
	}
	cts_sarif_step_text(c->be, &s->ev, what, sizeof(what));
	snprintf(buf, len, "thread %d %s%s%s", s->ev.tid,
		 s->pending ? (s->blocked ? "blocked at " : "stands at ") : "", what,
		 s->preempt ? " (after a preemption)" : "");
	return buf;
}

/* One threadFlow per thread of the bug's trace, its last FLOW_STEPS steps
 * in execution order (the schedule's step index), each with its kinds and
 * call stack where known. */
static json_t *bug_flows(const struct sarif_ctx *c, const struct cts_bug *b)
{
	int tids[FLOW_THREADS], nt = 0;
	json_t *flows = json_array();

	for (int i = 0; i < b->ntrace && nt < FLOW_THREADS; i++) {
		int t = b->trace[i].ev.tid, k;
		for (k = 0; k < nt && tids[k] != t; k++)
			;
		if (k == nt)
			tids[nt++] = t;
	}
	for (int k = 0; k < nt; k++) {
		int count = 0, skip;
		for (int i = 0; i < b->ntrace; i++)
			count += b->trace[i].ev.tid == tids[k];
		skip = count > FLOW_STEPS ? count - FLOW_STEPS : 0;
		json_t *locs = json_array();
		for (int i = 0; i < b->ntrace; i++) {
			const struct cts_bug_step *s = &b->trace[i];
			if (s->ev.tid != tids[k] || skip-- > 0)
				continue;
			char msg[400];
			step_msg(c, s, msg, sizeof(msg));
			json_t *tfl = json_pack("{s:I}", "executionOrder", (json_int_t)s->step + 1);
			json_object_set_new(tfl, "location", s->ev.pc ?
					    pc_location(c, s->ev.pc, msg) :
					    json_pack("{s:o}", "message", text(msg)));
			json_t *kinds = step_kinds(s->ev.op);
			if (kinds)
				json_object_set_new(tfl, "kinds", kinds);
			if (s->stack.n > 0)
				json_object_set_new(tfl, "stack", step_stack(c, s));
			json_array_append_new(locs, tfl);
		}
		char id[32];
		snprintf(id, sizeof(id), "thread %d", tids[k]);
		json_array_append_new(flows, json_pack("{s:s,s:o}", "id", id, "locations", locs));
	}
	return flows;
}

static const char *base_name(const char *path)
{
	const char *p = strrchr(path, '/');
	return p ? p + 1 : path;
}

/* The site of a crash, an assert or a race's second access: the pc's line,
 * or the line an assert names in the same file (the call's line info can
 * be off in optimized code), or that file and line when the pc has none. */
static json_t *site_location(const struct sarif_ctx *c, const struct cts_bug *b)
{
	const struct cts_describer *be = c->be;
	char file[1024];
	int line = 0;

	if (b->site_pc && be && be->source_pc &&
	    be->source_pc(be->be, b->site_pc, file, sizeof(file), &line) == 0) {
		if (b->site_line > 0 && b->site_file[0] &&
		    strcmp(base_name(file), base_name(b->site_file)) == 0)
			line = b->site_line;
		json_t *loc = line_location(c, file, line);
		add_function(c, loc, b->site_pc);
		return loc;
	}
	if (b->site_file[0] && b->site_line > 0)
		return line_location(c, b->site_file, b->site_line);
	return b->site_pc ? pc_location(c, b->site_pc, NULL) : NULL;
}


/* The failing thread of a deadlock: the blocked one (on a lock rather than
 * a join, when any is) that moved last, its step closing the cycle. Its
 * index in b->trace, -1 if no thread is blocked. */
static int stuck_step(const struct cts_bug *b)
{
	int best = -1;
	uint64_t best_last = 0;
	bool best_lock = false;

	for (int i = 0; i < b->ntrace; i++) {
		const struct cts_bug_step *s = &b->trace[i];
		if (!s->pending || !s->blocked || !s->ev.pc)
			continue;
		uint64_t last = 0;
		for (int k = 0; k < b->ntrace; k++)
			if (!b->trace[k].pending && b->trace[k].ev.tid == s->ev.tid &&
			    b->trace[k].step + 1 > last)
				last = b->trace[k].step + 1;
		bool lock = is_lock(s->ev.op);
		if (best < 0 || (lock && !best_lock) || (lock == best_lock && last > best_last)) {
			best = i;
			best_last = last;
			best_lock = lock;
		}
	}
	return best;
}

/* Where the result points (its first location is the one code scanning
 * shows): the bug's own site; for a deadlock the failing thread's blocked
 * step, the other blocked threads' steps related; else the failing
 * thread's last step, or the run's. */
static void bug_locations(const struct sarif_ctx *c, const struct cts_bug *b, json_t *r)
{
	json_t *locs = json_array(), *site = site_location(c, b);
	char msg[400];

	if (site) {
		json_array_append_new(locs, site);
	} else if (b->tid < 0 && stuck_step(b) >= 0) {
		int k = stuck_step(b);
		json_t *rel = json_array();
		json_array_append_new(locs, pc_location(c, b->trace[k].ev.pc,
							step_msg(c, &b->trace[k], msg, sizeof(msg))));
		for (int i = 0; i < b->ntrace; i++)
			if (i != k && b->trace[i].pending && b->trace[i].blocked && b->trace[i].ev.pc)
				json_array_append_new(rel, pc_location(c, b->trace[i].ev.pc,
					step_msg(c, &b->trace[i], msg, sizeof(msg))));
		if (json_array_size(rel))
			json_object_set_new(r, "relatedLocations", rel);
		else
			json_decref(rel);
	}
	for (int i = b->ntrace - 1; i >= 0 && b->tid >= 0 && !json_array_size(locs); i--)
		if (b->trace[i].ev.tid == b->tid && b->trace[i].ev.pc)
			json_array_append_new(locs, pc_location(c, b->trace[i].ev.pc, NULL));
	for (int i = b->ntrace - 1; i >= 0 && !json_array_size(locs); i--)
		if (b->trace[i].ev.pc)
			json_array_append_new(locs, pc_location(c, b->trace[i].ev.pc, NULL));
	json_object_set_new(r, "locations", locs);
}

static json_t *result(const char *rule, const char *level, const char *message)
{
	return json_pack("{s:s,s:i,s:s,s:o}", "ruleId", rule, "ruleIndex", rule_index(rule),
			 "level", level, "message", text(message));
}

static json_t *bug_result(const struct cts_report_info *info, const struct sarif_ctx *c,
			  const struct cts_bug *b)
{
	json_t *r = result(bug_rule(b->kind), "error", b->message);
	json_t *props = json_object();

	bug_locations(c, b, r);
	if (b->ntrace)
		json_object_set_new(r, "codeFlows", json_pack("[{s:o}]", "threadFlows",
							       bug_flows(c, b)));
	json_object_set_new(props, "run", json_integer((json_int_t)b->run));
	json_object_set_new(props, "steps", json_integer((json_int_t)b->steps));
	json_object_set_new(props, "preemptions", json_integer((json_int_t)b->preemptions));
	json_object_set_new(props, "original_preemptions",
			    json_integer((json_int_t)b->original_preemptions));
	if (b->headline[0])
		json_object_set_new(props, "critical_pair", jstr(b->headline));
	if (b->timeline_path[0])
		json_object_set_new(props, "timeline", jstr(b->timeline_path));
	if (b->detail[0])
		json_object_set_new(props, "detail", jstr(b->detail));
	if (b->schedule_path[0]) {
		char *cmd = cts_report_replay_cmd(info->self ? info->self : "cts-trace",
						  b->schedule_path);
		json_object_set_new(props, "schedule", jstr(b->schedule_path));
		json_object_set_new(props, "replay", jstr(cmd));
		free(cmd);
	}
	json_object_set_new(r, "properties", props);
	return r;
}

struct race_ctx {
	const struct cts_report_info *info;
	const struct sarif_ctx *sc;
	json_t *results;
	const char *level;
};

/* Thread tid's creation as a related location and a stack, when seen. */
static void race_created(const struct sarif_ctx *c, int tid, int parent,
			 const struct cts_bug_stack *st, json_t *rel, json_t *stacks)
{
	char m[160];
	if (tid == 0 || parent < 0 || !st->n)
		return;
	snprintf(m, sizeof(m), "thread %d created by thread %d", tid, parent);
	json_t *loc = pc_location(c, st->pc[0], m);
	json_object_set_new(loc, "id", json_integer((json_int_t)json_array_size(rel) + 1));
	json_array_append_new(rel, loc);
	json_array_append_new(stacks, sarif_stack(c, st, parent, m));
}

/* A race's stacks (ThreadSanitizer's report): the access and the previous
 * one, the heap block's allocation, each thread's creation, as the
 * result's stacks; the previous access, the allocation and the creations
 * as related locations; each access's stack in its threadFlow too. */
static void race_stacks(const struct sarif_ctx *c, const struct cts_race *rc, json_t *r,
			json_t *f1, json_t *f2)
{
	const struct cts_race_detail *d = &rc->detail;
	json_t *stacks = json_array(), *rel = json_array();
	char m[200];

	snprintf(m, sizeof(m), "%s by thread %d", cts_op_name(rc->op2), rc->tid2);
	json_array_append_new(stacks, sarif_stack(c, &d->stack2, rc->tid2, m));
	snprintf(m, sizeof(m), "previous %s by thread %d", cts_op_name(rc->op1), rc->tid1);
	json_array_append_new(stacks, sarif_stack(c, &d->stack1, rc->tid1, m));
	json_t *loc = pc_location(c, rc->pc1, m);
	json_object_set_new(loc, "id", json_integer(1));
	json_array_append_new(rel, loc);
	if (d->block && d->alloc_tid >= 0) {
		snprintf(m, sizeof(m), "heap block of %" PRIu64 " bytes at 0x%" PRIx64 " (offset %"
			 PRIu64 ") allocated by thread %d", d->block_size, d->block,
			 rc->addr - d->block, d->alloc_tid);
		json_array_append_new(stacks, sarif_stack(c, &d->alloc, d->alloc_tid, m));
		if (d->alloc.n) {
			loc = pc_location(c, d->alloc.pc[0], m);
			json_object_set_new(loc, "id", json_integer((json_int_t)json_array_size(rel) + 1));
			json_array_append_new(rel, loc);
		}
	}
	race_created(c, rc->tid2, d->parent2, &d->created2, rel, stacks);
	if (rc->tid1 != rc->tid2)
		race_created(c, rc->tid1, d->parent1, &d->created1, rel, stacks);
	json_object_set_new(r, "stacks", stacks);
	json_object_set_new(r, "relatedLocations", rel);
	json_object_set_new(json_array_get(json_object_get(f1, "locations"), 0), "stack",
			    sarif_stack(c, &d->stack1, rc->tid1, NULL));
	json_object_set_new(json_array_get(json_object_get(f2, "locations"), 0), "stack",
			    sarif_stack(c, &d->stack2, rc->tid2, NULL));
}

static int race_result(const struct cts_race *rc, void *arg)
{
	struct race_ctx *c = arg;
	const struct cts_describer *be = c->info->backend;
	char var[256] = "", a[512] = "", b[512] = "", msg[1400], m1[160], m2[160];

	if (be && be->describe_data)
		be->describe_data(be->be, rc->addr, var, sizeof(var));
	if (!var[0])
		snprintf(var, sizeof(var), "0x%" PRIx64, rc->addr);
	if (be && be->describe_pc) {
		be->describe_pc(be->be, rc->pc1, a, sizeof(a));
		be->describe_pc(be->be, rc->pc2, b, sizeof(b));
	}
	snprintf(msg, sizeof(msg), "data race on %s (%u bytes): thread %d %s at %s vs thread %d %s "
		 "at %s", var, rc->size, rc->tid1, cts_op_name(rc->op1), a[0] ? a : "?", rc->tid2,
		 cts_op_name(rc->op2), b[0] ? b : "?");
	snprintf(m1, sizeof(m1), "thread %d %s %s", rc->tid1, cts_op_name(rc->op1), var);
	snprintf(m2, sizeof(m2), "thread %d %s %s", rc->tid2, cts_op_name(rc->op2), var);
	json_t *r = result("race", c->level, msg);
	json_object_set_new(r, "locations", json_pack("[o]", pc_location(c->sc, rc->pc2, NULL)));
	json_t *f1 = json_pack("{s:s,s:[{s:o,s:i}]}", "id", "first access", "locations", "location",
			       pc_location(c->sc, rc->pc1, m1), "executionOrder", 1);
	json_t *f2 = json_pack("{s:s,s:[{s:o,s:i}]}", "id", "second access", "locations",
			       "location", pc_location(c->sc, rc->pc2, m2), "executionOrder", 2);
	if (rc->detail.known)
		race_stacks(c->sc, rc, r, f1, f2);
	json_object_set_new(r, "codeFlows", json_pack("[{s:[o,o]}]", "threadFlows", f1, f2));
	json_object_set_new(r, "properties",
			    json_pack("{s:I,s:I,s:b}", "first_run", (json_int_t)rc->run, "runs",
				      (json_int_t)rc->runs, "plain", rc->plain));
	json_array_append_new(c->results, r);
	return 0;
}

json_t *cts_sarif_json(const struct cts_report_info *info, const struct cts_explore_result *res,
		       const char *version)
{
	json_t *rl = json_array(), *results = json_array(), *args = json_array();
	struct sarif_ctx sc = { .be = info->backend };

	/* SRCROOT: the working directory, as in a CI job run from the checkout. */
	size_t n = getcwd(sc.root, sizeof(sc.root) - 1) ? strlen(sc.root) : 0;
	if (n && sc.root[n - 1] != '/')
		strcpy(sc.root + n, "/");
	else if (!n)
		sc.root[0] = 0;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		json_array_append_new(rl, json_pack("{s:s,s:s,s:{s:s}}", "id", rules[i].id, "name",
						    rules[i].id, "shortDescription", "text",
						    rules[i].text));
	for (int i = 0; i < res->nbugs; i++)
		if (res->bugs[i].kind != CTS_BUG_DIVERGED && res->bugs[i].kind != CTS_BUG_NONE)
			json_array_append_new(results, bug_result(info, &sc, &res->bugs[i]));
	/* With --races fail a race is an error (it is also a bug above). */
	struct race_ctx rc = { info, &sc, results,
			       info->races && strstr(info->races, "fail") ? "error" : "warning" };
	cts_race_each(res->races, race_result, &rc);
	for (int i = 1; info->argv && info->argv[0] && info->argv[i]; i++)
		json_array_append_new(args, jstr(info->argv[i]));
	json_t *inv = json_pack("{s:b,s:{s:o,s:o}}", "executionSuccessful", !res->internal_error,
				"properties", "program", jstr(info->program), "arguments", args);
	json_t *driver = json_pack("{s:s,s:s,s:o}", "name", "cts-trace", "version", version,
				   "rules", rl);
	json_t *run = json_pack("{s:{s:o},s:[o],s:o}", "tool", "driver", driver, "invocations", inv,
				"results", results);
	if (sc.root[0])
		json_object_set_new(run, "originalUriBaseIds",
				    json_pack("{s:{s:o}}", "SRCROOT", "uri", file_uri(sc.root)));
	json_object_set_new(run, "properties",
			    json_pack("{s:I,s:b,s:o}", "runs", (json_int_t)res->runs, "complete",
				      res->complete, "strategy", jstr(info->strategy)));
	return json_pack("{s:s,s:s,s:[o]}", "$schema",
			 "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0", "runs",
			 run);
}
