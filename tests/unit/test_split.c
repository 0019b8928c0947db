/* timeout: 60 */
/* The work of a systematic search split into subtrees (strategies/split.h),
 * on the simulated programs of tests/sim: the shards of dfs, pcb and idb
 * explore exactly the schedules of one process, whatever the split depth
 * and the number of shards; dpor's shards exactly those of one process with
 * the same split depth, at least plain dpor's, reaching the same final
 * states as dfs. Random runs: the shards' run numbers cover 0..n-1 once. */
#include <dirent.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/split.h"
#include "strategies/systematic.h"
#include "tests/unit/tap.h"

static char simdir[512];

#define MAX_FINALS 256
struct finals {
	struct cts_sim *sim;
	int n;
	char seen[MAX_FINALS][96];
};

static void finals_end(void *ctx, const struct cts_run_summary *sum)
{
	static const char *const vars[] = { "x", "y", "a", "miss", "got", "ready", "p", "q", NULL };
	struct finals *f = ctx;
	char buf[96];
	size_t off;
	if (sum->aborted)
		return;
	off = (size_t)snprintf(buf, sizeof(buf), "%s", sum->bug ? "bug" : "ok");
	for (int i = 0; vars[i] && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %s=%" PRId64, vars[i],
					cts_sim_value(f->sim, vars[i], 0));
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->seen[i], buf) == 0)
			return;
	if (f->n < MAX_FINALS)
		snprintf(f->seen[f->n++], sizeof(f->seen[0]), "%s", buf);
}

struct outcome {
	uint64_t runs, walked;
	bool complete;
};

/* One search, or shard `shard` of n with `depth` (n = 0: no split). */
static struct outcome search(struct cts_sim *sim, enum cts_search_kind kind, unsigned shard,
			     unsigned n, unsigned depth, struct finals *fin)
{
	struct outcome o = { 0 };
	struct cts_split *split = n ? cts_split_new(CTS_WORK_SUBTREE, shard, n, 1, depth) : NULL;
	struct cts_strategy_config sc = { .bound = 1, .max_steps = 10000, .split = split };
	struct cts_search_hooks hooks = { .ctx = fin, .end_run = finals_end };
	if (fin)
		fin->sim = sim;
	struct cts_strategy *s = cts_search_create(kind, &sc, fin ? &hooks : NULL);
	struct cts_explorer_config cfg = { .max_steps = 10000, .quiet = true, .log = tap_quiet_log(),
					   .split = split };
	struct cts_explore_result res;
	if (cts_sim_explore(sim, &cfg, s, &res) != 0)
		tap_diag("explore failed: %s", res.error);
	o.runs = res.runs;
	o.complete = res.complete;
	o.walked = split ? cts_split_foreign_runs(split) : 0;
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	cts_split_free(split);
	return o;
}

/* Runs of all n shards; complete if each is. */
static struct outcome shards(struct cts_sim *sim, enum cts_search_kind kind, unsigned n,
			     unsigned depth, struct finals *fin)
{
	struct outcome t = { .complete = true };
	for (unsigned i = 1; i <= n; i++) {
		struct outcome o = search(sim, kind, i, n, depth, fin);
		t.runs += o.runs;
		t.walked += o.walked;
		t.complete &= o.complete;
	}
	return t;
}

static bool same_finals(const struct finals *a, const struct finals *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		bool found = false;
		for (int j = 0; j < b->n; j++)
			found |= strcmp(a->seen[i], b->seen[j]) == 0;
		if (!found)
			return false;
	}
	return true;
}

static void test_scripts(void)
{
	static const enum cts_search_kind kinds[] = { CTS_SEARCH_DFS, CTS_SEARCH_PCB,
						       CTS_SEARCH_IDB };
	static const char *const names[] = { "dfs", "pcb", "idb" };
	static struct finals fdfs, fsplit;
	DIR *dir = opendir(simdir);
	struct dirent *de;
	int checked = 0;

	if (!tap_ok(dir != NULL, "open %s", simdir))
		return;
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		char err[256], path[1024];
		if (len < 5 || strcmp(de->d_name + len - 4, ".sim"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", simdir, de->d_name);
		struct cts_sim *sim = cts_sim_load(path, err, sizeof(err));
		if (!sim)
			continue;
		cts_sim_set_const(sim, "N", 1);
		struct outcome plain = search(sim, CTS_SEARCH_DFS, 0, 0, 0, NULL);
		if (!plain.complete || plain.runs > 3000) {
			cts_sim_free(sim);
			continue; /* too big for a unit test */
		}
		bool exact = true;
		char what[128] = "";
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			struct outcome p = search(sim, kinds[k], 0, 0, 0, NULL);
			for (unsigned depth = 0; depth <= 5; depth += 1 + depth)
				for (unsigned n = 1; n <= 5; n += 2) {
					struct outcome s = shards(sim, kinds[k], n, depth, NULL);
					if ((s.runs != p.runs || s.complete != p.complete) && exact) {
						exact = false;
						snprintf(what, sizeof(what), "%s depth %u, %u shards: %"
							 PRIu64 " runs, alone %" PRIu64, names[k], depth, n,
							 s.runs, p.runs);
					}
				}
		}
		tap_ok(exact, "%s: dfs, pcb and idb shards (1, 3, 5; depth 0 to 5) explore the "
		       "schedules of one process (%" PRIu64 " dfs)%s%s", de->d_name, plain.runs,
		       what[0] ? ": " : "", what);
		/* dpor: split alone vs split in shards, vs plain dpor and dfs's finals. */
		fdfs.n = 0;
		search(sim, CTS_SEARCH_DFS, 0, 0, 0, &fdfs);
		struct outcome pd = search(sim, CTS_SEARCH_DPOR, 0, 0, 0, NULL);
		bool ok = true;
		for (unsigned depth = 1; depth <= 3 && ok; depth += 2) {
			struct outcome one = search(sim, CTS_SEARCH_DPOR, 1, 1, depth, NULL);
			fsplit.n = 0;
			struct outcome s3 = shards(sim, CTS_SEARCH_DPOR, 3, depth, &fsplit);
			ok = s3.runs == one.runs && one.runs >= pd.runs && s3.complete &&
			     same_finals(&fdfs, &fsplit);
			if (!ok)
				tap_diag("dpor depth %u: 3 shards %" PRIu64 ", alone %" PRIu64
					 ", plain %" PRIu64 ", finals %d vs dfs %d", depth, s3.runs,
					 one.runs, pd.runs, fsplit.n, fdfs.n);
		}
		tap_ok(ok, "%s: dpor shards explore the split search's schedules (>= plain dpor's "
		       "%" PRIu64 "), reaching dfs's %d final states", de->d_name, pd.runs, fdfs.n);
		cts_sim_free(sim);
		checked++;
	}
	closedir(dir);
	tap_ok(checked >= 8, "checked %d scripts", checked);
}

/* Run numbers: shards and workers of one split take each number once. */
static void test_runs(void)
{
	enum { N = 200 };
	static int taken[N];
	memset(taken, 0, sizeof(taken));
	for (unsigned shard = 1; shard <= 3; shard++) {
		struct cts_split *s = cts_split_new(CTS_WORK_RUNS, shard, 3, 1, 0);
		uint64_t run;
		for (uint64_t n = 0; cts_split_next_run(s, N, n, 0, &run); n++)
			if (run < N)
				taken[run]++;
		cts_split_free(s);
	}
	bool once = true;
	for (int i = 0; i < N; i++)
		once &= taken[i] == 1;
	tap_ok(once, "3 shards of 200 runs take each run number once");
	struct cts_split *s = cts_split_new(CTS_WORK_RUNS, 1, 1, 2, 0);
	uint64_t run;
	cts_split_found_bug(s);
	tap_ok(!cts_split_next_run(s, 0, 0, 0, &run), "after a bug no worker takes another run");
	cts_split_free(s);
}

int main(int argc, char **argv)
{
	char self[512];
	(void)argc;
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(simdir, sizeof(simdir), "%s/../sim", dirname(self));
	test_runs();
	test_scripts();
	return tap_done();
}
