/* timeout: 60 */
/* tracer/cli: the command line parsed without running anything. Every
 * refusal is one line naming the option; limits are the documented ones. */
#include <stdarg.h>
#include <string.h>

#include "tracer/cli.h"
#include "tests/unit/tap.h"

static char ERR[512];
static struct cts_cli C;

/* Parse a NULL-terminated list of arguments (argv[0] is added). */
static enum cts_cli_status parse(const char *first, ...)
{
	static char *argv[64];
	int argc = 0;
	va_list ap;
	argv[argc++] = "cts-trace";
	va_start(ap, first);
	for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return cts_cli_parse(argc, argv, &C, ERR, sizeof(ERR));
}

/* A usage error whose one-line message contains phrase. */
static void refused(enum cts_cli_status st, const char *phrase, const char *what)
{
	tap_ok(st == CTS_CLI_USAGE && strstr(ERR, phrase) && !strchr(ERR, '\n'),
	       "%s: refused, says '%s'", what, phrase);
	if (st != CTS_CLI_USAGE || !strstr(ERR, phrase))
		tap_diag("  status %d, message: %s", st, ERR);
}

static void test_defaults(void)
{
	tap_is_int(parse("./prog", "a", "-n", "5", NULL), CTS_CLI_RUN, "program only: run");
	tap_ok(strcmp(C.strategy, "random") == 0 && C.runs == 1000 && C.seed == 1 && C.depth == 3 &&
	       C.bound == 1 && C.max_steps == 100000 && C.timeout == 10 && C.time_limit == 0 &&
	       C.races == -1 && !C.mode && strcmp(C.out_dir, "cts-out") == 0 && !C.report &&
	       !C.replay && C.verbosity == 1 && !C.runs_given && !C.max_steps_given,
	       "defaults are the documented ones");
	tap_ok(C.prog_argc == 4 && strcmp(C.prog_argv[0], "./prog") == 0 &&
	       strcmp(C.prog_argv[3], "5") == 0 && !C.prog_argv[4],
	       "options after the program belong to it");
	tap_is_int(parse("--replay", "x.sched", NULL), CTS_CLI_RUN, "--replay needs no program");
	tap_ok(!C.prog_argv && strcmp(C.replay, "x.sched") == 0, "  and has none");
	refused(parse(NULL), "no program given", "no program");
	tap_is_int(parse("-h", NULL), CTS_CLI_HELP, "-h");
	tap_is_int(parse("--version", "prog", NULL), CTS_CLI_VERSION, "--version");
	/* getopt's state is reset between calls. */
	parse("-n", "7", "prog", NULL);
	tap_ok(parse("-n", "9", "prog", NULL) == CTS_CLI_RUN && C.runs == 9 && C.runs_given,
	       "a second parse starts over");
}

static void test_numbers(void)
{
	tap_ok(parse("--seed", "0x10", "--runs", "0", "--depth", "64", "--bound", "0",
		     "--max-steps", "1", "--timeout", "0", "-t", "2.5", "p", NULL) == CTS_CLI_RUN &&
	       C.seed == 16 && C.runs == 0 && C.depth == 64 && C.bound == 0 && C.max_steps == 1 &&
	       C.timeout == 0 && C.time_limit == 2.5 && C.max_steps_given && C.timeout_given,
	       "edge values and hex are accepted");
	refused(parse("--timeout", "nan", "p", NULL), "--timeout wants seconds", "--timeout nan");
	refused(parse("--timeout", "inf", "p", NULL), "--timeout wants seconds", "--timeout inf");
	refused(parse("--time", "nan", "p", NULL), "--time wants seconds", "--time nan");
	refused(parse("--time", "-1", "p", NULL), "--time wants seconds", "--time -1");
	refused(parse("--timeout", "2e9", "p", NULL), "from 0 to 1000000000", "--timeout 2e9");
	refused(parse("--timeout", "", "p", NULL), "--timeout wants", "--timeout ''");
	refused(parse("--depth", "-1", "p", NULL), "--depth wants a whole number from 1 to 64",
		"--depth -1");
	refused(parse("--depth", "65", "p", NULL), "from 1 to 64", "--depth 65");
	refused(parse("--bound", "1001", "p", NULL), "from 0 to 1000", "--bound 1001");
	refused(parse("--max-steps", "0", "p", NULL), "--max-steps wants", "--max-steps 0");
	refused(parse("--max-steps", "-5", "p", NULL), "--max-steps wants", "--max-steps -5");
	tap_ok(parse("p", NULL) == CTS_CLI_RUN && C.max_threads == 65536 &&
	       parse("--max-threads", "16777216", "p", NULL) == CTS_CLI_RUN &&
	       C.max_threads == 16777216, "--max-threads: default 65536, 16777216 accepted");
	refused(parse("--max-threads", "0", "p", NULL), "--max-threads wants a whole number from 1 to 16777216",
		"--max-threads 0");
	refused(parse("--max-threads", "16777217", "p", NULL), "--max-threads wants",
		"--max-threads beyond the ceiling");
	refused(parse("-n", " 5", "p", NULL), "--runs wants", "--runs ' 5'");
	refused(parse("-n", "5x", "p", NULL), "--runs wants", "--runs 5x");
	refused(parse("--seed", "99999999999999999999", "p", NULL), "--seed wants",
		"--seed beyond 64 bits");
}

static void test_words(void)
{
	refused(parse("-m", "fast", "p", NULL), "unknown mode 'fast'", "--mode fast");
	refused(parse("--races", "maybe", "p", NULL), "off, report, fail, catch or catch-fail",
		"--races maybe");
	tap_ok(parse("--races", "catch", "p", NULL) == CTS_CLI_RUN && C.races == CTS_RACES_CATCH &&
	       C.catch_sites == 64 && C.catch_window == 8, "--races catch, default sample and window");
	tap_ok(parse("--races", "catch-fail", "--catch-sites", "0", "--catch-window", "3", "p", NULL) ==
	       CTS_CLI_RUN && C.races == CTS_RACES_CATCH_FAIL && C.catch_sites == 0 &&
	       C.catch_window == 3, "--races catch-fail --catch-sites 0 --catch-window 3");
	refused(parse("--catch-window", "0", "p", NULL), "--catch-window wants", "--catch-window 0");
	tap_ok(parse("--watch-backend", "breakpoints", "p", NULL) == CTS_CLI_RUN &&
	       C.watch_backend == 2, "--watch-backend breakpoints");
	refused(parse("--watch-backend", "dr", "p", NULL), "auto, hardware or breakpoints",
		"--watch-backend dr");
	tap_ok(parse("--races", "fail", "-m", "sync", "p", NULL) == CTS_CLI_RUN && C.races == 2 &&
	       strcmp(C.mode, "sync") == 0, "--races fail -m sync");
	refused(parse("--out", "", "p", NULL), "--out: empty", "--out ''");
	refused(parse("--report", "", "p", NULL), "--report: empty", "--report ''");
	refused(parse("--replay", "", NULL), "--replay: empty", "--replay ''");
	refused(parse("--trace-lib", "", "p", NULL), "--trace-lib: empty", "--trace-lib ''");
	tap_ok(parse("--report", "-", "p", NULL) == CTS_CLI_RUN && strcmp(C.report, "-") == 0,
	       "--report - is standard output");
	refused(parse("--frobnicate", "p", NULL), "unknown option '--frobnicate'", "unknown option");
	refused(parse("--ti", "3", "p", NULL), "'--ti' is ambiguous", "ambiguous prefix");
	refused(parse("--keep-going=yes", "p", NULL), "'--keep-going' takes no argument",
		"argument to a flag");
	refused(parse("-n", NULL), "'-n' needs an argument", "missing argument");
	refused(parse("-Z", "p", NULL), "unknown option '-Z'", "unknown short option");
	refused(parse("-\n", "p", NULL), "unknown option '-?'", "a newline is not echoed");
	tap_ok(parse("-qv", "p", NULL) == CTS_CLI_RUN && C.verbosity == 2, "-q then -v: verbose");
}

static void test_watch(void)
{
	struct cts_watch_spec w;
	tap_ok(cts_cli_parse_watch("counter", &w, ERR, sizeof(ERR)) == 0 && !w.is_addr &&
	       strcmp(w.name, "counter") == 0 && w.len == 0, "a symbol, no length");
	tap_ok(cts_cli_parse_watch("counter:2", &w, ERR, sizeof(ERR)) == 0 && w.len == 2,
	       "a symbol with a length");
	tap_ok(cts_cli_parse_watch("0x601040", &w, ERR, sizeof(ERR)) == 0 && w.is_addr &&
	       w.addr == 0x601040 && w.len == 8, "an address: 8 bytes by default");
	tap_ok(cts_cli_parse_watch("6295620:4", &w, ERR, sizeof(ERR)) == 0 && w.addr == 6295620 &&
	       w.len == 4, "a decimal address with a length");
	static const struct { const char *spec, *why; } bad[] = {
		{ "0x0", "null page" },
		{ "0x10:1", "null page" },
		{ "0xffffffffffffffff:8", "not aligned" },
		{ "0xfffffffffffff000:8", "outside user space" },
		{ "0x7ffffffff000:8", "outside user space" },
		{ "0x601001:4", "not aligned" },
		{ "0x601004", "give the length" },
		{ "0x601000:3", "length must be 1, 2, 4 or 8" },
		{ "counter:16", "length must be 1, 2, 4 or 8" },
		{ "counter:", "length must be 1, 2, 4 or 8" },
		{ ":4", "no symbol or address" },
		{ "", "no symbol or address" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ERR[0] = 0;
		int rc = cts_cli_parse_watch(bad[i].spec, &w, ERR, sizeof(ERR));
		tap_ok(rc == -1 && strstr(ERR, bad[i].why), "--watch '%s': refused, %s", bad[i].spec,
		       bad[i].why);
		if (rc != -1 || !strstr(ERR, bad[i].why))
			tap_diag("  got: %s", ERR);
	}
	refused(parse("--watch", "0x0", "p", NULL), "null page", "--watch 0x0 on the command line");
	refused(parse("--watch", "a", "--watch", "b", "--watch", "c", "--watch", "d", "--watch",
		      "e", "p", NULL), "at most 4", "a fifth --watch");
}

static void test_active(void)
{
	tap_ok(parse("-s", "racefuzzer", "--tries", "7", "--suspects", "s.json", "--break",
		     "a.c:3,b.c:4", "--break", "f+0x10", "p", NULL) == CTS_CLI_RUN && C.tries == 7 &&
	       C.nbreaks == 2 && strcmp(C.breaks[1], "f+0x10") == 0 &&
	       strcmp(C.suspects_out, "s.json") == 0, "--tries, --suspects, two --break groups");
	tap_ok(parse("--suspects-from", "l.json", "p", NULL) == CTS_CLI_RUN &&
	       strcmp(C.suspects_from, "l.json") == 0, "--suspects-from");
	refused(parse("--tries", "0", "p", NULL), "--tries wants", "--tries 0");
	refused(parse("--break", "a.c:3,", "p", NULL), "--break", "--break with an empty item");
	refused(parse("--break", "", "p", NULL), "empty argument", "--break ''");
}

/* --replay into gdb: the options parse, go with --replay only, and
 * --stop-at needs one of the others. */
static void test_gdb(void)
{
	tap_ok(parse("--replay", "s", "--gdb-batch", "bt; info threads", "--stop-at", "7",
		     "--core", "c", NULL) == CTS_CLI_RUN && C.gdb_batch && !C.gdb &&
	       C.stop_at_given && C.stop_at == 7 && strcmp(C.core, "c") == 0 &&
	       cts_cli_check(&C, ERR, sizeof(ERR)) == 0, "--gdb-batch, --stop-at, --core with --replay");
	tap_ok(parse("--replay", "s", "--gdb", NULL) == CTS_CLI_RUN && C.gdb &&
	       cts_cli_check(&C, ERR, sizeof(ERR)) == 0, "--gdb with --replay");
	refused(parse("--replay", "s", "--gdb", "--gdb-batch", "bt", NULL), "one or the other",
		"--gdb with --gdb-batch");
	refused(parse("--replay", "s", "--stop-at", "3", NULL), "give one of them", "--stop-at alone");
	refused(parse("--replay", "s", "--gdb-batch", "", NULL), "empty argument", "--gdb-batch ''");
	refused(parse("--replay", "s", "--core", "c", "--stop-at", "-1", NULL), "--stop-at wants",
		"--stop-at -1");
	tap_ok(parse("--gdb", "prog", NULL) == CTS_CLI_RUN &&
	       cts_cli_check(&C, ERR, sizeof(ERR)) != 0 && strstr(ERR, "without --replay"),
	       "--gdb without --replay: refused by the table");
	tap_ok(parse("-p", "1", "--core", "c", NULL) == CTS_CLI_RUN &&
	       cts_cli_check(&C, ERR, sizeof(ERR)) != 0 && strstr(ERR, "in attach mode"),
	       "--core with -p: refused by the table");
}

int main(void)
{
	test_defaults();
	test_numbers();
	test_words();
	test_watch();
	test_active();
	test_gdb();
	return tap_done();
}
