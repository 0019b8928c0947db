/* benchmarks/map/mapsim SCRIPT STRATEGY SEED RUNS [NAME=VALUE...]: MAP coverage
 * of a simulated program (strategies/sim.c) under one strategy, printed after
 * every run as "run covered estimate bugs". Built by benchmarks/map.sh
 * against libcts.a. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "models/coverage.h"
#include "models/map.h"
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/strategy.h"

int main(int argc, char **argv)
{
	char err[256];
	if (argc < 5) {
		fprintf(stderr, "usage: mapsim SCRIPT STRATEGY SEED RUNS [NAME=VALUE...]\n");
		return 2;
	}
	struct cts_sim *sim = cts_sim_load(argv[1], err, sizeof(err));
	if (!sim) {
		fprintf(stderr, "mapsim: %s\n", err);
		return 2;
	}
	for (int i = 5; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (eq) {
			*eq = 0;
			cts_sim_set_const(sim, argv[i], strtoll(eq + 1, NULL, 0));
		}
	}
	struct cts_objmodel *om = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, om);
	struct cts_map *map = cts_map_new();
	struct cts_coverage *cov = cts_coverage_new();
	struct cts_coverage_source src;
	cts_map_coverage_source(map, &src);
	cts_coverage_add_source(cov, &src);
	struct cts_strategy_config sc = { .seed = strtoull(argv[3], NULL, 0), .max_steps = 100000,
					  .map = map };
	struct cts_strategy *s = cts_strategy_create(argv[2], &sc, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "mapsim: %s\n", err);
		return 2;
	}
	struct cts_explorer_config cfg = { .runs = strtoull(argv[4], NULL, 0), .max_steps = 100000,
					   .stop_on_bug = false, .quiet = true, .log = stderr,
					   .coverage = cov };
	struct cts_explore_result res;
	if (cts_explore(&cfg, &be, om, s, &res) != 0) {
		fprintf(stderr, "mapsim: %s\n", res.error);
		return 2;
	}
	json_t *jo = cts_coverage_json(cov);
	char *j = json_dumps(jo, JSON_COMPACT);
	json_decref(jo);
	if (!j)
		return 2;
	puts(j);
	free(j);
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	cts_coverage_free(cov);
	cts_map_free(map);
	cts_objmodel_free(om);
	cts_sim_free(sim);
	return 0;
}
