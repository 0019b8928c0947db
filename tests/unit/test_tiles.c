/* timeout: 60 */
/* Tilings and instances (strategies/tiles.h): spec parsing, instance counts,
 * the random generator, and the paper's coverage argument checked
 * exhaustively on the simulated backend: every execution with at most k
 * context switches is explored by dfs inside some instance of the
 * ceil(k/2)-selections, and dfs inside an instance explores exactly the
 * program's executions that instance allows. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"
#include "strategies/systematic.h"
#include "strategies/tiles.h"
#include "tests/unit/tap.h"

/* ---- specs ---- */

static void test_specs(void)
{
	static const char *const good[][2] = {
		{ "t=4:0.2/1/-", "t=4:0.2/1/-" },
		{ "t=1:*", "t=1:*" },
		{ "t=16:3.1.2/-/*/0", "t=16:1.2.3/-/*/0" },
		{ "t=7:-", "t=7:-" },
	};
	static const char *const bad[] = {
		"", "t=", "t=0:1", "4:1", "t=4", "t=4:", "t=4:1//2", "t=4:1.", "t=4:.1", "t=4:a",
		"t=4:1.1", "t=4:1/", "t=4:*1", "t=99999999999:1", "t=4:12345678901", "t=4:-.1",
	};
	char err[256], buf[64];
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct cts_instance *in = cts_instance_parse(good[i][0], err, sizeof(err));
		if (!tap_ok(in != NULL, "spec '%s' parses", good[i][0])) {
			tap_diag("%s", err);
			continue;
		}
		cts_instance_format(in, buf, sizeof(buf));
		tap_ok(strcmp(buf, good[i][1]) == 0, "'%s' formats as '%s' (got '%s')", good[i][0],
		       good[i][1], buf);
		cts_instance_free(in);
	}
	int refused = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		struct cts_instance *in = cts_instance_parse(bad[i], err, sizeof(err));
		if (in || !err[0] || strchr(err, '\n'))
			tap_diag("spec '%s' accepted or without a one-line reason", bad[i]);
		refused += !in && err[0] && !strchr(err, '\n');
		cts_instance_free(in);
	}
	tap_is_int(refused, sizeof(bad) / sizeof(bad[0]), "every bad spec refused with one line");

	struct cts_instance *in = cts_instance_parse("t=3:1.3/-/*", err, sizeof(err));
	bool want[] = { false, false, false, true, true, true, false, false, false, true, true,
			true, false };
	bool same = true;
	for (uint64_t p = 0; p < sizeof(want) / sizeof(want[0]); p++)
		same &= cts_instance_may_preempt(in, 0, p) == want[p];
	tap_ok(same, "thread 0 of t=3:1.3 may be preempted at points 3-5 and 9-11 only");
	tap_ok(!cts_instance_may_preempt(in, 1, 0) && !cts_instance_may_preempt(in, 1, 7),
	       "'-': never");
	tap_ok(cts_instance_may_preempt(in, 2, 0) && cts_instance_may_preempt(in, 2, 1000000),
	       "'*': always");
	tap_ok(!cts_instance_may_preempt(in, 3, 0), "threads past the list: never");
	/* The hook: last may run and may not be preempted -> the others are held. */
	bool en[3] = { true, true, true };
	cts_instance_begin_run(in);
	tap_ok(cts_instance_restrict(in, 0, en, NULL, 0, 3) && en[0] && !en[1] && !en[2],
	       "restrict holds the others back at a point outside the tiles");
	bool en2[3] = { false, true, true };
	tap_ok(!cts_instance_restrict(in, 0, en2, NULL, 0, 3) && en2[1] && en2[2],
	       "a thread that cannot run may always be switched away from");
	struct cts_event wr = { .tid = 0, .op = CTS_OP_WRITE, .obj = 0x1000, .size = 4 };
	struct cts_event yi = { .tid = 1, .op = CTS_OP_YIELD };
	for (int k = 0; k < 3; k++)
		cts_instance_executed(in, 0, &wr);
	bool en3[3] = { true, true, true };
	tap_ok(!cts_instance_restrict(in, 0, en3, NULL, 0, 3) && en3[1],
	       "at point 3 (tile 1) thread 0 may be preempted");
	cts_instance_executed(in, 1, &yi);
	bool en4[3] = { true, true, true };
	tap_ok(!cts_instance_restrict(in, 1, en4, NULL, 0, 3) && en4[0],
	       "a thread that just yielded may be switched away from");
	cts_instance_free(in);
}

/* ---- families ---- */

static void test_counts(void)
{
	uint64_t pts[] = { 5, 8, 3 };   /* tiles of 2: 3, 4, 2 */
	struct cts_tiling f = { .tile = 2, .z = 1, .nthreads = 3, .points = pts };
	tap_is_int(cts_tiling_count(&f), 3 * 4 * 2, "t=2 z=1: 3*4*2 instances");
	f.z = 2;
	tap_is_int(cts_tiling_count(&f), 3 * 6 * 1, "t=2 z=2: C(3,2)*C(4,2)*1");
	f.z = 0;
	tap_is_int(cts_tiling_count(&f), 1, "z=0: one instance (no preemption)");
	f.z = 5;
	tap_is_int(cts_tiling_count(&f), 1, "z above every thread's tiles: one (all tiles)");
	uint64_t big[] = { 1000000, 1000000, 1000000, 1000000 };
	struct cts_tiling g = { .tile = 1, .z = 4, .nthreads = 4, .points = big };
	tap_ok(cts_tiling_count(&g) == UINT64_MAX, "C(1e6,4)^4 saturates");

	/* nth enumerates distinct instances of z tiles each; draws are family members. */
	f.z = 2;
	uint64_t n = cts_tiling_count(&f);
	char specs[64][64];
	bool distinct = true, sizes = true;
	for (uint64_t i = 0; i < n; i++) {
		struct cts_instance *in = cts_tiling_nth(&f, i);
		cts_instance_format(in, specs[i], sizeof(specs[i]));
		for (uint64_t j = 0; j < i; j++)
			distinct &= strcmp(specs[i], specs[j]) != 0;
		int dots = 0;
		for (const char *p = specs[i]; *p; p++)
			dots += *p == '.';
		sizes &= dots == 2 && strstr(specs[i], "/*") != NULL;  /* threads 0, 1: 2 tiles */
		cts_instance_free(in);
	}
	tap_ok(distinct, "the %" PRIu64 " enumerated instances are distinct", n);
	tap_ok(sizes, "each selects 2 tiles of threads 0 and 1 and all of thread 2's");
	bool member = true, stable = true, spread = false;
	char first[64] = "";
	for (uint64_t i = 0; i < 50; i++) {
		char a[64], b[64];
		struct cts_instance *x = cts_tiling_draw(&f, 7, i), *y = cts_tiling_draw(&f, 7, i);
		cts_instance_format(x, a, sizeof(a));
		cts_instance_format(y, b, sizeof(b));
		stable &= strcmp(a, b) == 0;
		bool found = false;
		for (uint64_t j = 0; j < n; j++)
			found |= strcmp(a, specs[j]) == 0;
		member &= found;
		if (!i)
			snprintf(first, sizeof(first), "%s", a);
		spread |= strcmp(a, first) != 0;
		cts_instance_free(x);
		cts_instance_free(y);
	}
	tap_ok(member, "every drawn instance is in the family");
	tap_ok(stable, "draw(seed, i) is deterministic");
	tap_ok(spread, "draws differ from one i to the next");
}

/* ---- coverage, exhaustively ---- */

#define MAXLEN 64
#define MAXT 8

/* One execution of the program: the threads chosen, and per step whether
 * switching to it preempted the previous thread, at which of its points. */
struct exec {
	char path[MAXLEN + 1];     /* '0' + thread per step */
	int len, cs;
	int npre;
	int pre_t[MAXLEN];
	uint64_t pre_p[MAXLEN];
};

struct brute {
	struct cts_objmodel *m;
	struct cts_backend be;
	struct cts_run_state st;
	int path[MAXLEN];
	cts_op ops[MAXLEN];
	struct exec *ex;
	int nex, cap;
	bool overflow;
};

static bool replay(struct brute *b, int len, bool en[MAXT])
{
	cts_objmodel_reset(b->m);
	cts_run_state_reset(&b->st);
	b->be.ops->start(b->be.be, &b->st);
	for (int i = 0; i < len; i++) {
		struct cts_event done;
		b->be.ops->step(b->be.be, &b->st, b->path[i], false, &done);
		cts_objmodel_apply(b->m, &done);
		b->ops[i] = done.op;
	}
	int n = 0;
	for (int t = 0; t < MAXT; t++) {
		en[t] = t < b->st.nthreads && b->st.t[t].alive &&
			cts_objmodel_enabled(b->m, &b->st.t[t].pending);
		n += en[t];
	}
	return b->st.status == CTS_RUN_ACTIVE && n > 0;
}

/* Every execution, with its preemptions as the explorer sees them: the
 * previous thread could still run and had not just yielded. */
static void enumerate(struct brute *b, int len, struct exec *cur)
{
	bool en[MAXT];
	if (!replay(b, len, en) || len == MAXLEN) {
		b->overflow |= len == MAXLEN;
		if (b->nex == b->cap) {
			b->cap = b->cap ? b->cap * 2 : 256;
			b->ex = realloc(b->ex, (size_t)b->cap * sizeof(*b->ex));
		}
		cur->len = len;
		cur->path[len] = 0;
		b->ex[b->nex++] = *cur;
		return;
	}
	int prev = len ? b->path[len - 1] : -1;
	bool yielded = len && b->ops[len - 1] == CTS_OP_YIELD;
	uint64_t prev_point = 0;
	for (int i = 0; i < len; i++)
		prev_point += b->path[i] == prev;
	for (int t = 0; t < MAXT; t++) {
		if (!en[t])
			continue;
		struct exec save = *cur;
		b->path[len] = t;
		cur->path[len] = (char)('0' + t);
		cur->cs += prev >= 0 && t != prev;
		if (prev >= 0 && t != prev && en[prev] && !yielded) {
			cur->pre_t[cur->npre] = prev;
			cur->pre_p[cur->npre++] = prev_point;
		}
		enumerate(b, len + 1, cur);
		*cur = save;
		replay(b, len, en);
	}
}

static struct brute *brute_all(struct cts_sim *sim)
{
	struct brute *b = calloc(1, sizeof(*b));
	struct exec cur = { .len = 0 };
	b->m = cts_objmodel_new(false);
	b->be = cts_sim_backend(sim, b->m);
	enumerate(b, 0, &cur);
	return b;
}

static void brute_free(struct brute *b)
{
	cts_objmodel_free(b->m);
	cts_run_state_free(&b->st);
	free(b->ex);
	free(b);
}

static bool allows(const struct cts_instance *in, const struct exec *e)
{
	for (int i = 0; i < e->npre; i++)
		if (!cts_instance_may_preempt(in, e->pre_t[i], e->pre_p[i]))
			return false;
	return true;
}

/* Executions explored by one search, as path strings. */
struct seen {
	char cur[MAXLEN + 1];
	char (*paths)[MAXLEN + 1];
	int n, cap;
	bool bug;
	/* With sim: the distinct final states (bug, x, y), as in test_systematic. */
	struct cts_sim *sim;
	char finals[64][48];
	int nfinals;
};

static void seen_observe(void *ctx, uint64_t step, const struct cts_event *ev)
{
	struct seen *s = ctx;
	if (step < MAXLEN) {
		s->cur[step] = (char)('0' + ev->tid);
		s->cur[step + 1] = 0;
	}
}

static void seen_end(void *ctx, const struct cts_run_summary *sum)
{
	struct seen *s = ctx;
	s->bug |= sum->bug;
	if (sum->aborted)
		return;
	if (s->sim) {
		char f[48];
		snprintf(f, sizeof(f), "%s x=%" PRId64 " y=%" PRId64, sum->bug ? "bug" : "ok",
			 cts_sim_value(s->sim, "x", 0), cts_sim_value(s->sim, "y", 0));
		int i;
		for (i = 0; i < s->nfinals && strcmp(s->finals[i], f); i++)
			;
		if (i == s->nfinals && i < 64)
			snprintf(s->finals[s->nfinals++], sizeof(s->finals[0]), "%s", f);
	}
	s->cur[sum->steps < MAXLEN ? sum->steps : MAXLEN] = 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->paths = realloc(s->paths, (size_t)s->cap * sizeof(*s->paths));
	}
	snprintf(s->paths[s->n++], sizeof(s->paths[0]), "%s", s->cur);
	s->cur[0] = 0;
}

/* Search the program inside one instance; the executions go into s. */
static bool search(struct cts_sim *sim, enum cts_search_kind kind, struct cts_instance *in,
		   struct seen *s, uint64_t *runs)
{
	struct cts_strategy_config sc = { .max_steps = 1000 };
	struct cts_search_hooks hooks = { .ctx = s, .observe = seen_observe, .end_run = seen_end };
	struct cts_strategy *st = cts_search_create(kind, &sc, &hooks);
	struct cts_explorer_config cfg = { .max_steps = 1000, .stop_on_bug = false, .quiet = true,
					   .log = tap_quiet_log(), .instance = in };
	struct cts_explore_result res;
	s->cur[0] = 0;
	int rc = cts_sim_explore(sim, &cfg, st, &res);
	bool complete = res.complete;
	if (rc)
		tap_diag("explore: %s", res.error);
	*runs += res.runs;
	cts_explore_result_free(&res);
	cts_strategy_destroy(st);
	return rc == 0 && complete;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Points per thread from one unrestricted run, as --instances learns them. */
static int learn(struct cts_sim *sim, uint64_t *pts)
{
	struct cts_instance *l = cts_instance_learner();
	struct seen s = { .n = 0 };
	uint64_t runs = 0;
	struct cts_strategy_config sc = { .max_steps = 1000 };
	struct cts_strategy *st = cts_search_create(CTS_SEARCH_DFS, &sc, NULL);
	struct cts_explorer_config cfg = { .runs = 1, .max_steps = 1000, .quiet = true,
					   .log = tap_quiet_log(), .instance = l };
	struct cts_explore_result res;
	cts_sim_explore(sim, &cfg, st, &res);
	runs += res.runs;
	cts_explore_result_free(&res);
	cts_strategy_destroy(st);
	const uint64_t *p;
	int n = cts_instance_points(l, &p);
	for (int i = 0; i < n && i < MAXT; i++)
		pts[i] = p[i];
	cts_instance_free(l);
	free(s.paths);
	return n;
}

static void coverage(const char *name, const char *script, int maxk)
{
	char err[256];
	struct cts_sim *sim = cts_sim_parse(script, err, sizeof(err));
	if (!tap_ok(sim != NULL, "%s parses", name)) {
		tap_diag("%s", err);
		return;
	}
	struct brute *b = brute_all(sim);
	tap_ok(!b->overflow && b->nex > 0, "%s: %d executions enumerated", name, b->nex);
	uint64_t pts[MAXT] = { 0 };
	int nt = learn(sim, pts);
	/* Every run of these programs has the same points per thread. */
	bool fixed = true;
	for (int i = 0; i < b->nex; i++) {
		uint64_t cnt[MAXT] = { 0 };
		for (int j = 0; j < b->ex[i].len; j++)
			cnt[b->ex[i].path[j] - '0']++;
		for (int t = 0; t < nt; t++)
			fixed &= cnt[t] == pts[t];
	}
	tap_ok(fixed, "%s: the first run's points per thread hold in every execution", name);

	for (uint32_t tile = 1; tile <= 3; tile++) {
		for (int k = 2; k <= maxk; k++) {
			uint32_t z = (uint32_t)(k + 1) / 2;
			struct cts_tiling f = { .tile = tile, .z = z, .nthreads = nt, .points = pts };
			uint64_t count = cts_tiling_count(&f), runs = 0;
			struct seen s = { .n = 0 };
			bool complete = true, exact = true;
			for (uint64_t i = 0; i < count; i++) {
				struct cts_instance *in = cts_tiling_nth(&f, i);
				struct seen one = { .n = 0 };
				complete &= search(sim, CTS_SEARCH_DFS, in, &one, &runs);
				/* dfs inside the instance = the executions it allows. */
				int allowed = 0;
				for (int e = 0; e < b->nex; e++)
					allowed += allows(in, &b->ex[e]);
				qsort(one.paths, (size_t)one.n, sizeof(*one.paths), cmp_path);
				int distinct = 0;
				for (int e = 0; e < one.n; e++)
					distinct += !e || strcmp(one.paths[e], one.paths[e - 1]) != 0;
				for (int e = 0; e < b->nex && exact; e++) {
					bool got = bsearch(b->ex[e].path, one.paths, (size_t)one.n,
							   sizeof(*one.paths), cmp_path) != NULL;
					if (got != allows(in, &b->ex[e])) {
						char spec[128];
						cts_instance_format(in, spec, sizeof(spec));
						tap_diag("instance %s: execution %s %s", spec, b->ex[e].path,
							 got ? "explored but not allowed" : "allowed, not explored");
						exact = false;
					}
				}
				exact &= distinct == allowed && one.n == allowed;
				for (int e = 0; e < one.n; e++) {
					if (s.n == s.cap) {
						s.cap = s.cap ? s.cap * 2 : 256;
						s.paths = realloc(s.paths, (size_t)s.cap * sizeof(*s.paths));
					}
					memcpy(s.paths[s.n++], one.paths[e], sizeof(one.paths[0]));
				}
				free(one.paths);
				cts_instance_free(in);
			}
			qsort(s.paths, (size_t)s.n, sizeof(*s.paths), cmp_path);
			int within = 0, covered = 0, beyond = 0;
			for (int e = 0; e < b->nex; e++) {
				bool got = bsearch(b->ex[e].path, s.paths, (size_t)s.n, sizeof(*s.paths),
						   cmp_path) != NULL;
				if (b->ex[e].cs <= k) {
					within++;
					covered += got;
					if (!got)
						tap_diag("not covered: %s (%d switches)", b->ex[e].path,
							 b->ex[e].cs);
				} else {
					beyond += got;
				}
			}
			tap_ok(complete && exact, "%s, t=%u, z=%u: dfs complete in each of the %" PRIu64
			       " instances (%" PRIu64 " runs), exploring exactly what each allows",
			       name, tile, z, count, runs);
			if (within)   /* some programs need 3 switches to end at all */
				tap_ok(covered == within, "%s, t=%u, k=%d: all %d executions with "
				       "<= %d context switches covered by the %u-selections", name,
				       tile, k, within, k, z);
			free(s.paths);
			(void)beyond;
		}
	}
	/* The check has teeth: one tile fewer per thread misses some. */
	for (int k = 4; k <= maxk; k++) {
		uint32_t z = (uint32_t)(k + 1) / 2 - 1;
		struct cts_tiling f = { .tile = 1, .z = z, .nthreads = nt, .points = pts };
		uint64_t count = cts_tiling_count(&f);
		int missed = 0;
		for (int e = 0; e < b->nex; e++) {
			bool any = false;
			for (uint64_t i = 0; i < count && !any && b->ex[e].cs <= k; i++) {
				struct cts_instance *in = cts_tiling_nth(&f, i);
				any = allows(in, &b->ex[e]);
				cts_instance_free(in);
			}
			missed += b->ex[e].cs <= k && !any;
		}
		tap_ok(missed > 0, "%s, t=1, k=%d: the %u-selections miss %d executions with <= %d "
		       "switches", name, k, z, missed, k);
	}
	brute_free(b);
	cts_sim_free(sim);
}

/* Every final state of a is one of b's. */
static bool finals_within(const struct seen *a, const struct seen *b)
{
	for (int i = 0; i < a->nfinals; i++) {
		int j;
		for (j = 0; j < b->nfinals && strcmp(a->finals[i], b->finals[j]); j++)
			;
		if (j == b->nfinals)
			return false;
	}
	return true;
}

/* dpor inside an instance (sleep sets off, backtracking moved to where the
 * instance lets a thread in) reaches only final states dfs reaches there.
 * exact: and all of them. dpor is not claimed complete inside an instance:
 * a thread that may not be preempted can still be switched away from by
 * blocking, and races do not lead dpor to those switches ("two updates"). */
static void dpor_vs_dfs(const char *name, const char *script, uint32_t tile, uint32_t z,
			bool exact)
{
	char err[256];
	struct cts_sim *sim = cts_sim_parse(script, err, sizeof(err));
	if (!sim) {
		tap_ok(0, "%s parses: %s", name, err);
		return;
	}
	uint64_t pts[MAXT] = { 0 };
	int nt = learn(sim, pts);
	struct cts_tiling f = { .tile = tile, .z = z, .nthreads = nt, .points = pts };
	uint64_t count = cts_tiling_count(&f), runs_dfs = 0, runs_dpor = 0;
	int within = 0, same = 0, buggy = 0, dpor_buggy = 0;
	for (uint64_t i = 0; i < count; i++) {
		struct cts_instance *in = cts_tiling_nth(&f, i);
		struct seen a = { .sim = sim }, d = { .sim = sim };
		search(sim, CTS_SEARCH_DFS, in, &a, &runs_dfs);
		search(sim, CTS_SEARCH_DPOR, in, &d, &runs_dpor);
		within += finals_within(&d, &a);
		same += finals_within(&d, &a) && finals_within(&a, &d);
		buggy += a.bug;
		dpor_buggy += d.bug;
		free(a.paths);
		free(d.paths);
		cts_instance_free(in);
	}
	tap_ok(within == (int)count && buggy > 0, "%s t=%u z=%u: in each of %" PRIu64 " instances "
	       "dpor reaches only final states dfs reaches (%" PRIu64 " vs %" PRIu64 " runs)",
	       name, tile, z, count, runs_dpor, runs_dfs);
	if (exact)
		tap_ok(same == (int)count && dpor_buggy == buggy, "%s t=%u z=%u: and all of them; "
		       "the bug in the same %d instances", name, tile, z, buggy);
	else
		tap_diag("%s t=%u z=%u: dpor reaches all of dfs's final states in %d of %" PRIu64
			 " instances, the bug in %d (dfs %d)", name, tile, z, same, count, dpor_buggy,
			 buggy);
	cts_sim_free(sim);
}

/* ---- hot tiles (issue 29 item 6) ---- */

static struct cts_event step(int tid, cts_op op, uint64_t obj)
{
	return (struct cts_event){ .tid = tid, .op = op, .obj = obj, .size = 4, .target = -1 };
}

/* Steps fed by hand: x written by 1 and read by 2, y the other way round,
 * z only read, p1 and p2 locks of their own. */
static void test_hot(void)
{
	enum { X = 0x1000, Y = 0x2000, Z = 0x3000, P1 = 0x4000, P2 = 0x5000 };
	struct cts_instance *l = cts_instance_learner();
	cts_instance_begin_run(l);
	const struct cts_event evs[] = {
		step(0, CTS_OP_START, 0),
		step(1, CTS_OP_WRITE, X), step(1, CTS_OP_LOCK, P1),
		step(1, CTS_OP_UNLOCK, P1), step(1, CTS_OP_READ, Y), step(1, CTS_OP_READ, Z),
		step(2, CTS_OP_READ, X), step(2, CTS_OP_LOCK, P2),
		step(2, CTS_OP_UNLOCK, P2), step(2, CTS_OP_WRITE, Y + 2),
		step(2, CTS_OP_READ, Z), step(2, CTS_OP_LOCK, P2),
		step(2, CTS_OP_UNLOCK, P2),
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		cts_instance_executed(l, evs[i].tid, &evs[i]);
	uint64_t **hot, *nhot;
	int n = cts_instance_hot(l, 2, &hot, &nhot);
	tap_is_int(n, 3, "hot: three threads");
	tap_ok(nhot[0] == 0, "main touched nothing another thread did: no hot tile");
	tap_ok(nhot[1] == 2 && hot[1][0] == 0 && hot[1][1] == 1,
	       "thread 1: x at point 0 (tile 0), y at point 3 (tile 1); its own lock and a read "
	       "of a word nobody writes are not conflicts");
	tap_ok(nhot[2] == 2 && hot[2][0] == 0 && hot[2][1] == 1,
	       "thread 2: x at 0, a write inside y's word at 3; tile 2 (its own lock) is not hot");
	uint64_t pts[] = { 1, 5, 7 };
	struct cts_tiling f = { .tile = 2, .z = 1, .nthreads = 3, .points = pts, .hot = hot,
				.nhot = nhot };
	tap_is_int(cts_tiling_count(&f), 4, "hot family, z=1: 2 x 2 instances");
	char buf[64];
	bool only_hot = true;
	for (uint64_t i = 0; i < 4; i++) {
		struct cts_instance *in = cts_tiling_nth(&f, i);
		only_hot &= !cts_instance_may_preempt(in, 1, 4) && !cts_instance_may_preempt(in, 2, 4) &&
			    cts_instance_may_preempt(in, 0, 0);
		cts_instance_free(in);
	}
	tap_ok(only_hot, "its instances never select a tile that is not hot (main, with one tile "
	       "in all, has it)");
	f.z = 2;
	struct cts_instance *in = cts_tiling_nth(&f, 0);
	cts_instance_format(in, buf, sizeof(buf));
	tap_ok(strcmp(buf, "t=2:*/0.1/0.1") == 0,
	       "z at least the hot tiles: all hot tiles, not '*'; a thread with at most z tiles "
	       "in all: '*', as the paper (got %s)", buf);
	cts_instance_free(in);
	for (int j = 0; j < n; j++)
		free(hot[j]);
	free(hot);
	free(nhot);
	cts_instance_free(l);
}

/* narrow3 in small (benchmarks/programs/narrow3.c): the bug needs worker
 * 0 preempted inside its first window, worker 1 inside its window, worker
 * 0 inside its second; the rest is private work. */
#define PW(l) "lock " l "; unlock " l "; "
#define PW4(l) PW(l) PW(l) PW(l) PW(l)
#define NARROW(open0, close0, open1, close1)                                                 \
	"thread main: create w0 -> a; create w1 -> b; join a; join b; assert s < 3\n"         \
	"thread w0: " PW4("p") PW4("p") "lock m; write x 1; " open0 PW("p") close0 "unlock m; " \
	PW4("p") PW4("p") PW4("p") PW4("p") "lock m; read y -> v; read s -> q; "              \
	"if v == 0 || q != 1 goto A; write s 2; A: unlock m; "                                 \
	"lock m; write x 2; " open0 PW("p") close0 "unlock m; " PW4("p") "\n"                 \
	"thread w1: " PW4("q") PW4("q") PW4("q") PW4("q") "lock m; read x -> v; "             \
	"if v != 1 goto B; write s 1; B: unlock m; lock m; write y 1; " open1 PW("q") close1    \
	"unlock m; " PW4("q") PW4("q") PW4("q") PW4("q") "lock m; read x -> v; read s -> q; "  \
	"if v != 2 || q != 2 goto C; write s 3; C: unlock m; " PW4("q") "\n"
/* The bug: each window is a section of its own, closed in the next. */
static const char *NARROW_BUG =
	NARROW("unlock m; ", "lock m; write x 0; ", "unlock m; ", "lock m; write y 0; ");
/* The twin: opened and closed in one section. */
static const char *NARROW_OK =
	NARROW("write x 0; unlock m; ", "lock m; ", "write y 0; unlock m; ", "lock m; ");

/* --instances with dpor on the simulated backend (tiles of 16 points, 2 per
 * thread, 20 instances of at most 100 runs): the run of the first bug
 * (1-based, counting the learner run), 0 for none, and the runs made. */
static uint64_t narrow_search(const char *script, bool uniform, uint64_t count, uint64_t *runs,
			      uint64_t *hot)
{
	char err[256];
	struct cts_sim *sim = cts_sim_parse(script, err, sizeof(err));
	if (!sim) {
		tap_diag("%s", err);
		return 0;
	}
	struct cts_objmodel *om = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, om);
	struct cts_strategy_config sc = { .seed = 1, .max_steps = 1000 };
	struct cts_instances_config ic = { .strategy = "dpor", .scfg = &sc, .tile = 16, .z = 2,
					   .count = count, .seed = 1, .uniform = uniform };
	struct cts_explorer_config cfg = { .runs = 100, .max_steps = 1000, .stop_on_bug = true,
					   .quiet = true, .log = tap_quiet_log() };
	struct cts_explore_result res;
	struct cts_instances_stats st;
	if (cts_explore_instances(&ic, &cfg, &be, om, &res, &st) != 0)
		tap_diag("explore failed: %s", res.error);
	uint64_t first = res.nbugs ? res.bugs[0].run + 1 : 0;
	*runs = res.runs;
	*hot = st.hot;
	cts_instances_stats_fini(&st);
	cts_explore_result_free(&res);
	cts_objmodel_free(om);
	cts_sim_free(sim);
	return first;
}

/* Plain dpor over the whole script: the run of its first bug, 0 for none. */
static uint64_t narrow_plain(const char *script, uint64_t runs)
{
	char err[256];
	struct cts_sim *sim = cts_sim_parse(script, err, sizeof(err));
	if (!sim)
		return tap_diag("%s", err), 0;
	struct cts_strategy_config sc = { .seed = 1, .max_steps = 1000 };
	struct cts_strategy *st = cts_search_create(CTS_SEARCH_DPOR, &sc, NULL);
	struct cts_explorer_config cfg = { .runs = runs, .max_steps = 1000, .stop_on_bug = true,
					   .quiet = true, .log = tap_quiet_log() };
	struct cts_explore_result res;
	cts_sim_explore(sim, &cfg, st, &res);
	uint64_t first = res.nbugs ? res.bugs[0].run + 1 : 0;
	cts_explore_result_free(&res);
	cts_strategy_destroy(st);
	cts_sim_free(sim);
	return first;
}

static void test_narrow(void)
{
	tap_diag("narrow: plain dpor: bug in run %" PRIu64, narrow_plain(NARROW_BUG, 2000));
	uint64_t runs, hot, runs_u, hot_u;
	uint64_t first = narrow_search(NARROW_BUG, false, 20, &runs, &hot);
	uint64_t first_u = narrow_search(NARROW_BUG, true, 20, &runs_u, &hot_u);
	tap_diag("narrow: conflicts: bug in run %" PRIu64 " (%" PRIu64 " hot instances); uniform: "
		 "%" PRIu64 " (0 = none) in %" PRIu64 " runs", first, hot, first_u, runs_u);
	tap_ok(hot > 0 && hot_u == 0, "hot instances with conflicts, none with uniform");
	tap_ok(first > 0 && first <= 100 && (!first_u || first < first_u),
	       "dpor inside hot instances finds the three-preemption bug within 100 runs, "
	       "sooner than inside the paper's draws");
	uint64_t ok_first = narrow_search(NARROW_OK, false, 20, &runs, &hot);
	tap_ok(ok_first == 0 && runs > 20, "the twin: no bug in %" PRIu64 " runs", runs);
}

int main(void)
{
	test_specs();
	test_hot();
	test_narrow();
	test_counts();
	/* Every run has at least 2 context switches (main, the worker, main's join). */
	coverage("main and a worker",
		 "thread main: create w -> a; write x 1; write y 1; join a\n"
		 "thread w: write x 2; write y 2\n", 4);
	/* Three threads. */
	coverage("main and two workers",
		 "thread main: create w -> a; create w -> b; join a; join b\n"
		 "thread w: write x tid\n", 4);
	/* A lock: switches where a thread blocks are free. */
	coverage("two lockers",
		 "thread main: create w -> a; lock m; write x 1; unlock m; join a\n"
		 "thread w: lock m; write x 2; unlock m\n", 4);
	/* A lost update needs a preemption inside the read-modify-write. */
	dpor_vs_dfs("lost update",
		    "thread main: create w -> a; create w -> b; join a; join b; assert x == 2\n"
		    "thread w: write y tid; read x -> r; write x r + 1; write z tid\n", 1, 1, true);
	dpor_vs_dfs("lost update",
		    "thread main: create w -> a; create w -> b; join a; join b; assert x == 2\n"
		    "thread w: write y tid; read x -> r; write x r + 1; write z tid\n", 2, 1, true);
	/* Two read-modify-writes per thread, a lock around one: needs two switches. */
	dpor_vs_dfs("two updates",
		    "thread main: create w -> a; create w -> b; join a; join b; assert x == 4\n"
		    "thread w: read x -> r; write x r + 1; lock m; read y -> q; write y q + tid; "
		    "unlock m; read x -> s; write x s + 1\n", 3, 1, false);
	return tap_done();
}
