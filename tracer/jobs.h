/* --jobs N: N worker processes forked from cts-trace before any tracee
 * exists, each with its own tracer, taking items from one queue
 * (strategies/split.h); the first bug stops them all. Each worker writes
 * its JSON report to a private directory; the parent merges them
 * (tracer/merge.h). */
#ifndef CTS_JOBS_H
#define CTS_JOBS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cts_split;
struct json_t;
struct cts_jobs;

/* NULL with the reason in err (no temporary directory). */
struct cts_jobs *cts_jobs_new(unsigned n, struct cts_split *split, char *err, size_t errlen);

/* Forks the workers. In a worker: its number (0..n-1), with SIGUSR1 set to
 * end its search and the worker gone when the parent dies. In the parent:
 * -1 (then cts_jobs_wait). -2 with errno if no worker could be forked. */
int cts_jobs_fork(struct cts_jobs *j);

/* The pids the program may not signal: the parent's and every worker's,
 * in memory shared with them (an entry 0 once that worker is reaped). A
 * worker starts when the list is whole. */
const pid_t *cts_jobs_guarded(const struct cts_jobs *j, size_t *n);

/* In a worker: where its report goes. */
const char *cts_jobs_report_path(const struct cts_jobs *j);

/* How the workers ended, for main to pick the exit status. */
struct cts_jobs_outcome {
	struct json_t *merged;  /* the workers' reports in one (NULL if none could be read) */
	int exit_max;           /* highest exit status of a worker that was not stopped by us */
	bool bug;               /* a worker exited with status 1 */
	bool died;              /* a worker was killed by a signal nobody sent it */
	bool missing;           /* a worker left no report */
	char error[512];        /* why merged is NULL */
};

/* Parent: wait for every worker. When one stops at a bug (its SIGUSR1, or
 * its exit status 1) the others get SIGUSR1; when *stop becomes non-zero
 * (our SIGINT/SIGTERM) they get SIGTERM. Then merge their reports. */
void cts_jobs_wait(struct cts_jobs *j, volatile sig_atomic_t *stop, struct cts_jobs_outcome *o);

/* The parent, after cts_jobs_wait, before forking the workers again (a
 * round that learned shared lines, main.c): their reports removed, the
 * queue cleared (cts_split_new_round). The elapsed time stays the whole
 * session's. */
void cts_jobs_new_round(struct cts_jobs *j);

/* The parent removes the workers' directory; a worker only frees. */
void cts_jobs_free(struct cts_jobs *j);

#endif
