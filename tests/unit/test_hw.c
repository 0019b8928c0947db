/* timeout: 60 */
/* hw/: debug-register watchpoints on a forked, traced copy of this program.
 * Globals have the same address in parent and child, and the accesses are
 * single instructions followed by global labels, so the trap pc is exact. */
#include "disasm/disasm.h"
#include "hw/attrib.h"
#include "hw/hw.h"
#include "tests/unit/tap.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

/* target[0] is watched with length 8, then bytes 4..7 with length 4. */
static volatile uint64_t target[2] __attribute__((aligned(16)));
static volatile uint64_t other;

extern const char hw_store_end[], hw_load_end[], hw_load_hi_end[];

__attribute__((noipa)) static void store_target(uint64_t v)
{
	__asm__ volatile("movq %1, %0\n\t.globl hw_store_end\nhw_store_end:"
			 : "=m"(target[0]) : "r"(v));
}

__attribute__((noipa)) static uint64_t load_target(void)
{
	uint64_t v;
	__asm__ volatile("movq %1, %0\n\t.globl hw_load_end\nhw_load_end:"
			 : "=r"(v) : "m"(target[0]));
	return v;
}

/* Reads only the high half of target[0]. */
__attribute__((noipa)) static uint32_t load_target_hi(void)
{
	uint32_t v;
	__asm__ volatile("movl %1, %0\n\t.globl hw_load_hi_end\nhw_load_hi_end:"
			 : "=r"(v) : "m"(*((volatile uint32_t *)&target[0] + 1)));
	return v;
}

static void child(void)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
		_exit(100);
	raise(SIGSTOP);
	/* Write watch armed: the load passes, the store traps. */
	if (load_target() != 0)
		_exit(101);
	store_target(1);
	/* Read-write watch on the high half: this load traps. */
	if (load_target_hi() != 0)
		_exit(102);
	/* Cleared: nothing traps any more. */
	store_target(2);
	other = load_target() + load_target_hi();
	_exit(7);
}

static void tap_skip(const char *why, int n)
{
	while (n-- > 0)
		printf("ok %d # skip %s\n", ++tap_n, why);
	fflush(stdout);
}

/* Waits for a SIGTRAP stop and checks it is a hardware watchpoint trap. */
static int expect_hw_trap(pid_t pid, const char *what)
{
	int st;
	siginfo_t si = { 0 };

	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
		tap_ok(0, "%s: SIGTRAP stop", what);
		tap_diag("  wait status 0x%x", st);
		return -1;
	}
	tap_ok(1, "%s: SIGTRAP stop", what);
	if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) < 0)
		return -1;
	tap_is_int(si.si_code, TRAP_HWBKPT, "%s: si_code is TRAP_HWBKPT", what);
	return 0;
}

static uint64_t child_pc(pid_t pid)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0)
		return 0;
	return r.rip;
}

static void check_regs_match(pid_t pid, const struct cts_hw_regs *cur, const char *what)
{
	struct cts_hw_regs hwr;
	int ok = cts_hw_read_regs(pid, &hwr) == 0 && hwr.dr7 == cur->dr7;
	for (int i = 0; ok && i < CTS_HW_SLOTS; i++)
		if (cur->dr7 & (3ULL << (2 * i)))
			ok = hwr.addr[i] == cur->addr[i];
	tap_ok(ok, "%s: software copy matches the thread's registers", what);
}

static void test_pure(void)
{
	char err[128] = "";
	struct cts_hw_set s = { 0 };

	tap_is_int(cts_hw_validate(0x1000, 8, err, sizeof err), 0, "aligned len 8 is valid");
	errno = 0;
	tap_ok(cts_hw_validate(0x1000, 3, err, sizeof err) == -1 && errno == EINVAL,
	       "len 3 rejected with EINVAL");
	tap_ok(strstr(err, "length") != NULL, "reason names the length: %s", err);
	err[0] = 0;
	tap_ok(cts_hw_validate(0x1002, 4, err, sizeof err) == -1 && strstr(err, "aligned"),
	       "misaligned len 4 rejected: %s", err);
	tap_ok(cts_hw_validate(0x1001, 2, NULL, 0) == -1, "misaligned len 2 rejected");
	tap_ok(cts_hw_validate(0x1001, 1, NULL, 0) == 0, "len 1 at any address is valid");
	tap_ok(cts_hw_validate(0x7ffffffffff8ULL, 8, NULL, 0) == -1, "kernel address rejected");

	tap_is_int(cts_hw_add(&s, 0x1000, 8, CTS_HW_WRITE), 0, "first add takes slot 0");
	tap_is_int(cts_hw_add(&s, 0x2000, 4, CTS_HW_RW), 1, "second add takes slot 1");
	tap_ok(cts_hw_add(&s, 0x2001, 4, CTS_HW_RW) == -1 && errno == EINVAL,
	       "add refuses a misaligned watch");
	/* L0 | RW0=01 | LEN0=10 (8 bytes); L1 | RW1=11 | LEN1=11 (4 bytes). */
	tap_is_int(cts_hw_dr7(&s), 0x1ULL | 1ULL << 16 | 2ULL << 18 | 0x4ULL | 3ULL << 20 | 3ULL << 22,
		   "DR7 encodes RW and the odd 8/4 length bits");
	tap_is_int(cts_hw_add(&s, 0x3000, 2, CTS_HW_WRITE), 2, "third add takes slot 2");
	tap_is_int(cts_hw_add(&s, 0x4000, 1, CTS_HW_WRITE), 3, "fourth add takes slot 3");
	tap_ok(cts_hw_add(&s, 0x5000, 1, CTS_HW_WRITE) == -1 && errno == ENOSPC,
	       "fifth add fails with ENOSPC");
	cts_hw_remove(&s, 1);
	tap_is_int(cts_hw_add(&s, 0x5000, 1, CTS_HW_WRITE), 1, "removed slot is reused");

	tap_is_int(cts_hw_hit_slot(0), -1, "DR6 without hit bits names no slot");
	tap_is_int(cts_hw_hit_slot(0xffff0ff4), 2, "DR6 B2 names slot 2");
	tap_is_int(cts_hw_hit_slot(0x4009), 0, "lowest hit bit wins");
}

/* Register programming through ptrace works whether or not traps arrive. */
static void test_registers(pid_t pid)
{
	struct cts_hw_regs hwr, cur = { { 0 }, 0 };
	struct cts_hw_set set = { 0 };

	tap_ok(cts_hw_read_regs(pid, &hwr) == 0 && hwr.dr7 == 0, "a fresh thread has DR7 clear");
	cts_hw_add(&set, (uintptr_t)&other, 8, CTS_HW_WRITE);
	int slot = cts_hw_add(&set, (uintptr_t)&target[0], 8, CTS_HW_WRITE);
	tap_ok(cts_hw_apply(pid, &cur, &set) == 0 && cur.dr7 == cts_hw_dr7(&set),
	       "apply two write watches");
	check_regs_match(pid, &cur, "after apply");

	/* The new address does not fit the old 8-byte length: it must go in after DR7. */
	cts_hw_remove(&set, slot);
	slot = cts_hw_add(&set, (uintptr_t)&target[0] + 4, 4, CTS_HW_RW);
	tap_ok(cts_hw_apply(pid, &cur, &set) == 0, "move slot %d to a 4-byte read-write watch", slot);
	check_regs_match(pid, &cur, "after the move");
	tap_ok(cts_hw_read_regs(pid, &hwr) == 0 && hwr.addr[slot] == (uintptr_t)&target[0] + 4,
	       "thread holds the new address");

	struct cts_hw_set bad = set;
	bad.w[2] = (struct cts_hw_watch){ .addr = (uintptr_t)&target[1] + 2, .len = 8,
					  .kind = CTS_HW_WRITE, .used = true };
	errno = 0;
	tap_ok(cts_hw_apply(pid, &cur, &bad) == -1 && errno == EINVAL,
	       "kernel rejects a misaligned watch with EINVAL (as cts_hw_validate does)");
	check_regs_match(pid, &cur, "after the failed apply");

	tap_ok(cts_hw_clear(pid, &cur) == 0 && cur.dr7 == 0, "clear");
	check_regs_match(pid, &cur, "after clear");

	/* A disarmed slot takes any address, whatever length it had before. */
	struct cts_hw_set one = { 0 };
	cts_hw_add(&one, (uintptr_t)&target[0], 8, CTS_HW_RW);
	int ok = cts_hw_apply(pid, &cur, &one) == 0;
	cts_hw_remove(&one, 0);
	ok = ok && cts_hw_apply(pid, &cur, &one) == 0 && cur.dr7 == 0;
	cts_hw_add(&one, (uintptr_t)&target[0] + 2, 2, CTS_HW_WRITE);
	ok = ok && cts_hw_apply(pid, &cur, &one) == 0;
	tap_ok(ok, "re-arm a removed 8-byte slot at a 2-byte-aligned address");
	check_regs_match(pid, &cur, "after re-arm");
	tap_ok(cts_hw_clear(pid, NULL) == 0 && cts_hw_read_regs(pid, &cur) == 0 && cur.dr7 == 0,
	       "clear without a software copy");
}

#define TRAP_CHECKS 14

/* A real trap attributed: decoded forward from the function start (the
 * child's text is ours), the instruction before the trap pc, its kind. */
static void check_attribution(pid_t pid, const struct cts_hw_set *set, int slot, uintptr_t fn,
			      const char *end, enum cts_attr_kind want, const char *what)
{
	struct user_regs_struct r;
	struct cts_disasm *d = cts_disasm_new();
	struct cts_attr at = { 0 };
	int ok = d && ptrace(PTRACE_GETREGS, pid, NULL, &r) == 0;
	if (ok) {
		struct cts_attr_input in = {
			.trap_pc = r.rip, .code_lo = fn, .boundary = true,
			.code = (const uint8_t *)fn, .code_len = (size_t)((uintptr_t)end - fn) + 16,
			.set = set, .slot = slot, .regs = &r,
		};
		ok = cts_attr_find(d, &in, &at) == 0;
	}
	tap_ok(ok && at.exact && at.kind == want && at.pc >= fn && at.pc < (uintptr_t)end,
	       "%s: attributed to the %s before the trap pc (%s)", what, cts_attr_kind_name(want),
	       at.text);
	cts_disasm_free(d);
}

static int test_traps(pid_t pid)
{
	struct cts_hw_regs cur;
	struct cts_hw_set set = { 0 };
	uint64_t dr6 = 0;

	if (cts_hw_read_regs(pid, &cur) < 0)
		return -1;
	cts_hw_add(&set, (uintptr_t)&other, 8, CTS_HW_WRITE);
	int slot = cts_hw_add(&set, (uintptr_t)&target[0], 8, CTS_HW_WRITE);
	if (cts_hw_apply(pid, &cur, &set) < 0 || ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		return -1;
	if (expect_hw_trap(pid, "store under write watch") < 0)
		return -1;
	tap_ok(cts_hw_read_dr6(pid, &dr6) == 0 && cts_hw_hit_slot(dr6) == slot,
	       "DR6 0x%llx names slot %d", (unsigned long long)dr6, slot);
	tap_ok(child_pc(pid) == (uintptr_t)hw_store_end,
	       "pc is just after the store (the load before it did not trap)");
	siginfo_t si = { 0 };
	int got = ptrace(PTRACE_GETSIGINFO, pid, NULL, &si);
	tap_ok(got == 0 && (!cts_hw_siginfo_pc() || (uintptr_t)si.si_addr == (uintptr_t)hw_store_end),
	       "the probe's word holds: si_addr %p is the trap pc (%s)", si.si_addr,
	       cts_hw_siginfo_pc() ? "said so" : "not relied on");
	check_attribution(pid, &set, slot, (uintptr_t)store_target, hw_store_end, CTS_ATTR_WRITE,
			  "store");
	tap_ok(cts_hw_reset_dr6(pid) == 0 && cts_hw_read_dr6(pid, &dr6) == 0 &&
	       cts_hw_hit_slot(dr6) == -1, "DR6 reset");

	cts_hw_remove(&set, slot);
	slot = cts_hw_add(&set, (uintptr_t)&target[0] + 4, 4, CTS_HW_RW);
	if (cts_hw_apply(pid, &cur, &set) < 0 || ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		return -1;
	if (expect_hw_trap(pid, "load under read-write watch") < 0)
		return -1;
	tap_ok(cts_hw_read_dr6(pid, &dr6) == 0 && cts_hw_hit_slot(dr6) == slot,
	       "DR6 0x%llx names slot %d", (unsigned long long)dr6, slot);
	tap_ok(child_pc(pid) == (uintptr_t)hw_load_hi_end, "pc is just after the load");
	check_attribution(pid, &set, slot, (uintptr_t)load_target_hi, hw_load_hi_end, CTS_ATTR_READ,
			  "load");
	tap_ok(cts_hw_clear(pid, &cur) == 0 && cur.dr7 == 0, "clear");
	check_regs_match(pid, &cur, "after clear");
	return 0;
}

static void test_live(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		tap_ok(0, "fork");
		return;
	}
	if (pid == 0)
		child();
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
		tap_ok(0, "child stops itself");
		goto out;
	}
	test_registers(pid);

	bool avail = cts_hw_available();
	tap_diag("hardware watchpoints %s", avail ? "trap here" : "do not trap here");
	if (!avail)
		tap_skip("skipped: debug registers do not trap on this machine", TRAP_CHECKS);
	else if (test_traps(pid) < 0)
		goto out;

	if (ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		goto out;
	pid_t w = waitpid(pid, &st, 0);
	tap_ok(w == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7,
	       "nothing armed: child runs untrapped and exits 7 (status 0x%x)", st);
	uint64_t dr6;
	errno = 0;
	tap_ok(cts_hw_read_dr6(pid, &dr6) == -1 && errno == ESRCH, "gone thread gives ESRCH");
	return;
out:
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

int main(void)
{
	test_pure();
	test_live();
	/* DR6 started afresh at every trap (Linux 5.11 on) needs no reset;
	 * CTS_DR6_RESET forces the reset path, as on older kernels */
	tap_diag("DR6 %s", cts_hw_dr6_fresh() ? "is fresh at every trap here" :
					    "keeps its bits until reset here (or no traps)");
	struct cts_hw_set two = { 0 };
	cts_hw_add(&two, (uintptr_t)&other, 8, CTS_HW_WRITE);
	tap_is_int(cts_hw_used(&two), 1, "one slot used");
	cts_hw_add(&two, (uintptr_t)&target[0], 8, CTS_HW_RW);
	cts_hw_remove(&two, 0);
	tap_is_int(cts_hw_used(&two), 1, "one slot used (slot 1, after slot 0 went)");
	cts_hw_force_dr6_reset(true);
	tap_ok(!cts_hw_dr6_fresh(), "forced: DR6 is read and reset at every trap");
	cts_hw_force_dr6_reset(false);
	cts_hw_force_unavailable(true);
	tap_ok(!cts_hw_available(), "forced fallback reports unavailable");
	tap_ok(!cts_hw_dr6_fresh(), "no traps: no fresh DR6 either");
	return tap_done();
}
