/* timeout: 180 */
/* Optimal DPOR (-s odpor) through cts_explore on simulated programs:
 * exactly one run per Mazurkiewicz trace (every run's trace, as its Foata
 * normal form under cts_event_dependent, differs from the others'; the set
 * of traces is dfs's), no run cut short, complete, and the bugs dpor finds. */
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/systematic.h"
#include "strategies/wakeup.h"
#include "tests/unit/tap.h"

#include "tests/unit/simload.h"

/* ---- the trace of a run, as a hash of its Foata normal form ---- */

#define MAX_EV 4096
#define MAX_TRACES 200000
#define HASH_SLOTS (1u << 19)

struct traces {
	struct cts_event ev[MAX_EV];
	uint32_t level[MAX_EV];
	uint64_t n;
	uint64_t *seen;    /* hashes of the traces of the runs so far */
	uint64_t tab[HASH_SLOTS];
	size_t nseen;
	uint64_t dups;     /* runs whose trace an earlier run had */
};

static void t_observe(void *ctx, uint64_t step, const struct cts_event *ev)
{
	struct traces *t = ctx;
	if (step < MAX_EV) {
		t->ev[step] = *ev;
		t->n = step + 1;
	}
}

static int by_level(const void *a, const void *b, void *ctx)
{
	const struct traces *t = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (t->level[x] != t->level[y])
		return t->level[x] < t->level[y] ? -1 : 1;
	return t->ev[x].tid - t->ev[y].tid;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static void t_end(void *ctx, const struct cts_run_summary *sum)
{
	struct traces *t = ctx;
	static uint32_t order[MAX_EV];
	if (sum->aborted)
		return;
	for (uint64_t k = 0; k < t->n; k++) {
		uint32_t lv = 0;
		for (uint64_t m = 0; m < k; m++)
			if (t->level[m] + 1 > lv && cts_event_dependent(&t->ev[m], &t->ev[k]))
				lv = t->level[m] + 1;
		t->level[k] = lv;
		order[k] = (uint32_t)k;
	}
	qsort_r(order, t->n, sizeof(*order), by_level, t);
	uint64_t h = 0;
	for (uint64_t k = 0; k < t->n; k++) {
		const struct cts_event *e = &t->ev[order[k]];
		h = mix(h, t->level[order[k]]);
		h = mix(h, (uint64_t)e->tid << 32 | e->op);
		h = mix(h, e->obj);
	}
	h |= 1;   /* 0 marks a free slot */
	size_t i = (size_t)(h >> 7) & (HASH_SLOTS - 1);
	while (t->tab[i] && t->tab[i] != h)
		i = (i + 1) & (HASH_SLOTS - 1);
	if (t->tab[i]) {
		t->dups++;
		return;
	}
	if (t->nseen < MAX_TRACES) {
		t->tab[i] = h;
		t->seen[t->nseen++] = h;
	}
}

struct outcome {
	uint64_t runs, cut, traces, dups;
	bool complete;
	int nbugs;
	enum cts_bug_kind kind;
	struct cts_search_stats stats;
	uint64_t *seen;   /* the traces, sorted (caller frees) */
	size_t nseen;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static struct outcome explore(struct cts_sim *sim, enum cts_search_kind kind, bool stop_on_bug)
{
	struct outcome o = { 0 };
	struct traces *t = calloc(1, sizeof(*t));
	t->seen = malloc(MAX_TRACES * sizeof(*t->seen));
	struct cts_strategy_config sc = { .max_steps = 10000 };
	struct cts_search_hooks hooks = { .ctx = t, .observe = t_observe, .end_run = t_end };
	struct cts_strategy *s = cts_search_create(kind, &sc, &hooks);
	struct cts_explorer_config cfg = { .max_steps = 10000, .stop_on_bug = stop_on_bug,
					   .quiet = true, .log = tap_quiet_log() };
	struct cts_explore_result res;
	if (cts_sim_explore(sim, &cfg, s, &res))
		tap_diag("explore failed: %s", res.error);
	o.runs = res.runs;
	o.cut = res.ncut;
	o.complete = res.complete;
	o.nbugs = res.nbugs;
	if (res.nbugs)
		o.kind = res.bugs[0].kind;
	cts_search_get_stats(s, &o.stats);
	o.traces = t->nseen;
	o.dups = t->dups;
	qsort(t->seen, t->nseen, sizeof(*t->seen), cmp_u64);
	o.seen = t->seen;
	o.nseen = t->nseen;
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	free(t);
	return o;
}

/* odpor on sim: one run per trace, the traces of dfs (when dfs is given,
 * want_dfs), none cut, complete; want: the number of traces if known. */
static void check(struct cts_sim *sim, const char *name, uint64_t want, bool with_dfs)
{
	struct outcome o = explore(sim, CTS_SEARCH_ODPOR, false);
	struct outcome d = explore(sim, CTS_SEARCH_DPOR, false);
	tap_ok(o.complete && o.cut == 0 && o.dups == 0 && o.runs == o.traces,
	       "odpor %s: %" PRIu64 " runs, %" PRIu64 " traces, %" PRIu64 " cut, complete %d "
	       "(dpor %" PRIu64 " runs, %" PRIu64 " cut)", name, o.runs, o.traces, o.cut,
	       o.complete, d.runs, d.cut);
	size_t in = 0;
	for (size_t i = 0; i < d.nseen; i++)
		in += bsearch(&d.seen[i], o.seen, o.nseen, sizeof(*o.seen), cmp_u64) != NULL;
	tap_ok(in == d.nseen && (o.nbugs > 0) == (d.nbugs > 0),
	       "odpor %s: every trace dpor explores (%" PRIu64 "), a bug where dpor finds one "
	       "(%d, dpor %d)", name, d.traces, o.nbugs, d.nbugs);
	if (want)
		tap_is_int(o.runs, want, "odpor %s: %" PRIu64 " traces known", name, want);
	if (with_dfs) {
		struct outcome f = explore(sim, CTS_SEARCH_DFS, false);
		tap_ok(f.complete && f.nseen == o.nseen &&
		       memcmp(o.seen, f.seen, o.nseen * sizeof(*o.seen)) == 0,
		       "odpor %s: the traces of dfs's %" PRIu64 " runs (%zu)", name, f.runs, f.nseen);
		free(f.seen);
	}
	free(o.seen);
	free(d.seen);
}

static void test_counts(void)
{
	struct cts_sim *sim;
	char text[4096];
	size_t off;

	/* n independent writers: one trace */
	off = (size_t)snprintf(text, sizeof(text), "thread main:\n");
	for (int i = 1; i <= 6; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "  create w%d\n", i);
	for (int i = 1; i <= 6; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "  join w%d\n", i);
	for (int i = 1; i <= 6; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"thread w%d: write v%d %d; read v%d -> r\n", i, i, i, i);
	sim = parse(text);
	check(sim, "6 writers on own variables", 1, false);
	cts_sim_free(sim);

	/* two threads writing x once each: 2 */
	sim = parse("thread main: create a; create b; join a; join b\n"
		    "thread a: write x 1\nthread b: write x 2\n");
	check(sim, "two writes of x", 2, true);
	cts_sim_free(sim);

	/* n writers of one variable: n! orders (n = 4: 24) */
	sim = parse("thread main: create a; create b; create c; create d; join a; join b; join c; join d\n"
		    "thread a: write x 1\nthread b: write x 2\nthread c: write x 3\nthread d: write x 4\n");
	check(sim, "4 writes of x", 24, false);
	cts_sim_free(sim);

	/* the paper's writer-readers (Abdulla et al. 2014, Fig. 1 shape): one
	 * writer of x, n readers of x: the writer goes before any subset of
	 * reads: 2^n traces (n = 3: 8) */
	sim = parse("thread main: create w; create r1; create r2; join w; join r1; join r2\n"
		    "thread w: write x 1\nthread r1: read x -> a\nthread r2: read x -> a\n");
	check(sim, "writer and 2 readers", 4, true);
	cts_sim_free(sim);
	sim = parse("thread main: create w; create r1; create r2; create r3; join w; join r1; join r2; join r3\n"
		    "thread w: write x 1\nthread r1: read x -> a\nthread r2: read x -> a\nthread r3: read x -> a\n");
	check(sim, "writer and 3 readers", 8, false);
	cts_sim_free(sim);

	/* lastzero(n) (the paper's Sec. 9): array[0..n] = 0; one thread looks
	 * for the last zero from the top, thread i (1..n) sets array[i] =
	 * array[i-1] + 1. Traces (Nidhugg's reference results for the same
	 * program, tests/smoke lastzero_1..4): 2, 5, 12, 28. */
	static const char lz[] =
		"const N = 3\nvar arr[16]\n"
		"thread main:\n  create z\n  let i = 1\nc: create w i\n  let i = i + 1\n  if i <= N goto c\n"
		"  join z\n  let i = 2\nj: join i\n  let i = i + 1\n  if i <= N + 1 goto j\n"
		"thread z:\n  let i = N\nl: read arr[i] -> v\n  if v == 0 goto d\n  let i = i - 1\n"
		"  if i >= 0 goto l\nd: let i = i\n"
		"thread w:\n  read arr[arg - 1] -> v\n  write arr[arg] v + 1\n";
	static const uint64_t lzn[] = { 0, 2, 5, 12, 28 };
	sim = parse(lz);
	for (int n = 1; n <= 4; n++) {
		char name[32];
		snprintf(name, sizeof(name), "lastzero %d", n);
		cts_sim_set_const(sim, "N", n);
		check(sim, name, lzn[n], n <= 1);
	}
	cts_sim_free(sim);

	/* readers(n): one writer of x and n readers (Nidhugg's readers_1..4):
	 * 2^n traces */
	sim = parse("thread main: create w; create r1; create r2; create r3; create r4; join w; "
		    "join r1; join r2; join r3; join r4\n"
		    "thread w: write x 42\nthread r1: read x -> a\nthread r2: read x -> a\n"
		    "thread r3: read x -> a\nthread r4: read x -> a\n");
	check(sim, "writer and 4 readers", 16, false);
	cts_sim_free(sim);
}

static void test_programs(void)
{
	static const char *const scripts[] = {
		"same_var.sim", "lost_update.sim", "lost_update_ok.sim", "deadlock.sim",
		"cond_signal.sim", "sem_barrier.sim", "trylock.sim", "lost_wakeup.sim",
		"two_by_two.sim", "writers.sim", "indexer.sim", "filesystem.sim", "tas_lock.sim",
		"tas_lock_bug.sim", "spin_flag.sim", "spin_flag_bug.sim", "yield_barrier.sim",
		"yield_barrier_bug.sim", "counting_loop.sim",
	};
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		struct cts_sim *sim = load(scripts[i]);
		if (!sim)
			continue;
		check(sim, scripts[i], 0, false);
		cts_sim_free(sim);
	}
}

/* Dining philosophers (benchmarks/petri/dining.sim): odpor explores each
 * trace once where dpor needs more runs or cuts some. */
static void test_dining(void)
{
	char path[768], err[256];
	snprintf(path, sizeof(path), "%s/../../benchmarks/petri/dining.sim", simdir);
	struct cts_sim *sim = cts_sim_load(path, err, sizeof(err));
	if (!sim) {
		tap_diag("%s", err);
		return;
	}
	for (int n = 2; n <= 4; n++) {
		char name[32];
		snprintf(name, sizeof(name), "dining %d", n);
		cts_sim_set_const(sim, "N", n);
		check(sim, name, 0, n == 2);
	}
	cts_sim_free(sim);
}

static struct cts_event ev(int tid, cts_op op, uint64_t obj)
{
	struct cts_event e;
	cts_event_init(&e, tid, op);
	e.obj = obj;
	e.size = 8;
	return e;
}

/* The wakeup tree on its own: insertion and the sleep-set check. */
static void test_wut(void)
{
	struct cts_wut *w = cts_wut_new();
	int32_t root = cts_wut_root(w);
	struct cts_event a = ev(1, CTS_OP_WRITE, 0x100);
	int32_t ca = cts_wut_add(w, root, &a);
	struct cts_event v[3];

	v[0] = ev(2, CTS_OP_WRITE, 0x200);
	tap_ok(!cts_wut_insert(w, root, v, 1) && cts_wut_size(w) == 2,
	       "wut: a leaf whose event commutes with all of v covers v");
	v[0] = ev(2, CTS_OP_WRITE, 0x100);
	tap_ok(cts_wut_insert(w, root, v, 1) && cts_wut_next(w, ca) != CTS_WUT_NONE,
	       "wut: v conflicting with every branch becomes a new rightmost branch");
	v[0] = ev(2, CTS_OP_WRITE, 0x100);
	tap_ok(!cts_wut_insert(w, root, v, 1) && cts_wut_size(w) == 3,
	       "wut: the same v again is covered");
	/* v = t3 reads y, then t1 writes x: t1's write is a weak initial (nothing
	 * before it in v conflicts), so v goes below the leaf t1: covered */
	v[0] = ev(3, CTS_OP_READ, 0x300);
	v[1] = ev(1, CTS_OP_WRITE, 0x100);
	tap_ok(!cts_wut_insert(w, root, v, 2), "wut: a leaf that is a weak initial of v covers it");
	/* v = t3 writes x, then t1 writes x: t1 is no weak initial, t2's branch
	 * conflicts: a new branch of two events */
	v[0] = ev(3, CTS_OP_WRITE, 0x100);
	v[1] = ev(1, CTS_OP_WRITE, 0x100);
	size_t before = cts_wut_size(w);
	tap_ok(cts_wut_insert(w, root, v, 2) && cts_wut_size(w) == before + 2,
	       "wut: a sequence no branch starts is added whole");
	cts_wut_remove(w, ca);
	tap_ok(cts_wut_child(w, root, 1) == CTS_WUT_NONE && cts_wut_child(w, root, 2) != CTS_WUT_NONE,
	       "wut: a branch removed with its subtree, the others stay");

	struct cts_event sl = ev(1, CTS_OP_WRITE, 0x100);
	v[0] = ev(2, CTS_OP_READ, 0x100);
	tap_ok(cts_wut_clears_sleep(&sl, 1, v, 1), "sleep: a sleeper woken by v's first event");
	v[0] = ev(2, CTS_OP_READ, 0x200);
	tap_ok(!cts_wut_clears_sleep(&sl, 1, v, 1), "sleep: a sleeper commuting with all of v blocks it");
	v[0] = ev(2, CTS_OP_READ, 0x200);
	v[1] = ev(1, CTS_OP_WRITE, 0x100);
	tap_ok(!cts_wut_clears_sleep(&sl, 1, v, 2), "sleep: a sleeper v reaches still asleep blocks it");
	cts_wut_free(w);
}

int main(int argc, char **argv)
{
	(void)argc;
	char self[512];
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(simdir, sizeof(simdir), "%s/../sim", dirname(self));
	test_wut();
	test_counts();
	test_programs();
	test_dining();
	return tap_done();
}
