/* timeout: 180 */
/* Optimal DPOR (-s odpor) through cts_explore on simulated programs:
 * exactly one run per Mazurkiewicz trace (every run's trace, as its Foata
 * normal form under cts_event_dependent, differs from the others'; the set
 * of traces is dfs's, and dpor's), no run cut short, complete, and the bugs
 * dpor finds. */
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
#include "tests/unit/traces.h"

/* odpor on sim: one run per trace, the traces of dpor and of dfs (when
 * with_dfs), none cut, complete; want: the number of traces if known. */
static void check(struct cts_sim *sim, const char *name, uint64_t want, bool with_dfs)
{
	struct trace_set o = trace_explore(sim, CTS_SEARCH_ODPOR, false, 0);
	struct trace_set d = trace_explore(sim, CTS_SEARCH_DPOR, false, 0);
	tap_ok(o.complete && o.cut == 0 && o.dups == 0 && o.runs == o.traces,
	       "odpor %s: %" PRIu64 " runs, %" PRIu64 " traces, %" PRIu64 " cut, complete %d "
	       "(dpor %" PRIu64 " runs, %" PRIu64 " cut)", name, o.runs, o.traces, o.cut,
	       o.complete, d.runs, d.cut);
	tap_ok(trace_missing(&d, &o) == 0 && trace_missing(&o, &d) == 0 &&
	       (o.nbugs > 0) == (d.nbugs > 0),
	       "odpor %s: the traces dpor explores (%" PRIu64 "), a bug where dpor finds one "
	       "(%d, dpor %d)", name, d.traces, o.nbugs, d.nbugs);
	if (want)
		tap_is_int(o.runs, want, "odpor %s: %" PRIu64 " traces known", name, want);
	if (with_dfs) {
		struct trace_set f = trace_explore(sim, CTS_SEARCH_DFS, false, 0);
		tap_ok(f.complete && f.nseen == o.nseen &&
		       memcmp(o.seen, f.seen, o.nseen * sizeof(*o.seen)) == 0,
		       "odpor %s: the traces of dfs's %" PRIu64 " runs (%zu)", name, f.runs, f.nseen);
		trace_set_free(&f);
	}
	trace_set_free(&o);
	trace_set_free(&d);
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

	/* main does not join t0: the process exit (dependent with everything,
	 * on no chain of dpor's index) races with what t0 was left pending
	 * at. The assert fails only if main reads x before t0 writes it and
	 * t0 reads y after main wrote it, all before main exits: 12 traces. */
	sim = parse("thread main: create t0; create t1; join t1; read x -> v; if v != 0 goto d; "
		    "write y 1; d: let v = v\n"
		    "thread t0: write x 1; read y -> a; assert a == 0\nthread t1: read x -> b\n");
	check(sim, "a thread left running at exit", 12, true);
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
