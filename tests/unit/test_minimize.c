/* timeout: 60 */
/* strategies/minimize.c through cts_explore on a simulated program, no
 * kernel: the steps of threads a bug does not need leave the minimized
 * schedule (the original keeps them), the JSON's thread counts say so, and
 * the same bug found the same way minimizes to the same schedule every time
 * (the budget counts replays, never time); and on a model of a program, the
 * bisection that keeps only the head of a thread's steps the bug needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "models/schedule.h"
#include "strategies/explorer.h"
#include "strategies/minimize.h"
#include "strategies/sim.h"
#include "tests/unit/tap.h"

/* A lost update between the two d threads (3 and 4) while the workers w1
 * and w2 (1 and 2) lock their own mutexes; main joins the workers after the
 * check, so the bug needs none of their steps. */
static const char script[] =
	"thread main: create w1; create w2; create d -> a; create d -> b; join a; join b; "
	"assert x == 2; join w1; join w2\n"
	"thread w1: lock l1; unlock l1; lock l1; unlock l1; lock l1; unlock l1\n"
	"thread w2: lock l2; unlock l2; lock l2; unlock l2; lock l2; unlock l2\n"
	"thread d: incr x\n";

struct found {
	int nbugs, threads, original_threads;
	bool minimized;
	struct cts_schedule *sched, *orig; /* the saved and the original schedule */
};

static struct cts_schedule *load(const char *path)
{
	struct cts_schedule *s = NULL;
	char err[256];
	if (path[0] && cts_schedule_load(path, &s, err, sizeof(err)) != 0)
		tap_diag("%s", err);
	return s;
}

static struct found explore(const char *text, uint64_t seed, const char *dir)
{
	struct found f = { 0 };
	char err[256];
	struct cts_sim *sim = cts_sim_parse(text, err, sizeof(err));
	if (!sim) {
		tap_diag("%s", err);
		return f;
	}
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, m);
	struct cts_strategy_config sc = { .seed = seed, .max_steps = 1000 };
	struct cts_strategy *s = cts_random_create(&sc);
	struct cts_explorer_config cfg = {
		.runs = 500, .max_steps = 1000, .stop_on_bug = true, .quiet = true, .log = tap_quiet_log(),
		.out_dir = dir, .program = "sim", .mode = "sync", .strategy_desc = "random",
		.self = "cts-trace", .minimize = true, .min_runs = 100,
	};
	struct cts_explore_result res;
	if (cts_explore(&cfg, &be, m, s, &res) != 0)
		tap_diag("explore failed: %s", res.error);
	f.nbugs = res.nbugs;
	if (res.nbugs) {
		f.threads = res.bugs[0].threads;
		f.original_threads = res.bugs[0].original_threads;
		f.minimized = res.bugs[0].minimized;
		f.sched = load(res.bugs[0].schedule_path);
		f.orig = load(res.bugs[0].orig_path);
	}
	cts_explore_result_free(&res);
	cts_strategy_destroy(s);
	cts_objmodel_free(m);
	cts_sim_free(sim);
	return f;
}

static int steps_of_workers(const struct cts_schedule *s)
{
	int n = 0;
	for (size_t i = 0; s && i < s->n; i++)
		n += s->steps[i].tid == 1 || s->steps[i].tid == 2;
	return n;
}

static bool same_steps(const struct cts_schedule *a, const struct cts_schedule *b)
{
	return a && b && a->n == b->n && memcmp(a->steps, b->steps, a->n * sizeof(*a->steps)) == 0;
}

static void found_free(struct found *f)
{
	if (f->sched)
		cts_schedule_free(f->sched);
	if (f->orig)
		cts_schedule_free(f->orig);
}

/* ---- the bisection on a thread's tail, with a model of the program ---- */

static int count(const int *tids, size_t n, int t)
{
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += tids[i] == t;
	return c;
}

/* Runs exactly the candidate; the bug needs thread 1's two steps and
 * thread 2's first three, nothing of thread 3. */
static int fake_try(void *ctx, const int *tids, size_t n, struct cts_min_run *out)
{
	(*(int *)ctx)++;
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->tids = cts_xmalloc((n + 1) * sizeof(*out->tids));
	out->preempt = cts_xcalloc(n + 1, sizeof(*out->preempt));
	out->ev = cts_xcalloc(n + 1, sizeof(*out->ev));
	memcpy(out->tids, tids, n * sizeof(*tids));
	for (size_t i = 0; i < n; i++)
		out->ev[i].tid = tids[i];
	out->same_bug = count(tids, n, 1) >= 2 && count(tids, n, 2) >= 3;
	out->clean = !out->same_bug;
	return 0;
}

static void test_tail(void)
{
	static const int run[] = { 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 3, 3, 3, 0 };
	size_t n = sizeof(run) / sizeof(run[0]);
	struct cts_min_run orig = { .n = n };
	struct cts_min_config cfg = { .max_runs = 100, .fail_tid = 0 };
	struct cts_min_result res;
	int calls = 0;
	fake_try(&calls, run, n, &orig);
	calls = 0;
	tap_is_int(cts_minimize(&orig, &cfg, fake_try, &calls, &res), 0, "tail: minimized");
	const struct cts_min_run *b = &res.best;
	tap_ok(count(b->tids, b->n, 2) == 3 && count(b->tids, b->n, 1) == 2 &&
	       count(b->tids, b->n, 3) == 0 && count(b->tids, b->n, 0) == 2,
	       "tail: thread 2 keeps the 3 steps the bug needs (of 10), thread 3 none, "
	       "threads 0 and 1 all theirs");
	tap_ok(res.original_threads == 4 && cts_min_run_threads(b) == 3,
	       "tail: 3 threads scheduled, was %d", res.original_threads);
	/* thread 1: 2 (all, then its tail), thread 2: 4 (bisection over 10), thread 3: 1 */
	tap_ok(res.runs == calls && res.runs == 7 && !res.cut, "tail: %d replays", res.runs);
	cts_min_result_free(&res);
}

int main(void)
{
	char d1[] = "/tmp/cts-min-XXXXXX", d2[] = "/tmp/cts-min-XXXXXX";
	if (!mkdtemp(d1) || !mkdtemp(d2)) {
		tap_ok(0, "temporary directories");
		return tap_done();
	}
	/* Seeds whose first bug has the workers' steps in it. */
	int tried = 0;
	for (uint64_t seed = 1; seed <= 8 && tried < 3; seed++) {
		struct found a = explore(script, seed, d1);
		if (!a.nbugs || !a.orig || !steps_of_workers(a.orig)) {
			found_free(&a);
			continue;
		}
		tried++;
		int ws = steps_of_workers(a.sched), wo = steps_of_workers(a.orig);
		tap_ok(a.minimized && ws < wo, "seed %llu: the workers' steps %d in the minimized "
		       "schedule, %d in the original", (unsigned long long)seed, ws, wo);
		tap_ok(a.threads < a.original_threads, "seed %llu: %d threads scheduled, was %d",
		       (unsigned long long)seed, a.threads, a.original_threads);
		struct found b = explore(script, seed, d2);
		tap_ok(b.nbugs && same_steps(a.sched, b.sched),
		       "seed %llu: minimized twice, the same schedule", (unsigned long long)seed);
		found_free(&a);
		found_free(&b);
	}
	tap_is_int(tried, 3, "three seeds found the bug with the workers' steps in it");

	test_tail();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", d1, d2);
	if (system(cmd) != 0)
		tap_diag("could not remove %s %s", d1, d2);
	return tap_done();
}
