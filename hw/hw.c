/* x86-64 debug registers through PTRACE_PEEKUSER/POKEUSER (see hw.h). */
#include "hw/hw.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define DR_OFF(i) offsetof(struct user, u_debugreg[i])
#define DR6 6
#define DR7 7

/* Highest user address the kernel accepts for a user breakpoint (TASK_SIZE_MAX
 * with 4-level paging; the kernel re-checks against the real limit). */
#define HW_USER_TOP 0x00007ffffffff000ULL

/* DR7 layout: L<i> enable at bit 2i, RW<i> at 16+4i, LEN<i> at 18+4i. */
#define DR7_L(i)        (1ULL << (2 * (i)))
#define DR7_RW_SHIFT(i) (16 + 4 * (i))
#define DR7_LEN_SHIFT(i) (18 + 4 * (i))

enum { RW_EXEC = 0, RW_WRITE = 1, RW_READWRITE = 3 };

static int hw_avail = -1;        /* -1 unprobed, 0 no, 1 yes */
static bool hw_forced_off;
static bool dr6_fresh;           /* probed with hw_avail */
static bool si_pc;               /* probed with hw_avail */
static bool dr6_forced_reset;

static uint64_t len_bits(unsigned len)
{
	switch (len) {
	case 1: return 0;
	case 2: return 1;
	case 8: return 2;   /* yes, 8 is 10 and 4 is 11 */
	default: return 3;
	}
}

static unsigned bits_len(uint64_t bits)
{
	static const unsigned lens[4] = { 1, 2, 8, 4 };
	return lens[bits & 3];
}

/* Alignment the kernel enforces on slot i's address under this DR7: a slot
 * with RW=00 is an execute breakpoint (len 1, any address). */
static unsigned slot_len(uint64_t dr7, int i)
{
	if (((dr7 >> DR7_RW_SHIFT(i)) & 3) == RW_EXEC)
		return 1;
	return bits_len(dr7 >> DR7_LEN_SHIFT(i));
}

static int peek(pid_t tid, int reg, uint64_t *out)
{
	errno = 0;
	long v = ptrace(PTRACE_PEEKUSER, tid, (void *)DR_OFF(reg), NULL);
	if (v == -1 && errno)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int poke(pid_t tid, int reg, uint64_t val)
{
	return ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFF(reg), (void *)val) == -1 ? -1 : 0;
}

int cts_hw_validate(uint64_t addr, unsigned len, char *err, size_t errlen)
{
	const char *why = NULL;

	if (len != 1 && len != 2 && len != 4 && len != 8)
		why = "length must be 1, 2, 4 or 8 bytes";
	else if (addr & (len - 1))
		why = "address not aligned to the length";
	else if (addr >= HW_USER_TOP || addr + len > HW_USER_TOP)
		why = "address outside user space";
	if (!why)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "watch 0x%llx len %u: %s",
			 (unsigned long long)addr, len, why);
	errno = EINVAL;
	return -1;
}

int cts_hw_add(struct cts_hw_set *s, uint64_t addr, unsigned len, enum cts_hw_kind k)
{
	if (cts_hw_validate(addr, len, NULL, 0) < 0)
		return -1;
	if (k != CTS_HW_WRITE && k != CTS_HW_RW) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < CTS_HW_SLOTS; i++) {
		if (s->w[i].used)
			continue;
		s->w[i] = (struct cts_hw_watch){ .addr = addr, .len = len, .kind = k, .used = true };
		return i;
	}
	errno = ENOSPC;
	return -1;
}

void cts_hw_remove(struct cts_hw_set *s, int slot)
{
	if (slot >= 0 && slot < CTS_HW_SLOTS)
		s->w[slot] = (struct cts_hw_watch){ 0 };
}

uint64_t cts_hw_dr7(const struct cts_hw_set *s)
{
	uint64_t dr7 = 0;

	for (int i = 0; i < CTS_HW_SLOTS; i++) {
		const struct cts_hw_watch *w = &s->w[i];
		if (!w->used)
			continue;   /* zero RW/LEN bits: the kernel accepts any address there */
		uint64_t rw = w->kind == CTS_HW_RW ? RW_READWRITE : RW_WRITE;
		dr7 |= DR7_L(i) | rw << DR7_RW_SHIFT(i) | len_bits(w->len) << DR7_LEN_SHIFT(i);
	}
	return dr7;
}

/* The kernel validates a slot's address against the length DR7 gives it at
 * the time of each write.  A new address is written before DR7 when it also
 * fits the old length, after DR7 otherwise; one of the two always works
 * (lengths are powers of two), so DR7 is written once. */
int cts_hw_apply(pid_t tid, struct cts_hw_regs *cur, const struct cts_hw_set *s)
{
	uint64_t dr7 = cts_hw_dr7(s);
	bool late[CTS_HW_SLOTS] = { false };

	for (int i = 0; i < CTS_HW_SLOTS; i++) {
		const struct cts_hw_watch *w = &s->w[i];
		if (!w->used || w->addr == cur->addr[i])
			continue;
		if (w->addr & (slot_len(cur->dr7, i) - 1)) {
			late[i] = true;
			continue;
		}
		if (poke(tid, i, w->addr) < 0)
			return -1;
		cur->addr[i] = w->addr;
	}
	if (dr7 != cur->dr7) {
		if (poke(tid, DR7, dr7) < 0)
			return -1;
		cur->dr7 = dr7;
	}
	for (int i = 0; i < CTS_HW_SLOTS; i++) {
		if (!late[i])
			continue;
		if (poke(tid, i, s->w[i].addr) < 0)
			return -1;
		cur->addr[i] = s->w[i].addr;
	}
	return 0;
}

int cts_hw_clear(pid_t tid, struct cts_hw_regs *cur)
{
	if (cur && cur->dr7 == 0)
		return 0;
	if (poke(tid, DR7, 0) < 0)
		return -1;
	if (cur)
		cur->dr7 = 0;
	return 0;
}

int cts_hw_read_regs(pid_t tid, struct cts_hw_regs *cur)
{
	struct cts_hw_regs r;

	for (int i = 0; i < CTS_HW_SLOTS; i++)
		if (peek(tid, i, &r.addr[i]) < 0)
			return -1;
	if (peek(tid, DR7, &r.dr7) < 0)
		return -1;
	*cur = r;
	return 0;
}

int cts_hw_read_dr6(pid_t tid, uint64_t *dr6)
{
	return peek(tid, DR6, dr6);
}

int cts_hw_reset_dr6(pid_t tid)
{
	return poke(tid, DR6, 0);
}

int cts_hw_hit_slot(uint64_t dr6)
{
	uint64_t hits = dr6 & 0xf;
	return hits ? __builtin_ctzll(hits) : -1;
}

static volatile uint64_t probe_word, probe_word2;

/* waitpid for the probe's own child, whose next report is sure to come
 * soon: a signal that interrupts the wait (the user's SIGINT) must not
 * make the probe's cached answer "no" nor leave the child behind. */
static pid_t wait_child(pid_t pid, int *st)
{
	pid_t r;
	do
		r = waitpid(pid, st, __WALL);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Let the probe's child run to its next stop: a watchpoint trap? Its
 * siginfo in *si. */
static bool next_trap(pid_t pid, int *st, siginfo_t *si)
{
	return ptrace(PTRACE_CONT, pid, NULL, NULL) == 0 && wait_child(pid, st) == pid &&
	       WIFSTOPPED(*st) && WSTOPSIG(*st) == SIGTRAP &&
	       ptrace(PTRACE_GETSIGINFO, pid, NULL, si) == 0 && si->si_code == TRAP_HWBKPT;
}

/* Some VMs accept debug-register writes but never deliver the trap (seen on
 * a Firecracker/AMD guest), so only a watchpoint that fires proves support:
 * a forked child traced by us stores to a watched word. Its SIGTRAP's
 * si_addr is the trap's pc or not (Linux sends the user rip). The child
 * then stores to a second word, watched in another slot, with DR6 left as
 * the first trap made it: naming the second slot only, DR6 is fresh at
 * every trap (Linux starts ptrace's DR6 afresh at each debug exception
 * since 5.11), else its bits stay until reset. */
static bool probe(void)
{
	int st;
	bool works = false, reaped = false;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 && raise(SIGSTOP) == 0) {
			probe_word = 1;
			probe_word2 = 1;
		}
		_exit(0);
	}
	if (wait_child(pid, &st) != pid)
		return false;   /* cannot happen for our own child; nothing to kill safely */
	if (WIFSTOPPED(st)) {
		struct cts_hw_set set = { 0 };
		struct cts_hw_regs cur = { { 0 }, 0 };
		uint64_t dr6 = 0;
		siginfo_t si = { 0 };
		struct user_regs_struct r;

		if (cts_hw_add(&set, (uintptr_t)&probe_word, sizeof probe_word, CTS_HW_WRITE) == 0 &&
		    cts_hw_add(&set, (uintptr_t)&probe_word2, sizeof probe_word2, CTS_HW_WRITE) == 1 &&
		    cts_hw_apply(pid, &cur, &set) == 0) {
			works = next_trap(pid, &st, &si);
			si_pc = works && ptrace(PTRACE_GETREGS, pid, NULL, &r) == 0 &&
				(uint64_t)(uintptr_t)si.si_addr == r.rip;
			dr6_fresh = works && next_trap(pid, &st, &si) && cts_hw_read_dr6(pid, &dr6) == 0 &&
				    (dr6 & 0xf) == 0x2;
		}
		reaped = !WIFSTOPPED(st);
	} else {
		reaped = true;
	}
	if (!reaped) {
		kill(pid, SIGKILL);
		while (wait_child(pid, &st) == pid && !WIFEXITED(st) && !WIFSIGNALED(st))
			;
	}
	return works;
}

bool cts_hw_available(void)
{
	if (hw_forced_off)
		return false;
	if (hw_avail < 0) {
		int saved = errno;
		hw_avail = probe();
		errno = saved;
	}
	return hw_avail == 1;
}

void cts_hw_force_unavailable(bool off)
{
	hw_forced_off = off;
}

bool cts_hw_dr6_fresh(void)
{
	return cts_hw_available() && dr6_fresh && !dr6_forced_reset;
}

void cts_hw_force_dr6_reset(bool on)
{
	dr6_forced_reset = on;
}

bool cts_hw_siginfo_pc(void)
{
	return cts_hw_available() && si_pc;
}

int cts_hw_used(const struct cts_hw_set *s)
{
	int n = 0;
	for (int i = 0; i < CTS_HW_SLOTS; i++)
		n += s->w[i].used;
	return n;
}
