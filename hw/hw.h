/* x86-64 hardware watchpoints (debug registers DR0-DR3, DR6, DR7) per thread.
 *
 * Debug registers belong to a thread, not a process: new threads start with
 * none armed, so the tracer applies the process's watch set to every thread
 * (new ones at their first stop).  Each thread keeps a software copy of what
 * is programmed in it (struct cts_hw_regs) so an apply writes only what
 * changed, and DR7 (about 2.2 us per write) exactly once per change.
 * All calls that take a tid need that thread ptrace-stopped by us.  They
 * return -1 with errno kept on failure; ESRCH means the thread is gone, which
 * callers treat as a normal event. */
#ifndef CTS_HW_H
#define CTS_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CTS_HW_SLOTS 4

enum cts_hw_kind {
	CTS_HW_WRITE,   /* DR7 RW=01: traps stores only */
	CTS_HW_RW,      /* DR7 RW=11: traps loads and stores */
};

struct cts_hw_watch {
	uint64_t addr;
	unsigned len;            /* 1, 2, 4 or 8, addr aligned to it */
	enum cts_hw_kind kind;
	bool used;
};

/* The set of (up to 4) watchpoints a process wants; applied to each thread. */
struct cts_hw_set {
	struct cts_hw_watch w[CTS_HW_SLOTS];
};

/* What is programmed in one thread (software copy).  All-zero is the state
 * of a thread we have never programmed: the kernel starts every thread with
 * no ptrace watchpoints.  In attach mode fill it with cts_hw_read_regs. */
struct cts_hw_regs {
	uint64_t addr[CTS_HW_SLOTS];
	uint64_t dr7;
};

/* 0 if (addr, len) can be watched; else -1, errno EINVAL and a reason in err. */
int cts_hw_validate(uint64_t addr, unsigned len, char *err, size_t errlen);

/* Lowest free slot now holding the watch; -1 with EINVAL (bad addr/len/kind)
 * or ENOSPC (all four used).  Only edits the set: apply it afterwards. */
int cts_hw_add(struct cts_hw_set *s, uint64_t addr, unsigned len, enum cts_hw_kind k);
void cts_hw_remove(struct cts_hw_set *s, int slot);

/* The DR7 value that arms exactly the used slots of s. */
uint64_t cts_hw_dr7(const struct cts_hw_set *s);

/* Program a stopped thread's DR0-3 and DR7 so they match s, writing only the
 * registers that differ from *cur (one DR7 write at most), and update *cur
 * to what the thread now holds, also on failure. */
int cts_hw_apply(pid_t tid, struct cts_hw_regs *cur, const struct cts_hw_set *s);

/* Disarm every slot of a thread (before detach).  cur may be NULL (state
 * unknown: DR7 is written unconditionally); otherwise it is updated. */
int cts_hw_clear(pid_t tid, struct cts_hw_regs *cur);

/* Read DR0-3 and DR7 from the thread (attach mode, or resync after an error). */
int cts_hw_read_regs(pid_t tid, struct cts_hw_regs *cur);

int cts_hw_read_dr6(pid_t tid, uint64_t *dr6);
int cts_hw_reset_dr6(pid_t tid);

/* Slot named by DR6 bits 0-3 (lowest set), -1 if none. */
int cts_hw_hit_slot(uint64_t dr6);

/* Whether watchpoints actually trap here, probed once and cached: forks a
 * child, traces it and watches one of its stores (about a millisecond).  Some
 * VMs accept DR7 writes but never deliver the trap, so nothing less is proof.
 * Reaps only its own child (waitpid on its pid). */
bool cts_hw_available(void);

/* Force cts_hw_available to say false, so the fallback path can be tested. */
void cts_hw_force_unavailable(bool off);

/* Whether the DR6 ptrace shows is started afresh at every debug exception
 * (probed with cts_hw_available; Linux 5.11 and later): a trap's DR6 then
 * names only that trap's slots and needs no reset, and a stop that is not
 * a debug exception (int3, a step that completed a system call) shows the
 * previous one's bits, not a new hit.  False: bits stay until reset. */
bool cts_hw_dr6_fresh(void);

/* Force cts_hw_dr6_fresh to say false: DR6 is read and reset at every
 * trap, as on older kernels (to test that path). */
void cts_hw_force_dr6_reset(bool on);

/* Whether a watchpoint trap's SIGTRAP names its pc in si_addr (probed
 * with cts_hw_available; Linux does, for a trap in user mode): then the
 * pc needs no register read. */
bool cts_hw_siginfo_pc(void);

/* How many slots of s are used. */
int cts_hw_used(const struct cts_hw_set *s);

#endif
