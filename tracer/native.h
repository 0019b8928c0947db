/* What the program would see if it ran natively. cts-trace pins itself, and
 * so the program, to one CPU, launches it with ADDR_NO_RANDOMIZE and installs
 * signal handlers of its own; none of that may change what the program
 * observes. The caller's state is saved before any of it (cts_native_save),
 * put back in the launched child before exec (signals, persona), and the
 * calls that would show the rest (sched_getaffinity, sched_setaffinity,
 * personality queries) are answered here at their seccomp stops. */
#ifndef CTS_NATIVE_H
#define CTS_NATIVE_H

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>
#include <sys/user.h>

/* Saves the caller's CPU affinity, signal mask, ignored signals and
 * personality. Call first thing, before any pin or handler; later calls do
 * nothing. */
void cts_native_save(void);

/* The CPUs cts-trace was allowed before it pinned itself. */
const cpu_set_t *cts_native_cpus(void);

/* In the vfork child, just before exec (system calls only): the caller's
 * signal mask and ignored signals, and its personality with
 * ADDR_NO_RANDOMIZE added. -1 with errno if the personality cannot be set. */
int cts_native_exec_prepare(void);

/* What a program that asks (isatty, lseek, fstat) finds at descriptor fd:
 * "tty", "pipe" (a pipe, FIFO or socket: lseek fails), "null" (/dev/null),
 * "file" (a regular file), "char" (another character device), "other" or
 * "closed". Python's start-up, for one, seeks its standard streams only
 * where it can: a pipe for a run recorded on /dev/null changes its steps. */
const char *cts_native_fd_kind(int fd);
/* Do isatty and lseek answer alike on the two kinds? /dev/null and a
 * file do. */
bool cts_native_kinds_alike(const char *a, const char *b);

/* The seccomp rules that stop the calls cts_view_call answers. */
int cts_native_seccomp_rules(void *scmp_ctx);

/* Per thread of the program (and of the processes it forks): the affinity
 * it set for itself, whether it set its own personality. A thread without
 * an entry sees the native state. */
struct cts_view;

struct cts_view *cts_view_new(void);
void cts_view_free(struct cts_view *v);

/* child was created (clone, fork) by parent: it inherits parent's view. */
void cts_view_inherit(struct cts_view *v, pid_t parent, pid_t child);

/* tid is gone, or is a new process of the tracer's that starts native. */
void cts_view_forget(struct cts_view *v, pid_t tid);

/* tid is at the seccomp stop of the call in regs. True if the call is
 * answered here: skip it with *ret as its result (a -errno on failure).
 * False: let it run. */
bool cts_view_call(struct cts_view *v, pid_t tid, const struct user_regs_struct *regs, long *ret);

/* The same for a process that is not scheduled (forked, exec'd, a wrapper
 * script): reads and writes its registers itself. */
void cts_view_free_call(struct cts_view *v, pid_t tid);

#endif
