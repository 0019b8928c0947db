/* cts-trace: the command line. Only main picks exit statuses. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hw/hw.h"
#include "models/coverage.h"
#include "models/error.h"
#include "models/map.h"
#include "models/objmodel.h"
#include "models/race.h"
#include "models/report.h"
#include "models/sarif.h"
#include "models/schedule.h"
#include "models/suspects.h"
#include "strategies/active.h"
#include "strategies/hapset.h"
#include "strategies/explorer.h"
#include "strategies/split.h"
#include "strategies/stateful.h"
#include "tracer/native.h"
#include "tracer/attach.h"
#include "strategies/tiles.h"
#include "tracer/cli.h"
#include "tracer/elf.h"
#include "tracer/gdb.h"
#include "tracer/isolate.h"
#include "tracer/jobs.h"
#include "tracer/merge.h"
#include "tracer/tracer.h"
#include "tracer/verify.h"
#include <jansson.h>

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
"       cts-trace --replay FILE --gdb | --gdb-batch CMDS | --core FILE [--stop-at N]\n"
"       cts-trace -p PID [-t SECONDS] [-s random|pct] [--seed N] [--races report|fail]\n"
"                 [--watch SYM|ADDR[:LEN]] [-o DIR] [--report FILE]\n"
"\n"
"Runs an uninstrumented multithreaded x86-64 program one thread at a time under\n"
"ptrace, explores thread schedules, and reports concurrency bugs (crashes, failed\n"
"asserts, deadlocks, livelocks, data races, wrong output) with a schedule that\n"
"replays each one. PROGRAM may be a #! script that execs the program (followed\n"
"to it; a script that never execs a program in its own process is exit status 2).\n"
"\n"
"Exploration:\n"
"  -s, --strategy NAME   %s (default random)\n"
"  -n, --runs N          stop after N runs (default 1000; 0 = no limit)\n"
"  -t, --time SECONDS    stop after this much wall time (0 = no limit, the default)\n"
"      --seed N          random seed (default 1)\n"
"      --depth D         pct: bug depth d (default 3)\n"
"      --bound K         pcb/idb: preemption or delay bound (default 1)\n"
"      --state-match petri|petri-writes  with dfs: Petri-net state matching (the\n"
"                        naive stateful search of Kahkonen & Heljanko 2014): runs that\n"
"                        reach a known abstract state are cut; petri-writes keys reads\n"
"                        by the write they read from instead of the value read. In sync\n"
"                        mode plain memory is invisible: it covers lock-level state only\n"
"      --instance SPEC   search inside one instance of a tiling: thread N (creation\n"
"                        order) may be preempted only at its visible operations\n"
"                        (numbered from 0) inside its selected tiles, and wherever it\n"
"                        cannot run; SPEC t=T:SEL/SEL/..., SEL = tiles joined by '.',\n"
"                        '-' none, '*' all (e.g. t=16:*/3.40/12.7)\n"
"      --instances N     learn each thread's points in one run, then search N\n"
"                        instances drawn from --seed one after another (--runs\n"
"                        each); --tile T points per tile (default 16),\n"
"                        --tiles-per-thread Z (default 2)\n"
"      --tile-pick HOW   conflicts (default): the first instances choose only\n"
"                        among tiles where the first run's threads touched a\n"
"                        common object, then draws as the paper; uniform: the\n"
"                        paper's draws only\n"
"      --no-cutoffs      with -s unfold: no terminal (cut-off) events, and runs until\n"
"                        each event of the prefix was executed by one: the stateless\n"
"                        unfolding baseline (JSON stateless_tests)\n"
"      --max-steps N     per-run step budget (default 100000)\n"
"      --max-threads N   threads one run may create, counting every thread ever\n"
"                        created (default 65536); more ends with status 2\n"
"      --timeout SECONDS per-run wall-clock limit (default 10; 0 = no limit),\n"
"                        also on threads asleep in the kernel; a run that\n"
"                        exceeds either is inconclusive, not a bug\n"
"      --fail-on-inconclusive  exit 4 when no bug was found but runs were inconclusive\n"
"      --keep-going      do not stop at the first bug\n"
"      --fail-on-exit    a non-zero exit status of the program (or its death by\n"
"                        a signal such as SIGTERM it sent itself) is a bug\n"
"      --check CMD       after each run that exits, run CMD with /bin/sh in the\n"
"                        current directory, among the run's files (isolated: see\n"
"                        --no-isolate; CTS_EXIT_STATUS = the program's exit\n"
"                        status, CTS_RUN = run number); non-zero is a bug. CMD has\n"
"                        --timeout (and what is left of --time): running out or\n"
"                        stopping itself makes the run inconclusive; its process\n"
"                        group is killed when it ends\n"
"      --coverage        MAP coverage (memory-access patterns covered / estimated):\n"
"                        a line at the end, one per run with -v, and a \"coverage\"\n"
"                        object in --report (with HaPSet statements and pairs of\n"
"                        the good runs, any strategy, --replay too); strategy map:\n"
"                        each run aims at one uncovered pattern and runs its steps first\n"
"      --coverage-plot FILE  also write an SVG of coverage and bugs against runs\n"
"  -m, --mode MODE       sync: pthread calls and futexes only;\n"
"                        break: also shared memory accesses of the program's code\n"
"                        and of the C library calls it makes (default);\n"
"                        step: single-step the program's code (slowest, exact)\n"
"      --races MODE      off, report, fail (default: off in sync mode, report otherwise);\n"
"                        catch, catch-fail: sync mode, races caught in the act by\n"
"                        data breakpoints on sampled accesses (report, or a bug)\n"
"      --catch-sites N   --races catch: plain access sites sampled (default 64, 0 all)\n"
"      --catch-window N  --races catch: steps of the other threads per catch (default 8)\n"
"      --watch SYM|ADDR[:LEN]  report every access to a variable (hardware watchpoint;\n"
"                        LEN 1, 2, 4 or 8, the address aligned to it; at most 4)\n"
"      --watch-backend B auto (debug registers if they trap here, probed at\n"
"                        start-up; break/step mode: access breakpoints),\n"
"                        hardware (any mode; usage error if they do not trap),\n"
"                        breakpoints (access breakpoints); -v says which\n"
"      --trace-lib NAME  also instrument this library in break/step mode\n"
"      --no-fork-server  exec the program for every run (default: fork each run\n"
"                        from a copy stopped at main)\n"
"      --no-isolate      let runs write the real working directory, TMPDIR and\n"
"                        /dev/shm (default: each run and its --check see them through\n"
"                        a fresh overlay in a private mount namespace, thrown away\n"
"                        after it: no run sees another's files, none stay)\n"
"      --isolate         exit 2 where runs cannot be isolated (not root, no\n"
"                        overlayfs) instead of warning\n"
"Scale-out (random, pct, dfs, dpor, odpor, pcb, idb):\n"
"  -j, --jobs N          N worker processes, each with its own tracer and CPU, take\n"
"                        run numbers (random, pct: run i keeps its seed), subtrees\n"
"                        (systematic) or instances (--instances) from one queue;\n"
"                        the first bug stops them all; -n is their total\n"
"      --shard I/N       only the I-th of N deterministic slices of the runs,\n"
"                        subtrees or instances; the report says which\n"
"                        (cts-trace merge)\n"
"      --split-depth B   systematic: the subtrees are the schedules that agree on\n"
"                        their first B branching choices (default 4); dpor and odpor\n"
"                        branch on every enabled thread above them\n"
"      --hot-lines FILE  break mode (random, pct, dfs, dpor, pcb, idb, unfold,\n"
"                        hapset, --state-match, --instances): start from\n"
"                        the learned set of shared lines in FILE (a report's, e.g.\n"
"                        a merge's that says the shards' sets differ, a schedule's,\n"
"                        or the set alone); a run that learns more still begins\n"
"                        the search again (docs/design.md)\n"
"  cts-trace merge REPORT... [--report OUT]  combine the reports of shards 1..N\n"
"Active testing (strategies racefuzzer, deadlockfuzzer, atomfuzzer):\n"
"      --tries N         phase 2 runs per suspect before it counts as unconfirmed\n"
"                        (default 10); 3 random runs of phase 1 name the suspects\n"
"      --suspects FILE   write the suspects and their confirmations as JSON\n"
"      --suspects-from FILE  skip phase 1: work on a list --suspects wrote\n"
"      --dlf-paper       deadlockfuzzer pauses only at the cycle's acquisitions,\n"
"                        as the paper does (default: also ahead of a lock another\n"
"                        cycle thread still takes on its way; docs/active.md)\n"
"      --break ITEM[,ITEM...]  a concurrency breakpoint: a thread at one ITEM\n"
"                        (FILE:LINE, SYMBOL, SYMBOL+OFF or 0xADDR) waits until\n"
"                        another reaches one of the group, then either goes first;\n"
"                        with random, pct, the fuzzers, and dfs, dpor, odpor, pcb, idb\n"
"                        (a constraint: complete = for the schedules it allows)\n"
"      --context K       a statement is its pc and the return addresses of the K\n"
"                        frames above it (0-4, default 1): suspects, their matching\n"
"                        in phase 2 and HaPSet statements tell callers apart\n"
"Attach mode:\n"
"  -p, --pid PID         attach to a running process: diagnose what each thread waits\n"
"                        for (a deadlock in progress is a bug), run it one thread at a\n"
"                        time for --time seconds (0: until a bug, its end or ^C), then\n"
"                        detach leaving it as it was; the schedule observed goes to\n"
"                        OUT/attach-PID-N.txt (not replayable; --report says so,\n"
"                        with the diagnosis). Sync mode, except that --races\n"
"                        report|fail and --watch also stop at the program's\n"
"                        shared accesses (int3s in its code while attached)\n"
"HaPSet-guided search (strategy hapset; --guide hapset with dpor, odpor, pcb, idb):\n"
"      --guide hapset    orders no good run has shown (the statement pair is not in\n"
"                        the learned HaPSets) first, the others after them; every\n"
"                        good run of the search is learnt from\n"
"      --hapset-prune    the paper's pruning: drop the orders good runs showed (not\n"
"                        safe: an exhausted search is HaPSet-exhausted, not complete)\n"
"      --hapset-learn N  random learning runs first (hapset: 10; --guide: 0)\n"
"      --hapset-load FILE  start from sets --hapset-save wrote\n"
"      --hapset-save FILE  write the learned sets as JSON at the end\n"
"Output:\n"
"  -o, --out DIR         where bug schedules are saved as KIND-N.sched, never over an\n"
"                        existing file (default ./cts-out), each with a timeline of\n"
"                        its run, KIND-N.html (HTML and SVG, no network)\n"
"      --report FILE     write a JSON report (- = standard output)\n"
"      --sarif FILE      write the bugs and races as SARIF 2.1.0 (- = standard output)\n"
"      --no-minimize     save each bug's schedule as found; by default (--minimize)\n"
"                        it is first reduced to fewer preemptions by replaying\n"
"                        candidates (at most 100 replays: a count, never time),\n"
"                        the original kept beside it as KIND-N.orig.sched, and the\n"
"                        critical pair named\n"
"      --replay FILE     re-run a saved schedule exactly and check it matches; the\n"
"                        run options it records apply unless given here (these win)\n"
"      --gdb             with --replay: stop where the run ends (or --stop-at),\n"
"                        every thread held, cts's int3s out of the text, and hand\n"
"                        the process to gdb on the terminal, the failing thread\n"
"                        selected, cts's thread numbers shown next to gdb's; the\n"
"                        program is killed when gdb exits (continuing it there runs\n"
"                        it without cts: the calls cts traces fail with ENOSYS)\n"
"      --gdb-batch CMDS  the same, gdb -batch running CMDS (separated by ';' or\n"
"                        newlines) and exiting\n"
"      --stop-at N       stop the replay before its step N (0 to the schedule's\n"
"                        length) instead of where it ends\n"
"      --core FILE       write a core file of the stopped process (gdb's gcore; a\n"
"                        crash's core names its signal and thread), alone or\n"
"                        before --gdb or --gdb-batch\n"
"      --output          let the program's stdout/stderr through (default with --replay)\n"
"  -q, --quiet           only errors and the verdict (each BUG line)\n"
"  -v, --verbose         one line per run\n"
"  -d, --debug           tracer debugging messages\n"
"  -h, --help            this text\n"
"  -V, --version\n"
"\n"
"Seconds are 0 to 1e9; numbers are decimal or 0x hex.\n"
"\n"
"Exit status: 0 no bug found; 1 bug found (or reproduced by --replay);\n"
"2 usage error or bad input, one line (no such program, not executable, not a\n"
"valid x86-64 ELF, statically linked, exec failed, more threads than\n"
"--max-threads (with -p: than the process has), bad --watch or --break item,\n"
"--out or --report not writable, a TMPDIR that cannot hold --jobs' reports,\n"
"options that do not go together (--sarif with -p), corrupt schedule, replay\n"
"diverged; a report that cannot be written at the end when no bug was found;\n"
"--gdb, --gdb-batch, --core: gdb not found, --stop-at past the schedule, the\n"
"program gone before the stop, no core written); with --stop-at before the\n"
"end, 0 once gdb is done (the run is not judged);\n"
"3 internal error (also: gdb could not be run);\n"
"4 no bug but inconclusive runs, with --fail-on-inconclusive (without it, runs\n"
"cut by --max-steps or --timeout without a deadlock or livelock, or whose --check\n"
"ran out of --timeout or stopped itself, are only warned\n"
"about); 130 interrupted (SIGINT, SIGTERM, SIGHUP) before a bug was found\n"
"(a bug found before the interrupt still gives 1).\n",
		cts_strategy_names());
}

/* The tracer names pcs for --break and --suspects; set once it exists. */
static struct cts_backend active_be;

static void active_describe(void *ctx, uint64_t pc, char *buf, size_t len)
{
	const struct cts_backend *be = ctx;
	buf[0] = 0;
	if (be->ops && be->ops->describe_pc)
		be->ops->describe_pc(be->be, pc, buf, len);
}

/* A data address as the MAP model names variables: "symbol+off" or "". */
static void map_describe(void *ctx, uint64_t addr, char *buf, size_t len)
{
	const struct cts_backend *be = ctx;
	buf[0] = 0;
	if (be->ops && be->ops->describe_data)
		be->ops->describe_data(be->be, addr, buf, len);
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
	cts_explore_interrupt();
	cts_tracer_interrupt();
}

/* Before anything else, so a signal during start-up takes the cleanup path.
 * A signal ignored at startup (a background job's SIGINT) stays ignored; one
 * blocked by whoever started us is unblocked (and served now if pending). */
static void install_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	sigset_t unblock;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the tracer's wait must wake up */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&unblock);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&unblock, sigs[i]);
	}
	sigprocmask(SIG_UNBLOCK, &unblock, NULL);
}

/* execvp's search, so errors can be told apart before forking. */
/* The path to exec, as the shell would: prog itself when it names a
 * directory, else the first executable match on PATH, symlinks unresolved
 * (the kernel passes this string to the program as AT_EXECFN). */
static char *exec_path_of(const char *prog)
{
	if (strchr(prog, '/'))
		return cts_xstrdup(prog);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		char buf[PATH_MAX];
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", prog);
		if (access(buf, X_OK) == 0)
			return cts_xstrdup(buf);
		path = colon ? colon + 1 : path + len;
	}
	return cts_xstrdup(prog);
}

/* The program file itself, symlinks resolved: what is read and traced. */
static char *resolve(const char *exec_path)
{
	char *r = realpath(exec_path, NULL);
	return r ? r : cts_xstrdup(exec_path);
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* "size=N fnv1a=HEX" of the program file, or NULL when it cannot be read. */
static char *binary_fingerprint(const char *path)
{
	FILE *f = fopen(path, "rb");
	char buf[65536], out[96];
	uint64_t h = 0xcbf29ce484222325ull, size = 0;
	size_t n;
	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		h = fnv1a(h, buf, n);
		size += n;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad)
		return NULL;
	snprintf(out, sizeof(out), "size=%" PRIu64 " fnv1a=%016" PRIx64, size, h);
	return cts_xstrdup(out);
}

extern char **environ;

/* "count=N bytes=N fnv1a=HEX" of the environment, in order: its size moves
 * main's stack, its contents what the program does. Not the variables
 * themselves: a schedule file must not carry secrets. */
static char *env_fingerprint(void)
{
	uint64_t h = 0xcbf29ce484222325ull, bytes = 0, count = 0;
	char out[96];
	for (char **e = environ; e && *e; e++, count++) {
		size_t n = strlen(*e) + 1;
		h = fnv1a(h, *e, n);
		bytes += n;
	}
	snprintf(out, sizeof(out), "count=%" PRIu64 " bytes=%" PRIu64 " fnv1a=%016" PRIx64, count,
		 bytes, h);
	return cts_xstrdup(out);
}

/* --replay: say when the program is started otherwise than it was recorded
 * (the replay may then diverge); the exec path, argv[0] and program are
 * the recorded ones already. */
static void compare_start(const struct cts_schedule *s, const char *path)
{
	char cwd[PATH_MAX];
	if (s->cwd && getcwd(cwd, sizeof(cwd)) && strcmp(cwd, s->cwd) != 0)
		cts_error_msg("warning: replaying in %s, but the schedule was recorded in %s; "
			      "the replay may diverge (cd there first)", cwd, s->cwd);
	char *now = s->binary ? binary_fingerprint(path) : NULL;
	if (s->binary && (!now || strcmp(now, s->binary) != 0))
		cts_error_msg("warning: %s is not the program the schedule was recorded with (%s, "
			      "recorded %s); the replay may diverge", path, now ? now : "unreadable",
			      s->binary);
	free(now);
	now = s->env ? env_fingerprint() : NULL;
	if (s->env && strcmp(now, s->env) != 0)
		cts_error_msg("warning: the environment differs from the recorded one (%s, recorded "
			      "%s); the replay may diverge", now, s->env);
	free(now);
}

/* An unlinked file in TMPDIR for a replay's output; -1 if none can be made. */
static int stdio_file(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s", tmp && *tmp ? tmp : "/tmp");
	int fd = open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/cts-output-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* --replay: the program's stdout and stderr are cts-trace's own, unless
 * their kind differs from the recorded one (a search's runs write to
 * /dev/null; its schedule replayed into a pipe or on a terminal) in a way a
 * program can see (native.h). Where a file answers like the recorded kind,
 * the program writes to one (sub[i], the same file for both when cts-trace's
 * stdout and stderr are one), shown after the run (tracer.c); elsewhere a
 * warning. sub[i] = -1: cts-trace's own. */
static const char *kind_words(const char *kind)
{
	static const char *const words[][2] = {
		{ "tty", "a terminal" }, { "pipe", "a pipe" }, { "null", "/dev/null" },
		{ "file", "a file" }, { "char", "a character device" }, { "closed", "closed" },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(kind, words[i][0]) == 0)
			return words[i][1];
	return "another kind of file";
}

static void replay_stdio(const char *recorded, int sub[2])
{
	char was[2][16] = { "", "" };
	sub[0] = sub[1] = -1;
	if (!recorded || sscanf(recorded, "%15s %15s", was[0], was[1]) != 2)
		return;
	struct stat st[2];
	bool same = fstat(1, &st[0]) == 0 && fstat(2, &st[1]) == 0 &&
		    st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino;
	const char *now[2] = { cts_native_fd_kind(1), cts_native_fd_kind(2) };
	bool differs[2] = { false, false };
	for (int i = 0; i < 2; i++) {
		if (cts_native_kinds_alike(now[i], was[i]))
			continue;
		if (cts_native_kinds_alike("file", was[i])) {
			sub[i] = i == 1 && same && sub[0] >= 0 ? sub[0] : stdio_file();
			if (sub[i] >= 0)
				continue;
		}
		differs[i] = true;
	}
	bool both = differs[0] && differs[1] && strcmp(was[0], was[1]) == 0 &&
		    strcmp(now[0], now[1]) == 0;
	for (int i = both ? 1 : 0; i < 2; i++)
		if (differs[i])
			cts_error_msg("warning: the program's %s %s %s when the schedule was recorded "
				      "and %s %s now; the replay may diverge", both ? "stdout and stderr" :
				      i ? "stderr" : "stdout", both ? "were" : "was", kind_words(was[i]),
				      both ? "are" : "is", kind_words(now[i]));
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

/* The directories of --out that this run created, removed again at the end
 * when no schedule went into them. */
struct out_dir {
	char *created[32];
	int ncreated;
};

/* --out must be usable before exploring, not after an hour of it: create
 * the directory now and try a file in it. */
static int prepare_out_dir(const char *dir, struct out_dir *od, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	/* Room for "/KIND-N.sched" in a bug's schedule_path. */
	size_t room = sizeof(((struct cts_bug *)0)->schedule_path) - 32;
	if (strlen(dir) > room || snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "--out %.64s...: name too long", dir);
		return -1;
	}
	for (char *p = tmp + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(tmp, 0777) == 0) {
			if (od->ncreated < (int)(sizeof(od->created) / sizeof(od->created[0])))
				od->created[od->ncreated++] = cts_xstrdup(tmp);
		} else if (errno != EEXIST) {
			snprintf(err, errlen, "--out %s: cannot create %s: %s", dir, tmp, strerror(errno));
			return -1;
		}
		*p = c;
		if (!c)
			break;
	}
	char probe[PATH_MAX];
	snprintf(probe, sizeof(probe), "%s/.cts-probe-XXXXXX", dir);
	int fd = mkostemp(probe, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "--out %s: cannot write there: %s", dir, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}

static void finish_out_dir(struct out_dir *od)
{
	while (od->ncreated > 0) {
		char *d = od->created[--od->ncreated];
		rmdir(d); /* fails, as it should, once a schedule is in it */
		free(d);
	}
}

/* A watch spec checked against the program and made explicit ("sym:len",
 * "0xaddr:len") for the tracer and the schedule file. */
static int resolve_watch(const char *path, const char *spec, char *out, size_t outlen,
			 char *err, size_t errlen)
{
	struct cts_watch_spec w;
	if (cts_cli_parse_watch(spec, &w, err, errlen) != 0)
		return -1;
	if (w.is_addr) {
		snprintf(out, outlen, "0x%" PRIx64 ":%u", w.addr, w.len);
		return 0;
	}
	uint64_t value, size;
	if (cts_elf_find_symbol(path, w.name, &value, &size, NULL, 0) != 0) {
		snprintf(err, errlen, "--watch %s: no such symbol in %s or the libraries it needs",
			 spec, path);
		return -1;
	}
	unsigned len = w.len;
	if (!len) {
		/* The variable's size when a watchpoint can cover it, else its
		 * first 8 bytes; never more than its address is aligned to. */
		len = size == 1 || size == 2 || size == 4 ? (unsigned)size : 8;
		while (len > 1 && value % len)
			len /= 2;
	} else if (value % len) {
		snprintf(err, errlen, "--watch %s: %s (0x%" PRIx64 ") is not aligned to %u bytes "
			 "(a watchpoint covers 1, 2, 4 or 8 bytes aligned to its length)", spec,
			 w.name, value, len);
		return -1;
	}
	snprintf(out, outlen, "%s:%u", w.name, len);
	return 0;
}

static int races_from_name(const char *name)
{
	for (int r = 0; r <= CTS_RACES_CATCH_FAIL; r++)
		if (strcmp(name, cts_cli_races_name(r)) == 0)
			return r;
	return 1;
}

static bool same_list(const char *const *a, int na, char *const *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

static void override_note(const char *opt, const char *given, const char *recorded)
{
	if (cts_verbosity >= 1)
		cts_error_msg("warning: %s %s on the command line overrides the schedule's %s; "
			      "the replay may diverge", opt, given, recorded);
}

/* --replay: options the command line did not give come from the schedule
 * file; a command-line option wins over the file (with a warning). */
static void options_from_schedule(struct cts_cli *c, const struct cts_schedule *s)
{
	char a[64], b[64];

	if (!c->mode)
		c->mode = s->mode;
	else if (s->mode && strcmp(c->mode, s->mode) != 0)
		override_note("--mode", c->mode, s->mode);
	if (c->races < 0 && s->races)
		c->races = races_from_name(s->races);
	else if (c->races >= 0 && s->races && races_from_name(s->races) != c->races)
		override_note("--races", cts_cli_races_name(c->races), s->races);
	if (!c->max_steps_given && s->max_steps) {
		c->max_steps = s->max_steps;
	} else if (s->max_steps && c->max_steps != s->max_steps) {
		snprintf(a, sizeof(a), "%" PRIu64, c->max_steps);
		snprintf(b, sizeof(b), "%" PRIu64, s->max_steps);
		override_note("--max-steps", a, b);
	}
	if (!c->timeout_given && s->timeout >= 0) {
		c->timeout = s->timeout;
	} else if (s->timeout >= 0 && c->timeout != s->timeout) {
		snprintf(a, sizeof(a), "%g", c->timeout);
		snprintf(b, sizeof(b), "%g", s->timeout);
		override_note("--timeout", a, b);
	}
	if (!c->fail_on_exit_given && s->fail_on_exit >= 0)
		c->fail_on_exit = s->fail_on_exit;
	/* --races catch replays with the recorded sample, whatever the command line says. */
	unsigned long long sites, window, seed;
	if (s->catch_opts && sscanf(s->catch_opts, "sites=%llu window=%llu seed=%llu", &sites,
				    &window, &seed) == 3) {
		c->catch_sites = sites;
		c->catch_window = window ? window : 1;
		c->catch_seed = seed;
	}
	if (!c->nwatch) {
		for (int i = 0; i < s->nwatch && i < CTS_CLI_MAX_WATCH; i++)
			c->watch[c->nwatch++] = s->watch[i];
	} else if (s->nwatch && !same_list(c->watch, c->nwatch, s->watch, s->nwatch)) {
		override_note("--watch", c->watch[0], "watches");
	}
	if (!c->ntrace_libs) {
		for (int i = 0; i < s->ntrace_libs && i < CTS_CLI_MAX_TRACE_LIBS; i++)
			c->trace_libs[c->ntrace_libs++] = s->trace_libs[i];
	} else if (s->ntrace_libs &&
		   !same_list(c->trace_libs, c->ntrace_libs, s->trace_libs, s->ntrace_libs)) {
		override_note("--trace-lib", c->trace_libs[0], "libraries");
	}
}

static const char *strategy_desc(const struct cts_cli *c, const struct cts_schedule *sched,
				 char *buf, size_t len)
{
	const char *s = c->strategy;
	if (strcmp(s, "pct") == 0)
		snprintf(buf, len, "pct seed=%" PRIu64 " depth=%" PRIu64, c->seed, c->depth);
	else if (strcmp(s, "pcb") == 0 || strcmp(s, "idb") == 0)
		snprintf(buf, len, "%s bound=%" PRIu64, s, c->bound);
	else if (strcmp(s, "random") == 0 || (strstr(s, "fuzzer") && !c->replay))
		snprintf(buf, len, "%s seed=%" PRIu64, s, c->seed);
	else if (c->replay && sched && sched->strategy)
		snprintf(buf, len, "%s", sched->strategy);
	else if (c->state_match)
		snprintf(buf, len, "%s state-match=%s", s, c->state_match);
	else
		snprintf(buf, len, "%s", s);
	return buf;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --hot-lines FILE: the learned set of break mode's shared lines a search
 * starts from: a report's learned.lines (a shard's, or a merged report's,
 * the union of its shards'), a schedule's hot-lines, or the set alone. Its
 * canonical text (a new string), or NULL with the reason in err. */
static char *load_hot_lines(const char *file, char *err, size_t len)
{
	err[0] = 0;
	FILE *f = fopen(file, "r");
	if (!f) {
		snprintf(err, len, "--hot-lines %s: %s", file, strerror(errno));
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *text = cts_xmalloc(cap);
	for (size_t r; (r = fread(text + n, 1, cap - n - 1, f)) > 0;) {
		n += r;
		if (n + 1 == cap)
			text = cts_xrealloc(text, cap *= 2);
	}
	bool failed = ferror(f);
	fclose(f);
	text[n] = 0;
	char *set = NULL, *v = text + strspn(text, " \t\r\n");
	json_t *j = NULL;
	if (failed) {
		snprintf(err, len, "--hot-lines %s: cannot read it", file);
	} else if (*v == '{') {
		json_error_t je;
		if (!(j = json_loads(v, 0, &je)))
			snprintf(err, len, "--hot-lines %s: not JSON: %s (line %d)", file, je.text,
				 je.line);
		else if (!(v = (char *)json_string_value(json_object_get(json_object_get(j, "learned"),
									 "lines"))))
			snprintf(err, len, "--hot-lines %s: the report has no learned set (learned.lines:"
				 " a search in break mode that learns shared lines writes one)", file);
	} else {
		/* a schedule file's hot-lines key, or the set alone on its line */
		for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
			if (strncmp(line, "hot-lines ", 10) == 0) {
				v = line + 10;
				break;
			}
		v[strcspn(v, " \t\r\n")] = 0;
	}
	if (v && !err[0]) {
		if (!(set = cts_tracer_learned_union(v, v)))
			snprintf(err, len, "--hot-lines %s: not a learned set of shared lines: '%.64s' "
				 "(own:0x...,0x..., ownk:..., all or none)", file, v);
	}
	json_decref(j);
	free(text);
	return set;
}

/* Rounds of --jobs at most: then every line is learned, as the 16th void
 * run of one process does (tracer/own.c). */
#define MAX_ROUNDS 16

/* --jobs, in the parent: the learned set the next round of workers starts
 * from (a new string) when a worker's run learned shared lines, which
 * stopped them all: their union. NULL when this round's reports stand (no
 * learning, a bug to stop at, an error, an interrupt, --time spent). */
static char *next_round(const struct cts_jobs_outcome *o, const struct cts_cli *cli,
			unsigned round, double spent)
{
	if (!o->merged || got_signal || o->died || o->missing || o->exit_max == EXIT_USAGE ||
	    o->exit_max == EXIT_INTERNAL)
		return NULL;
	if ((cts_merge_bugs(o->merged) || o->bug) && !cli->keep_going)
		return NULL;
	if (cli->time_limit > 0 && spent >= cli->time_limit)
		return NULL;
	const json_t *l = json_object_get(o->merged, "learned");
	const char *lines = json_string_value(json_object_get(l, "lines"));
	const char *from = json_string_value(json_object_get(l, "from"));
	if (!lines || !from || strcmp(lines, from) == 0)
		return NULL;
	if (round + 1 >= MAX_ROUNDS)
		return cts_xstrdup(strncmp(lines, "ownk:", 5) == 0 ? "ownk:all" :
				   strncmp(lines, "own:", 4) == 0 ? "own:all" : "all");
	return cts_xstrdup(lines);
}

/* --jobs: the parent's end, from the workers' reports of the last round;
 * the rounds before it (begun again on a bigger learned set) add what they
 * found and their runs, discarded. */
static int finish_jobs(struct cts_jobs_outcome *oo, json_t **carried, size_t ncarried,
		       const char *from, const struct cts_cli *cli, struct cts_report_out *report)
{
	struct cts_jobs_outcome o = *oo;
	char err[1024];
	int status;

	for (size_t i = 0; o.merged && i < ncarried; i++)
		cts_merge_carry(o.merged, carried[i]);
	json_t *l = o.merged ? json_object_get(o.merged, "learned") : NULL;
	if (json_is_object(l) && from) /* the session's start, not its last round's */
		json_object_set_new(l, "from", json_string(from));
	int nbugs = o.merged ? cts_merge_bugs(o.merged) : 0;
	json_t *inc = o.merged ? json_object_get(o.merged, "inconclusive") : NULL;
	bool inconclusive = json_integer_value(json_object_get(inc, "count")) > 0;
	if (o.merged && cts_verbosity >= 1) {
		char what[64];
		snprintf(what, sizeof(what), "%" PRIu64 " jobs: ", cli->jobs);
		cts_merge_summary(stderr, o.merged, what);
	}
	if (nbugs || o.bug)
		status = EXIT_BUG;
	else if (o.exit_max == EXIT_INTERNAL || o.died || (!o.merged && o.exit_max < EXIT_USAGE))
		status = EXIT_INTERNAL;
	else if (o.exit_max == EXIT_USAGE)
		status = EXIT_USAGE;
	else if (got_signal)
		status = EXIT_INTERRUPTED;
	else if (o.missing)
		status = EXIT_INTERNAL;
	else
		status = cli->fail_on_inconclusive && inconclusive ? EXIT_INCONCLUSIVE : EXIT_CLEAN;
	if (status == EXIT_INTERNAL)
		cts_error_msg("internal error: %s", o.died ? "a worker was killed" :
			      o.merged ? "a worker left no report" : o.error);
	if (got_signal && status != EXIT_BUG)
		cts_error_msg("interrupted; %d bug%s found so far", nbugs, nbugs == 1 ? "" : "s");
	if (report && o.merged) {
		/* the parent's word: a worker stopped by another's bug was not */
		json_object_set_new(o.merged, "interrupted", json_boolean(got_signal != 0));
		if (cts_report_write_json(report, json_incref(o.merged), err, sizeof(err)) != 0) {
			cts_error_msg("%s", err);
			if (status == EXIT_CLEAN)
				status = EXIT_USAGE;
		}
	} else {
		cts_report_discard(report);
	}
	json_decref(o.merged);
	return status;
}

/* --gdb, --gdb-batch, --core: the replayed run's program, held where it
 * stopped, goes to gdb (tracer/gdb.h). */
struct gdb_hold {
	const struct cts_cli *cli;
	const struct cts_schedule *sched;
	char gdb[PATH_MAX];
	bool held, early;  /* the hand-over happened; before the run's end (--stop-at) */
	uint64_t step;
	int gdb_status;
};

static int hold_for_gdb(void *ctx, const struct cts_hold_point *h, char *why, size_t len,
			bool *bad)
{
	struct gdb_hold *g = ctx;
	const struct cts_schedule *s = g->sched;
	char note[1400], ev[96];
	int focus = h->focus;

	g->held = true;
	g->early = h->early;
	g->step = h->step;
	if (h->early && h->step < s->n) {
		const struct cts_sched_step *next = &s->steps[h->step];
		if (next->obj)
			snprintf(ev, sizeof(ev), "%s 0x%" PRIx64, cts_op_name(next->op), next->obj);
		else
			snprintf(ev, sizeof(ev), "%s", cts_op_name(next->op));
		focus = next->tid; /* the thread of the step not taken */
		snprintf(note, sizeof(note), "cts: stopped before step %" PRIu64 " of %zu: thread %d "
			 "is about to do '%s'", h->step, s->n, next->tid, ev);
	} else {
		/* a crash's or an assert's thread; else the one that moved last */
		if (focus < 0 && s->n)
			focus = s->steps[s->n - 1].tid;
		if (h->bug->kind != CTS_BUG_NONE)
			snprintf(note, sizeof(note), "cts: stopped at the bug, after %" PRIu64 " steps: "
				 "%s", h->step, h->bug->message);
		else
			snprintf(note, sizeof(note), "cts: stopped at the end of the schedule, after %"
				 PRIu64 " steps (no bug)", h->step);
	}
	if (cts_verbosity >= 1)
		cts_error_msg("process %d handed to gdb; continuing it there runs the program "
			      "without cts: the system calls cts traces (futex, exit, nanosleep...) "
			      "then fail with ENOSYS", (int)h->pid);
	struct cts_gdb_session gs = {
		.gdb = g->gdb, .pid = h->pid, .tids = h->tids, .nthreads = h->nthreads,
		.focus = focus, .core = g->cli->core, .core_sig = h->sig,
		.interactive = g->cli->gdb, .batch = g->cli->gdb_batch, .note = note,
		.stop = &got_signal,
	};
	if (g->cli->core)
		unlink(g->cli->core); /* so that a core that is there was written now */
	if (cts_gdb_run(&gs, &g->gdb_status) != 0) {
		snprintf(why, len, "cannot run %s: %s", g->gdb, strerror(errno));
		return -1;
	}
	struct stat sb;
	if (g->cli->core && (stat(g->cli->core, &sb) != 0 || sb.st_size == 0)) {
		*bad = true;
		snprintf(why, len, "gdb did not write the core file %s (gdb's exit status %d)",
			 g->cli->core, g->gdb_status);
		return -1;
	}
	return 0;
}

/* Fresh replays each saved bug schedule must pass before it is printed:
 * 3; CTS_VERIFY_REPLAYS=N (0 to 10) for testing. */
static int verify_replays(void)
{
	const char *s = getenv("CTS_VERIFY_REPLAYS");
	return s && s[0] >= '0' && s[0] <= '9' && atoi(s) <= 10 ? atoi(s) : 3;
}

/* The verifier; for testing only, CTS_TEST_UNREPLAYABLE=minimized makes
 * every schedule but an .orig.sched fail its replays, =all every one (the
 * fallbacks of explorer.c's verify_saved, with no program that misbehaves). */
static int verify_replay(const struct cts_explorer_config *cfg, const char *path,
			 const struct cts_bug *bug, char *why, size_t len)
{
	const char *t = getenv("CTS_TEST_UNREPLAYABLE");
	size_t n = strlen(path);
	bool orig = n >= 11 && strcmp(path + n - 11, ".orig.sched") == 0;
	if (t && (strcmp(t, "all") == 0 || (strcmp(t, "minimized") == 0 && !orig))) {
		snprintf(why, len, "replay diverged: CTS_TEST_UNREPLAYABLE=%s", t);
		return 0;
	}
	return cts_verify_replay(cfg, path, bug, why, len);
}

int main(int argc, char **argv)
{
	cts_native_save(); /* the program sees the caller's state, not ours */
	install_signals();
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return cts_merge_main(argc - 1, argv + 1);

	struct cts_cli cli;
	char err[1024], desc[128];
	int status = EXIT_CLEAN;
	bool explored = false;
	struct cts_schedule *sched = NULL, *options = NULL;
	char **replay_argv = NULL, *path = NULL, *exec_path = NULL;
	json_t *watch_json = NULL, *code_json = NULL, *catch_json = NULL, *stats_json = NULL, *petri_json = NULL;
	json_t *coverage_json = NULL, *instances_json = NULL, *hapset_json = NULL;
	struct cts_map *map = NULL;
	struct cts_coverage *coverage = NULL;
	struct cts_strategy *strat = NULL;
	struct cts_objmodel *model = NULL;
	struct cts_tracer *tracer = NULL;
	struct cts_iso *iso = NULL;
	int stdio_sub[2] = { -1, -1 }; /* a replay's stand-ins for stdout, stderr */
	struct cts_report_out *report = NULL, *sarif = NULL;
	struct out_dir od = { .ncreated = 0 };
	struct cts_suspects *suspects = NULL, *breaks = NULL;
	struct cts_instance *instance = NULL;
	struct cts_split *split = NULL;
	struct cts_jobs *jobs = NULL;
	json_t *shard_json = NULL, *learned_json = NULL;
	char *learned_from = NULL; /* the learned set the search starts from, or NULL */
	bool worker = false;
	char watch_specs[CTS_CLI_MAX_WATCH][192];
	const char *watch[CTS_CLI_MAX_WATCH];

	switch (cts_cli_parse(argc, argv, &cli, err, sizeof(err))) {
	case CTS_CLI_HELP:
		usage(stdout);
		return EXIT_CLEAN;
	case CTS_CLI_VERSION:
		printf("cts-trace %s\n", CTS_VERSION);
		return EXIT_CLEAN;
	case CTS_CLI_USAGE: /* one line, the hint at its end */
		cts_error_msg("%s (see cts-trace --help)", err);
		status = EXIT_USAGE;
		goto out;
	case CTS_CLI_RUN:
		break;
	}
	cts_verbosity = cli.verbosity;
	cli.catch_seed = cli.seed;
	/* For testing: the path of a machine whose debug registers never trap. */
	if (getenv("CTS_NO_DEBUG_REGISTERS"))
		cts_hw_force_unavailable(true);
	/* For testing: a kernel whose DR6 keeps its bits until reset. */
	if (getenv("CTS_DR6_RESET"))
		cts_hw_force_dr6_reset(true);
	if (cli.attach_pid) /* attach mode: tracer/attach.c */
		return cts_attach_main(&cli);

	/* The program: from the command line, or from the schedule file. */
	char **prog_argv = cli.prog_argv;
	if (cli.replay) {
		if (cts_schedule_load(cli.replay, &sched, err, sizeof(err)) != 0) {
			cts_error_msg("%s", err);
			status = EXIT_USAGE;
			goto out;
		}
		if (!prog_argv) {
			if (!sched->program) {
				cts_error_msg("%s names no program; give it after --", cli.replay);
				status = EXIT_USAGE;
				goto out;
			}
			prog_argv = replay_argv = cts_xcalloc((size_t)sched->argc + 2, sizeof(char *));
			/* Started as recorded: the same argv[0] and exec path. */
			prog_argv[0] = sched->argv0 ? sched->argv0 : sched->program;
			const char *e = sched->exec_path;
			if (e && access(e, X_OK) != 0) {
				cts_error_msg("warning: %s (the path the schedule was recorded "
					      "with) is not here; running %s, the replay may "
					      "diverge", e, sched->program);
				e = NULL;
			}
			exec_path = cts_xstrdup(e ? e : sched->program);
			for (int i = 0; i < sched->argc; i++)
				prog_argv[i + 1] = sched->argv[i];
		}
		options_from_schedule(&cli, sched);
		cli.strategy = "replay";
		cli.output = true;
	}
	/* which options go with this session and strategy: tracer/cli.c's table */
	if (cts_cli_check(&cli, err, sizeof(err)) != 0) {
		cts_error_msg("%s", err);
		status = EXIT_USAGE;
		goto out;
	}
	/* --gdb and the like: checked before anything runs. */
	struct gdb_hold hold = { .cli = &cli, .sched = sched };
	bool to_gdb = cli.gdb || cli.gdb_batch || cli.core;
	if (to_gdb && cli.stop_at_given && cli.stop_at > sched->n) {
		cts_error_msg("--stop-at %" PRIu64 ": %s has %zu steps (stop before step 0 to %zu; "
			      "%zu: at its end)", cli.stop_at, cli.replay, sched->n, sched->n, sched->n);
		status = EXIT_USAGE;
		goto out;
	}
	if (to_gdb && cts_gdb_find(hold.gdb, sizeof(hold.gdb)) != 0) {
		cts_error_msg("%s not found: --gdb, --gdb-batch and --core run gdb (on Debian: "
			      "apt-get install gdb)", getenv("CTS_GDB") && *getenv("CTS_GDB") ?
			      getenv("CTS_GDB") : "gdb on PATH");
		status = EXIT_USAGE;
		goto out;
	}
	int yama = to_gdb ? cts_gdb_yama(err, sizeof(err)) : 0;
	if (yama) {
		cts_error_msg("%s%s", yama == 1 ? "warning: " : "", err);
		if (yama == 2) {
			status = EXIT_USAGE;
			goto out;
		}
	}
	bool catching = cli.races == CTS_RACES_CATCH || cli.races == CTS_RACES_CATCH_FAIL;
	const char *mode_name = cli.mode ? cli.mode : catching ? "sync" : "break";
	if (catching && strcmp(mode_name, "sync") != 0) {
		cts_error_msg("--races %s works in sync mode (break and step mode see every access: "
			      "use --races report or fail)", cts_cli_races_name(cli.races));
		status = EXIT_USAGE;
		goto out;
	}
	enum cts_mode mode;
	if (strcmp(mode_name, "sync") == 0)
		mode = CTS_MODE_SYNC;
	else if (strcmp(mode_name, "break") == 0)
		mode = CTS_MODE_BREAK;
	else if (strcmp(mode_name, "step") == 0)
		mode = CTS_MODE_STEP;
	else { /* only a schedule file can say this */
		cts_error_msg("%s: unknown mode '%s' (sync, break, step)", cli.replay, mode_name);
		status = EXIT_USAGE;
		goto out;
	}
	int races = cli.races >= 0 ? cli.races : mode == CTS_MODE_SYNC ? 0 : 1;

	/* Every output is checked before exploring. */
	if ((cli.report && !(report = cts_report_open(cli.report, err, sizeof(err)))) ||
	    (cli.sarif && !(sarif = cts_report_open(cli.sarif, err, sizeof(err))))) {
		cts_error_msg("%s", err);
		status = EXIT_USAGE;
		goto out;
	}
	if (!cli.replay && prepare_out_dir(cli.out_dir, &od, err, sizeof(err)) != 0) {
		cts_error_msg("%s", err);
		status = EXIT_USAGE;
		goto out;
	}

	if (!exec_path)
		exec_path = exec_path_of(prog_argv[0]);
	path = resolve(exec_path);
	if (cli.replay)
		compare_start(sched, path);
	struct cts_elf_info info = { .debug_info = true };
	char interp[256];
	/* A #! script: the tracer follows it to the program it execs (wrapper.c). */
	if (!cts_elf_script(path, interp, sizeof(interp)) &&
	    cts_elf_check(path, &info, err, sizeof(err)) != CTS_ELF_OK) {
		cts_error_msg("%s", err);
		status = EXIT_USAGE;
		goto out;
	}
	if (!info.debug_info && cts_verbosity >= 1 && !cli.replay)
		cts_error_msg("warning: %s has no debug info; reports will show addresses and "
			      "function names but no source lines (build with -g)", path);
	for (int i = 0; i < cli.nwatch; i++) {
		if (resolve_watch(path, cli.watch[i], watch_specs[i], sizeof(watch_specs[i]), err,
				  sizeof(err)) != 0) {
			cts_error_msg("%s", err);
			status = EXIT_USAGE;
			goto out;
		}
		watch[i] = watch_specs[i];
	}

	if (mode == CTS_MODE_SYNC && (strcmp(cli.strategy, "dpor") == 0 ||
				      strcmp(cli.strategy, "odpor") == 0) && cts_verbosity >= 1)
		cts_error_msg("warning: in sync mode plain memory accesses are invisible, so %s's "
			      "\"complete\" covers lock-level interleavings only (use --mode break)",
			      cli.strategy);
	/* Active testing: the suspect list, breakpoints, pcs named by the tracer
	 * once it exists (active_be). */
	bool fuzzer = strstr(cli.strategy, "fuzzer") != NULL;
	if (cli.suspects_from) {
		if (!(suspects = cts_suspects_load(cli.suspects_from, err, sizeof(err)))) {
			cts_error_msg("%s", err);
			status = EXIT_USAGE;
			goto out;
		}
	} else if (fuzzer) {
		suspects = cts_suspects_new();
	}
	if (cli.nbreaks && !cli.replay) {
		breaks = cts_suspects_new();
		for (int i = 0; i < cli.nbreaks; i++) {
			struct cts_suspect b = { .kind = CTS_SUSPECT_BREAK };
			snprintf(b.spec, sizeof(b.spec), "%s", cli.breaks[i]);
			b.pc[0] = (uint64_t)i;  /* keeps equal specs apart */
			b.npcs = 1;
			cts_suspects_add(breaks, &b);
		}
	}
	struct cts_active_options aopt = {
		.tries = cli.tries, .suspects = suspects, .preloaded = cli.suspects_from != NULL,
		.dlf_paper = cli.dlf_paper,
		.breaks = breaks, .describe_pc = active_describe, .describe_ctx = &active_be,
	};
	if (mode == CTS_MODE_SYNC && cli.state_match && !cli.replay && cts_verbosity >= 1)
		cts_error_msg("warning: in sync mode plain memory accesses are invisible, so Petri-net "
			      "state matching covers lock-level state only (use --mode break)");
	/* HaPSet guidance (strategies/hapset.h): statements named by the tracer. */
	struct cts_hapset_options hopt = {
		.guide = cli.guide != NULL, .learn = cli.hapset_learn,
		.learn_given = cli.hapset_learn_given, .prune = cli.hapset_prune,
		.load = cli.hapset_load,
		.save = cli.hapset_save, .describe_pc = active_describe, .describe_ctx = &active_be,
	};
	bool hapset_wanted = !cli.replay && (cli.guide || strcmp(cli.strategy, "hapset") == 0);
	if (!cli.replay && !hapset_wanted &&
	    (cli.hapset_load || cli.hapset_save || cli.hapset_learn_given || cli.hapset_prune)) {
		cts_error_msg("--hapset-load, --hapset-save, --hapset-learn and --hapset-prune go with "
			      "--strategy hapset or --guide hapset");
		status = EXIT_USAGE;
		goto out;
	}
	/* --coverage, --strategy map: the MAP model the explorer feeds. */
	bool use_map = cli.coverage || strcmp(cli.strategy, "map") == 0;
	if (use_map) {
		map = cts_map_new();
		coverage = cts_coverage_new();
		struct cts_coverage_source src;
		cts_map_coverage_source(map, &src);
		cts_coverage_add_source(coverage, &src);
		if (mode == CTS_MODE_SYNC && cts_verbosity >= 1)
			cts_error_msg("warning: in sync mode plain memory accesses are invisible, so MAP "
				      "coverage sees lock-level objects only: nothing (use --mode break)");
	}
	/* Scale-out: which runs or subtrees this process (or its workers) take. */
	if (cli.jobs > 1 || cli.nshards || cli.split_depth_given) {
		static const char *const splits[] = { "random", "pct", "dfs", "dpor", "pcb", "idb",
						      "odpor" };
		size_t k = 0;
		while (k < 7 && strcmp(cli.strategy, splits[k]) != 0)
			k++;
		bool sys = k >= 2; /* cts_cli_check let only those seven through */
		/* --instances: the instances are the work items, searched whole. */
		split = cts_split_new(cli.instances ? CTS_WORK_INSTANCE :
				      sys ? CTS_WORK_SUBTREE : CTS_WORK_RUNS, (unsigned)cli.shard,
				      (unsigned)cli.nshards, (unsigned)cli.jobs,
				      (unsigned)cli.split_depth);
	}
	struct cts_strategy_config scfg = {
		.seed = cli.seed, .depth = (int)cli.depth, .bound = (int)cli.bound,
		.max_steps = cli.max_steps, .schedule_file = cli.replay, .schedule = sched,
		.active = cli.replay ? NULL : &aopt,
		.state_match = !cli.state_match || cli.replay ? CTS_MATCH_NONE :
			       strcmp(cli.state_match, "petri-writes") == 0 ? CTS_MATCH_PETRI_WRITES :
			       CTS_MATCH_PETRI,
		.time_limit = cli.time_limit, .map = map,
		.context_k = cli.context,
		.hapset = hapset_wanted ? &hopt : NULL,
		.no_cutoffs = cli.no_cutoffs,
		.futex_model = true,   /* cts_objmodel_new(true) below */
		.split = split,
	};
	strat = cts_strategy_create(cli.strategy, &scfg, err, sizeof(err));
	if (!strat) {
		cts_error_msg("%s", err);
		status = EXIT_USAGE;
		goto out;
	}
	/* HaPSet's columns beside MAP's: the guiding sets, or ones learnt alongside
	 * (only when asked for: learning alongside reads a context every step). */
	struct cts_coverage_source hsrc;
	if (coverage && cli.coverage) {
		if (!cts_hapset_coverage_source(strat, &hsrc))
			cts_hapset_watch_source(strat, cli.context, active_describe, &active_be,
						&hsrc);
		cts_coverage_add_source(coverage, &hsrc);
	}
	/* --instance (or the replayed schedule's): every run restricted to it. */
	const char *ispec = cli.replay ? sched->instance : cli.instance;
	if (ispec && !(instance = cts_instance_parse(ispec, err, sizeof(err)))) {
		cts_error_msg("%s%s", cli.replay ? "schedule file: " : "", err);
		status = EXIT_USAGE;
		goto out;
	}
	bool systematic = strcmp(cli.strategy, "random") != 0 && strcmp(cli.strategy, "pct") != 0 &&
			  strcmp(cli.strategy, "map") != 0;
	uint64_t runs = cli.runs;
	if (!cli.runs_given && systematic)
		runs = 0; /* systematic strategies run until their space is exhausted */

	if (got_signal)
		goto out;
	/* Run isolation (tracer/isolate.h), unless --no-isolate or the replayed
	 * schedule's runs were not isolated. Probed here, once: a --jobs worker
	 * makes its own (its own namespace, overlays and runs). */
	bool want_iso = cli.isolate >= 0 ? cli.isolate == 1 : !(cli.replay && sched->isolate == 0);
	if (cli.replay && cli.isolate >= 0 && sched->isolate >= 0 && cli.isolate != sched->isolate &&
	    cts_verbosity >= 1)
		cts_error_msg("warning: %s on the command line overrides the schedule's \"isolate %s\"; "
			      "the replay may diverge", cli.isolate ? "--isolate" : "--no-isolate",
			      sched->isolate ? "yes" : "no");
	if (want_iso) {
		char why[PATH_MAX + 256];
		iso = cts_iso_new(why, sizeof(why));
		if (!iso && cli.isolate == 1) {
			cts_error_msg("--isolate: the runs cannot be isolated here: %s", why);
			status = EXIT_USAGE;
			goto out;
		}
		if (!iso && cts_verbosity >= 1)
			cts_error_msg("warning: runs are not isolated (%s): what a run writes in the "
				      "working directory, TMPDIR and /dev/shm stays and is seen by later "
				      "runs%s; --no-isolate silences this", why,
				      cli.replay && sched->isolate == 1 ?
				      " (the schedule's runs were isolated: the replay may diverge)" : "");
		if (iso && cli.jobs > 1) {
			cts_iso_free(iso);
			iso = NULL;
		} else {
			want_iso = false; /* made, or not to be had */
		}
	}
	/* Break mode's learning of shared lines (tracer/own.h, or cold reads,
	 * tracer/cold.h) where a void run can simply be run again and the
	 * search begin again: the plain samplers and searches, in one process
	 * or split (--jobs, --shard: every counted run shows the learned set
	 * the report records, docs/design.md), the state-matching searches,
	 * HaPSet guidance and --instances (which begin again whole), nothing that keeps state across
	 * runs beyond what restart resets, and not with --output (a void run's
	 * output cannot be taken back). A replay sees the recorded hot lines,
	 * or every read when the file has none. Not odpor: a cold read hides
	 * the race that would wake a sleeping writer, whose run is then cut as
	 * redundant before its write can void it (readers(3): 2 runs, not the
	 * 8 traces). */
	static const char *const cold_ok[] = { "random", "pct", "dfs", "dpor", "pcb", "idb",
					       "unfold", "hapset" };
	bool state_matching = cli.replay ? sched && sched->strategy &&
				(strstr(sched->strategy, "unfold") || strstr(sched->strategy, "state-match")) :
				cli.state_match || strcmp(cli.strategy, "unfold") == 0;
	bool cold = false;
	for (size_t k = 0; k < sizeof(cold_ok) / sizeof(cold_ok[0]); k++)
		cold |= strcmp(cli.strategy, cold_ok[k]) == 0;
	cold = cli.replay ? sched && sched->hot_lines :
	       cold && !coverage &&
	       !catching && !cli.nbreaks && !cli.output && !getenv("CTS_NO_COLD");
	/* --hot-lines: the set to start from (each --jobs round's start). */
	if (cli.hot_lines) {
		if (!cold || mode == CTS_MODE_SYNC || cli.nwatch) {
			cts_error_msg("--hot-lines: this search learns no shared lines (%s)",
				      mode == CTS_MODE_SYNC ? "sync mode shows no plain access" :
				      cli.nwatch ? "--watch" :
				      "--coverage, --races catch, --break and --output keep every "
				      "access visible");
			status = EXIT_USAGE;
			goto out;
		}
		if (!(learned_from = load_hot_lines(cli.hot_lines, err, sizeof(err)))) {
			cts_error_msg("%s", err);
			status = EXIT_USAGE;
			goto out;
		}
	}
	/* --jobs: the workers are forked here, before any tracee exists; this
	 * process only waits for them and merges their reports. A worker whose
	 * run learns shared lines stops them all; they are forked again, each
	 * starting from the union of what they learned, until a round learns
	 * nothing (MAX_ROUNDS at most): the runs of the last round are the
	 * search, all of them on one learned set. */
	if (cli.jobs > 1) {
		if (!(jobs = cts_jobs_new((unsigned)cli.jobs, split, err, sizeof(err)))) {
			cts_error_msg("%s", err);
			status = EXIT_USAGE; /* TMPDIR unusable: the environment is input */
			goto out;
		}
		json_t *carried[MAX_ROUNDS];
		size_t ncarried = 0;
		char *session_from = NULL; /* the first round's learned.from */
		double t0 = now_seconds(), time_limit = cli.time_limit;
		int w;
		for (unsigned round = 0;; round++) {
			w = cts_jobs_fork(jobs);
			if (w != -1)
				break;
			struct cts_jobs_outcome o;
			cts_jobs_wait(jobs, &got_signal, &o);
			const json_t *l = o.merged ? json_object_get(o.merged, "learned") : NULL;
			if (!round && json_is_string(json_object_get(l, "from")))
				session_from = cts_xstrdup(json_string_value(json_object_get(l, "from")));
			double spent = now_seconds() - t0;
			char *next = next_round(&o, &cli, round, spent);
			if (next) {
				char n1[32], n2[32];
				if (cts_verbosity >= 2)
					fprintf(stderr, "cts-trace: --jobs: a run learned shared lines "
						"(%s, from %s): every worker begins again on them (round "
						"%u)\n", cts_merge_learned_words(next, n1, sizeof(n1)),
						cts_merge_learned_words(learned_from ? learned_from : "none", n2,
							      sizeof(n2)), round + 2);
				carried[ncarried++] = o.merged;
				free(learned_from);
				learned_from = next;
				if (time_limit > 0)
					cli.time_limit = time_limit - spent;
				cts_jobs_new_round(jobs);
				continue;
			}
			explored = true;
			status = finish_jobs(&o, carried, ncarried, session_from, &cli, report);
			report = NULL;
			break;
		}
		for (size_t i = 0; i < ncarried; i++) /* a worker's copies too */
			json_decref(carried[i]);
		free(session_from);
		if (w == -2) {
			cts_perror_msg("--jobs: cannot fork a worker");
			status = EXIT_INTERNAL;
			goto out;
		}
		if (w < 0)
			goto out;
		/* A worker: its report goes to the parent; --out is the parent's. */
		worker = true;
		if (want_iso) {
			char why[PATH_MAX + 256];
			if (!(iso = cts_iso_new(why, sizeof(why)))) {
				cts_error_msg("--jobs worker %d: cannot isolate its runs: %s", w + 1, why);
				status = EXIT_INTERNAL;
				goto out;
			}
		}
		cts_report_abandon(report);
		report = cts_report_open(cts_jobs_report_path(jobs), err, sizeof(err));
		while (od.ncreated > 0)
			free(od.created[--od.ncreated]);
		if (!report) {
			cts_error_msg("%s", err);
			status = EXIT_INTERNAL;
			goto out;
		}
	}
	model = cts_objmodel_new(true);
	if (cli.replay)
		replay_stdio(sched->stdio, stdio_sub);
	struct cts_tracer_config tcfg = {
		.cold_reads = cold, .hot_lines = cli.replay && sched ? sched->hot_lines : NULL,
		.learned = learned_from,
		.no_ownership = getenv("CTS_NO_OWNERSHIP") != NULL,
		/* faults where the machine has protection keys, unless CTS_FAULTS=0;
		 * CTS_FAULTS=mprotect: by mprotect, on any machine */
		.faults = !getenv("CTS_FAULTS") || strcmp(getenv("CTS_FAULTS"), "0") != 0,
		.faults_mprotect = getenv("CTS_FAULTS") && strcmp(getenv("CTS_FAULTS"), "mprotect") == 0,
		.path = path, .exec_path = exec_path, .argv = prog_argv, .mode = mode, .timeout = cli.timeout,
		.show_output = cli.output, .trace_libs = cli.trace_libs,
		.stdout_fd = stdio_sub[0] >= 0 ? stdio_sub[0] : 0,
		.stderr_fd = stdio_sub[1] >= 0 ? stdio_sub[1] : 0,
		.ntrace_libs = cli.ntrace_libs, .watch = watch, .nwatch = cli.nwatch,
		/* the program handed to gdb is cts-trace's child: it dies with it */
		.symbolize = true, .no_fork_server = cli.no_fork_server || to_gdb, .iso = iso,
		.watch_backend = cli.watch_backend, .catch_races = catching,
		.catch_sites = (unsigned)cli.catch_sites, .catch_window = (unsigned)cli.catch_window,
		.catch_seed = cli.catch_seed,
		/* Active testing names heap locks by allocation site, also before
		 * the first pthread_create (a replay needs the same steps). */
		.early_allocs = cli.replay ? sched && sched->strategy && strstr(sched->strategy, "fuzzer")
					   : fuzzer,
	};
	if (jobs)
		tcfg.guarded = cts_jobs_guarded(jobs, &tcfg.nguarded);
	tracer = cts_tracer_new(&tcfg, model, err, sizeof(err));
	if (!tracer) {
		cts_error_msg("%s", err);
		status = EXIT_USAGE;
		goto out;
	}

	/* What a saved schedule needs to run the same way again. */
	options = cts_schedule_new();
	cts_schedule_set(&options->races, cts_cli_races_name(races));
	if (catching) {
		char co[96];
		snprintf(co, sizeof(co), "sites=%" PRIu64 " window=%" PRIu64 " seed=%" PRIu64,
			 cli.catch_sites, cli.catch_window, cli.catch_seed);
		cts_schedule_set(&options->catch_opts, co);
	}
	options->max_steps = cli.max_steps;
	options->timeout = cli.timeout;
	options->fail_on_exit = cli.fail_on_exit;
	cts_schedule_set(&options->exec_path, exec_path);
	cts_schedule_set(&options->argv0, prog_argv[0]);
	char cwd[PATH_MAX];
	cts_schedule_set(&options->cwd, getcwd(cwd, sizeof(cwd)));
	options->binary = binary_fingerprint(path);
	options->env = env_fingerprint();
	char kinds[40];
	snprintf(kinds, sizeof(kinds), "%s %s",
		 stdio_sub[0] >= 0 ? "file" : cli.output ? cts_native_fd_kind(1) : "null",
		 stdio_sub[1] >= 0 ? "file" : cli.output ? cts_native_fd_kind(2) : "null");
	cts_schedule_set(&options->stdio, kinds);
	options->isolate = iso != NULL;
	/* Repeats made alone run without a step where a void run can be run
	 * again (the same searches as cold reads); a replay does as its
	 * schedule says. CTS_NO_QUIET_REPEATS=1: every one a step. */
	options->quiet_repeats = cli.replay ? sched && sched->quiet_repeats :
				 cold && !getenv("CTS_NO_QUIET_REPEATS");
	for (int i = 0; i < cli.nwatch; i++)
		cts_schedule_add_watch(options, watch[i]);
	for (int i = 0; i < cli.ntrace_libs; i++)
		cts_schedule_add_trace_lib(options, cli.trace_libs[i]);

	struct cts_explorer_config ecfg = {
		.runs = cli.replay ? 1 : runs, .time_limit = cli.time_limit,
		.max_steps = cli.max_steps, .max_threads = (int)cli.max_threads,
		.stop_on_bug = !cli.keep_going,
		.fail_on_exit = cli.fail_on_exit, .out_dir = cli.replay ? NULL : cli.out_dir,
		.program = path, .argv = prog_argv, .mode = mode_name,
		.strategy_desc = strategy_desc(&cli, sched, desc, sizeof(desc)),
		.quiet = cts_verbosity == 0, .verbose = cts_verbosity >= 2,
		/* The status line: on a terminal, not over the program's own output. */
		.progress = cts_verbosity >= 1 && isatty(2) && !cli.replay && !worker && !cli.output,
		.log = stderr, .systematic = systematic,
		.minimize = !cli.no_minimize, .min_runs = 100,
		.races = catching ? races - CTS_RACES_FAIL : races, .races_catch = catching,
		.self = self_path(argv[0]), .options = options,
		.check = cli.check, .check_timeout = cli.timeout, .instance = instance, .coverage = coverage, .split = split,
		.relearn = cold && !cli.replay, .quiet_repeats = options->quiet_repeats,
		/* State matching keys a marking by what the runs show: a value
		 * handed from thread to thread unseen (a hand-off, models/pages.h)
		 * would be state it cannot see. With no clocks there are no
		 * hand-offs: a line two threads touch, one writing, is shared.
		 * Replays of such a search's schedules too (same events). */
		.clocks = cold && !getenv("CTS_NO_OWNERSHIP") && !state_matching,
		.verify = cli.replay ? NULL : verify_replay, .verify_replays = verify_replays(),
		.hold = to_gdb, .on_hold = hold_for_gdb, .hold_ctx = &hold,
		.hold_step = cli.stop_at_given && sched && cli.stop_at < sched->n ? cli.stop_at :
			     UINT64_MAX,
	};
	struct cts_backend backend = cts_tracer_backend(tracer);
	active_be = backend;
	if (map && backend.ops->describe_data)
		cts_map_set_describe(map, map_describe, &active_be);
	struct cts_explore_result res;
	if (got_signal)
		goto out;
	explored = true;
	/* --instances: N random instances of the tiling, one after another. */
	struct cts_instances_config icfg = {
		.strategy = cli.strategy, .scfg = &scfg, .tile = (uint32_t)cli.tile,
		.z = (uint32_t)cli.tiles_per_thread, .count = cli.instances, .seed = cli.seed,
		.uniform = cli.tile_uniform,
	};
	struct cts_instances_stats istats;
	char *start_set = cli.replay ? NULL : cts_tracer_learned(tracer);
	int rc = cli.instances ? cts_explore_instances(&icfg, &ecfg, &backend, model, &res, &istats) :
				 cts_explore(&ecfg, &backend, model, strat, &res);
	for (int i = 0; i < 2; i++) /* shown after the run (tracer.c) */
		if (stdio_sub[i] >= 0 && (i == 0 || stdio_sub[1] != stdio_sub[0]))
			close(stdio_sub[i]);
	/* The learned set every counted run showed, and the one the search
	 * began from: a merge checks the shards' are one (tracer/merge.h). */
	char *end_set = start_set ? cts_tracer_learned(tracer) : NULL;
	if (end_set)
		learned_json = json_pack("{s:s, s:s, s:b}", "lines", end_set, "from", start_set,
					 "agree", 1);
	free(start_set);
	free(end_set);
	if (cli.instances) {
		instances_json = cts_instances_json(&icfg, &istats);
		if (cts_verbosity >= 1 && !got_signal && !worker) /* the parent's is merged */
			fprintf(stderr, "cts-trace: instances: %" PRIu64 " of %" PRIu64 " searched, %"
				PRIu64 " to the end%s%s\n", istats.searched, cli.instances,
				istats.exhausted, istats.found_in[0] ? "; the bug came from instance " :
				"", istats.found_in);
		cts_instances_stats_fini(&istats);
	} else if (instance && !cli.replay && cts_verbosity >= 1) {
		fprintf(stderr, "cts-trace: searched inside instance %s only\n", cli.instance);
	}

	struct cts_tracer_stats ts;
	watch_json = cts_tracer_watch_json(tracer);
	code_json = cts_tracer_code_json(tracer);
	catch_json = cts_tracer_catch_json(tracer, res.races);
	cts_tracer_get_stats(tracer, &ts);
	stats_json = cts_tracer_stats_json(tracer);
	if (cts_verbosity >= 2) {
		char *text = json_dumps(stats_json, JSON_COMPACT);
		fprintf(stderr, "cts-trace: tracer counters %s (%.0f breakpoint hits/s)\n",
			text ? text : "{}", res.elapsed > 0 ? (double)ts.bp_hits / res.elapsed : 0.0);
		free(text);
	}

	bool diverged = res.nbugs && res.bugs[0].kind == CTS_BUG_DIVERGED;
	if ((rc != 0 || res.internal_error) && res.bad_input) {
		cts_error_msg("%s", res.error);
		status = EXIT_USAGE;
	} else if (rc != 0 || res.internal_error) {
		cts_error_msg("internal error: %s", res.error);
		status = EXIT_INTERNAL;
	} else if (got_signal) {
		if (!worker) /* the parent says it for all */
			cts_error_msg("interrupted after %" PRIu64 " runs; %d bug%s found so far", res.runs,
				      res.nbugs, res.nbugs == 1 ? "" : "s");
		/* A bug found before the interrupt is still a bug, as with --jobs
		 * and in attach mode: its schedule is saved and replays it. */
		status = res.nbugs && !diverged ? EXIT_BUG : EXIT_INTERRUPTED;
	} else if (cli.replay) {
		if (hold.held && hold.gdb_status != 0 && cts_verbosity >= 1)
			cts_error_msg("gdb exited with status %d", hold.gdb_status);
		if (hold.held && cli.core && cts_verbosity >= 1)
			fprintf(stderr, "cts-trace: core file: %s\n", cli.core);
		if (diverged) {
			if (cts_verbosity == 0) /* -q: the explorer kept it to itself */
				cts_error_msg("%s", res.bugs[0].message);
			status = EXIT_USAGE;
		} else if (hold.held && hold.early) {
			if (cts_verbosity >= 1)
				fprintf(stderr, "cts-trace: replay stopped before step %" PRIu64 " of %zu "
					"(--stop-at): not judged\n", hold.step, sched->n);
			status = EXIT_CLEAN;
		} else if (res.nbugs) {
			if (cts_verbosity >= 1)
				fprintf(stderr, "cts-trace: replay reproduced the bug\n");
			status = EXIT_BUG;
		} else {
			if (cts_verbosity >= 1)
				fprintf(stderr, "cts-trace: replay finished without a bug%s%s%s\n",
					res.ninconclusive ? " (the run was inconclusive)" : "",
					sched->bug ? "; recorded: " : "", sched->bug ? sched->bug : "");
			status = cli.fail_on_inconclusive && res.ninconclusive ? EXIT_INCONCLUSIVE :
										 EXIT_CLEAN;
		}
	} else {
		/* A systematic search whose prefix replay diverged found that the
		 * program does not repeat itself under one schedule (time, pids,
		 * the world): that stops the search, and is no bug of the program. */
		int nreal = 0;
		bool div = false;
		for (int i = 0; i < res.nbugs; i++) {
			if (res.bugs[i].kind == CTS_BUG_DIVERGED)
				div = true;
			else
				nreal++;
		}
		if (cts_verbosity >= 1 && !worker) {
			double rate = res.elapsed > 0 ? (double)res.runs / res.elapsed : 0;
			char inc[160] = "";
			if (res.ninconclusive || div)
				snprintf(inc, sizeof(inc), "; %" PRIu64 " run%s inconclusive%s",
					 res.ninconclusive + div, res.ninconclusive + div == 1 ? "" : "s",
					 div ? " (the search stopped: a replayed prefix diverged)" : "");
			fprintf(stderr,
				"cts-trace: %" PRIu64 " runs, %" PRIu64 " steps, %.2f s (%.0f runs/s), "
				"%s, mode %s: %d bug%s found%s%s\n",
				res.runs, res.steps, res.elapsed, rate, desc, mode_name, nreal,
				nreal == 1 ? "" : "s", inc,
				res.complete && breaks ? "; search space exhausted for the schedules "
				"the breakpoints allow (complete for those, not for the program)" :
				res.complete ? "; search space exhausted (complete)" :
				cts_hapset_strategy_pruned_out(strat) ? "; HaPSet-exhausted: every order "
				"no good run showed was searched, the pruned ones were not (not complete)" :
				res.exhausted ? "; search space exhausted for the program's own code and "
						"modelled library calls, but not complete" : "");
			char code[2048];
			if (cts_tracer_code_str(tracer, code, sizeof(code))[0])
				fprintf(stderr, "cts-trace: traced code: %s\n", code);
			if (cts_verbosity >= 2 && cts_tracer_ownership_str(tracer, code, sizeof(code))[0])
				fprintf(stderr, "cts-trace: memory ownership: %s\n", code);
			if (res.own.estimated && res.own.accesses && cts_verbosity >= 2)
				fprintf(stderr, "cts-trace: ownership estimate: of %" PRIu64 " visible plain "
					"accesses, %" PRIu64 " (%.0f%%) would run natively on pages one thread "
					"owns, %" PRIu64 " stay visible (%" PRIu64 " hand-offs); %" PRIu64
					" run%s would be void, %" PRIu64 " page%s learned shared; on 64-byte "
					"lines: %" PRIu64 " native, %" PRIu64 " void, %" PRIu64 " learned\n",
					res.own.accesses, res.own.native,
					100.0 * (double)res.own.native / (double)res.own.accesses,
					res.own.visible, res.own.handoffs, res.own.void_runs,
					res.own.void_runs == 1 ? "" : "s", res.own.pages_learned,
					res.own.pages_learned == 1 ? "" : "s", res.own.line_native,
					res.own.line_void_runs, res.own.lines_learned);
			if (res.unseen[0])
				fprintf(stderr, "cts-trace: not seen: %s%s\n", res.unseen,
					strstr(res.unseen, "untraced library") ?
					" (--trace-lib shows inside a library)" : "");
			/* What the exploration exercised, so a clean verdict can be weighed. */
			char ops[1024], incs[192] = "all runs completed", cut[96] = "";
			if (res.ncut) /* the search's own cuts: killed as redundant, not unjudged */
				snprintf(cut, sizeof(cut), "; %" PRIu64 " run%s cut short as redundant by "
					 "the search", res.ncut, res.ncut == 1 ? "" : "s");
			int nraces = cts_race_count(res.races);
			/* A voided run was thrown away and run again (it hid a read
			 * a write could reorder with, or learned a busy-wait load):
			 * not every run completed as first run. */
			uint64_t voided = res.relearned + res.spin_restarts;
			int off = 0;
			if (res.ninconclusive + div)
				off = snprintf(incs, sizeof(incs), "%" PRIu64 " inconclusive",
					       res.ninconclusive + div);
			if (voided)
				snprintf(incs + off, sizeof(incs) - (size_t)off, "%s%" PRIu64 " run%s "
					 "voided and run again", off ? ", " : "", voided,
					 voided == 1 ? "" : "s");
			char disc[128] = "";
			if (res.discarded) /* counted no more: a run after them learned lines */
				snprintf(disc, sizeof(disc), "; %" PRIu64 " run%s discarded when the "
					 "search began again on more shared lines", res.discarded,
					 res.discarded == 1 ? "" : "s");
			char quiet[128] = "";
			if (res.quiet_repeats) /* not steps, not in the operations */
				snprintf(quiet, sizeof(quiet), "; %" PRIu64 " repeated access%s made "
					 "no step (only its thread could move)", res.quiet_repeats,
					 res.quiet_repeats == 1 ? "" : "es");
			fprintf(stderr, "cts-trace: covered: %" PRIu64 " %s, %d distinct bug%s, %d race%s, "
				"%s, %s; visible operations: %s%s%s%s\n", res.runs,
				systematic ? "schedules" : "runs", nreal, nreal == 1 ? "" : "s", nraces,
				nraces == 1 ? "" : "s", incs,
				!systematic ? "sampled (not a complete search)" :
				res.complete ? "search complete" : "search not complete",
				cts_explore_ops_str(&res, ops, sizeof(ops)), cut, disc, quiet);
		}
		status = nreal ? EXIT_BUG :
			 cli.fail_on_inconclusive && (res.ninconclusive || div) ? EXIT_INCONCLUSIVE :
			 EXIT_CLEAN;
		/* Active testing: suspects against confirmations (the paper's Table 1). */
		int ns = cts_suspects_count(suspects), nc = cts_suspects_confirmed(suspects, -1);
		int nu = cts_suspects_untried(suspects);
		if (suspects && cts_verbosity >= 1)
			fprintf(stderr, "cts-trace: active: %d suspect%s, %d confirmed, %d unconfirmed%s\n",
				ns, ns == 1 ? "" : "s", nc, ns - nc, nu ? " (some never tried: the "
				"exploration stopped at a bug; --keep-going tries them all)" : "");
		for (int i = 0; i < cts_suspects_count(breaks) && cts_verbosity >= 1; i++) {
			const struct cts_suspect *b = cts_suspects_at(breaks, i);
			fprintf(stderr, "cts-trace: breakpoint %d (%s): two threads met there in %" PRIu64
				" run%s\n", i, b->spec, b->confirmed, b->confirmed == 1 ? "" : "s");
		}
		if (suspects && cli.suspects_out &&
		    cts_suspects_save(suspects, cli.suspects_out, active_describe, &active_be, err,
				      sizeof(err)) != 0) {
			cts_error_msg("%s", err);
			if (status == EXIT_CLEAN)
				status = EXIT_USAGE;
		}
	}
	/* HaPSet coverage: statements and pairs, and how they grew run by run. */
	json_t *hj = explored ? cts_hapset_strategy_report(strat) : NULL;
	if (hj) {
		if (cts_verbosity >= 1)
			fprintf(stderr, "cts-trace: hapset: %" JSON_INTEGER_FORMAT " statements, %"
				JSON_INTEGER_FORMAT " pairs covered (%" JSON_INTEGER_FORMAT
				" backtrack points %s)\n",
				json_integer_value(json_object_get(hj, "statements")),
				json_integer_value(json_object_get(hj, "pairs")),
				json_integer_value(json_object_get(hj, json_is_true(json_object_get(hj,
					"prune")) ? "pruned" : "deferred")),
				json_is_true(json_object_get(hj, "prune")) ? "pruned" :
				"deferred to the end");
		hapset_json = hj;
		if (cts_hapset_strategy_save(strat, err, sizeof(err)) != 0) {
			cts_error_msg("%s", err);
			if (status == EXIT_CLEAN)
				status = EXIT_USAGE;
		}
	}
	if (coverage && cli.coverage && cts_verbosity >= 1)
		cts_coverage_print(coverage, stderr, false);
	if (coverage && cli.coverage_plot &&
	    cts_coverage_plot(coverage, cli.coverage_plot, desc, err, sizeof(err)) != 0) {
		cts_error_msg("%s", err);
		if (status == EXIT_CLEAN)
			status = EXIT_USAGE;
	}
	coverage_json = coverage && cli.coverage ? cts_coverage_json(coverage) : NULL;
	struct cts_petri_search_stats ps;
	bool have_ps = cts_petri_search_stats(strat, &ps);
	if (have_ps)
		petri_json = json_pack("{sIsIsIsIsIsIsIsIsIsbsb}",
				       "test_executions", (json_int_t)ps.runs,
				       "markings", (json_int_t)ps.markings,
				       "terminals", (json_int_t)ps.terminals,
				       "places", (json_int_t)ps.places,
				       "transitions", (json_int_t)ps.transitions,
				       "memory_bytes", (json_int_t)ps.bytes,
				       "stutter_runs", (json_int_t)ps.stutters,
				       "restarts", (json_int_t)ps.restarts,
				       "conflicts", (json_int_t)ps.conflicts,
				       "matching", !ps.nomatch, "complete", ps.complete);
	if (petri_json && ps.unfold) /* unfold: the prefix and the dead-marking sweep after it */
		json_object_update_new(petri_json,
				       json_pack("{sIsIsbsIsIsIsI}", "events", (json_int_t)ps.events,
						 "conditions", (json_int_t)ps.conditions,
						 "cutoffs", !cli.no_cutoffs,
						 "sweep_markings", (json_int_t)ps.sweep_markings,
						 "sweep_runs", (json_int_t)ps.sweep_runs,
						 "widenings", (json_int_t)ps.widenings,
						 "stateless_tests", (json_int_t)ps.stateless_tests));
	if (petri_json && cts_verbosity >= 2) {
		char *text = json_dumps(petri_json, JSON_COMPACT);
		fprintf(stderr, "cts-trace: state matching %s%s%s\n", text ? text : "{}",
			ps.why[0] ? ": " : "", ps.why);
		free(text);
	}
	if (split)
		shard_json = cts_split_json(split, runs, cli.max_steps, cli.timeout);
	if (report || sarif) {
		struct cts_describer describer = cts_backend_describer(&backend);
		struct cts_report_info ri = {
			.program = path, .argv = prog_argv, .strategy = desc, .mode = mode_name,
			.races = cts_cli_races_name(races), .seed = cli.seed, .self = ecfg.self,
			.backend_json = stats_json, .backend = &describer,
			.suspects = suspects, .breaks = breaks,
			.strategy_json = petri_json,
			.watch_json = watch_json, .code_json = code_json, .catch_json = catch_json, .shard = shard_json,
			.learned_json = learned_json,
			.instances_json = instances_json,
			.hapset_json = hapset_json,
			.coverage_json = coverage_json,
			.interrupted = got_signal != 0,
		};
		struct cts_report_out *r = report, *sr = sarif;
		report = sarif = NULL;
		/* A bug found, an interruption or an internal error says more. */
		if (r && cts_report_write(r, &ri, &res, err, sizeof(err)) != 0) {
			cts_error_msg("%s", err);
			if (status == EXIT_CLEAN)
				status = EXIT_USAGE;
		}
		if (sr && cts_report_write_json(sr, cts_sarif_json(&ri, &res, CTS_VERSION), err,
						sizeof(err)) != 0) {
			cts_error_msg("%s", err);
			if (status == EXIT_CLEAN)
				status = EXIT_USAGE;
		}
	}
	cts_explore_result_free(&res);
out:
	if (got_signal && !explored) {
		cts_error_msg("interrupted before exploring");
		status = EXIT_INTERRUPTED;
	}
	cts_report_discard(report);
	cts_report_discard(sarif);
	finish_out_dir(&od);
	cts_tracer_free(tracer);
	cts_iso_free(iso); /* after the fork server, the namespace's last process */
	cts_strategy_destroy(strat);
	cts_objmodel_free(model);
	cts_schedule_free(sched);
	cts_schedule_free(options);
	cts_suspects_free(suspects);
	cts_suspects_free(breaks);
	free(replay_argv);
	free(path);
	free(exec_path);
	json_decref(watch_json);
	json_decref(code_json);
	json_decref(catch_json);
	json_decref(stats_json);
	json_decref(petri_json);
	json_decref(shard_json);
	cts_jobs_free(jobs);
	cts_split_free(split);
	free(learned_from);
	json_decref(learned_json);
	json_decref(instances_json);
	json_decref(hapset_json);
	json_decref(coverage_json);
	cts_instance_free(instance);
	cts_coverage_free(coverage);
	cts_map_free(map);
	return status;
}
