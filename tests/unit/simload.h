/* Unit tests on the simulated backend: load a script of tests/sim (simdir,
 * set by the test's main) or parse one from a string; NULL after a TAP
 * diagnostic on failure. */
#ifndef CTS_TEST_SIMLOAD_H
#define CTS_TEST_SIMLOAD_H

#include <stdio.h>
#include "strategies/sim.h"
#include "tests/unit/tap.h"

static char simdir[512];

static inline struct cts_sim *load(const char *name)
{
	char path[768], err[256];
	snprintf(path, sizeof(path), "%s/%s", simdir, name);
	struct cts_sim *sim = cts_sim_load(path, err, sizeof(err));
	if (!sim)
		tap_diag("%s", err);
	return sim;
}

static inline struct cts_sim *parse(const char *text)
{
	char err[256];
	struct cts_sim *sim = cts_sim_parse(text, err, sizeof(err));
	if (!sim)
		tap_diag("%s", err);
	return sim;
}

#endif
