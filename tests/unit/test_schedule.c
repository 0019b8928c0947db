/* timeout: 60 */
/* models/schedule: save/load round trips through real files in a private
 * temporary directory, and every kind of corrupt file gives one line of
 * "FILE:LINE: reason". */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "models/schedule.h"
#include "tests/unit/tap.h"

static char DIR_[64];
static char ERR[512];

static const char *path_of(const char *name)
{
	static char p[256];
	snprintf(p, sizeof(p), "%s/%s", DIR_, name);
	return p;
}

static int write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, n, f);
	return fclose(f) == 0 && w == n ? 0 : -1;
}

static int same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Field-by-field equality of everything the file carries. */
static int same_schedule(const struct cts_schedule *a, const struct cts_schedule *b)
{
	if (!same_str(a->program, b->program) || !same_str(a->mode, b->mode) ||
	    !same_str(a->strategy, b->strategy) || !same_str(a->bug, b->bug) ||
	    !same_str(a->hot_lines, b->hot_lines) || !same_str(a->exec_path, b->exec_path) ||
	    !same_str(a->argv0, b->argv0) || !same_str(a->cwd, b->cwd) ||
	    !same_str(a->binary, b->binary) || !same_str(a->env, b->env) || !same_str(a->stdio, b->stdio) ||
	    a->argc != b->argc || a->n != b->n)
		return 0;
	for (int i = 0; i < a->argc; i++)
		if (!same_str(a->argv[i], b->argv[i]))
			return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->steps[i].tid != b->steps[i].tid || a->steps[i].op != b->steps[i].op ||
		    a->steps[i].obj != b->steps[i].obj)
			return 0;
	return 1;
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

static void test_round_trip(void)
{
	char *args[] = {
		"plain", "two words", "100%", "%41", "%00", "line1\nline2", "",
		"tab\there", "caf\xc3\xa9 \xff\x01\x7f", "#not-a-comment", "end", "  lead",
	};
	int nargs = (int)(sizeof(args) / sizeof(args[0]));
	struct cts_schedule *s = cts_schedule_new(), *l = NULL;

	cts_schedule_set(&s->program, "/tmp/dir with space/prog%1");
	cts_schedule_set_args(s, nargs, args);
	cts_schedule_set(&s->mode, "break");
	cts_schedule_set(&s->strategy, "pct depth=3 seed=42");
	cts_schedule_set(&s->bug, "deadlock: mutex 0x404080 held by thread 1\r\n(cycle)");
	cts_schedule_set(&s->hot_lines, "0x404040,0x404080");
	cts_schedule_set(&s->exec_path, "./link to prog");
	cts_schedule_set(&s->argv0, " plzip%");
	cts_schedule_set(&s->cwd, "/tmp/dir with space");
	cts_schedule_set(&s->binary, "size=18512 fnv1a=2d5160497d807946");
	cts_schedule_set(&s->env, "count=37 bytes=1375 fnv1a=f12a42ab6a263ddb");
	cts_schedule_set(&s->stdio, "null pipe");
	cts_schedule_add(s, 0, CTS_OP_START, 0);
	cts_schedule_add(s, 0, CTS_OP_CREATE, 0);
	cts_schedule_add(s, 1, CTS_OP_LOCK, 0x404080);
	cts_schedule_add(s, 127, CTS_OP_WRITE, UINT64_MAX);
	cts_schedule_add(s, 2, CTS_OP_COND_REACQUIRE, 0x7ffff7dd1000);
	cts_schedule_add(s, 1, CTS_OP_RESUME, 1);
	for (int i = 0; i < 600; i++) /* past the initial step capacity */
		cts_schedule_add(s, i % 3, i % 2 ? CTS_OP_READ : CTS_OP_ATOMIC, 0x1000 + (uint64_t)i);

	const char *p = path_of("full.sched");
	tap_is_int(cts_schedule_save(s, p), 0, "save a full schedule");
	tap_is_int(count_dir_entries(), 1, "save leaves no temporary file behind");
	int rc = cts_schedule_load(p, &l, ERR, sizeof(ERR));
	tap_is_int(rc, 0, "load it back");
	if (rc)
		tap_diag("%s", ERR);
	tap_ok(l && same_schedule(s, l), "round trip is identical (program, exec, argv0, args, cwd, binary, env, stdio, mode, strategy, bug, hot lines, steps)");
	if (l) {
		tap_is_int(l->argc, nargs, "all %d args back", nargs);
		tap_ok(l->argc == nargs && l->argv[nargs] == NULL, "argv is NULL-terminated");
		tap_ok(l->argc == nargs && strcmp(l->argv[5], "line1\nline2") == 0,
		       "newline inside an arg survives");
		tap_ok(l->argc == nargs && l->argv[6][0] == 0, "empty arg survives as empty");
		tap_ok(l->argc == nargs && strcmp(l->argv[4], "%00") == 0,
		       "literal '%%00' arg is not confused with the empty marker");
		tap_ok(l->n == s->n && l->steps[3].obj == UINT64_MAX && l->steps[3].tid == 127,
		       "64-bit object and thread 127 survive");
	}

	/* Saving over an existing file replaces it. */
	cts_schedule_clear_steps(s);
	cts_schedule_add(s, 1, CTS_OP_UNLOCK, 0x10);
	cts_schedule_free(l);
	l = NULL;
	tap_is_int(cts_schedule_save(s, p), 0, "save over the existing file");
	rc = cts_schedule_load(p, &l, ERR, sizeof(ERR));
	tap_ok(rc == 0 && l && l->n == 1 && l->steps[0].op == CTS_OP_UNLOCK &&
	       same_schedule(s, l), "the new content replaced the old");
	cts_schedule_free(l);
	cts_schedule_free(s);
	unlink(p);
}

static void test_minimal_round_trip(void)
{
	struct cts_schedule *s = cts_schedule_new(), *l = NULL;
	const char *p = path_of("min.sched");

	tap_is_int(cts_schedule_save(s, p), 0, "save an empty schedule (no program, no steps)");
	int rc = cts_schedule_load(p, &l, ERR, sizeof(ERR));
	tap_is_int(rc, 0, "load the empty schedule");
	tap_ok(l && !l->program && !l->mode && !l->strategy && !l->bug && l->argc == 0 && l->n == 0,
	       "absent fields stay absent, zero steps");
	cts_schedule_free(l);
	cts_schedule_free(s);
	unlink(p);

	errno = 0;
	s = cts_schedule_new();
	tap_is_int(cts_schedule_save(s, path_of("no/such/dir/x.sched")), -1,
		   "save into a missing directory fails");
	tap_is_int(errno, ENOENT, "  with errno ENOENT");
	cts_schedule_free(s);
}

/* Whatever save writes, load must read back unchanged; refusing to save is
 * the only acceptable alternative. */
static void long_value_case(size_t len, int ch, const char *what)
{
	struct cts_schedule *s = cts_schedule_new(), *l = NULL;
	char *v = malloc(len + 1);
	memset(v, ch, len);
	v[len] = 0;
	char *argv[] = { v };
	cts_schedule_set_args(s, 1, argv);
	cts_schedule_add(s, 0, CTS_OP_START, 0);
	const char *p = path_of("long.sched");
	if (cts_schedule_save(s, p) != 0) {
		tap_ok(1, "long arg (%s): save refuses it", what);
	} else {
		int rc = cts_schedule_load(p, &l, ERR, sizeof(ERR));
		if (rc)
			tap_diag("load: %s", ERR);
		else if (l->argc == 1 && strlen(l->argv[0]) != len)
			tap_diag("arg came back with %zu bytes instead of %zu", strlen(l->argv[0]), len);
		tap_ok(rc == 0 && same_schedule(s, l), "long arg (%s) round-trips", what);
	}
	cts_schedule_free(l);
	cts_schedule_free(s);
	free(v);
	unlink(p);
}

static void test_long_values(void)
{
	long_value_case(900, 'a', "900 chars");
	long_value_case(1010, 'a', "1010 chars, line still under 1024");
	long_value_case(4000, 'b', "4000 chars, a PATH_MAX-sized value");
	long_value_case(400, 0xe9, "400 non-ASCII bytes, 1200 escaped");
}

/* Loads `text` as file `name` and checks a one-line "PATH:LINE: ...phrase..." error. */
static void bad_case(const char *name, const char *text, size_t n, int line, const char *phrase)
{
	char path[256], prefix[300];
	struct cts_schedule *l = NULL;

	snprintf(path, sizeof(path), "%s", path_of(name));
	if (write_file(path, text, n) != 0) {
		tap_ok(0, "%s: write test file", name);
		return;
	}
	ERR[0] = 0;
	int rc = cts_schedule_load(path, &l, ERR, sizeof(ERR));
	tap_ok(rc == -1 && l == NULL, "%s: rejected", name);
	if (line >= 0)
		snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", path);
	int ok = strncmp(ERR, prefix, strlen(prefix)) == 0 && strstr(ERR, phrase) &&
		 !strchr(ERR, '\n') && strlen(ERR) < 200;
	tap_ok(ok, "%s: one-line error starts '%s' and says '%s'", name, prefix, phrase);
	if (!ok)
		tap_diag("  got: %s", ERR);
	cts_schedule_free(l);
	unlink(path);
}

#define BAD(name, text, line, phrase) bad_case(name, text, sizeof(text) - 1, line, phrase)
#define HDR "cts-schedule 1\n"

static void test_corrupt_files(void)
{
	BAD("empty", "", 0, "empty file");
	BAD("only-comments", "# nothing\n\n", 2, "empty file");
	BAD("wrong-first-line", "hello world\n", 1, "not a cts schedule");
	BAD("header-junk", "cts-schedule 1 please\n", 1, "not a cts schedule");
	BAD("version-2", "cts-schedule 2\nsteps 0\nend\n", 1, "version 2 not supported");
	BAD("unknown-key", HDR "mode sync\ncolour red\nsteps 0\nend\n", 3, "unknown key 'colour'");
	BAD("key-without-value", HDR "program\nsteps 0\nend\n", 2, "malformed line");
	BAD("malformed-step", HDR "steps 1\n0 1 lock\nend\n", 3, "malformed step");
	BAD("step-trailing-junk", HDR "steps 1\n0 1 lock 0x10 extra\nend\n", 3, "malformed step");
	BAD("step-bad-object", HDR "steps 1\n0 1 lock zz\nend\n", 3, "malformed step");
	BAD("step-out-of-order", HDR "steps 2\n0 0 start 0x0\n2 0 lock 0x1\nend\n", 4,
	    "step 2 out of order (expected 1)");
	BAD("thread-out-of-range", HDR "steps 1\n0 16777216 lock 0x1\nend\n", 3,
	    "thread 16777216 out of range");
	BAD("thread-negative", HDR "steps 1\n0 -1 lock 0x1\nend\n", 3, "thread -1 out of range");
	BAD("unknown-operation", HDR "steps 1\n0 1 frobnicate 0x1\nend\n", 3,
	    "unknown operation 'frobnicate'");
	BAD("step-before-steps", HDR "0 0 start 0x0\nsteps 1\nend\n", 2, "before the 'steps' line");
	BAD("missing-steps", HDR "mode sync\nend\n", 3, "no 'steps' line");
	BAD("bad-step-count", HDR "steps many\nend\n", 2, "bad step count 'many'");
	BAD("negative-step-count", HDR "steps -3\nend\n", 2, "bad step count");
	BAD("truncated", HDR "steps 2\n0 0 start 0x0\n1 0 lock 0x4", 4, "truncated");
	BAD("truncated-no-newline-end", HDR "steps 1\n0 0 start 0x0\nen", 4, "malformed line");
	BAD("count-too-high", HDR "steps 3\n0 0 start 0x0\n1 0 lock 0x4\nend\n", 5,
	    "'steps 3' but 2 steps present");
	BAD("count-too-low", HDR "steps 1\n0 0 start 0x0\n1 0 lock 0x4\nend\n", 5,
	    "'steps 1' but 2 steps present");
	BAD("text-after-end", HDR "steps 0\nend\nmode sync\n", 4, "text after 'end'");
	BAD("bad-escape-hex", HDR "arg %zz\nsteps 0\nend\n", 2, "bad %-escape in '%zz'");
	BAD("bad-escape-short", HDR "arg ab%4\nsteps 0\nend\n", 2, "bad %-escape");
	BAD("bad-escape-nul", HDR "arg a%00b\nsteps 0\nend\n", 2, "bad %-escape");
	BAD("binary-nul", "cts-schedule 1\n\x00\x01\x02\xff" "steps 0\nend\n", -1, "binary data");
	BAD("binary-high-bytes", "\x7f" "ELF\x02\x01\x01\xff\xfe\n", 1, "not a cts schedule");

	/* A line over the 1 MiB limit, after a valid header. */
	size_t bigcap = (2u << 20) + 100;
	char *big = malloc(bigcap);
	size_t n = (size_t)snprintf(big, bigcap, HDR "arg ");
	memset(big + n, 'x', 2u << 20);
	n += 2u << 20;
	big[n++] = '\n';
	bad_case("overlong-line", big, n, 2, "line too long");
	free(big);

	struct cts_schedule *l = NULL;
	const char *missing = path_of("does-not-exist.sched");
	int rc = cts_schedule_load(missing, &l, ERR, sizeof(ERR));
	tap_ok(rc == -1 && l == NULL, "nonexistent file: rejected");
	tap_ok(strstr(ERR, missing) && strstr(ERR, "No such file") && !strchr(ERR, '\n'),
	       "nonexistent file: error names the file and the reason");
	if (!strstr(ERR, missing))
		tap_diag("  got: %s", ERR);
}

static void test_parse_details(void)
{
	struct cts_schedule *l = NULL;
	const char *crlf = "# saved on another system\r\n\r\ncts-schedule 1\r\nprogram /bin/x\r\n"
			   "arg a%20b\r\nsteps 2\r\n0 0 start 0x0\r\n1 0 lock 0X4AF\r\nend\r\n";

	int rc = cts_schedule_parse(crlf, "crlf", &l, ERR, sizeof(ERR));
	tap_is_int(rc, 0, "CRLF line ends and leading comments are accepted");
	if (rc)
		tap_diag("%s", ERR);
	tap_ok(l && strcmp(l->program, "/bin/x") == 0 && l->argc == 1 &&
	       strcmp(l->argv[0], "a b") == 0 && l->n == 2 && l->steps[1].op == CTS_OP_LOCK &&
	       l->steps[1].obj == 0x4af, "  and give the right fields");
	cts_schedule_free(l);
	l = NULL;

	/* A tiny error buffer is filled, truncated, and still terminated. */
	char small[12];
	memset(small, 'Z', sizeof(small));
	rc = cts_schedule_parse("nonsense\n", "file", &l, small, 8);
	tap_ok(rc == -1 && strlen(small) < 8 && small[8] == 'Z',
	       "error is truncated to the buffer size");

	rc = cts_schedule_parse(HDR "steps 0\nend\n# trailing comment\n\n", "ok", &l, ERR, sizeof(ERR));
	tap_ok(rc == 0 && l && l->n == 0, "comments and blank lines after 'end' are fine");
	cts_schedule_free(l);
}

/* Issue 17 (10): the run options round-trip, and bad values are refused. */
static void test_options(void)
{
	struct cts_schedule *s = cts_schedule_new(), *l = NULL, *c = cts_schedule_new();
	const char *p = path_of("options.sched");

	tap_ok(s->timeout < 0 && s->fail_on_exit < 0 && !s->races && !s->max_steps &&
	       !s->quiet_repeats, "a new schedule records no options");
	s->quiet_repeats = true;
	cts_schedule_set(&s->races, "fail");
	s->max_steps = 1234;
	s->timeout = 0.25;
	s->fail_on_exit = 1;
	tap_is_int(cts_schedule_add_watch(s, "counter:4"), 0, "add a watch");
	tap_is_int(cts_schedule_add_watch(s, "0x601040:8"), 0, "add another watch");
	tap_is_int(cts_schedule_add_trace_lib(s, "lib with space%"), 0, "add a trace-lib");
	for (int i = 2; i < 4; i++)
		cts_schedule_add_watch(s, "w:1");
	tap_is_int(cts_schedule_add_watch(s, "fifth"), -1, "a fifth watch is refused");
	tap_is_int(cts_schedule_save(s, p), 0, "save with options");
	int rc = cts_schedule_load(p, &l, ERR, sizeof(ERR));
	tap_is_int(rc, 0, "load with options");
	if (rc)
		tap_diag("%s", ERR);
	tap_ok(l && strcmp(l->races, "fail") == 0 && l->max_steps == 1234 && l->timeout == 0.25 &&
	       l->fail_on_exit == 1 && l->nwatch == 4 && strcmp(l->watch[1], "0x601040:8") == 0 &&
	       l->ntrace_libs == 1 && strcmp(l->trace_libs[0], "lib with space%") == 0 &&
	       l->quiet_repeats,
	       "races, max-steps, timeout, fail-on-exit, watch, trace-lib and repeats round-trip");
	cts_schedule_copy_options(c, s);
	tap_ok(strcmp(c->races, "fail") == 0 && c->max_steps == 1234 && c->nwatch == 4 &&
	       c->ntrace_libs == 1 && c->fail_on_exit == 1 && c->quiet_repeats && !c->program,
	       "copy_options copies the options and nothing else");
	cts_schedule_free(l);
	cts_schedule_free(c);
	cts_schedule_free(s);
	unlink(p);

	BAD("races-bad", HDR "races sometimes\nsteps 0\nend\n", 2, "races wants off, report, fail, catch or catch-fail");
	BAD("timeout-nan", HDR "timeout nan\nsteps 0\nend\n", 2, "bad timeout 'nan'");
	BAD("timeout-inf", HDR "timeout 1e999\nsteps 0\nend\n", 2, "bad timeout");
	BAD("timeout-negative", HDR "timeout -1\nsteps 0\nend\n", 2, "bad timeout");
	BAD("max-steps-zero", HDR "max-steps 0\nsteps 0\nend\n", 2, "bad max-steps '0'");
	BAD("fail-on-exit-bad", HDR "fail-on-exit maybe\nsteps 0\nend\n", 2, "yes or no");
	BAD("too-many-watches", HDR "watch a\nwatch b\nwatch c\nwatch d\nwatch e\nsteps 0\nend\n",
	    6, "watch: empty or more than 4");
	BAD("empty-trace-lib", HDR "trace-lib %00\nsteps 0\nend\n", 2, "trace-lib: empty");
}

/* Issue 17 (5): bug schedules get fresh names and never replace a file. */
static void test_save_new(void)
{
	struct cts_schedule *s = cts_schedule_new(), *l = NULL;
	char p1[512], p2[512], p3[512];

	cts_schedule_set(&s->program, "/first");
	tap_is_int(cts_schedule_save_new(s, DIR_, "deadlock", p1, sizeof(p1)), 0, "save_new");
	tap_ok(strcmp(p1, path_of("deadlock-1.sched")) == 0, "first name is deadlock-1.sched");
	cts_schedule_set(&s->program, "/second");
	tap_is_int(cts_schedule_save_new(s, DIR_, "deadlock", p2, sizeof(p2)), 0, "save_new again");
	tap_ok(strcmp(p2, path_of("deadlock-2.sched")) == 0, "second name is deadlock-2.sched");
	int rc = cts_schedule_load(p1, &l, ERR, sizeof(ERR));
	tap_ok(rc == 0 && strcmp(l->program, "/first") == 0, "deadlock-1.sched kept its program");
	cts_schedule_free(l);
	unlink(p1);
	tap_is_int(cts_schedule_save_new(s, DIR_, "deadlock", p3, sizeof(p3)), 0, "a third one");
	tap_ok(strcmp(p3, p1) == 0, "a freed name is taken again");
	tap_is_int(count_dir_entries(), 2, "no temporary file left behind");
	errno = 0;
	tap_is_int(cts_schedule_save_new(s, path_of("no/such"), "x", p3, sizeof(p3)), -1,
		   "save_new into a missing directory fails");
	tap_is_int(errno, ENOENT, "  with ENOENT");
	unlink(p2);
	unlink(p3);
	cts_schedule_free(s);
}

/* Issue 17 (7): what cannot be bounded is refused before it is read. */
static void test_bounded_load(void)
{
	struct cts_schedule *l = NULL;

	int rc = cts_schedule_load("/dev/zero", &l, ERR, sizeof(ERR));
	tap_ok(rc == -1 && strstr(ERR, "not a regular file"), "/dev/zero is refused: %s", ERR);
	rc = cts_schedule_load(DIR_, &l, ERR, sizeof(ERR));
	tap_ok(rc == -1 && strstr(ERR, "not a regular file"), "a directory is refused: %s", ERR);

	/* A pipe is read, stopping at the first block of binary data. */
	int fds[2];
	if (pipe(fds) != 0) {
		tap_ok(0, "pipe");
		return;
	}
	static const char text[] = "cts-schedule 1\nsteps 1\n0 0 start 0x0\nend\n";
	tap_ok(write(fds[1], text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1, "fill a pipe");
	close(fds[1]);
	char dev[64];
	snprintf(dev, sizeof(dev), "/proc/self/fd/%d", fds[0]);
	rc = cts_schedule_load(dev, &l, ERR, sizeof(ERR));
	tap_ok(rc == 0 && l && l->n == 1, "a schedule is read from a pipe");
	cts_schedule_free(l);
	l = NULL;
	close(fds[0]);
	if (pipe(fds) != 0)
		return;
	char zeros[4096] = { 0 };
	tap_ok(write(fds[1], zeros, sizeof(zeros)) == (ssize_t)sizeof(zeros), "a pipe of NULs");
	snprintf(dev, sizeof(dev), "/proc/self/fd/%d", fds[0]);
	rc = cts_schedule_load(dev, &l, ERR, sizeof(ERR));
	tap_ok(rc == -1 && strstr(ERR, "binary data"), "binary data in a pipe is refused at once");
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	snprintf(DIR_, sizeof(DIR_), "/tmp/cts-test-schedule.XXXXXX");
	if (!mkdtemp(DIR_)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	test_round_trip();
	test_minimal_round_trip();
	test_long_values();
	test_corrupt_files();
	test_parse_details();
	test_options();
	test_save_new();
	test_bounded_load();
	tap_is_int(count_dir_entries(), 0, "temporary directory left empty");
	rmdir(DIR_);
	return tap_done();
}
