/* libFuzzer target: the command-line parser. The input is the argument list,
 * arguments separated by NUL bytes. Whatever it is, the parser either refuses
 * it with one line of reason or returns options that keep every documented
 * limit; it never starts anything. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

static void check(const struct cts_cli *c)
{
	struct cts_watch_spec w;
	char err[256];

	if (!c->replay && !c->attach_pid && (!c->prog_argv || c->prog_argc < 1 || !c->prog_argv[0]))
		abort(); /* a program, a schedule or -p PID */
	if (c->attach_pid && (c->prog_argv || c->replay))
		abort();
	if (c->prog_argv && c->prog_argv[c->prog_argc])
		abort(); /* argv stays NULL-terminated */
	if (c->depth < 1 || c->depth > 64 || c->bound > 1000 || !c->max_steps)
		abort();
	if (!(c->timeout >= 0 && c->timeout <= CTS_CLI_MAX_SECONDS) ||
	    !(c->time_limit >= 0 && c->time_limit <= CTS_CLI_MAX_SECONDS))
		abort();
	if (c->races < -1 || c->races > CTS_RACES_CATCH_FAIL || c->nwatch > CTS_CLI_MAX_WATCH ||
	    c->ntrace_libs > CTS_CLI_MAX_TRACE_LIBS || !c->out_dir[0] || !c->strategy[0])
		abort();
	if (c->mode && strcmp(c->mode, "sync") && strcmp(c->mode, "break") && strcmp(c->mode, "step"))
		abort();
	for (int i = 0; i < c->nwatch; i++) {
		if (cts_cli_parse_watch(c->watch[i], &w, err, sizeof(err)) != 0)
			abort();
		if (w.is_addr && (w.addr < 4096 || w.addr % w.len))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[MAX_ARGS + 2];
	int argc = 0;
	char err[512];
	struct cts_cli c;

	memcpy(copy, data, size);
	copy[size] = 0;
	argv[argc++] = "cts-trace";
	for (char *p = copy; p <= copy + size && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	err[0] = 0;
	switch (cts_cli_parse(argc, argv, &c, err, sizeof(err))) {
	case CTS_CLI_USAGE:
		if (!err[0] || strchr(err, '\n'))
			abort();
		break;
	case CTS_CLI_RUN:
		check(&c);
		break;
	case CTS_CLI_HELP:
	case CTS_CLI_VERSION:
		break;
	default:
		abort();
	}
	free(copy);
	return 0;
}
