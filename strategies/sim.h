/* Simulated backend: a tiny scripted program of threads and visible operations
 * that runs through the same explorer, object model and strategies as a live
 * ptrace run, so systematic search can be unit-tested without a kernel.
 *
 * Script format (one statement per line or separated by ';', '#' comments):
 *
 *   var x = 1              shared scalar (default 0); undeclared names are scalars
 *   var table[128]         shared array of 8-byte words, all 0 (or "= v")
 *   const N = 12           a named number for expressions (cts_sim_set_const)
 *   thread main: ...       thread definition; the first one is thread 0 and
 *                          starts the run, the others start through "create"
 *
 * Statements ("REF" is NAME or NAME[EXPR], a shared word or object; "r" a
 * thread-local name; EXPR uses locals, constants, integers, tid, arg and
 * + - * / % == != < <= > >= && || ! and parentheses):
 *
 *   read REF -> r          write REF EXPR         incr REF   (= read, then write +1)
 *   cas REF EXPECT NEW [-> r]     atomic compare-and-swap, r = 1 if it swapped
 *                          (operands are adjacent expressions: write "(-1)")
 *   lock REF   unlock REF   trylock REF [-> r]    (r = 0 acquired, else EBUSY)
 *   wait COND MUTEX        (cond wait: release, wait for a signal, re-acquire)
 *   signal COND   broadcast COND
 *   seminit SEM EXPR   semwait SEM   sempost SEM   semtrywait SEM [-> r]
 *   barrierinit BAR EXPR   barrierwait BAR
 *   create NAME [EXPR] [-> r]     start a thread running NAME; its local
 *                                 "arg" = EXPR, r = its thread number
 *   join NAME | join r     join the thread last created from NAME, or thread r
 *   cancel NAME | cancel r pthread_cancel (deferred) of that thread: at its next
 *                          cancellation point (join, semwait, wait) it ends
 *                          instead (a wait keeps or re-takes its mutex)
 *   yield   exit           (exit ends the calling thread now)
 *   let r = EXPR   if EXPR goto L   goto L   L:   (local, not scheduling points)
 *   assert EXPR            local; shared names in EXPR are read first, each
 *                          read a visible step; a false assert ends the run
 *                          with CTS_RUN_ASSERT
 *
 * Each visible operation is one event, as the live tracer reports it: threads
 * are numbered 0,1,2... in creation order, each live thread has one pending
 * event, every thread is first held at a START (before its first statement),
 * CREATE's done.target is the new thread, a thread's end is a THREAD_EXIT
 * step, except thread 0's: its end is a PROC_EXIT (main returning = exit()),
 * which ends the run (CTS_RUN_EXITED, status 0) even if other threads still
 * run, so scripts join the threads they wait for. Blocking (locks, joins, conds, semaphores, barriers) is decided
 * by the object model given to cts_sim_backend: create it with
 * cts_objmodel_new(false). Every shared word and object has its own fake
 * address; every statement has a fake pc that describe_pc names. */
#ifndef CTS_SIM_H
#define CTS_SIM_H

#include <stddef.h>
#include <stdint.h>
#include "strategies/backend.h"

struct cts_sim;
struct cts_objmodel;
struct cts_explorer_config;
struct cts_explore_result;
struct cts_strategy;

/* NULL on a syntax error, with "line N: why" in err. */
struct cts_sim *cts_sim_parse(const char *text, char *err, size_t errlen);
struct cts_sim *cts_sim_load(const char *path, char *err, size_t errlen);
void cts_sim_free(struct cts_sim *sim);

/* The backend runs the script; model must be the explorer's object model. */
struct cts_backend cts_sim_backend(struct cts_sim *sim, struct cts_objmodel *model);

/* Change a "const" before the next run; false if the script has none so named. */
bool cts_sim_set_const(struct cts_sim *sim, const char *name, int64_t value);

/* For tests: the fake address of NAME[index] (0 if unknown), and the value
 * the last run left there. */
uint64_t cts_sim_addr(const struct cts_sim *sim, const char *name, int64_t index);
int64_t cts_sim_value(const struct cts_sim *sim, const char *name, int64_t index);

/* For tests: one exploration of the script by strategy (not destroyed) with
 * its own object model, as cts_explore(cfg) does it; cfg's log NULL means
 * stderr. res is the caller's (cts_explore_result_free); cts_explore's
 * status, with a failure's reason also in res->error. */
int cts_sim_explore(struct cts_sim *sim, const struct cts_explorer_config *cfg,
		    struct cts_strategy *strategy, struct cts_explore_result *res);

#endif
