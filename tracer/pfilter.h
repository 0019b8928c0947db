/* The program's own seccomp filters (issue 27 item 13, hostile.md D13).
 *
 * A system call the program makes passes through its filters in the kernel
 * whatever cts does: the kernel runs every filter and the most restrictive
 * action wins over the tracer's SECCOMP_RET_TRACE. What no filter sees is a
 * call cts models instead of letting the program make it: the futex wait
 * of a thread that must wait for a mutex, a thread's exit or a semaphore
 * (cts holds it at the pthread call until it can go on, and it never enters
 * the kernel), and the futex wake of a thread that releases what such a
 * thread waits for. So the tracer keeps a copy of every filter the program
 * installs (seccomp(SECCOMP_SET_MODE_FILTER) and prctl(PR_SET_SECCOMP,
 * SECCOMP_MODE_FILTER), read from its memory at the call's entry and kept
 * once the call succeeds; per thread, as the kernel does: inherited at
 * clone, all threads with SECCOMP_FILTER_FLAG_TSYNC), runs them (bpf.h) on
 * the futex call such a thread makes natively, and does what the kernel and
 * glibc 2.36 would. Also, a call whose filters answer SECCOMP_RET_TRACE
 * fails with ENOSYS, as it does natively with no tracer, rather than
 * stopping at cts's own tracer. */
#ifndef CTS_PFILTER_H
#define CTS_PFILTER_H

#include <stdbool.h>
#include "strategies/backend.h"

struct cts_tracer;
struct thread;
struct cts_pf;

struct cts_pf *cts_pf_new(void);
void cts_pf_free(struct cts_pf *pf);
/* The fork server is made now, its main thread holding chain head: every
 * run forked from it starts with those filters. */
void cts_pf_set_base(struct cts_pf *pf, int head);
/* A run starts (launched or forked from the server): the filters the last
 * run installed are dropped. The chain its first thread starts with (-1:
 * none); st->own_filters says whether there is one. */
int cts_pf_begin_run(struct cts_pf *pf, struct cts_run_state *st);

/* Is th (at a seccomp stop, registers fetched) installing a filter? */
bool cts_pf_is_install(const struct thread *th);
/* A seccomp stop of a call that installs a filter (th's registers fetched):
 * read the filter; th runs on to the call's exit stop. 0, or -1 on a
 * tracer error. */
int cts_pf_on_install(struct cts_tracer *tr, struct thread *th);
/* That exit stop: if the call succeeded, the filter is th's (and every
 * other thread's with TSYNC). */
void cts_pf_installed(struct cts_tracer *tr, struct thread *th);
/* A seccomp stop of the program's start-up code (single-threaded, before
 * main, thread 0 its only thread): a filter it installs is kept, waiting
 * for the call's exit stop here; a call its filters hand to a tracer is
 * made to fail with ENOSYS. The caller then continues it as before. 0, or
 * -1 (lost the process). */
int cts_pf_startup_stop(struct cts_tracer *tr, pid_t pid);
/* At a seccomp stop of any call (registers fetched): do th's own filters
 * answer SECCOMP_RET_TRACE? Natively, with no tracer, the call then fails
 * with ENOSYS. */
bool cts_pf_wants_tracer(struct cts_tracer *tr, struct thread *th);
/* The backend's native_call op (strategies/backend.h). */
int cts_pf_native_call(struct cts_tracer *tr, struct cts_run_state *st, int tid, bool wake);

#endif
