/* Handing a replayed run's stopped program to gdb (--gdb, --gdb-batch,
 * --core): the command line that attaches gdb, selects the thread cts
 * names and shows its thread numbers next to gdb's, and the wait for it. */
#ifndef CTS_GDB_H
#define CTS_GDB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cts_gdb_session {
	const char *gdb;          /* gdb's path (cts_gdb_find) */
	pid_t pid;                /* the program, every thread in a group-stop */
	const pid_t *tids;        /* kernel thread id of cts thread n, 0 when gone */
	int nthreads;
	int focus;                /* cts thread gdb selects, -1: gdb's choice */
	const char *core;         /* write a core file here first (gcore), or NULL */
	int core_sig;             /* a crash's signal, which the core then names; 0 */
	bool interactive;         /* --gdb: gdb on the terminal; else -batch */
	const char *batch;        /* --gdb-batch: commands separated by ';' or newlines */
	const char *note;         /* echoed by gdb before the thread table, or NULL */
	const volatile sig_atomic_t *stop; /* set by a signal: gdb is asked to quit */
};

/* gdb on PATH (or $CTS_GDB): 0 with its path, -1 if there is none. */
int cts_gdb_find(char *path, size_t len);

/* Whether gdb, cts-trace's child and so the program's sibling, may attach
 * under the Yama LSM: 0 (yes, or no Yama), 1 (perhaps not: scope 1 or 2
 * without root; why says so), 2 (never: scope 3). */
int cts_gdb_yama(char *why, size_t len);

/* Runs gdb on s->pid and waits for it, interactive on the terminal or
 * -batch. SIGINT and SIGQUIT are ignored meanwhile
 * (they are gdb's). 0 with gdb's exit status in *status (-1: killed by a
 * signal), or -1 (errno) when gdb could not be started. */
int cts_gdb_run(const struct cts_gdb_session *s, int *status);

/* gdb's number for each cts thread, as gdb numbers an attached process's
 * threads: the leader 1, the others in /proc/PID/task order; 0 when the
 * thread is gone. gdbnum has s->nthreads entries. */
void cts_gdb_numbers(const struct cts_gdb_session *s, int *gdbnum);

#endif
