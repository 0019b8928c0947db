/* The run state's thread table (backend.h): grows as threads are created. */
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "strategies/backend.h"

struct cts_thread_view *cts_run_state_thread(struct cts_run_state *st, int tid)
{
	if (tid < 0 || tid >= cts_run_state_limit(st))
		return NULL;
	if ((size_t)tid >= st->tcap) {
		size_t cap = cts_grow_cap(st->tcap, (size_t)tid + 1);
		st->t = cts_xgrow(st->t, st->tcap, cap, sizeof(*st->t));
		st->tcap = cap;
	}
	if (tid >= st->nthreads)
		st->nthreads = tid + 1;
	return &st->t[tid];
}

int cts_run_state_limit(const struct cts_run_state *st)
{
	return st->max_threads > 0 ? st->max_threads : CTS_THREADS_DEFAULT;
}

void cts_run_state_reset(struct cts_run_state *st)
{
	struct cts_thread_view *t = st->t;
	size_t cap = st->tcap;
	int max = st->max_threads;

	if (t)
		memset(t, 0, cap * sizeof(*t));
	memset(st, 0, sizeof(*st));
	st->t = t;
	st->tcap = cap;
	st->max_threads = max;
}

void cts_run_state_free(struct cts_run_state *st)
{
	free(st->t);
	st->t = NULL;
	st->tcap = 0;
	st->nthreads = 0;
}

struct cts_describer cts_backend_describer(const struct cts_backend *b)
{
	return (struct cts_describer){ .be = b->be, .describe_pc = b->ops->describe_pc,
				       .describe_data = b->ops->describe_data,
				       .source_pc = b->ops->source_pc,
				       .pc_info = b->ops->pc_info };
}
