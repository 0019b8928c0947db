/* timeout: 60 */
/* models/report: the JSON report read back with jansson, invalid UTF-8
 * made valid, every race with both accesses and its count of runs, and the
 * file handling (atomic replace, symlinks kept, errors before exploring). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/race.h"
#include "models/report.h"
#include "tests/unit/tap.h"

static char DIR_[64];
static char ERR[512];

static const char *path_of(const char *name)
{
	static char p[2][256];
	static int k;
	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", DIR_, name);
	return p[k];
}

static int count_dir_entries(void)
{
	DIR *d = opendir(DIR_);
	int n = 0;
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void utf8_case(const char *in, const char *want, const char *what)
{
	char *got = cts_report_utf8(in);
	tap_ok(strcmp(got, want) == 0, "utf8: %s", what);
	free(got);
}

static void test_utf8(void)
{
	utf8_case("plain /bin/x", "plain /bin/x", "ASCII unchanged");
	utf8_case("caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e",
		  "2-, 3- and 4-byte sequences unchanged");
	utf8_case("a\xff" "b", "a\xef\xbf\xbd" "b", "0xff becomes U+FFFD");
	utf8_case("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "overlong form: one U+FFFD per byte");
	utf8_case("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "surrogate refused");
	utf8_case("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		  "above U+10FFFF refused");
	utf8_case("x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd", "sequence cut by the end of the string");
}

/* ---- a report with bugs and races --------------------------------------- */

static void fake_pc(void *be, uint64_t pc, char *buf, size_t len)
{
	(void)be;
	snprintf(buf, len, "f%" PRIx64 " (x.c:%d)", pc, (int)(pc & 0xff));
}

static void fake_data(void *be, uint64_t addr, char *buf, size_t len)
{
	(void)be;
	snprintf(buf, len, addr == 0x1000 ? "shared" : "");
}

/* pc 0x4011 is f4011+0x11 at x.c:17 in /bin/prog, relative to /src; 0x9999 unknown */
static int fake_info(void *be, uint64_t pc, struct cts_pc_info *out)
{
	(void)be;
	memset(out, 0, sizeof(*out));
	if (pc == 0x9999)
		return -1;
	out->function = "fx";
	out->offset = pc & 0xff;
	out->file = "x.c";
	out->comp_dir = "/src";
	out->line = (int)(pc & 0xff);
	out->module = "/bin/prog";
	return 0;
}


static uint64_t STEP;

static void ev(struct cts_race_detector *d, int tid, cts_op op, int target, uint64_t addr,
	       uint64_t pc)
{
	struct cts_event e = { .tid = tid, .op = op, .obj = addr, .size = addr ? 4 : 0,
			       .pc = pc, .target = target };
	cts_race_observe(d, &e, STEP++);
}

/* Threads 1 and 2 write `shared` unordered; with `race` false thread 2 does not. */
static void racy_run(struct cts_race_detector *d, uint64_t run, bool race)
{
	cts_race_begin_run(d, run);
	STEP = 0;
	ev(d, 0, CTS_OP_START, -1, 0, 0);
	ev(d, 0, CTS_OP_CREATE, 1, 0, 0);
	ev(d, 1, CTS_OP_START, -1, 0, 0);
	ev(d, 0, CTS_OP_CREATE, 2, 0, 0);
	ev(d, 2, CTS_OP_START, -1, 0, 0);
	ev(d, 1, CTS_OP_WRITE, -1, 0x1000, 0x4011);
	if (race) {
		ev(d, 2, CTS_OP_WRITE, -1, 0x1000, 0x4022);
		ev(d, 1, CTS_OP_WRITE, -1, 0x1000, 0x4011); /* the same pair again: one run */
	}
	cts_race_flush(d); /* the explorer's end of a run: candidates become races */
}

static json_t *get(json_t *o, const char *key)
{
	return json_object_get(o, key);
}

static void test_report_content(void)
{
	struct cts_race_detector *d = cts_race_new();
	racy_run(d, 0, true);
	racy_run(d, 1, false);
	racy_run(d, 2, true);
	tap_is_int(cts_race_count(d), 1, "one distinct race over three runs");
	const struct cts_race *r = cts_race_get(d, 0);
	tap_ok(r && r->run == 0 && r->runs == 2, "the race was seen in 2 runs, first in run 0");
	/* What a replay of its run gave (the explorer's explain_races). */
	struct cts_race_detail det = {
		.known = true, .stack1 = { 2, { 0x4011, 0x5020 } }, .stack2 = { 1, { 0x4022 } },
		.parent1 = 0, .created1 = { 1, { 0x6030 } }, .parent2 = -1,
		.block = 0xff8, .block_size = 24, .alloc_tid = 0, .alloc = { 1, { 0x9999 } },
	};
	cts_race_set_detail(d, 0, &det);
	cts_race_set_detail(d, 7, &det); /* out of range: ignored */
	tap_ok(cts_race_get(d, 0)->detail.known && cts_race_get(d, 0)->detail.stack1.n == 2,
	       "a race's detail is set");

	struct cts_bug bug = { .kind = CTS_BUG_DEADLOCK, .run = 3, .steps = 7, .tid = -1,
			       .hits = 2 };
	snprintf(bug.message, sizeof(bug.message), "deadlock on \xff lock");
	snprintf(bug.detail, sizeof(bug.detail), "line1\nline2\n");
	snprintf(bug.schedule_path, sizeof(bug.schedule_path), "out/deadlock-1.sched");
	struct cts_explore_result res = { .runs = 3, .steps = 21, .elapsed = 0.0125, .nbugs = 1,
					  .bugs = &bug, .races = d };
	char *argv[] = { "/bin/prog\xff", "a\xfe", "", NULL };
	struct cts_describer be = { .describe_pc = fake_pc, .describe_data = fake_data,
				    .pc_info = fake_info };
	json_t *stats = json_pack("{si}", "stops", 5);
	struct cts_report_info info = {
		.program = argv[0], .argv = argv, .strategy = "random seed=1", .mode = "break",
		.races = "report", .seed = 1, .self = "/x/cts-trace",
		.backend_json = stats, .backend = &be,
	};
	const char *p = path_of("r.json");
	struct cts_report_out *o = cts_report_open(p, ERR, sizeof(ERR));
	tap_ok(o != NULL, "open a new report file");
	tap_ok(access(p, F_OK) != 0, "  the report itself appears only when written");
	tap_is_int(o ? cts_report_write(o, &info, &res, ERR, sizeof(ERR)) : -1, 0, "write it");
	tap_is_int(count_dir_entries(), 1, "no temporary file left");

	json_error_t jerr;
	json_t *root = json_load_file(p, 0, &jerr);
	tap_ok(root != NULL, "the report parses as JSON%s%s", root ? "" : ": ", root ? "" : jerr.text);
	if (!root)
		goto out;
	tap_ok(strcmp(json_string_value(get(root, "program")), "/bin/prog\xef\xbf\xbd") == 0,
	       "program path: 0xff became U+FFFD");
	json_t *args = get(root, "args");
	tap_ok(json_array_size(args) == 2 &&
	       strcmp(json_string_value(json_array_get(args, 0)), "a\xef\xbf\xbd") == 0 &&
	       strcmp(json_string_value(json_array_get(args, 1)), "") == 0,
	       "arguments after argv[0], invalid bytes replaced, empty kept");
	tap_ok(json_integer_value(get(root, "runs")) == 3 &&
	       json_real_value(get(root, "elapsed_seconds")) == 0.013 &&
	       strcmp(json_string_value(get(root, "races_mode")), "report") == 0 &&
	       json_integer_value(get(get(root, "tracer"), "stops")) == 5,
	       "totals, races_mode and tracer counters");
	json_t *b = json_array_get(get(root, "bugs"), 0);
	tap_ok(b && strcmp(json_string_value(get(b, "kind")), "deadlock") == 0 &&
	       strcmp(json_string_value(get(b, "detail")), "line1\nline2\n") == 0 &&
	       strcmp(json_string_value(get(b, "replay")),
		      "/x/cts-trace --replay out/deadlock-1.sched") == 0 &&
	       json_integer_value(get(b, "hits")) == 2, "the bug with its replay command");
	json_t *races = get(root, "races");
	json_t *r0 = json_array_get(races, 0);
	json_t *a0 = json_array_get(get(r0, "accesses"), 0), *a1 = json_array_get(get(r0, "accesses"), 1);
	tap_ok(json_array_size(races) == 1 && strcmp(json_string_value(get(r0, "variable")), "shared") == 0 &&
	       strcmp(json_string_value(get(r0, "address")), "0x1000") == 0 &&
	       json_integer_value(get(r0, "size")) == 4 && json_integer_value(get(r0, "runs")) == 2 &&
	       json_integer_value(get(r0, "first_run")) == 0, "the race: variable, address, size, runs");
	tap_ok(a0 && a1 && json_integer_value(get(a0, "thread")) == 1 &&
	       strcmp(json_string_value(get(a0, "pc")), "0x4011") == 0 &&
	       strcmp(json_string_value(get(a0, "location")), "f4011 (x.c:17)") == 0 &&
	       json_is_true(get(a0, "write")) && json_integer_value(get(a1, "thread")) == 2 &&
	       strcmp(json_string_value(get(a1, "location")), "f4022 (x.c:34)") == 0 &&
	       strcmp(json_string_value(get(a1, "op")), "write") == 0,
	       "both accesses: thread, op, pc, source line");
	json_t *f = get(a0, "frame");
	tap_ok(f && strcmp(json_string_value(get(f, "pc")), "0x4011") == 0 &&
	       strcmp(json_string_value(get(f, "function")), "fx") == 0 &&
	       json_integer_value(get(f, "offset")) == 0x11 &&
	       strcmp(json_string_value(get(f, "file")), "/src/x.c") == 0 &&
	       json_integer_value(get(f, "line")) == 0x11 &&
	       strcmp(json_string_value(get(f, "module")), "/bin/prog") == 0,
	       "an access's frame object: pc, function, offset, file joined to its directory, line, module");
	tap_ok(json_is_true(get(a0, "previous")) && json_is_false(get(a1, "previous")) &&
	       json_array_size(get(a0, "stack")) == 2 && json_array_size(get(a1, "stack")) == 1 &&
	       strcmp(json_string_value(get(json_array_get(get(a0, "stack"), 1), "pc")), "0x5020") == 0,
	       "the previous access first; each access's stack as frames");
	tap_ok(json_integer_value(get(get(a0, "created_by"), "thread")) == 0 &&
	       json_array_size(get(get(a0, "created_by"), "stack")) == 1 &&
	       json_is_null(get(a1, "created_by")), "thread 1's creation; thread 2's unseen: null");
	json_t *hb = get(r0, "heap_block");
	json_t *af = json_array_get(get(hb, "stack"), 0);
	tap_ok(hb && strcmp(json_string_value(get(hb, "address")), "0xff8") == 0 &&
	       json_integer_value(get(hb, "offset")) == 8 && json_integer_value(get(hb, "size")) == 24 &&
	       json_integer_value(get(hb, "allocated_by")) == 0 && af &&
	       json_is_null(get(af, "function")) && json_is_null(get(af, "line")),
	       "the heap block: address, offset, size, allocated_by, a stack frame unknown to the backend");
	json_decref(root);
out:
	/* Written again: the old file is replaced whole. */
	res.races = NULL;
	res.nbugs = 0;
	o = cts_report_open(p, ERR, sizeof(ERR));
	tap_ok(o && cts_report_write(o, &info, &res, ERR, sizeof(ERR)) == 0, "replace the report");
	root = json_load_file(p, 0, &jerr);
	tap_ok(root && json_array_size(get(root, "bugs")) == 0 && json_array_size(get(root, "races")) == 0,
	       "the new report has no bugs and no races");
	json_decref(root);
	json_decref(stats);
	unlink(p);
	cts_race_free(d);
}

static void test_report_files(void)
{
	struct cts_explore_result res = { .runs = 1 };
	struct cts_report_info info = { .program = "/p", .mode = "sync", .strategy = "dfs" };
	struct cts_report_out *o;

	o = cts_report_open(DIR_, ERR, sizeof(ERR));
	tap_ok(!o && strstr(ERR, "is a directory"), "a directory is refused: %s", ERR);
	o = cts_report_open(path_of("no/such/r.json"), ERR, sizeof(ERR));
	tap_ok(!o && strstr(ERR, "No such file"), "a missing directory is refused at open: %s", ERR);
	o = cts_report_open(path_of("gone.json"), ERR, sizeof(ERR));
	cts_report_discard(o);
	tap_is_int(count_dir_entries(), 0, "a discarded report leaves nothing");

	/* A symlink to a regular file: the link stays, its target is written. */
	FILE *f = fopen(path_of("target.json"), "w");
	fputs("old\n", f);
	fclose(f);
	if (symlink("target.json", path_of("link.json")) != 0)
		tap_diag("symlink: %s", strerror(errno));
	o = cts_report_open(path_of("link.json"), ERR, sizeof(ERR));
	tap_ok(o && cts_report_write(o, &info, &res, ERR, sizeof(ERR)) == 0, "write through a symlink");
	struct stat sb;
	tap_ok(lstat(path_of("link.json"), &sb) == 0 && S_ISLNK(sb.st_mode), "  the symlink is still one");
	json_t *root = json_load_file(path_of("target.json"), 0, NULL);
	tap_ok(root && json_integer_value(json_object_get(root, "runs")) == 1, "  its target has the report");
	json_decref(root);
	unlink(path_of("link.json"));
	unlink(path_of("target.json"));

	/* A device is written in place; a full one is an error. */
	o = cts_report_open("/dev/full", ERR, sizeof(ERR));
	tap_ok(o != NULL, "/dev/full opens (in place)");
	int rc = o ? cts_report_write(o, &info, &res, ERR, sizeof(ERR)) : 0;
	tap_ok(rc == -1 && strstr(ERR, "No space left"), "writing to /dev/full fails: %s", ERR);
	tap_ok(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode), "/dev/full is still a device");
	o = cts_report_open("/dev/null", ERR, sizeof(ERR));
	tap_ok(o && cts_report_write(o, &info, &res, ERR, sizeof(ERR)) == 0 &&
	       stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode), "/dev/null: written in place");

	/* /proc/self/fd/N: the descriptor itself, at its offset, not truncated. */
	int fds[2];
	char path[64], buf[4096];
	if (pipe(fds) == 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[1]);
		o = cts_report_open(path, ERR, sizeof(ERR));
		tap_ok(o && cts_report_write(o, &info, &res, ERR, sizeof(ERR)) == 0,
		       "write to %s", path);
		close(fds[1]);
		ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		root = json_loads(buf, 0, NULL);
		tap_ok(root != NULL, "  the pipe got the report");
		json_decref(root);
		close(fds[0]);
	}
	o = cts_report_open("/dev/fd/999", ERR, sizeof(ERR));
	tap_ok(!o && strstr(ERR, "Bad file descriptor"), "a closed descriptor: %s", ERR);

	/* A FIFO nobody reads is refused at open instead of hanging. */
	mkfifo(path_of("fifo"), 0600);
	o = cts_report_open(path_of("fifo"), ERR, sizeof(ERR));
	tap_ok(!o && strstr(ERR, "nobody reads it"), "a FIFO without a reader: %s", ERR);
	unlink(path_of("fifo"));
}

int main(void)
{
	snprintf(DIR_, sizeof(DIR_), "/tmp/cts-test-report.XXXXXX");
	if (!mkdtemp(DIR_)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	test_utf8();
	test_report_content();
	test_report_files();
	tap_is_int(count_dir_entries(), 0, "temporary directory left empty");
	rmdir(DIR_);
	return tap_done();
}
