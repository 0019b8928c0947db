/* Run isolation: the file-system effects of one run never reach another run
 * nor outlive cts-trace.
 *
 * The program lives in a mount namespace of its own (made once, private:
 * nothing mounted in it is seen outside). Before each run, the working
 * directory, TMPDIR (or /tmp) and /dev/shm get a fresh overlay there, whose
 * lower layer is the real directory and whose upper layer is a directory on
 * a tmpfs that exists only in that namespace; the run's process (and its
 * --check) work in the overlays. The next run's overlays replace them, and
 * the namespace ends with cts-trace: what a run wrote is gone. cts-trace
 * itself stays in its own namespace, so its outputs (-o, --report, the
 * timeline) land in the real directories. */
#ifndef CTS_ISOLATE_H
#define CTS_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cts_iso;
struct user_regs_struct;

/* NULL, with the reason in why, where the runs cannot be isolated (no
 * CAP_SYS_ADMIN, no overlayfs, a working directory overlayfs refuses as a
 * lower layer): probed here by mounting one set of overlays. */
struct cts_iso *cts_iso_new(char *why, size_t whylen);
/* Removes the overlays, the namespace's last reference and the tmpfs's
 * mount point; NULL is fine. */
void cts_iso_free(struct cts_iso *iso);

/* Fresh overlays: the last run's files are thrown away. Overlays nothing
 * wrote in are kept (no remount). 0, or -1 (errno). */
int cts_iso_reset(struct cts_iso *iso);
/* Changes whenever the overlays were mounted afresh: a process whose cwd is
 * in older ones must chdir. */
unsigned cts_iso_generation(const struct cts_iso *iso);

/* In a vfork child before exec: system calls only. Into the namespace and
 * the working directory's overlay. 0, or -1 (errno). */
int cts_iso_child_enter(const struct cts_iso *iso);

/* A process forked from one inside the namespace (the fork server's runs)
 * keeps its parent's working directory: chdir it into the current overlay by
 * an injected chdir(2) (pid stopped at regs; code: a syscall; int3 to use,
 * 0 to patch at rip). 0, or -1. */
int cts_iso_chdir_tracee(const struct cts_iso *iso, pid_t pid,
			 const struct user_regs_struct *regs, unsigned long code);

/* cts-trace itself, around spawning --check: into the namespace with the
 * working directory's overlay as its cwd, and back. Leaving cannot fail
 * without cts-trace losing its own files: it dies then. */
int cts_iso_enter(struct cts_iso *iso);
void cts_iso_leave(struct cts_iso *iso);

/* The isolated directories, "a, b and c", for messages. */
const char *cts_iso_describe(const struct cts_iso *iso);

#endif
