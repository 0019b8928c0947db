/* Runs a simulated script (strategies/sim.h) under one search and prints
 * one line: runs, complete, bugs, markings stored, model size, seconds.
 * Usage: simbench SCRIPT dfs|dpor|odpor|petri|petri-writes|unfold|unfold-nc [NAME=VALUE...]
 * (unfold: stateful unfolding, values keying; unfold-nc: --no-cutoffs)
 * Environment: LIMIT_RUNS (default 1000000), LIMIT_SECONDS (default 600). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/stateful.h"
#include "strategies/systematic.h"

int main(int argc, char **argv)
{
	char err[256];
	if (argc < 3) {
		fprintf(stderr, "usage: simbench SCRIPT dfs|dpor|odpor|petri|petri-writes|unfold|unfold-nc [NAME=VALUE...]\n");
		return 2;
	}
	struct cts_sim *sim = cts_sim_load(argv[1], err, sizeof(err));
	if (!sim) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			return 2;
		*eq = 0;
		if (!cts_sim_set_const(sim, argv[i], strtoll(eq + 1, NULL, 0))) {
			fprintf(stderr, "no const %s\n", argv[i]);
			return 2;
		}
	}
	const char *lr = getenv("LIMIT_RUNS"), *ls = getenv("LIMIT_SECONDS");
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, m);
	struct cts_strategy_config sc = { .max_steps = 100000, .time_limit = ls ? atof(ls) : 600 };
	struct cts_strategy *s;
	if (strcmp(argv[2], "dfs") == 0)
		s = cts_search_create(CTS_SEARCH_DFS, &sc, NULL);
	else if (strcmp(argv[2], "dpor") == 0)
		s = cts_search_create(CTS_SEARCH_DPOR, &sc, NULL);
	else if (strcmp(argv[2], "odpor") == 0)
		s = cts_search_create(CTS_SEARCH_ODPOR, &sc, NULL);
	else if (strcmp(argv[2], "petri") == 0)
		s = cts_petri_dfs_create(&sc, CTS_PETRI_VALUES);
	else if (strcmp(argv[2], "petri-writes") == 0)
		s = cts_petri_dfs_create(&sc, CTS_PETRI_WRITES);
	else if (strcmp(argv[2], "unfold") == 0)
		s = cts_petri_unfold_create(&sc, CTS_PETRI_VALUES, true);
	else if (strcmp(argv[2], "unfold-nc") == 0)
		s = cts_petri_unfold_create(&sc, CTS_PETRI_VALUES, false);
	else
		return 2;
	struct cts_explorer_config cfg = {
		.runs = lr ? strtoull(lr, NULL, 0) : 1000000,
		.time_limit = ls ? atof(ls) : 600, .max_steps = 100000,
		.stop_on_bug = false, .quiet = true, .log = stderr,
	};
	struct cts_explore_result res;
	if (cts_explore(&cfg, &be, m, s, &res)) {
		fprintf(stderr, "explore failed: %s\n", res.error);
		return 3;
	}
	struct cts_petri_search_stats ps = { 0 };
	bool petri = cts_petri_search_stats(s, &ps);
	printf("runs=%" PRIu64 " complete=%d bugs=%d markings=%" PRIu64 " places=%" PRIu64
	        " transitions=%" PRIu64 " memory=%" PRIu64 " conflicts=%" PRIu64 " events=%" PRIu64
	       " cutoffs=%" PRIu64 " restarts=%" PRIu64 " cut=%" PRIu64 " sweep_markings=%" PRIu64
	       " sweep_runs=%" PRIu64 " stateless_tests=%" PRIu64 " seconds=%.2f\n",
	       res.runs, res.complete, res.nbugs, petri ? ps.markings : 0, petri ? ps.places : 0,
	       petri ? ps.transitions : 0, petri ? ps.bytes : 0, petri ? ps.conflicts : 0,
	       petri ? ps.events : 0, petri && ps.unfold ? ps.terminals : 0, petri ? ps.restarts : 0,
	       res.ncut, petri && ps.unfold ? ps.sweep_markings : 0,
	       petri && ps.unfold ? ps.sweep_runs : 0, petri && ps.unfold ? ps.stateless_tests : 0,
	       res.elapsed);
	if (!res.complete && petri && ps.why[0])
		fprintf(stderr, "not complete: %s\n", ps.why);
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	cts_objmodel_free(m);
	cts_sim_free(sim);
	return 0;
}
