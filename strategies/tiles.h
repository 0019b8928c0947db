/* Tilings and instances (Nguyen, Schrammel, Fischer, La Torre, Parlato,
 * ASE 2017, §III), at the binary level.
 *
 * A thread's scheduling points are its visible operations, numbered 0, 1,
 * 2... in program order per thread (the paper's numerical labels); threads
 * are keyed by creation order. A uniform window tiling cuts each thread's
 * points into tiles of t consecutive points (tile = point / t). A
 * z-selection picks z tiles per thread. The instance of a selection lets a
 * thread be preempted (switched away from while it could still run) only at
 * a point inside one of its selected tiles; a thread that cannot run
 * (blocked, exited, held back as a spinner) or has just yielded may always
 * be switched away from, so every execution can go on. Selecting ceil(k/2)
 * tiles per thread covers every execution with at most k context switches:
 * a thread is switched out at most ceil(k/2) times (tests/unit/test_tiles.c
 * checks it exhaustively on the simulated backend).
 *
 * Instance spec (--instance): "t=T:SEL/SEL/...", SEL for thread 0, 1, ...:
 * tile numbers joined by '.', "-" for none, "*" for every tile; threads past
 * the list have no tile. E.g. "t=4:0.2/1/-". */
#ifndef CTS_TILES_H
#define CTS_TILES_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <stdint.h>
#include "models/event.h"

struct cts_instance;

/* NULL with a one-line reason in err. */
struct cts_instance *cts_instance_parse(const char *spec, char *err, size_t errlen);
/* An instance that allows every preemption and only learns how many points
 * each thread has (the first run of --instances). */
struct cts_instance *cts_instance_learner(void);
void cts_instance_free(struct cts_instance *in);
/* The spec string (parse(format(x)) == x); its length, as snprintf. The
 * learner's is "". */
int cts_instance_format(const struct cts_instance *in, char *buf, size_t len);
/* May thread be preempted at its point (0-based)? */
bool cts_instance_may_preempt(const struct cts_instance *in, int thread, uint64_t point);

/* The explorer's hook, per run: reset, restrict each choice, count points. */
void cts_instance_begin_run(struct cts_instance *in);
/* At a scheduling point whose previous step ran `last`: if last may run and
 * may not be preempted here, every other thread of live[] (NULL: 0..n-1) is
 * taken out of enabled[]. True when any was. */
bool cts_instance_restrict(struct cts_instance *in, int last, bool *enabled, const int *live,
			   int nlive, int nthreads);
/* The step ev of thread ran (the learner also keeps it, for
 * cts_instance_hot). */
void cts_instance_executed(struct cts_instance *in, int thread, const struct cts_event *ev);
/* Most points each thread had in any run so far (threads in creation
 * order); returns the number of threads, *points borrowed. */
int cts_instance_points(const struct cts_instance *in, const uint64_t **points);

/* The learner's hot tiles: per thread (creation order), the tiles of `tile`
 * points that hold a point whose step, in the runs the learner saw, touched
 * an object (memory word, sync object, the kernel) that another thread also
 * touched, one of them writing (sync operations and the kernel count as
 * writes). A preemption can be put off past a thread's steps that conflict
 * with no other thread's without changing what any thread sees, so these are
 * the tiles where preemptions matter (as far as those runs show). Returns
 * the number of threads; hot[j] (ascending) and nhot[j] are new (free each
 * hot[j], hot and nhot). */
int cts_instance_hot(const struct cts_instance *in, uint32_t tile, uint64_t ***hot,
		     uint64_t **nhot);

/* A family of instances: the z-selections of a uniform tiling of threads
 * with the given numbers of points. A thread with at most z tiles gets all
 * of them ("*"), one with none gets "-". With hot set, a thread with more
 * than z tiles chooses among its nhot[j] tiles hot[j] only (all of them,
 * listed, when at most z; "-" when none). */
struct cts_tiling {
	uint32_t tile;          /* t: points per tile, >= 1 */
	uint32_t z;             /* tiles selected per thread */
	int nthreads;
	const uint64_t *points; /* [nthreads] */
	uint64_t *const *hot;   /* [nthreads] or NULL: the tiles to choose from */
	const uint64_t *nhot;   /* [nthreads] */
};

/* Instances in the family (product of C(tiles, z)); UINT64_MAX if more. */
uint64_t cts_tiling_count(const struct cts_tiling *f);
/* The i-th instance (0 <= i < count), for exhaustive enumeration. */
struct cts_instance *cts_tiling_nth(const struct cts_tiling *f, uint64_t i);
/* The paper's randomized generator: the i-th of a stream drawn from seed,
 * z tiles per thread uniformly at random. */
struct cts_instance *cts_tiling_draw(const struct cts_tiling *f, uint64_t seed, uint64_t i);

/* --instances: search N instances drawn at random one after another. */
struct cts_explorer_config;
struct cts_explore_result;
struct cts_backend;
struct cts_objmodel;
struct cts_strategy_config;

struct cts_instances_config {
	const char *strategy;                  /* a fresh one per instance, by name */
	const struct cts_strategy_config *scfg;/* its seed is varied per instance */
	uint32_t tile, z;                      /* --tile, --tiles-per-thread */
	uint64_t count;                        /* --instances */
	uint64_t seed;                         /* draws instance i from (seed, i) */
	bool uniform;                          /* --tile-pick uniform: the paper's
	                                        * draws only, no hot instances */
};

/* What the search did, for the report and the summary line. */
struct cts_instances_stats {
	int nthreads;            /* threads the first run showed */
	uint64_t points;         /* their points, summed */
	uint64_t *thread_points; /* [nthreads]: each thread's */
	uint64_t family;         /* instances in the family (UINT64_MAX: more) */
	uint64_t hot;            /* of the instances, the first `hot` are the hot
	                          * family's (cts_instance_hot), in order */
	uint64_t searched;       /* instances searched (started) */
	uint64_t exhausted;      /* of them, searched to the end (dfs/pcb/idb: complete) */
	char found_in[512];      /* spec of the instance the first bug came from, "" */
	uint64_t found_index;    /* its number i (valid when found_in[0]) */
	uint64_t *list;          /* the numbers of the instances searched, in order */
	uint64_t nlist;
	uint64_t walk_runs;      /* first runs made only to learn the points (--jobs,
	                          * --shard: every worker but the first makes its own) */
};

/* A first unrestricted run (the strategy's own) learns each thread's number
 * of points and its hot tiles; the instances are first the H instances of
 * the hot family (at most 4096: its z-selections in order, or drawn from
 * seed when it has more), then instance i >= H = cts_tiling_draw(seed,
 * i - H) of the uniform family (the paper's); each is searched with
 * cfg->runs runs (0: until its strategy is done), while cfg->time_limit
 * lasts, until a bug (cfg->stop_on_bug). Results are summed into res as one
 * exploration; res->complete is never set. 0, or -1 (res->error).
 * With cfg->split (--jobs, --shard: a CTS_WORK_INSTANCE queue) the instances
 * are the work items: this process searches the numbers i the queue gives it,
 * each whole (instance i depends only on seed, i and the points learned, and
 * the first run is the same in every process, so i is the same instance in
 * all). Every process makes the first run; only shard 1's first worker counts
 * and judges it, the others count it as a walk run. */
int cts_explore_instances(const struct cts_instances_config *ic,
			  const struct cts_explorer_config *cfg, struct cts_backend *backend,
			  struct cts_objmodel *model, struct cts_explore_result *res,
			  struct cts_instances_stats *stats);
void cts_instances_stats_fini(struct cts_instances_stats *stats);
/* stats as a JSON object for the report: a new reference (json_decref). */
json_t *cts_instances_json(const struct cts_instances_config *ic,
			   const struct cts_instances_stats *stats);

#endif
