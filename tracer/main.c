/* cts-trace: the command line. Only main picks exit statuses. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "models/report.h"
#include "models/schedule.h"
#include "strategies/explorer.h"
#include "tracer/elf.h"
#include "tracer/tracer.h"

#define CTS_VERSION "0.1.0"

enum {
	EXIT_CLEAN = 0,      /* no bug found */
	EXIT_BUG = 1,        /* at least one bug found (or reproduced) */
	EXIT_USAGE = 2,      /* usage error or bad input */
	EXIT_INTERNAL = 3,   /* internal error */
	EXIT_INCONCLUSIVE = 4, /* no bug, but runs cut short (--fail-on-inconclusive) */
	EXIT_INTERRUPTED = 130,
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: cts-trace [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       cts-trace --replay FILE [OPTIONS] [-- PROGRAM [ARGS...]]\n"
"\n"
"Runs an uninstrumented multithreaded x86-64 program one thread at a time under\n"
"ptrace, explores thread schedules, and reports concurrency bugs (crashes, failed\n"
"asserts, deadlocks, livelocks, data races, wrong output) with a schedule that\n"
"replays each one.\n"
"\n"
"Exploration:\n"
"  -s, --strategy NAME   %s (default random)\n"
"  -n, --runs N          stop after N runs (default 1000; 0 = no limit)\n"
"  -t, --time SECONDS    stop after this much wall time\n"
"      --seed N          random seed (default 1)\n"
"      --depth D         pct: bug depth d (default 3)\n"
"      --bound K         pcb/idb: preemption or delay bound (default 1)\n"
"      --max-steps N     per-run step budget (default 100000)\n"
"      --timeout SECONDS per-run wall-clock limit (default 10)\n"
"                        a run that exceeds either is inconclusive, not a bug\n"
"      --fail-on-inconclusive  exit 4 when no bug was found but runs were inconclusive\n"
"      --keep-going      do not stop at the first bug\n"
"      --fail-on-exit    a non-zero exit status of the program is a bug\n"
"      --check CMD       after each run that exits, run CMD with /bin/sh in the\n"
"                        current directory (CTS_EXIT_STATUS = the program's exit\n"
"                        status, CTS_RUN = run number); non-zero is a bug\n"
"  -m, --mode MODE       sync: pthread calls and futexes only;\n"
"                        break: also shared memory accesses of the program's code\n"
"                        (default);\n"
"                        step: single-step the program's code (slowest, exact)\n"
"      --races MODE      off, report, fail (default: off in sync mode, report otherwise)\n"
"      --watch SYM|ADDR[:LEN]  report every access to a variable (hardware watchpoint)\n"
"      --trace-lib NAME  also instrument this library in break/step mode\n"
"      --no-fork-server  exec the program for every run (default: fork each run\n"
"                        from a copy stopped at main)\n"
"Output:\n"
"  -o, --out DIR         where bug schedules are saved (default ./cts-out)\n"
"      --report FILE     write a JSON report\n"
"      --replay FILE     re-run a saved schedule exactly and check it matches\n"
"      --output          let the program's stdout/stderr through (default with --replay)\n"
"  -q, --quiet           only errors\n"
"  -v, --verbose         one line per run\n"
"  -d, --debug           tracer debugging messages\n"
"  -h, --help            this text\n"
"  -V, --version\n"
"\n"
"Exit status: 0 no bug found (runs cut by --max-steps or --timeout without a\n"
"deadlock or livelock are inconclusive and only warned about); 1 bug found (or\n"
"reproduced by --replay); 2 usage error or bad input (no such program, not\n"
"executable, not ELF, 32-bit, statically linked, corrupt schedule, replay\n"
"diverged); 3 internal error; 4 no bug but inconclusive runs, with\n"
"--fail-on-inconclusive; 130 interrupted.\n",
		cts_strategy_names());
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
	cts_explore_interrupt();
	cts_tracer_interrupt();
}

static int parse_u64(const char *s, const char *what, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || !*s || *end || *s == '-') {
		cts_error_msg("%s: not a number: '%s'", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_double(const char *s, const char *what, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || !*s || *end || v < 0) {
		cts_error_msg("%s: not a non-negative number: '%s'", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* execvp's search, so errors can be told apart before forking. */
static char *resolve(const char *prog)
{
	if (strchr(prog, '/')) {
		char *r = realpath(prog, NULL);
		return r ? r : cts_xstrdup(prog);
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		char buf[PATH_MAX];
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", prog);
		if (access(buf, X_OK) == 0) {
			char *r = realpath(buf, NULL);
			return r ? r : cts_xstrdup(buf);
		}
		path = colon ? colon + 1 : path + len;
	}
	return cts_xstrdup(prog);
}

static const char *self_path(const char *argv0)
{
	static char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		return buf;
	}
	return argv0;
}

int main(int argc, char **argv)
{
	enum { O_SEED = 256, O_DEPTH, O_BOUND, O_MAXSTEPS, O_TIMEOUT, O_REPORT, O_REPLAY,
	       O_FAILEXIT, O_KEEPGOING, O_RACES, O_WATCH, O_TRACELIB, O_OUTPUT, O_NOFORK,
	       O_FAILINC, O_CHECK };
	static const struct option opts[] = {
		{ "strategy", required_argument, 0, 's' },
		{ "runs", required_argument, 0, 'n' },
		{ "time", required_argument, 0, 't' },
		{ "seed", required_argument, 0, O_SEED },
		{ "depth", required_argument, 0, O_DEPTH },
		{ "bound", required_argument, 0, O_BOUND },
		{ "max-steps", required_argument, 0, O_MAXSTEPS },
		{ "timeout", required_argument, 0, O_TIMEOUT },
		{ "keep-going", no_argument, 0, O_KEEPGOING },
		{ "fail-on-exit", no_argument, 0, O_FAILEXIT },
		{ "fail-on-inconclusive", no_argument, 0, O_FAILINC },
		{ "check", required_argument, 0, O_CHECK },
		{ "mode", required_argument, 0, 'm' },
		{ "races", required_argument, 0, O_RACES },
		{ "watch", required_argument, 0, O_WATCH },
		{ "trace-lib", required_argument, 0, O_TRACELIB },
		{ "out", required_argument, 0, 'o' },
		{ "report", required_argument, 0, O_REPORT },
		{ "replay", required_argument, 0, O_REPLAY },
		{ "output", no_argument, 0, O_OUTPUT },
		{ "no-fork-server", no_argument, 0, O_NOFORK },
		{ "quiet", no_argument, 0, 'q' },
		{ "verbose", no_argument, 0, 'v' },
		{ "debug", no_argument, 0, 'd' },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	const char *strategy = "random", *mode_name = NULL, *out_dir = "cts-out";
	const char *report = NULL, *replay = NULL, *races_arg = NULL;
	uint64_t runs = 1000, seed = 1, depth = 3, bound = 1, max_steps = 100000;
	double time_limit = 0, timeout = 10;
	bool runs_given = false, keep_going = false, fail_on_exit = false, output = false;
	bool no_fork_server = false, fail_on_inconclusive = false;
	const char *check = NULL;
	const char *watch[4];
	int nwatch = 0;
	const char *trace_libs[16];
	int ntrace_libs = 0;
	int c, status = EXIT_CLEAN;
	struct cts_schedule *sched = NULL;
	char **replay_argv = NULL, *path = NULL;
	struct cts_strategy *strat = NULL;
	struct cts_objmodel *model = NULL;
	struct cts_tracer *tracer = NULL;

	while ((c = getopt_long(argc, argv, "+s:n:t:m:o:qvdhV", opts, NULL)) != -1) {
		switch (c) {
		case 's': strategy = optarg; break;
		case 'n':
			if (parse_u64(optarg, "--runs", &runs) != 0)
				return EXIT_USAGE;
			runs_given = true;
			break;
		case 't':
			if (parse_double(optarg, "--time", &time_limit) != 0)
				return EXIT_USAGE;
			break;
		case O_SEED:
			if (parse_u64(optarg, "--seed", &seed) != 0)
				return EXIT_USAGE;
			break;
		case O_DEPTH:
			if (parse_u64(optarg, "--depth", &depth) != 0 || depth < 1 || depth > 64) {
				cts_error_msg("--depth must be between 1 and 64");
				return EXIT_USAGE;
			}
			break;
		case O_BOUND:
			if (parse_u64(optarg, "--bound", &bound) != 0 || bound > 1000) {
				cts_error_msg("--bound must be between 0 and 1000");
				return EXIT_USAGE;
			}
			break;
		case O_MAXSTEPS:
			if (parse_u64(optarg, "--max-steps", &max_steps) != 0 || !max_steps) {
				cts_error_msg("--max-steps must be positive");
				return EXIT_USAGE;
			}
			break;
		case O_TIMEOUT:
			if (parse_double(optarg, "--timeout", &timeout) != 0)
				return EXIT_USAGE;
			break;
		case O_KEEPGOING: keep_going = true; break;
		case O_FAILEXIT: fail_on_exit = true; break;
		case O_FAILINC: fail_on_inconclusive = true; break;
		case O_CHECK: check = optarg; break;
		case 'm': mode_name = optarg; break;
		case O_RACES: races_arg = optarg; break;
		case O_WATCH:
			if (nwatch == 4) {
				cts_error_msg("--watch: at most 4 (there are four debug registers)");
				return EXIT_USAGE;
			}
			watch[nwatch++] = optarg;
			break;
		case O_TRACELIB:
			if (ntrace_libs == 16) {
				cts_error_msg("--trace-lib: at most 16");
				return EXIT_USAGE;
			}
			trace_libs[ntrace_libs++] = optarg;
			break;
		case 'o': out_dir = optarg; break;
		case O_REPORT: report = optarg; break;
		case O_REPLAY: replay = optarg; break;
		case O_OUTPUT: output = true; break;
		case O_NOFORK: no_fork_server = true; break;
		case 'q': cts_verbosity = 0; break;
		case 'v': cts_verbosity = cts_verbosity < 2 ? 2 : cts_verbosity; break;
		case 'd': cts_verbosity = 3; break;
		case 'h': usage(stdout); return EXIT_CLEAN;
		case 'V': printf("cts-trace %s\n", CTS_VERSION); return EXIT_CLEAN;
		default:
			fprintf(stderr, "Try 'cts-trace --help'.\n");
			return EXIT_USAGE;
		}
	}

	/* The program: from the command line, or from the schedule file. */
	char **prog_argv = argv + optind;
	char err[1024];
	if (replay) {
		if (cts_schedule_load(replay, &sched, err, sizeof(err)) != 0) {
			cts_error_msg("%s", err);
			{ status = EXIT_USAGE; goto out; }
		}
		if (optind >= argc) {
			if (!sched->program) {
				cts_error_msg("%s names no program; give it after --", replay);
				{ status = EXIT_USAGE; goto out; }
			}
			prog_argv = replay_argv = cts_xcalloc((size_t)sched->argc + 2, sizeof(char *));
			prog_argv[0] = sched->program;
			for (int i = 0; i < sched->argc; i++)
				prog_argv[i + 1] = sched->argv[i];
		}
		if (!mode_name)
			mode_name = sched->mode;
		strategy = "replay";
		output = true;
	} else if (optind >= argc) {
		cts_error_msg("no program given");
		fprintf(stderr, "Try 'cts-trace --help'.\n");
		{ status = EXIT_USAGE; goto out; }
	}
	if (!mode_name)
		mode_name = "break";
	enum cts_mode mode;
	if (strcmp(mode_name, "sync") == 0)
		mode = CTS_MODE_SYNC;
	else if (strcmp(mode_name, "break") == 0)
		mode = CTS_MODE_BREAK;
	else if (strcmp(mode_name, "step") == 0)
		mode = CTS_MODE_STEP;
	else {
		cts_error_msg("--mode: unknown mode '%s' (sync, break, step)", mode_name);
		{ status = EXIT_USAGE; goto out; }
	}
	int races = mode == CTS_MODE_SYNC ? 0 : 1;
	if (races_arg) {
		if (strcmp(races_arg, "off") == 0)
			races = 0;
		else if (strcmp(races_arg, "report") == 0)
			races = 1;
		else if (strcmp(races_arg, "fail") == 0)
			races = 2;
		else {
			cts_error_msg("--races: want off, report or fail, not '%s'", races_arg);
			{ status = EXIT_USAGE; goto out; }
		}
	}

	path = resolve(prog_argv[0]);
	struct cts_elf_info info;
	if (cts_elf_check(path, &info, err, sizeof(err)) != CTS_ELF_OK) {
		cts_error_msg("%s", err);
		{ status = EXIT_USAGE; goto out; }
	}
	if (!info.debug_info && cts_verbosity >= 1 && !replay)
		cts_error_msg("warning: %s has no debug info; reports will show addresses and "
			      "function names but no source lines (build with -g)", path);

	if (mode == CTS_MODE_SYNC && strcmp(strategy, "dpor") == 0 && cts_verbosity >= 1)
		cts_error_msg("warning: in sync mode plain memory accesses are invisible, so dpor's "
			      "\"complete\" covers lock-level interleavings only (use --mode break)");
	struct cts_strategy_config scfg = {
		.seed = seed, .depth = (int)depth, .bound = (int)bound, .max_steps = max_steps,
		.schedule_file = replay, .schedule = sched,
	};
	strat = cts_strategy_create(strategy, &scfg, err, sizeof(err));
	if (!strat) {
		cts_error_msg("%s", err);
		{ status = EXIT_USAGE; goto out; }
	}
	bool systematic = strcmp(strategy, "random") != 0 && strcmp(strategy, "pct") != 0;
	if (!runs_given && systematic)
		runs = 0; /* systematic strategies run until their space is exhausted */

	model = cts_objmodel_new(true);
	struct cts_tracer_config tcfg = {
		.path = path, .argv = prog_argv, .mode = mode, .timeout = timeout,
		.show_output = output, .trace_libs = trace_libs, .ntrace_libs = ntrace_libs,
		.watch = watch, .nwatch = nwatch, .symbolize = true,
		.no_fork_server = no_fork_server,
	};
	tracer = cts_tracer_new(&tcfg, model, err, sizeof(err));
	if (!tracer) {
		cts_error_msg("%s", err);
		{ status = EXIT_USAGE; goto out; }
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the tracer's wait must wake up */
	sigemptyset(&sa.sa_mask);
	/* A signal ignored at startup (a background job's SIGINT) stays ignored. */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}

	char desc[128];
	if (strcmp(strategy, "pct") == 0)
		snprintf(desc, sizeof(desc), "pct seed=%" PRIu64 " depth=%" PRIu64, seed, depth);
	else if (strcmp(strategy, "pcb") == 0 || strcmp(strategy, "idb") == 0)
		snprintf(desc, sizeof(desc), "%s bound=%" PRIu64, strategy, bound);
	else if (strcmp(strategy, "random") == 0)
		snprintf(desc, sizeof(desc), "random seed=%" PRIu64, seed);
	else
		snprintf(desc, sizeof(desc), "%s", replay && sched && sched->strategy ?
			 sched->strategy : strategy);
	struct cts_explorer_config ecfg = {
		.runs = replay ? 1 : runs, .time_limit = time_limit, .max_steps = max_steps,
		.stop_on_bug = !keep_going, .fail_on_exit = fail_on_exit,
		.out_dir = replay ? NULL : out_dir, .program = path, .argv = prog_argv,
		.mode = mode_name, .strategy_desc = desc, .quiet = cts_verbosity == 0,
		.verbose = cts_verbosity >= 2,
		.progress = cts_verbosity >= 1 && isatty(2) && !replay, .log = stderr,
		.races = races, .self = self_path(argv[0]), .check = check,
	};
	struct cts_backend backend = cts_tracer_backend(tracer);
	struct cts_explore_result res;
	int rc = cts_explore(&ecfg, &backend, model, strat, &res);

	struct cts_tracer_stats ts;
	char stats_json[512];
	cts_tracer_get_stats(tracer, &ts);
	snprintf(stats_json, sizeof(stats_json),
		 "{\"stops\": %" PRIu64 ", \"breakpoint_hits\": %" PRIu64
		 ", \"emulated\": %" PRIu64 ", \"internal_lock_calls\": %" PRIu64
		 ", \"futex_calls\": %" PRIu64 ", \"shared_accesses\": %" PRIu64
		 ", \"local_accesses\": %" PRIu64 ", \"retired_breakpoints\": %" PRIu64 "}",
		 ts.stops, ts.bp_hits, ts.emulated, ts.internal_skips, ts.futex_calls, ts.accesses,
		 ts.local_accesses, ts.retired);
	if (cts_verbosity >= 2)
		fprintf(stderr, "cts-trace: tracer counters %s (%.0f breakpoint hits/s)\n", stats_json,
			res.elapsed > 0 ? (double)ts.bp_hits / res.elapsed : 0.0);
	if (report) {
		struct cts_report_info ri = {
			.program = path, .argv = prog_argv, .strategy = desc, .mode = mode_name,
			.seed = seed, .self = ecfg.self, .backend_json = stats_json,
		};
		if (cts_report_write(report, &ri, &res) != 0)
			cts_perror_msg("cannot write report %s", report);
	}

	bool diverged = res.nbugs && res.bugs[0].kind == CTS_BUG_DIVERGED;
	if ((rc != 0 || res.internal_error) && res.bad_input) {
		cts_error_msg("%s", res.error);
		status = EXIT_USAGE;
	} else if (rc != 0 || res.internal_error) {
		cts_error_msg("internal error: %s", res.error);
		status = EXIT_INTERNAL;
	} else if (got_signal) {
		cts_error_msg("interrupted after %" PRIu64 " runs; %d bug%s found so far", res.runs,
			      res.nbugs, res.nbugs == 1 ? "" : "s");
		status = EXIT_INTERRUPTED;
	} else if (replay) {
		if (diverged) {
			status = EXIT_USAGE;
		} else if (res.nbugs) {
			if (cts_verbosity >= 1)
				fprintf(stderr, "cts-trace: replay reproduced the bug\n");
			status = EXIT_BUG;
		} else {
			if (cts_verbosity >= 1)
				fprintf(stderr, "cts-trace: replay finished without a bug%s%s%s\n",
					res.ninconclusive ? " (the run was inconclusive)" : "",
					sched->bug ? "; recorded: " : "", sched->bug ? sched->bug : "");
			status = fail_on_inconclusive && res.ninconclusive ? EXIT_INCONCLUSIVE :
									    EXIT_CLEAN;
		}
	} else {
		if (cts_verbosity >= 1) {
			double rate = res.elapsed > 0 ? (double)res.runs / res.elapsed : 0;
			char inc[96] = "";
			if (res.ninconclusive)
				snprintf(inc, sizeof(inc), "; %" PRIu64 " run%s inconclusive", res.ninconclusive,
					 res.ninconclusive == 1 ? "" : "s");
			fprintf(stderr,
				"cts-trace: %" PRIu64 " runs, %" PRIu64 " steps, %.2f s (%.0f runs/s), "
				"%s, mode %s: %d bug%s found%s%s\n",
				res.runs, res.steps, res.elapsed, rate, desc, mode_name, res.nbugs,
				res.nbugs == 1 ? "" : "s", inc,
				res.complete ? "; search space exhausted (complete)" : "");
		}
		status = res.nbugs ? EXIT_BUG :
			 fail_on_inconclusive && res.ninconclusive ? EXIT_INCONCLUSIVE : EXIT_CLEAN;
	}
	cts_explore_result_free(&res);
out:
	cts_tracer_free(tracer);
	cts_strategy_destroy(strat);
	cts_objmodel_free(model);
	cts_schedule_free(sched);
	free(replay_argv);
	free(path);
	return status;
}
