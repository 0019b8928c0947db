/* libFuzzer target: the schedule parser. Any input either parses, and then
 * writes back to text that parses to the same schedule, or is refused with
 * one line of reason; nothing crashes, leaks or reads out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

static int same_list(char **a, int na, char **b, int nb)
{
	if (na != nb)
		return 0;
	for (int i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

static int same(const struct cts_schedule *a, const struct cts_schedule *b)
{
	if (!same_str(a->program, b->program) || !same_str(a->mode, b->mode) ||
	    !same_str(a->strategy, b->strategy) || !same_str(a->bug, b->bug) ||
	    !same_str(a->races, b->races) || a->max_steps != b->max_steps ||
	    a->timeout != b->timeout || a->fail_on_exit != b->fail_on_exit ||
	    !same_list(a->argv, a->argc, b->argv, b->argc) ||
	    !same_list(a->watch, a->nwatch, b->watch, b->nwatch) ||
	    !same_list(a->trace_libs, a->ntrace_libs, b->trace_libs, b->ntrace_libs) ||
	    a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->steps[i].tid != b->steps[i].tid || a->steps[i].op != b->steps[i].op ||
		    a->steps[i].obj != b->steps[i].obj)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *text = malloc(size + 1), *buf = NULL;
	size_t len = 0;
	struct cts_schedule *s = NULL, *t = NULL;

	memcpy(text, data, size);
	text[size] = 0;
	err[0] = 0;
	if (cts_schedule_parse(text, "fuzz", &s, err, sizeof(err)) != 0) {
		if (!err[0] || strchr(err, '\n'))
			abort(); /* a refusal is one line of reason */
		free(text);
		return 0;
	}
	FILE *f = open_memstream(&buf, &len);
	if (!f || cts_schedule_write(s, f) != 0 || fclose(f) != 0)
		abort();
	if (cts_schedule_parse(buf, "round-trip", &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "written schedule does not parse: %s\n", err);
		abort();
	}
	if (!same(s, t))
		abort();
	cts_schedule_free(s);
	cts_schedule_free(t);
	free(buf);
	free(text);
	return 0;
}
