#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hw/hw.h"
#include "models/event.h"
#include "tracer/cli.h"

enum {
	O_SEED = 256, O_DEPTH, O_BOUND, O_MAXSTEPS, O_TIMEOUT, O_REPORT, O_REPLAY, O_FAILEXIT,
	O_KEEPGOING, O_RACES, O_WATCH, O_TRACELIB, O_OUTPUT, O_NOFORK, O_FAILINC, O_CHECK,
	O_MAXTHREADS,
	O_BREAK, O_SUSPECTS, O_SUSPECTS_FROM, O_TRIES, O_DLFPAPER,
	O_CONTEXT, O_GUIDE, O_HAPSET_SAVE, O_HAPSET_LOAD, O_HAPSET_LEARN, O_HAPSET_PRUNE,
	O_STATEMATCH, O_NOCUTOFFS,
	O_WATCHBACKEND, O_CATCHSITES, O_CATCHWINDOW,
	O_PID,
	O_INSTANCE, O_INSTANCES, O_TILE, O_TILESPER, O_TILEPICK,
	O_COVERAGE, O_COVERAGEPLOT,
	O_JOBS, O_SHARD, O_SPLITDEPTH, O_HOTLINES,
	O_SARIF, O_MINIMIZE, O_NOMINIMIZE,
	O_ISOLATE, O_NOISOLATE,
	O_GDB, O_GDBBATCH, O_CORE, O_STOPAT,
};

static const struct option opts[] = {
	{ "strategy", required_argument, 0, 's' },
	{ "runs", required_argument, 0, 'n' },
	{ "time", required_argument, 0, 't' },
	{ "seed", required_argument, 0, O_SEED },
	{ "depth", required_argument, 0, O_DEPTH },
	{ "bound", required_argument, 0, O_BOUND },
	{ "max-steps", required_argument, 0, O_MAXSTEPS },
	{ "max-threads", required_argument, 0, O_MAXTHREADS },
	{ "timeout", required_argument, 0, O_TIMEOUT },
	{ "keep-going", no_argument, 0, O_KEEPGOING },
	{ "fail-on-exit", no_argument, 0, O_FAILEXIT },
	{ "fail-on-inconclusive", no_argument, 0, O_FAILINC },
	{ "check", required_argument, 0, O_CHECK },
	{ "mode", required_argument, 0, 'm' },
	{ "races", required_argument, 0, O_RACES },
	{ "watch", required_argument, 0, O_WATCH },
	{ "watch-backend", required_argument, 0, O_WATCHBACKEND },
	{ "catch-sites", required_argument, 0, O_CATCHSITES },
	{ "catch-window", required_argument, 0, O_CATCHWINDOW },
	{ "trace-lib", required_argument, 0, O_TRACELIB },
	{ "out", required_argument, 0, 'o' },
	{ "report", required_argument, 0, O_REPORT },
	{ "sarif", required_argument, 0, O_SARIF },
	{ "minimize", no_argument, 0, O_MINIMIZE },
	{ "no-minimize", no_argument, 0, O_NOMINIMIZE },
	{ "replay", required_argument, 0, O_REPLAY },
	{ "gdb", no_argument, 0, O_GDB },
	{ "gdb-batch", required_argument, 0, O_GDBBATCH },
	{ "core", required_argument, 0, O_CORE },
	{ "stop-at", required_argument, 0, O_STOPAT },
	{ "output", no_argument, 0, O_OUTPUT },
	{ "no-fork-server", no_argument, 0, O_NOFORK },
	{ "isolate", no_argument, 0, O_ISOLATE },
	{ "no-isolate", no_argument, 0, O_NOISOLATE },
	{ "quiet", no_argument, 0, 'q' },
	{ "verbose", no_argument, 0, 'v' },
	{ "debug", no_argument, 0, 'd' },
	{ "break", required_argument, 0, O_BREAK },
	{ "suspects", required_argument, 0, O_SUSPECTS },
	{ "suspects-from", required_argument, 0, O_SUSPECTS_FROM },
	{ "tries", required_argument, 0, O_TRIES },
	{ "dlf-paper", no_argument, 0, O_DLFPAPER },
	{ "context", required_argument, 0, O_CONTEXT },
	{ "guide", required_argument, 0, O_GUIDE },
	{ "hapset-save", required_argument, 0, O_HAPSET_SAVE },
	{ "hapset-load", required_argument, 0, O_HAPSET_LOAD },
	{ "hapset-learn", required_argument, 0, O_HAPSET_LEARN },
	{ "hapset-prune", no_argument, 0, O_HAPSET_PRUNE },
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 'V' },
	{ "state-match", required_argument, 0, O_STATEMATCH },
	{ "pid", required_argument, 0, 'p' },
	{ "instance", required_argument, 0, O_INSTANCE },
	{ "instances", required_argument, 0, O_INSTANCES },
	{ "tile", required_argument, 0, O_TILE },
	{ "tiles-per-thread", required_argument, 0, O_TILESPER },
	{ "tile-pick", required_argument, 0, O_TILEPICK },
	{ "coverage", no_argument, 0, O_COVERAGE },
	{ "coverage-plot", required_argument, 0, O_COVERAGEPLOT },
	{ "no-cutoffs", no_argument, 0, O_NOCUTOFFS },
	{ "jobs", required_argument, 0, 'j' },
	{ "shard", required_argument, 0, O_SHARD },
	{ "split-depth", required_argument, 0, O_SPLITDEPTH },
	{ "hot-lines", required_argument, 0, O_HOTLINES },
	{ 0, 0, 0, 0 },
};

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* Arguments are echoed: keep the message one printable line. */
	for (char *p = err; errlen && *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
	return -1;
}

/* Decimal, or hex with 0x; no sign, no spaces, no octal surprise. */
static int to_u64(const char *s, uint64_t *out)
{
	char *end;
	int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
	const char *digits = base == 16 ? s + 2 : s;
	if (base == 16 ? !isxdigit((unsigned char)*digits) : !isdigit((unsigned char)*digits))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(digits, &end, base);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_u64(const char *s, const char *what, uint64_t lo, uint64_t hi, uint64_t *out,
		     char *err, size_t errlen)
{
	uint64_t v;
	if (to_u64(s, &v) != 0 || v < lo || v > hi) {
		if (hi == UINT64_MAX)
			return bad(err, errlen, "%s wants a whole number of at least %llu, not '%.64s'",
				   what, (unsigned long long)lo, s);
		return bad(err, errlen, "%s wants a whole number from %llu to %llu, not '%.64s'", what,
			   (unsigned long long)lo, (unsigned long long)hi, s);
	}
	*out = v;
	return 0;
}

/* --shard I/N: 1 <= I <= N. */
static int parse_shard(struct cts_cli *c, const char *arg, char *err, size_t errlen)
{
	char buf[64];
	const char *slash = strchr(arg, '/');
	uint64_t i, n;
	if (!slash || (size_t)(slash - arg) >= sizeof(buf))
		return bad(err, errlen, "--shard wants I/N (the I-th of N shards), not '%.64s'", arg);
	snprintf(buf, sizeof(buf), "%.*s", (int)(slash - arg), arg);
	if (to_u64(slash + 1, &n) != 0 || n < 1 || n > CTS_CLI_MAX_SHARDS)
		return bad(err, errlen, "--shard I/N: N from 1 to %d, not '%.64s'", CTS_CLI_MAX_SHARDS,
			   arg);
	if (to_u64(buf, &i) != 0 || i < 1 || i > n)
		return bad(err, errlen, "--shard I/N: I from 1 to N, not '%.64s'", arg);
	c->shard = i;
	c->nshards = n;
	return 0;
}

static int parse_seconds(const char *s, const char *what, double *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = (*s >= '0' && *s <= '9') || *s == '.' ? strtod(s, &end) : NAN;
	if (isnan(v) || errno || *end || v < 0 || v > CTS_CLI_MAX_SECONDS)
		return bad(err, errlen, "%s wants seconds from 0 to %.0f (0 = no limit), not '%.64s'",
			   what, CTS_CLI_MAX_SECONDS, s);
	*out = v;
	return 0;
}

const char *cts_cli_races_name(int races)
{
	static const char *const names[] = { "off", "report", "fail", "catch", "catch-fail" };
	return races >= 0 && races <= CTS_RACES_CATCH_FAIL ? names[races] : "report";
}

int cts_cli_parse_watch(const char *spec, struct cts_watch_spec *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	const char *colon = strrchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (!nlen)
		return bad(err, errlen, "--watch '%.64s': no symbol or address", spec);
	if (nlen >= sizeof(w->name))
		return bad(err, errlen, "--watch '%.64s...': name too long", spec);
	memcpy(w->name, spec, nlen);
	if (colon) {
		uint64_t l;
		if (to_u64(colon + 1, &l) != 0 || !(l == 1 || l == 2 || l == 4 || l == 8))
			return bad(err, errlen, "--watch %.128s: length must be 1, 2, 4 or 8", spec);
		w->len = (unsigned)l;
	}
	if (to_u64(w->name, &w->addr) != 0) {
		/* No symbol starts with a digit, a sign or a space: a number that
		 * does not parse (sign, spaces, overflow) is an error, not a name. */
		unsigned char c0 = (unsigned char)w->name[0];
		if (isdigit(c0) || isspace(c0) || c0 == '-' || c0 == '+' || strpbrk(w->name, " \t"))
			return bad(err, errlen, "--watch %.128s: not an address (decimal or 0x hex, "
				   "at most 64 bits, no sign or spaces) nor a symbol", spec);
		return 0; /* a symbol: resolved against the program later */
	}
	w->is_addr = true;
	/* A hardware watchpoint covers an aligned 1, 2, 4 or 8 bytes. */
	unsigned len = w->len ? w->len : 8;
	char why[160];
	if (w->addr < 4096)
		return bad(err, errlen, "--watch %.128s: address in the null page", spec);
	if (cts_hw_validate(w->addr, len, why, sizeof(why)) != 0)
		return bad(err, errlen, "--watch %.128s: %s%s", spec, why,
			   !w->len && w->addr % 8 ? " (give the length: ADDR:LEN)" : "");
	w->len = len;
	return 0;
}

/* One --break item, as strategies/active.c matches it: FILE:LINE (LINE a
 * decimal number from 1), SYMBOL or SYMBOL+OFF (OFF decimal or 0x hex),
 * 0xADDR above the null page; no spaces, no signs, nothing that overflows. */
static int check_break_item(const char *item, size_t len, char *err, size_t errlen)
{
	char it[256], *colon, *plus;
	uint64_t v;
	snprintf(it, sizeof(it), "%.*s", (int)len, item);
	const char *why = NULL;
	if (strpbrk(it, " \t\n\v\f\r"))
		why = "no spaces in an item";
	else if (strncmp(it, "0x", 2) == 0 || strncmp(it, "0X", 2) == 0)
		why = to_u64(it, &v) != 0 ? "not a 64-bit hex address" :
		      v < 4096 ? "address in the null page" : NULL;
	else if ((colon = strrchr(it, ':')) != NULL &&
		 (!colon[1] || strchr("0123456789+-", colon[1]))) /* else C++'s a::b */
		why = colon == it ? "no file before the ':'" :
		      !colon[1] || colon[1 + strspn(colon + 1, "0123456789")] ?
		      "the line is not a decimal number" :
		      to_u64(colon + 1, &v) != 0 || v < 1 || v > 0x7fffffff ?
		      "no such line number" : NULL;
	else if (isdigit((unsigned char)it[0]) || it[0] == '+' || it[0] == '-')
		why = "not a symbol (an address is 0xADDR)";
	else if ((plus = strchr(it, '+')) != NULL)
		why = plus == it ? "no symbol before the '+'" :
		      to_u64(plus + 1, &v) != 0 ? "the offset is not a 64-bit number (decimal or 0x hex)" :
		      NULL;
	if (!why)
		return 0;
	return bad(err, errlen, "--break item '%.64s': %s; want FILE:LINE, SYMBOL[+OFF] or 0xADDR",
		   it, why);
}

static int set_races(struct cts_cli *c, const char *v, char *err, size_t errlen)
{
	for (int r = 0; r <= CTS_RACES_CATCH_FAIL; r++) {
		if (strcmp(v, cts_cli_races_name(r)) == 0) {
			c->races = r;
			return 0;
		}
	}
	return bad(err, errlen, "--races wants off, report, fail, catch or catch-fail, not '%.64s'",
		   v);
}

static int nonempty(const char *v, const char *what, char *err, size_t errlen)
{
	return *v ? 0 : bad(err, errlen, "%s: empty argument", what);
}

/* One option; 0, -1 (usage error) or a CTS_CLI_HELP/VERSION status. */
static int one_option(struct cts_cli *c, int opt, const char *arg, char *err, size_t errlen)
{
	struct cts_watch_spec w;

	switch (opt) {
	case 's': return nonempty(arg, "--strategy", err, errlen) ?: (c->strategy = arg, 0);
	case 'n':
		c->runs_given = true;
		return parse_u64(arg, "--runs", 0, UINT64_MAX, &c->runs, err, errlen);
	case 't': return parse_seconds(arg, "--time", &c->time_limit, err, errlen);
	case O_SEED: return parse_u64(arg, "--seed", 0, UINT64_MAX, &c->seed, err, errlen);
	case O_DEPTH: return parse_u64(arg, "--depth", 1, 64, &c->depth, err, errlen);
	case O_BOUND: return parse_u64(arg, "--bound", 0, 1000, &c->bound, err, errlen);
	case O_MAXSTEPS:
		c->max_steps_given = true;
		return parse_u64(arg, "--max-steps", 1, UINT64_MAX, &c->max_steps, err, errlen);
	case O_MAXTHREADS:
		return parse_u64(arg, "--max-threads", 1, CTS_THREADS_CEILING, &c->max_threads, err,
				 errlen);
	case O_TIMEOUT:
		c->timeout_given = true;
		return parse_seconds(arg, "--timeout", &c->timeout, err, errlen);
	case O_KEEPGOING: c->keep_going = true; return 0;
	case O_FAILEXIT: c->fail_on_exit = c->fail_on_exit_given = true; return 0;
	case O_FAILINC: c->fail_on_inconclusive = true; return 0;
	case O_CHECK: return nonempty(arg, "--check", err, errlen) ?: (c->check = arg, 0);
	case 'm':
		if (strcmp(arg, "sync") && strcmp(arg, "break") && strcmp(arg, "step"))
			return bad(err, errlen, "--mode: unknown mode '%.64s' (sync, break, step)", arg);
		c->mode = arg;
		return 0;
	case O_RACES: return set_races(c, arg, err, errlen);
	case O_WATCH:
		if (c->nwatch == CTS_CLI_MAX_WATCH)
			return bad(err, errlen, "--watch: at most %d (there are four debug registers)",
				   CTS_CLI_MAX_WATCH);
		if (cts_cli_parse_watch(arg, &w, err, errlen) != 0)
			return -1;
		c->watch[c->nwatch++] = arg;
		return 0;
	case O_WATCHBACKEND:
		for (int b = 0; b < 3; b++) {
			static const char *const names[] = { "auto", "hardware", "breakpoints" };
			if (strcmp(arg, names[b]) == 0) {
				c->watch_backend = b;
				return 0;
			}
		}
		return bad(err, errlen, "--watch-backend wants auto, hardware or breakpoints, "
			   "not '%.64s'", arg);
	case O_CATCHSITES:
		return parse_u64(arg, "--catch-sites", 0, 1000000, &c->catch_sites, err, errlen);
	case O_CATCHWINDOW:
		return parse_u64(arg, "--catch-window", 1, 1000000, &c->catch_window, err, errlen);
	case O_TRACELIB:
		if (c->ntrace_libs == CTS_CLI_MAX_TRACE_LIBS)
			return bad(err, errlen, "--trace-lib: at most %d", CTS_CLI_MAX_TRACE_LIBS);
		if (nonempty(arg, "--trace-lib", err, errlen))
			return -1;
		c->trace_libs[c->ntrace_libs++] = arg;
		return 0;
	case 'o': return nonempty(arg, "--out", err, errlen) ?: (c->out_dir = arg, 0);
	case O_REPORT: return nonempty(arg, "--report", err, errlen) ?: (c->report = arg, 0);
	case O_SARIF: return nonempty(arg, "--sarif", err, errlen) ?: (c->sarif = arg, 0);
	case O_MINIMIZE: c->no_minimize = false; return 0;
	case O_NOMINIMIZE: c->no_minimize = true; return 0;
	case O_REPLAY: return nonempty(arg, "--replay", err, errlen) ?: (c->replay = arg, 0);
	case O_GDB: c->gdb = true; return 0;
	case O_GDBBATCH: return nonempty(arg, "--gdb-batch", err, errlen) ?: (c->gdb_batch = arg, 0);
	case O_CORE: return nonempty(arg, "--core", err, errlen) ?: (c->core = arg, 0);
	case O_STOPAT:
		c->stop_at_given = true;
		return parse_u64(arg, "--stop-at", 0, UINT64_MAX, &c->stop_at, err, errlen);
	case O_OUTPUT: c->output = true; return 0;
	case O_NOFORK: c->no_fork_server = true; return 0;
	case O_ISOLATE: c->isolate = 1; return 0;
	case O_NOISOLATE: c->isolate = 0; return 0;
	case O_BREAK:
		if (c->nbreaks == CTS_CLI_MAX_BREAKS)
			return bad(err, errlen, "--break: at most %d groups", CTS_CLI_MAX_BREAKS);
		if (nonempty(arg, "--break", err, errlen))
			return -1;
		if (strlen(arg) >= 250 || strstr(arg, ",,") || arg[0] == ',' ||
		    arg[strlen(arg) - 1] == ',')
			return bad(err, errlen, "--break '%.64s': want FILE:LINE, SYMBOL[+OFF] or 0xADDR, "
				   "comma-separated, at most 249 characters", arg);
		for (const char *p = arg; *p;) {
			size_t len = strcspn(p, ",");
			if (check_break_item(p, len, err, errlen) != 0)
				return -1;
			p += len + (p[len] == ',');
		}
		c->breaks[c->nbreaks++] = arg;
		return 0;
	case O_SUSPECTS: return nonempty(arg, "--suspects", err, errlen) ?: (c->suspects_out = arg, 0);
	case O_SUSPECTS_FROM:
		return nonempty(arg, "--suspects-from", err, errlen) ?: (c->suspects_from = arg, 0);
	case O_TRIES: return parse_u64(arg, "--tries", 1, 1000000, &c->tries, err, errlen);
	case O_DLFPAPER: c->dlf_paper = true; return 0;
	case O_CONTEXT: {
		uint64_t k = 0;
		if (parse_u64(arg, "--context", 0, 4, &k, err, errlen))
			return -1;
		c->context = (int)k;
		return 0;
	}
	case O_GUIDE:
		if (strcmp(arg, "hapset") && strcmp(arg, "none"))
			return bad(err, errlen, "--guide wants hapset or none, not '%.64s'", arg);
		c->guide = strcmp(arg, "none") ? arg : NULL;
		return 0;
	case O_HAPSET_SAVE:
		return nonempty(arg, "--hapset-save", err, errlen) ?: (c->hapset_save = arg, 0);
	case O_HAPSET_LOAD:
		return nonempty(arg, "--hapset-load", err, errlen) ?: (c->hapset_load = arg, 0);
	case O_HAPSET_PRUNE:
		c->hapset_prune = true;
		return 0;
	case O_HAPSET_LEARN:
		return parse_u64(arg, "--hapset-learn", 0, 1000000, &c->hapset_learn, err, errlen) ?:
		       (c->hapset_learn_given = true, 0);
	case 'q': c->verbosity = 0; return 0;
	case 'v': c->verbosity = c->verbosity < 2 ? 2 : c->verbosity; return 0;
	case 'd': c->verbosity = 3; return 0;
	case O_STATEMATCH:
		if (strcmp(arg, "petri") && strcmp(arg, "petri-writes") && strcmp(arg, "none"))
			return bad(err, errlen, "--state-match wants petri, petri-writes or none, not '%.64s'",
				   arg);
		c->state_match = strcmp(arg, "none") ? arg : NULL;
		return 0;
	case 'p': return parse_u64(arg, "--pid", 1, 0x7fffffff, &c->attach_pid, err, errlen);
	case O_INSTANCE: return nonempty(arg, "--instance", err, errlen) ?: (c->instance = arg, 0);
	case O_INSTANCES:
		return parse_u64(arg, "--instances", 1, 1000000, &c->instances, err, errlen);
	case O_TILE:
		c->tiles_given = true;
		return parse_u64(arg, "--tile", 1, UINT32_MAX, &c->tile, err, errlen);
	case O_TILESPER:
		c->tiles_given = true;
		return parse_u64(arg, "--tiles-per-thread", 0, 1000, &c->tiles_per_thread, err, errlen);
	case O_TILEPICK:
		if (strcmp(arg, "conflicts") && strcmp(arg, "uniform"))
			return bad(err, errlen, "--tile-pick: unknown way '%.64s' (conflicts, uniform)",
				   arg);
		c->tiles_given = true;
		c->tile_uniform = !strcmp(arg, "uniform");
		return 0;
	case O_COVERAGE: c->coverage = true; return 0;
	case O_COVERAGEPLOT:
		return nonempty(arg, "--coverage-plot", err, errlen) ?:
		       (c->coverage = true, c->coverage_plot = arg, 0);
	case O_NOCUTOFFS: c->no_cutoffs = true; return 0;
	case 'j': return parse_u64(arg, "--jobs", 1, CTS_CLI_MAX_JOBS, &c->jobs, err, errlen);
	case O_SHARD: return parse_shard(c, arg, err, errlen);
	case O_SPLITDEPTH:
		return parse_u64(arg, "--split-depth", 0, 32, &c->split_depth, err, errlen) ?:
		       (c->split_depth_given = true, 0);
	case O_HOTLINES:
		return nonempty(arg, "--hot-lines", err, errlen) ?: (c->hot_lines = arg, 0);
	case 'h': return CTS_CLI_HELP;
	case 'V': return CTS_CLI_VERSION;
	default: return bad(err, errlen, "internal: option %d not handled", opt);
	}
}

/* Why getopt refused a long option. */
static void long_option_error(const char *given, char *err, size_t errlen)
{
	const char *name = given + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int matches = 0;
	const struct option *last = NULL;
	for (const struct option *o = opts; o->name; o++) {
		if (strncmp(o->name, name, len) == 0) {
			matches++;
			last = o;
			if (strlen(o->name) == len) {
				matches = 1;
				break;
			}
		}
	}
	if (matches > 1)
		bad(err, errlen, "option '%.*s' is ambiguous", (int)(len + 2 > 64 ? 64 : len + 2),
		    given);
	else if (matches == 1 && eq && last->has_arg == no_argument)
		bad(err, errlen, "option '--%s' takes no argument", last->name);
	else
		bad(err, errlen, "unknown option '%.64s'", given);
}

enum cts_cli_status cts_cli_parse(int argc, char **argv, struct cts_cli *c, char *err,
				  size_t errlen)
{
	*c = (struct cts_cli){
		.strategy = "random", .runs = 1000, .seed = 1, .depth = 3, .bound = 1,
		.max_steps = 100000, .max_threads = CTS_THREADS_DEFAULT, .timeout = 10, .races = -1, .isolate = -1, .out_dir = "cts-out",
		.catch_sites = 64, .catch_window = 8,
		.verbosity = 1, .tile = 16, .tiles_per_thread = 2, .context = 1, .jobs = 1,
		.split_depth = 4,
	};
	if (errlen)
		err[0] = 0;
	if (argc < 1 || !argv)
		return bad(err, errlen, "no arguments"), CTS_CLI_USAGE;
	/* GNU getopt: optind 0 starts over; ':' reports a missing argument as
	 * ':'; '+' stops at the program name; opterr 0 keeps it quiet. */
	optind = 0;
	opterr = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, "+:s:n:t:m:o:p:j:qvdhV", opts, NULL)) != -1) {
		const char *given = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
		if (opt == '?') {
			if (strncmp(given, "--", 2) == 0)
				long_option_error(given, err, errlen);
			else
				bad(err, errlen, "unknown option '-%c'", optopt);
			return CTS_CLI_USAGE;
		}
		if (opt == ':') {
			bad(err, errlen, "option '%.64s' needs an argument", given);
			return CTS_CLI_USAGE;
		}
		int r = one_option(c, opt, optarg, err, errlen);
		if (r < 0)
			return CTS_CLI_USAGE;
		if (r == CTS_CLI_HELP || r == CTS_CLI_VERSION)
			return (enum cts_cli_status)r;
	}
	if (c->attach_pid && (optind < argc || c->replay)) {
		bad(err, errlen, "-p PID attaches to a running process: no program%s",
		    c->replay ? " and no --replay" : " after it");
		return CTS_CLI_USAGE;
	}
	/* Instances (strategies/tiles.h): one given, or N drawn, not both. */
	if (c->instance && (c->instances || c->tiles_given))
		return bad(err, errlen, "--instance names one instance: it goes without --instances, "
			   "--tile, --tiles-per-thread and --tile-pick"), CTS_CLI_USAGE;
	if (c->tiles_given && !c->instances)
		return bad(err, errlen, "--tile, --tiles-per-thread and --tile-pick go with "
			   "--instances N"),
		       CTS_CLI_USAGE;
	if (c->gdb && c->gdb_batch)
		return bad(err, errlen, "--gdb is gdb on the terminal, --gdb-batch gdb running "
			   "commands: one or the other"), CTS_CLI_USAGE;
	if (c->stop_at_given && !c->gdb && !c->gdb_batch && !c->core)
		return bad(err, errlen, "--stop-at says where --gdb, --gdb-batch or --core stop the "
			   "replay: give one of them"), CTS_CLI_USAGE;
	if ((c->instance || c->instances) && c->replay)
		return bad(err, errlen, "--replay runs the instance its schedule file names: "
			   "no --instance or --instances with it"), CTS_CLI_USAGE;
	if (optind < argc) {
		c->prog_argv = argv + optind;
		c->prog_argc = argc - optind;
	} else if (!c->replay && !c->attach_pid) {
		bad(err, errlen, "no program given");
		return CTS_CLI_USAGE;
	}
	return CTS_CLI_RUN;
}

/* ---- which options go with which sessions and strategies ----------------------
 * One row per option (or group of options refused together): where it is
 * refused, and the strategies it needs. main.c (launch, --replay) and
 * attach.c (-p) check the same table; a new option, or a combination made
 * legal, is one row or one bit here. */

/* What a session is, from its command line. */
enum {
	CTX_ATTACH = 1 << 0,   /* -p PID */
	CTX_REPLAY = 1 << 1,   /* --replay */
	CTX_SPLIT = 1 << 2,    /* --jobs N, --shard I/N, --split-depth */
	CTX_STATE = 1 << 3,    /* --state-match */
	CTX_DEPTH = 1 << 4,    /* --split-depth */
	CTX_EXPLORE = 1 << 5,  /* neither -p nor --replay: an exploration */
};

static const char *const ctx_phrase[] = {
	"in attach mode", "with --replay", "with --jobs, --shard or --split-depth",
	"with --state-match", "with --split-depth (the instances are the work items, searched whole)",
	"without --replay",
};

static bool g_mode(const struct cts_cli *c) { return c->mode && strcmp(c->mode, "sync") != 0; }
static bool g_catch(const struct cts_cli *c)
{
	return c->races == CTS_RACES_CATCH || c->races == CTS_RACES_CATCH_FAIL;
}
static bool g_check(const struct cts_cli *c) { return c->check != NULL; }
static bool g_break(const struct cts_cli *c) { return c->nbreaks > 0; }
static bool g_active(const struct cts_cli *c)
{
	return c->suspects_out || c->suspects_from || c->tries;
}
static bool g_dlfpaper(const struct cts_cli *c) { return c->dlf_paper; }
static bool g_state(const struct cts_cli *c) { return c->state_match != NULL; }
static bool g_cutoffs(const struct cts_cli *c) { return c->no_cutoffs; }
static bool g_split(const struct cts_cli *c)
{
	return c->jobs > 1 || c->nshards || c->split_depth_given;
}
static bool g_hotlines(const struct cts_cli *c) { return c->hot_lines != NULL; }
static bool g_inst1(const struct cts_cli *c) { return c->instance != NULL; }
static bool g_insts(const struct cts_cli *c) { return c->instances > 0; }
static bool g_coverage(const struct cts_cli *c) { return c->coverage; }
static bool g_guide(const struct cts_cli *c) { return c->guide != NULL; }
static bool g_hapset(const struct cts_cli *c)
{
	return c->hapset_load || c->hapset_save || c->hapset_learn_given || c->hapset_prune;
}
static bool g_attach(const struct cts_cli *c) { return c->attach_pid != 0; }
static bool g_sarif(const struct cts_cli *c) { return c->sarif != NULL; }
static bool g_isolate(const struct cts_cli *c) { return c->isolate >= 0; }
static bool g_gdb(const struct cts_cli *c)
{
	return c->gdb || c->gdb_batch || c->core || c->stop_at_given;
}

#define SYSTEMATIC "dfs dpor odpor pcb idb"
#define FUZZERS "racefuzzer deadlockfuzzer atomfuzzer"

static const struct cli_rule {
	const char *option;      /* as the message names it */
	bool (*given)(const struct cts_cli *c);
	unsigned refused;        /* CTX_* where it cannot be used */
	const char *strategies;  /* the -s it needs (not checked with --replay), NULL = any */
	const char *note;        /* appended to the message, or NULL */
} rules[] = {
	/* option                 given        refused in/with                   strategies */
	{ "--mode break/step",    g_mode,      CTX_ATTACH,                      NULL, NULL },
	{ "--races catch",        g_catch,     CTX_ATTACH,                      NULL,
	  "attach mode stops at every shared access: use --races report or fail" },
	{ "--check",              g_check,     CTX_ATTACH,                      NULL, "not yet" },
	{ "--break",              g_break,     CTX_ATTACH | CTX_SPLIT,          NULL, "not yet" },
	{ "--tries, --suspects and --suspects-from", g_active, CTX_ATTACH,    FUZZERS, NULL },
	{ "--dlf-paper",          g_dlfpaper,  CTX_ATTACH,                      "deadlockfuzzer", NULL },
	{ "--state-match",        g_state,     CTX_ATTACH | CTX_SPLIT,          NULL, "not yet" },
	{ "--no-cutoffs",         g_cutoffs,   CTX_ATTACH,                      NULL, NULL },
	{ "--jobs, --shard and --split-depth", g_split, CTX_ATTACH | CTX_REPLAY,
	  "random pct " SYSTEMATIC, NULL },
	{ "--hot-lines",          g_hotlines,  CTX_ATTACH | CTX_REPLAY,         "random pct dfs dpor pcb idb unfold hapset",
	  "it starts a search's learning of shared lines; a replay shows its schedule's" },
	{ "--instance",           g_inst1,     CTX_ATTACH | CTX_SPLIT | CTX_STATE,
	  "random pct " SYSTEMATIC, NULL },
	{ "--instances",          g_insts,     CTX_ATTACH | CTX_DEPTH | CTX_STATE,
	  "random pct " SYSTEMATIC, NULL },
	{ "--coverage",           g_coverage,  CTX_ATTACH | CTX_SPLIT,          NULL, "not yet" },
	{ "--guide hapset",       g_guide,     CTX_ATTACH | CTX_SPLIT,          "dpor odpor pcb idb", NULL },
	{ "--hapset-load, --hapset-save, --hapset-learn and --hapset-prune", g_hapset, CTX_ATTACH, NULL, NULL },
	{ "--sarif",              g_sarif,     CTX_ATTACH,                      NULL,
	  "not yet: --report writes the session's JSON" },
	{ "--isolate and --no-isolate", g_isolate, CTX_ATTACH,                NULL,
	  "attach mode starts no run" },
	{ "--gdb, --gdb-batch, --core and --stop-at", g_gdb, CTX_ATTACH | CTX_EXPLORE, NULL,
	  "they stop a replayed schedule: --replay FILE" },
	{ "-p (attach mode)",     g_attach,    0,                              "random pct", NULL },
};

/* Is name one of the space-separated words of list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return true;
	return false;
}

int cts_cli_check(const struct cts_cli *c, char *err, size_t errlen)
{
	unsigned ctx = (c->attach_pid ? CTX_ATTACH : 0) | (c->replay ? CTX_REPLAY : 0) |
		       (g_split(c) ? CTX_SPLIT : 0) | (g_state(c) ? CTX_STATE : 0) |
		       (c->split_depth_given ? CTX_DEPTH : 0) |
		       (!c->attach_pid && !c->replay ? CTX_EXPLORE : 0);
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct cli_rule *r = &rules[i];
		if (!r->given(c))
			continue;
		unsigned hit = r->refused & ctx;
		if (hit) {
			size_t k = 0;
			while (!(hit & (1u << k)))
				k++;
			return bad(err, errlen, "%s cannot be used %s%s%s%s", r->option, ctx_phrase[k],
				   r->note ? " (" : "", r->note ? r->note : "", r->note ? ")" : "");
		}
		if (r->strategies && !c->replay && !in_list(r->strategies, c->strategy)) {
			char list[160];
			size_t n = 0;
			for (const char *p = r->strategies; *p && n + 3 < sizeof(list); p++) {
				if (*p == ' ')
					list[n++] = ',';
				list[n++] = *p;
			}
			list[n] = 0;
			return bad(err, errlen, "%s go%s with -s %s only, not with -s %.64s", r->option,
				   strchr(r->option, ',') || strstr(r->option, " and ") ? "" : "es",
				   list, c->strategy);
		}
	}
	/* Their suspects are plain accesses: sync mode shows none, and would
	 * end with "0 suspects" as if the program had no window (issue 29). */
	if (!c->replay && c->mode && strcmp(c->mode, "sync") == 0 &&
	    (strcmp(c->strategy, "atomfuzzer") == 0 || strcmp(c->strategy, "racefuzzer") == 0))
		return bad(err, errlen, "-s %s finds its suspects among plain memory accesses, which "
			   "-m sync does not see: use -m break (the default) or step", c->strategy);
	return 0;
}
