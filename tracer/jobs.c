#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "models/error.h"
#include "strategies/explorer.h"
#include "strategies/split.h"
#include "tracer/cpu.h"
#include "tracer/jobs.h"
#include "tracer/merge.h"
#include "tracer/tracer.h"

struct cts_jobs {
	unsigned n;
	struct cts_split *split;
	pid_t *pids;         /* 0 once reaped */
	pid_t *guarded;      /* shared: the parent's pid, then the workers' (0 once reaped) */
	int *status;         /* wait status of each */
	bool parent;
	pid_t parent_pid;    /* a worker's parent, the directory's owner */
	int worker;
	char dir[PATH_MAX];
	char path[PATH_MAX]; /* this worker's report */
	struct timespec start;
	bool started;        /* forked once: start is set */
};

static volatile sig_atomic_t bug_signalled;
static struct cts_split *worker_split; /* a worker's, for on_stop */

static void on_bug(int sig)
{
	(void)sig;
	bug_signalled = 1;
}

/* A worker: another one found a bug, end this search now. The parent tells
 * every worker, the one that found it too: that one goes on to finish its
 * bug's report (minimization) and ends by itself. */
static void on_stop(int sig)
{
	(void)sig;
	if (worker_split && cts_split_found_here(worker_split))
		return;
	cts_explore_interrupt();
	cts_tracer_interrupt();
}

struct cts_jobs *cts_jobs_new(unsigned n, struct cts_split *split, char *err, size_t errlen)
{
	struct cts_jobs *j = cts_xcalloc(1, sizeof(*j));
	const char *tmp = getenv("TMPDIR");
	j->n = n;
	j->split = split;
	j->pids = cts_xcalloc(n, sizeof(*j->pids));
	j->status = cts_xcalloc(n, sizeof(*j->status));
	j->worker = -1;
	void *g = mmap(NULL, (n + 1) * sizeof(pid_t), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	j->guarded = g == MAP_FAILED ? NULL : g;
	snprintf(j->dir, sizeof(j->dir), "%s/cts-jobs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(j->dir)) {
		snprintf(err, errlen, "--jobs: cannot create a directory for the workers' reports "
			 "in %s: %s%s", tmp && *tmp ? tmp : "/tmp", strerror(errno), tmp && *tmp ?
			 " (TMPDIR must name a writable directory)" : "");
		if (j->guarded)
			munmap(j->guarded, (n + 1) * sizeof(pid_t));
		free(j->pids);
		free(j->status);
		free(j);
		return NULL;
	}
	if (!j->guarded) {
		snprintf(err, errlen, "--jobs: cannot map memory shared with the workers: %s",
			 strerror(errno));
		rmdir(j->dir);
		free(j->pids);
		free(j->status);
		free(j);
		return NULL;
	}
	j->parent = true;
	return j;
}

/* A worker waits until every worker's pid is in the guarded list, before
 * its first run: the pipe's end of file (the parent closes its end after
 * the last fork, or dies). */
static void wait_for_siblings(int rfd)
{
	char c;
	for (;;) {
		ssize_t r = read(rfd, &c, 1);
		if (r == 0 || (r < 0 && errno != EINTR))
			break;
	}
	close(rfd);
}

static void report_path(const struct cts_jobs *j, unsigned w, char *buf, size_t len)
{
	snprintf(buf, len, "%s/worker-%u.json", j->dir, w);
}

int cts_jobs_fork(struct cts_jobs *j)
{
	struct sigaction sa;
	pid_t parent = getpid();
	unsigned started = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bug;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	cts_split_set_parent(j->split, parent);
	j->parent_pid = parent;
	/* Out of the program's reach (issue 27 item 9): its tracer refuses
	 * signals to the pids in j->guarded; non-dumpable, this process can be
	 * neither ptraced nor read by a program of the same uid (the workers'
	 * tracers make themselves so too). */
	j->guarded[0] = parent;
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	int barrier[2];
	if (pipe2(barrier, O_CLOEXEC) != 0)
		return -2;
	if (!j->started) /* the first round's: the session's wall clock */
		clock_gettime(CLOCK_MONOTONIC, &j->start);
	j->started = true;
	fflush(NULL); /* nothing buffered is written twice */
	for (unsigned w = 0; w < j->n; w++) {
		pid_t pid = fork();
		if (pid < 0) {
			if (started == 0) {
				close(barrier[0]);
				close(barrier[1]);
				return -2;
			}
			cts_perror_msg("--jobs: worker %u of %u not started", w + 1, j->n);
			break;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != parent)
				_exit(130); /* the parent died before the line above */
			sa.sa_handler = on_stop;
			sigaction(SIGUSR1, &sa, NULL);
			close(barrier[1]);
			wait_for_siblings(barrier[0]);
			j->parent = false;
			j->worker = (int)w;
			/* Worker w on the w-th CPU, before its tracer starts (it
			 * keeps a single-CPU pin): forked workers all start on the
			 * parent's CPU and ran one at a time there. */
			cts_cpu_pin_nth(w);
			report_path(j, w, j->path, sizeof(j->path));
			cts_split_set_worker(j->split, w);
			worker_split = j->split;
			return (int)w;
		}
		j->pids[w] = pid;
		__atomic_store_n(&j->guarded[w + 1], pid, __ATOMIC_SEQ_CST);
		started++;
	}
	j->n = started;
	close(barrier[0]);
	close(barrier[1]);
	return -1;
}

const pid_t *cts_jobs_guarded(const struct cts_jobs *j, size_t *n)
{
	*n = j->n + 1;
	return j->guarded;
}

const char *cts_jobs_report_path(const struct cts_jobs *j)
{
	return j->path;
}

static void signal_all(struct cts_jobs *j, int sig)
{
	for (unsigned w = 0; w < j->n; w++)
		if (j->pids[w] > 0)
			kill(j->pids[w], sig);
}

void cts_jobs_wait(struct cts_jobs *j, volatile sig_atomic_t *stop, struct cts_jobs_outcome *o)
{
	unsigned alive = j->n;
	bool told_bug = false, told_stop = false;
	bool *stopped = cts_xcalloc(j->n ? j->n : 1, sizeof(*stopped));

	memset(o, 0, sizeof(*o));
	while (alive > 0) {
		if ((bug_signalled || cts_split_stopped(j->split)) && !told_bug) {
			told_bug = true;
			signal_all(j, SIGUSR1);
		}
		if (*stop && !told_stop) {
			told_stop = true;
			signal_all(j, SIGTERM);
		}
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: nobody left */
		}
		for (unsigned w = 0; w < j->n; w++) {
			if (j->pids[w] != pid)
				continue;
			j->pids[w] = 0;
			/* its pid may be a program's child next */
			__atomic_store_n(&j->guarded[w + 1], 0, __ATOMIC_SEQ_CST);
			j->status[w] = st;
			stopped[w] = told_bug || told_stop;
			alive--;
			/* Not a stop for the others by itself: with --keep-going a
			 * worker that found bugs ends with 1 when its work is done
			 * (the others were stopped early, before their runs). A
			 * worker stopping at a bug has set the shared stop flag. */
			if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
				o->bug = true;
		}
	}
	/* Merge what the workers wrote. */
	json_t **reps = cts_xcalloc(j->n ? j->n : 1, sizeof(*reps));
	char (*names)[64] = cts_xcalloc(j->n ? j->n : 1, sizeof(*names));
	const char **np = cts_xcalloc(j->n ? j->n : 1, sizeof(*np));
	int nr = 0;
	for (unsigned w = 0; w < j->n; w++) {
		int st = j->status[w];
		if (WIFEXITED(st) && WEXITSTATUS(st) > o->exit_max && WEXITSTATUS(st) != 130)
			o->exit_max = WEXITSTATUS(st);
		if (WIFSIGNALED(st) && !stopped[w])
			o->died = true;
		char path[PATH_MAX];
		report_path(j, w, path, sizeof(path));
		json_t *r = json_load_file(path, 0, NULL);
		if (!r) {
			o->missing = true;
			continue;
		}
		snprintf(names[nr], sizeof(names[nr]), "worker %u", w + 1);
		np[nr] = names[nr];
		reps[nr++] = r;
	}
	if (nr) {
		o->merged = cts_merge_reports(reps, np, nr, false, o->error, sizeof(o->error));
		if (o->merged) {
			struct timespec t;
			clock_gettime(CLOCK_MONOTONIC, &t);
			double el = (double)(t.tv_sec - j->start.tv_sec) +
				    (double)(t.tv_nsec - j->start.tv_nsec) / 1e9;
			/* the wall clock of the whole search, not of one worker */
			json_object_set_new(o->merged, "elapsed_seconds",
					    json_real((double)(long long)(el * 1000 + 0.5) / 1000));
		}
	} else {
		snprintf(o->error, sizeof(o->error), "no worker wrote a report");
	}
	for (int i = 0; i < nr; i++)
		json_decref(reps[i]);
	free(reps);
	free(names);
	free(np);
	free(stopped);
}

void cts_jobs_new_round(struct cts_jobs *j)
{
	char path[PATH_MAX];
	for (unsigned w = 0; w < j->n; w++) {
		report_path(j, w, path, sizeof(path));
		unlink(path); /* a worker that writes none this time is missing */
		j->pids[w] = 0;
		j->status[w] = 0;
	}
	bug_signalled = 0;
	cts_split_new_round(j->split);
}

void cts_jobs_free(struct cts_jobs *j)
{
	if (!j)
		return;
	if (j->parent) {
		DIR *d = opendir(j->dir);
		struct dirent *e;
		char path[PATH_MAX + 300];
		while (d && (e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", j->dir, e->d_name);
			unlink(path);
		}
		if (d)
			closedir(d);
		rmdir(j->dir);
	} else if (getppid() != j->parent_pid) {
		/* The parent was killed (SIGKILL: PDEATHSIG ended this worker):
		 * nobody reads the reports; the last worker out removes the
		 * directory (each rmdir follows its own unlink). */
		unlink(j->path);
		rmdir(j->dir);
	}
	munmap(j->guarded, (j->n + 1) * sizeof(pid_t));
	free(j->pids);
	free(j->status);
	free(j);
}
