#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "models/error.h"
#include "strategies/split.h"

/* Bugs whose report one worker printed, by key: beyond that many, every
 * worker prints its own. */
#define PRINTED 1024

/* Shared by every worker of one process group. */
struct shared {
	uint64_t next;   /* the next shard-local item nobody has claimed */
	uint64_t counted; /* CTS_WORK_SUBTREE: runs counted by every worker */
	int stop;        /* a worker found a bug */
	pid_t parent;
	uint64_t printed[PRINTED]; /* open addressing, 0 empty */
};

struct cts_split {
	enum cts_work_kind kind;
	unsigned shard, nshards, jobs, depth, worker;
	struct shared *sh;
	uint64_t target;     /* shard-local item this worker claimed, not yet reached */
	bool have_target;
	bool foreign;
	volatile sig_atomic_t found_here; /* this process called found_bug */
	uint64_t foreign_runs, items, over_runs;
};

static const char *const kind_names[] = {
	[CTS_WORK_RUNS] = "runs", [CTS_WORK_SUBTREE] = "subtrees",
	[CTS_WORK_INSTANCE] = "instances",
};

struct cts_split *cts_split_new(enum cts_work_kind kind, unsigned shard, unsigned nshards,
				unsigned jobs, unsigned depth)
{
	struct cts_split *s = cts_xcalloc(1, sizeof(*s));
	s->kind = kind;
	s->nshards = nshards ? nshards : 1;
	s->shard = shard ? shard : 1;
	s->jobs = jobs ? jobs : 1;
	s->depth = depth;
	void *p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	s->sh = p == MAP_FAILED ? cts_xcalloc(1, sizeof(struct shared)) : p;
	if (p == MAP_FAILED)
		s->jobs = 1; /* nothing to share through: the caller checks jobs */
	return s;
}

void cts_split_free(struct cts_split *s)
{
	if (!s)
		return;
	munmap(s->sh, sizeof(*s->sh));
	free(s);
}

void cts_split_set_worker(struct cts_split *s, unsigned worker)
{
	s->worker = worker;
}

bool cts_split_first(const struct cts_split *s)
{
	return s->shard == 1 && s->worker == 0;
}

enum cts_work_kind cts_split_kind(const struct cts_split *s)
{
	return s->kind;
}

unsigned cts_split_depth(const struct cts_split *s)
{
	return s->depth;
}

void cts_split_set_parent(struct cts_split *s, pid_t parent)
{
	s->sh->parent = parent;
}

/* The next shard-local item this worker takes. */
static uint64_t take(struct cts_split *s)
{
	return __atomic_fetch_add(&s->sh->next, 1, __ATOMIC_SEQ_CST);
}

bool cts_split_found_here(const struct cts_split *s)
{
	return s->found_here != 0;
}

bool cts_split_stopped(const struct cts_split *s)
{
	return __atomic_load_n(&s->sh->stop, __ATOMIC_SEQ_CST) != 0;
}

bool cts_split_next_item(struct cts_split *s, uint64_t limit, struct cts_work_item *it)
{
	if (cts_split_stopped(s) || s->kind == CTS_WORK_SUBTREE)
		return false;
	uint64_t j = take(s);
	if (j > (UINT64_MAX - s->shard) / s->nshards)
		return false;
	uint64_t i = j * s->nshards + (s->shard - 1);
	if (limit && i >= limit)
		return false;
	s->items++;
	*it = (struct cts_work_item){ .kind = s->kind, .index = i };
	return true;
}

uint64_t cts_split_share(const struct cts_split *s, uint64_t limit)
{
	if (!limit || s->kind != CTS_WORK_SUBTREE)
		return limit;
	return limit / s->nshards + (s->shard - 1 < limit % s->nshards);
}

bool cts_split_next_run(struct cts_split *s, uint64_t limit, uint64_t n, uint64_t counted,
			uint64_t *run)
{
	struct cts_work_item it;
	if (cts_split_stopped(s))
		return false;
	if (s->kind == CTS_WORK_SUBTREE) {
		*run = n;
		return !limit || __atomic_load_n(&s->sh->counted, __ATOMIC_SEQ_CST) <
				 cts_split_share(s, limit);
	}
	if (s->kind != CTS_WORK_RUNS) {
		*run = n;
		return !limit || counted < limit;
	}
	if (!cts_split_next_item(s, limit, &it))
		return false;
	*run = it.index;
	return true;
}

bool cts_split_claim(struct cts_split *s, uint64_t index)
{
	if (index % s->nshards != s->shard - 1)
		return false;
	uint64_t j = index / s->nshards;
	if (!s->have_target) {
		s->target = take(s);
		s->have_target = true;
	}
	/* Targets only grow and the search meets items in order, so j never
	 * passes a target unseen; should it, take j rather than lose it. */
	if (j < s->target)
		return false;
	s->have_target = false;
	s->items++;
	return true;
}

void cts_split_set_foreign(struct cts_split *s, bool foreign)
{
	s->foreign = foreign;
}

bool cts_split_foreign(const struct cts_split *s)
{
	return s->foreign;
}

bool cts_split_count_run(struct cts_split *s, uint64_t limit)
{
	if (s->foreign) {
		s->foreign_runs++; /* its owner counts and judges it */
		return false;
	}
	if (s->kind != CTS_WORK_SUBTREE || !limit)
		return true;
	/* Workers check the total before a run and claim a place in it after:
	 * one that ends past the limit drops its run, so exactly the share
	 * is counted. */
	if (__atomic_add_fetch(&s->sh->counted, 1, __ATOMIC_SEQ_CST) <= cts_split_share(s, limit))
		return true;
	s->over_runs++;
	return false;
}

uint64_t cts_split_foreign_runs(const struct cts_split *s)
{
	return s->foreign_runs;
}

uint64_t cts_split_items(const struct cts_split *s)
{
	return s->items;
}

bool cts_split_restart(struct cts_split *s)
{
	if (s->jobs > 1)
		return false;
	__atomic_store_n(&s->sh->next, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->sh->counted, 0, __ATOMIC_SEQ_CST);
	s->have_target = false;
	s->foreign = false;
	s->items = s->foreign_runs = s->over_runs = 0;
	return true;
}

void cts_split_learned(struct cts_split *s)
{
	__atomic_store_n(&s->sh->stop, 1, __ATOMIC_SEQ_CST);
	if (s->jobs > 1 && s->sh->parent > 0)
		kill(s->sh->parent, SIGUSR1);
}

void cts_split_new_round(struct cts_split *s)
{
	__atomic_store_n(&s->sh->next, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->sh->counted, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->sh->stop, 0, __ATOMIC_SEQ_CST);
	s->have_target = false;
	s->foreign = false;
	s->found_here = 0;
	s->items = s->foreign_runs = s->over_runs = 0;
}

void cts_split_found_bug(struct cts_split *s)
{
	s->found_here = 1;
	__atomic_store_n(&s->sh->stop, 1, __ATOMIC_SEQ_CST);
	if (s->jobs > 1 && s->sh->parent > 0)
		kill(s->sh->parent, SIGUSR1);
}

bool cts_split_first_print(struct cts_split *s, uint64_t key)
{
	key |= 1; /* 0 marks an empty slot */
	for (size_t n = 0, i = key % PRINTED; n < PRINTED; n++, i = (i + 1) % PRINTED) {
		uint64_t seen = 0;
		if (__atomic_compare_exchange_n(&s->sh->printed[i], &seen, key, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return true;
		if (seen == key)
			return false;
	}
	return true; /* full */
}

static json_t *jint(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *cts_split_json(const struct cts_split *s, uint64_t runs_limit, uint64_t max_steps,
		       double timeout)
{
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(s->shard));
	json_object_set_new(o, "count", json_integer(s->nshards));
	json_object_set_new(o, "work", json_string(kind_names[s->kind]));
	json_object_set_new(o, "split_depth", s->kind == CTS_WORK_SUBTREE ?
				json_integer(s->depth) : json_null());
	json_object_set_new(o, "runs_limit", jint(runs_limit));
	json_object_set_new(o, "max_steps", jint(max_steps));
	json_object_set_new(o, "timeout", json_real(timeout));
	json_object_set_new(o, "jobs", json_integer(s->jobs));
	json_object_set_new(o, "items", jint(s->items));
	json_object_set_new(o, "walk_runs", jint(s->foreign_runs));
	json_object_set_new(o, "dropped_runs", jint(s->over_runs));
	return o;
}
