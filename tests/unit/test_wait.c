/* timeout: 60 */
/* tracer/wait: every event kind produced by real children forked from this
 * test and stopped under ptrace. Each wait is a blocking waitpid on the one
 * child expected to report, so nothing depends on timing; every child is
 * killed and reaped before the next test starts. */
#include <errno.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer/tracer_int.h"
#include "tracer/wait.h"
#include "tests/unit/tap.h"

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4
#endif

static pid_t KIDS[16];
static int NKIDS;

static void track(pid_t p)
{
	if (p > 0 && NKIDS < (int)(sizeof(KIDS) / sizeof(KIDS[0])))
		KIDS[NKIDS++] = p;
}

/* Kill everything this test started and reap every child and tracee. */
static void reap_all(void)
{
	int st;
	for (int i = 0; i < NKIDS; i++)
		kill(KIDS[i], SIGKILL);
	NKIDS = 0;
	while (waitpid(-1, &st, __WALL) > 0 || errno == EINTR)
		;
}

static pid_t fork_child(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p > 0)
		track(p);
	return p;
}

/* Waits for tid and decodes; on a waitpid failure the event says GONE. */
static void wait_ev(pid_t tid, struct cts_wait_event *ev)
{
	int st;
	pid_t r;
	do
		r = waitpid(tid, &st, __WALL);
	while (r < 0 && errno == EINTR);
	if (r != tid) {
		tap_diag("waitpid(%d): %s", (int)tid, strerror(errno));
		memset(ev, 0, sizeof(*ev));
		ev->kind = CTS_WEV_GONE;
		return;
	}
	cts_wait_decode(tid, st, ev);
}

static int is_kind(const struct cts_wait_event *ev, enum cts_wev k, const char *what)
{
	int ok = tap_ok(ev->kind == k, "%s: %s", what, cts_wev_name(k));
	if (!ok)
		tap_diag("  got %s (status 0x%x, sig %d)", cts_wev_name(ev->kind), ev->status, ev->sig);
	return ok;
}

/* Continues tid, passing on signal-delivery stops, until it exits; returns
 * the exit code, or -1 if it ended some other way. */
static int run_to_exit(pid_t tid)
{
	struct cts_wait_event ev = { 0 };
	int sig = 0;
	for (int i = 0; i < 100; i++) {
		if (ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig) != 0)
			return -1;
		wait_ev(tid, &ev);
		if (ev.kind == CTS_WEV_EXITED)
			return ev.code;
		if (ev.kind == CTS_WEV_KILLED || ev.kind == CTS_WEV_GONE)
			return -1;
		sig = ev.kind == CTS_WEV_SIGNAL ? ev.sig : 0;
	}
	return -1;
}

/* A child that asks to be traced and stops itself; the parent has it at
 * that first stop with `opts` set when this returns. */
static pid_t start_traced(void (*body)(void), long opts)
{
	pid_t p = fork_child();
	if (p == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
			_exit(100);
		raise(SIGSTOP);
		body();
		_exit(0);
	}
	if (p < 0)
		return -1;
	struct cts_wait_event ev = { 0 };
	wait_ev(p, &ev);
	if (ev.kind != CTS_WEV_SIGNAL || ev.sig != SIGSTOP) {
		tap_diag("child's first stop: %s", cts_wev_name(ev.kind));
		return -1;
	}
	if (opts && ptrace(PTRACE_SETOPTIONS, p, 0, (void *)opts) != 0) {
		tap_diag("PTRACE_SETOPTIONS: %s", strerror(errno));
		return -1;
	}
	return p;
}

static void no_leftovers(const char *what)
{
	int st;
	errno = 0;
	pid_t r = waitpid(-1, &st, __WALL | WNOHANG);
	tap_ok(r == -1 && errno == ECHILD, "%s: no child left behind", what);
}

/* ---- exit and kill: no ptrace at all ---- */

static void test_exited_killed(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = fork_child();
	if (p == 0)
		_exit(3);
	wait_ev(p, &ev);
	is_kind(&ev, CTS_WEV_EXITED, "child _exit(3)");
	tap_is_int(ev.code, 3, "  code 3");
	tap_is_int(ev.tid, p, "  tid is the child");
	tap_ok(WIFEXITED(ev.status) && WEXITSTATUS(ev.status) == 3, "  raw status kept");

	p = fork_child();
	if (p == 0) {
		for (;;)
			pause();
	}
	kill(p, SIGKILL);
	wait_ev(p, &ev);
	is_kind(&ev, CTS_WEV_KILLED, "child killed by SIGKILL");
	tap_is_int(ev.sig, SIGKILL, "  sig 9");
	reap_all();

	/* A status for a thread that no longer exists: GETSIGINFO fails with ESRCH. */
	cts_wait_decode(p, (SIGUSR1 << 8) | 0x7f, &ev);
	is_kind(&ev, CTS_WEV_GONE, "stop status of a reaped child");
}

/* ---- signals and traps ---- */

static void body_usr1(void)
{
	raise(SIGUSR1);
	_exit(5); /* reached only if the tracer suppressed SIGUSR1 */
}

static void test_signal(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_usr1, 0);
	tap_ok(p > 0, "traced child at its first stop (signal-delivery SIGSTOP)");
	if (p > 0) {
		tap_is_int(ptrace(PTRACE_CONT, p, 0, 0), 0, "continue");
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_SIGNAL, "child raises SIGUSR1");
		tap_is_int(ev.sig, SIGUSR1, "  sig SIGUSR1");
		tap_is_int(ev.info.si_signo, SIGUSR1, "  info.si_signo SIGUSR1");
		tap_is_int(ev.info.si_pid, p, "  info.si_pid is the child (raise)");
		tap_is_int(run_to_exit(p), 5, "suppressed signal: child goes on and exits 5");
	}
	reap_all();
}

extern const char wt_after_int3[], wt_after_nop[];

__attribute__((noinline, noipa)) static void body_int3(void)
{
	__asm__ volatile("int3\n\t"
			 ".globl wt_after_int3\nwt_after_int3:\n\t"
			 "nop\n\t"
			 ".globl wt_after_nop\nwt_after_nop:" ::: "memory");
	_exit(6);
}

static uint64_t rip_of(pid_t p)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, p, 0, &r) != 0)
		return 0;
	return r.rip;
}

static void test_breakpoint_singlestep(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_int3, 0);
	if (p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0) {
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_BREAKPOINT, "child executes int3");
		tap_is_int(ev.sig, SIGTRAP, "  sig SIGTRAP");
		tap_is_int(ev.info.si_code, SI_KERNEL, "  si_code SI_KERNEL");
		tap_ok(rip_of(p) == (uint64_t)(uintptr_t)wt_after_int3, "  pc just after the int3");

		tap_is_int(ptrace(PTRACE_SINGLESTEP, p, 0, 0), 0, "PTRACE_SINGLESTEP");
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_SINGLESTEP, "one instruction stepped");
		tap_is_int(ev.info.si_code, TRAP_TRACE, "  si_code TRAP_TRACE");
		tap_ok(rip_of(p) == (uint64_t)(uintptr_t)wt_after_nop, "  pc advanced past the nop");
		tap_is_int(run_to_exit(p), 6, "child exits 6");
	} else {
		tap_ok(0, "start int3 child");
	}
	reap_all();
}

static void body_step_syscall(void)
{
	long r;
	__asm__ volatile("int3\n\tsyscall" : "=a"(r) : "a"((long)SYS_getpid) : "rcx", "r11", "memory");
	_exit(r == getpid() ? 7 : 8);
}

/* A single step over a syscall instruction (a spin probe stepping a thread
 * that was in wait4) reports SIGTRAP with si_code TRAP_BRKPT, not
 * TRAP_TRACE: still a single step, never a crash. */
static void test_step_over_syscall(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_step_syscall, 0);
	if (p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0) {
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_BREAKPOINT, "child stops at its int3");
		tap_is_int(ptrace(PTRACE_SINGLESTEP, p, 0, 0), 0, "step the syscall instruction");
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_SINGLESTEP, "a step over a syscall is a single step");
		tap_is_int(ev.info.si_code, TRAP_BRKPT, "  si_code TRAP_BRKPT");
		tap_is_int(run_to_exit(p), 7, "child exits 7 (the syscall ran once)");
	} else {
		tap_ok(0, "start step-syscall child");
	}
	reap_all();
}

/* A signal stops a thread in the middle of a step over a displaced
 * instruction (the spin probe's SIGSTOP under load): resuming it must go on
 * stepping. Continued instead, it ran past the breakpoint left unplanted and
 * missed the calls after it (a false deadlock and false races in
 * deadlock_ok). The child here is stopped at its int3 with such a step due:
 * cts_tr_resume must stop it after one instruction, not let it exit. */
static void test_resume_mid_step(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_int3, 0);
	if (p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0) {
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_BREAKPOINT, "child stops at its int3");
		struct thread th;
		memset(&th, 0, sizeof(th));
		th.tid = p;
		th.stepping_bp = (uint64_t)(uintptr_t)wt_after_int3;
		tap_is_int(cts_tr_resume(NULL, &th, 0), 0, "resume a thread mid-step");
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_SINGLESTEP, "  it steps one instruction, not runs on");
		tap_is_int(run_to_exit(p), 6, "child exits 6");
	} else {
		tap_ok(0, "start int3 child");
	}
	reap_all();
}

static volatile uint32_t wt_watched __attribute__((aligned(8)));

static void body_watch(void)
{
	uint32_t v = wt_watched; /* a read does not trigger a write watch */
	wt_watched = v + 1;
	_exit(wt_watched == 1 ? 8 : 9);
}

static void tap_skip(const char *why)
{
	printf("ok %d # skip %s\n", ++tap_n, why);
	fflush(stdout);
}

static void test_watchpoint(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_watch, 0);
	/* DR0 = address, DR7: L0, RW0 = 01 (write), LEN0 = 11 (4 bytes). */
	unsigned long dr7 = 1ul | (1ul << 16) | (3ul << 18);
	int armed = p > 0 &&
		    ptrace(PTRACE_POKEUSER, p, offsetof(struct user, u_debugreg[0]),
			   (void *)(uintptr_t)&wt_watched) == 0 &&
		    ptrace(PTRACE_POKEUSER, p, offsetof(struct user, u_debugreg[7]), (void *)dr7) == 0;
	tap_ok(armed, "write watchpoint armed on the child");
	if (armed && ptrace(PTRACE_CONT, p, 0, 0) == 0) {
		wait_ev(p, &ev);
		if (ev.kind == CTS_WEV_EXITED && ev.code == 8) {
			/* Some VMs accept DR7 but never deliver the #DB. */
			tap_diag("hardware watchpoints do not trap here");
			tap_skip("debug registers do not trap on this kernel/VM");
			tap_skip("debug registers do not trap on this kernel/VM");
			tap_skip("debug registers do not trap on this kernel/VM");
		} else {
			is_kind(&ev, CTS_WEV_WATCHPOINT, "child writes the watched word");
			tap_is_int(ev.info.si_code, TRAP_HWBKPT, "  si_code TRAP_HWBKPT");
			ptrace(PTRACE_POKEUSER, p, offsetof(struct user, u_debugreg[7]), 0);
			tap_is_int(run_to_exit(p), 8, "child exits 8 (the store happened once)");
		}
	}
	reap_all();
}

static void body_sigtrap(void)
{
	raise(SIGTRAP);
	raise(SIGTRAP);
	_exit(13);
}

/* The SIGTRAP kinds are told apart by si_code alone: a SIGTRAP sent by a
 * process is a plain signal, and the same stop with the siginfo a debug
 * exception carries (rewritten with PTRACE_SETSIGINFO) is a watchpoint.
 * This checks the classification even where the hardware does not trap. */
static void test_sigtrap_codes(void)
{
	struct cts_wait_event ev = { 0 };
	int st = 0;
	pid_t p = start_traced(body_sigtrap, 0);
	if (!(p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0 && waitpid(p, &st, __WALL) == p)) {
		tap_ok(0, "start SIGTRAP child");
		reap_all();
		return;
	}
	cts_wait_decode(p, st, &ev);
	is_kind(&ev, CTS_WEV_SIGNAL, "raise(SIGTRAP) is a signal, not a breakpoint");
	tap_is_int(ev.info.si_code, SI_TKILL, "  si_code SI_TKILL");
	siginfo_t si = ev.info;
	si.si_code = TRAP_HWBKPT;
	tap_is_int(ptrace(PTRACE_SETSIGINFO, p, 0, &si), 0, "rewrite its siginfo as a debug trap");
	cts_wait_decode(p, st, &ev);
	is_kind(&ev, CTS_WEV_WATCHPOINT, "same stop with si_code TRAP_HWBKPT");
	si.si_code = TRAP_TRACE;
	ptrace(PTRACE_SETSIGINFO, p, 0, &si);
	cts_wait_decode(p, st, &ev);
	is_kind(&ev, CTS_WEV_SINGLESTEP, "same stop with si_code TRAP_TRACE");
	si.si_code = SI_KERNEL;
	ptrace(PTRACE_SETSIGINFO, p, 0, &si);
	cts_wait_decode(p, st, &ev);
	is_kind(&ev, CTS_WEV_BREAKPOINT, "same stop with si_code SI_KERNEL");
	ptrace(PTRACE_CONT, p, 0, 0);
	wait_ev(p, &ev);
	is_kind(&ev, CTS_WEV_SIGNAL, "first SIGTRAP suppressed, second one stops");
	tap_is_int(run_to_exit(p), 13, "second suppressed too, child exits 13");
	reap_all();
}

/* ---- syscall and seccomp stops ---- */

static void body_getppid(void)
{
	_exit(syscall(SYS_getppid) == getppid() ? 10 : 11);
}

static void test_syscall(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_getppid, PTRACE_O_TRACESYSGOOD);
	int all_syscall = 1, found = 0, stops = 0;
	/* raise() may still make a syscall or two before the getppid. */
	while (p > 0 && stops < 40 && found < 2) {
		if (ptrace(PTRACE_SYSCALL, p, 0, 0) != 0)
			break;
		wait_ev(p, &ev);
		stops++;
		if (ev.kind != CTS_WEV_SYSCALL) {
			tap_diag("stop %d: %s", stops, cts_wev_name(ev.kind));
			all_syscall = 0;
			break;
		}
		struct user_regs_struct r;
		if (ptrace(PTRACE_GETREGS, p, 0, &r) == 0 && r.orig_rax == SYS_getppid)
			found++;
	}
	tap_ok(p > 0 && stops > 0 && all_syscall, "PTRACE_SYSCALL + TRACESYSGOOD stops decode as syscall");
	tap_is_int(found, 2, "getppid seen at entry and exit");
	tap_is_int(ev.sig, SIGTRAP | 0x80, "  sig is SIGTRAP|0x80");
	if (p > 0)
		tap_is_int(run_to_exit(p), 10, "child exits 10");
	reap_all();
}

#define SECCOMP_DATA 42

static void body_seccomp(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_TRACE(SECCOMP_DATA), SCMP_SYS(getppid), 0) ||
	    seccomp_load(ctx))
		_exit(12);
	seccomp_release(ctx);
	raise(SIGSTOP); /* the tracer sets PTRACE_O_TRACESECCOMP here */
	body_getppid();
}

static void test_seccomp(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_seccomp, 0);
	if (p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0) {
		wait_ev(p, &ev);
		int at_stop = ev.kind == CTS_WEV_SIGNAL && ev.sig == SIGSTOP;
		tap_ok(at_stop, "filter loaded, child stopped");
		if (!at_stop)
			tap_diag("  got %s code %d", cts_wev_name(ev.kind), ev.code);
		if (at_stop &&
		    ptrace(PTRACE_SETOPTIONS, p, 0, (void *)(long)PTRACE_O_TRACESECCOMP) == 0 &&
		    ptrace(PTRACE_CONT, p, 0, 0) == 0) {
			wait_ev(p, &ev);
			is_kind(&ev, CTS_WEV_SECCOMP, "SCMP_ACT_TRACE rule on getppid");
			/* cts's rules all carry 0: the decode does not ask (one
			 * ptrace call a filtered syscall); the data is there. */
			unsigned long data = 0;
			tap_ok(ev.msg == 0 && ptrace(PTRACE_GETEVENTMSG, p, 0, &data) == 0 &&
			       data == SECCOMP_DATA,
			       "  msg not read by the decode; PTRACE_GETEVENTMSG has the rule's data");
			struct user_regs_struct r;
			tap_ok(ptrace(PTRACE_GETREGS, p, 0, &r) == 0 && r.orig_rax == SYS_getppid,
			       "  stopped at getppid entry");
			tap_is_int(run_to_exit(p), 10, "the syscall then runs normally (child exits 10)");
		}
	} else {
		tap_ok(0, "start seccomp child");
	}
	reap_all();
}

/* ---- clone, fork, exec, exit events ---- */

static void *thread_fn(void *arg)
{
	return arg;
}

static void body_thread(void)
{
	pthread_t t;
	void *ret = NULL;
	if (pthread_create(&t, NULL, thread_fn, (void *)7) != 0)
		_exit(20);
	if (pthread_join(t, &ret) != 0 || ret != (void *)7)
		_exit(21);
	_exit(22);
}

static void test_clone(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_thread, PTRACE_O_TRACECLONE);
	if (!(p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0)) {
		tap_ok(0, "start thread child");
		reap_all();
		return;
	}
	wait_ev(p, &ev);
	is_kind(&ev, CTS_WEV_CLONE, "pthread_create under TRACECLONE");
	tap_is_int(ev.tid, p, "  reported by the creating thread");
	pid_t t = (pid_t)ev.msg;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)p, (int)t);
	tap_ok(t > 0 && t != p && access(path, F_OK) == 0, "  msg %d is a new thread of the child", (int)t);
	if (t > 0 && t != p) {
		wait_ev(t, &ev);
		is_kind(&ev, CTS_WEV_SIGNAL, "new thread's first stop");
		tap_is_int(ev.sig, SIGSTOP, "  SIGSTOP");
		tap_is_int(ev.tid, t, "  on the new thread");
		tap_is_int(run_to_exit(t), 0, "new thread runs and exits");
	}
	tap_is_int(run_to_exit(p), 22, "creator joins it and exits 22");
	reap_all();
}

static void body_fork(void)
{
	pid_t g = fork();
	if (g == 0)
		_exit(4);
	int st;
	if (g < 0 || waitpid(g, &st, 0) != g)
		_exit(30);
	_exit(WIFEXITED(st) && WEXITSTATUS(st) == 4 ? 31 : 32);
}

static void test_fork(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_fork, PTRACE_O_TRACEFORK);
	if (!(p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0)) {
		tap_ok(0, "start fork child");
		reap_all();
		return;
	}
	wait_ev(p, &ev);
	is_kind(&ev, CTS_WEV_FORK, "fork under TRACEFORK");
	pid_t g = (pid_t)ev.msg;
	track(g);
	tap_ok(g > 0 && g != p, "  msg is the new process %d", (int)g);
	if (g > 0 && g != p) {
		wait_ev(g, &ev);
		is_kind(&ev, CTS_WEV_SIGNAL, "new process's first stop");
		tap_is_int(ev.sig, SIGSTOP, "  SIGSTOP");
		tap_is_int(run_to_exit(g), 4, "new process exits 4");
	}
	tap_is_int(run_to_exit(p), 31, "parent reaps it and exits 31");
	reap_all();
}

static void body_exec(void)
{
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

static void test_exec(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_exec, PTRACE_O_TRACEEXEC);
	if (p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0) {
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_EXEC, "execl(/bin/true) under TRACEEXEC");
		tap_is_int(ev.msg, p, "  msg is the former thread id");
		tap_is_int(run_to_exit(p), 0, "/bin/true exits 0");
	} else {
		tap_ok(0, "start exec child");
	}
	reap_all();
}

static void body_exit7(void)
{
	_exit(7);
}

static void test_exit_event(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_exit7, PTRACE_O_TRACEEXIT);
	if (p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0) {
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_EXIT, "_exit(7) under TRACEEXIT");
		tap_ok(WIFEXITED((int)ev.msg) && WEXITSTATUS((int)ev.msg) == 7,
		       "  msg is the coming status (exit 7): 0x%lx", ev.msg);
		tap_is_int(ptrace(PTRACE_CONT, p, 0, 0), 0, "continue from the exit stop");
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_EXITED, "then the exit itself");
		tap_is_int(ev.code, 7, "  code 7");
	} else {
		tap_ok(0, "start exit child");
	}
	reap_all();
}

/* ---- group-stops ---- */

static void body_pause(void)
{
	for (;;)
		pause();
}

static void test_group_stop(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = start_traced(body_pause, 0);
	if (!(p > 0 && ptrace(PTRACE_CONT, p, 0, 0) == 0)) {
		tap_ok(0, "start pausing child");
		reap_all();
		return;
	}
	kill(p, SIGSTOP);
	wait_ev(p, &ev);
	is_kind(&ev, CTS_WEV_SIGNAL, "kill(SIGSTOP): signal-delivery stop first");
	tap_is_int(ev.sig, SIGSTOP, "  sig SIGSTOP");
	tap_is_int(ev.info.si_signo, SIGSTOP, "  info.si_signo SIGSTOP");
	tap_is_int(ev.info.si_code, SI_USER, "  info.si_code SI_USER");
	tap_is_int(ev.info.si_pid, getpid(), "  sent by this process");
	tap_is_int(ptrace(PTRACE_CONT, p, 0, (void *)(long)SIGSTOP), 0, "deliver the SIGSTOP");
	wait_ev(p, &ev);
	is_kind(&ev, CTS_WEV_GROUP_STOP, "then the group-stop");
	tap_is_int(ev.sig, SIGSTOP, "  sig SIGSTOP");
	kill(p, SIGKILL);
	wait_ev(p, &ev);
	is_kind(&ev, CTS_WEV_KILLED, "group-stopped tracee killed");
	reap_all();
}

/* PTRACE_SEIZE: an interrupt gives PTRACE_EVENT_STOP with SIGTRAP; a
 * group-stop comes as PTRACE_EVENT_STOP with the stop signal, which is a
 * group-stop (STYLE.md item 1, as strace decides it). */
static void test_seize(void)
{
	struct cts_wait_event ev = { 0 };
	pid_t p = fork_child();
	if (p == 0)
		body_pause();
	int ok = p > 0 && ptrace(PTRACE_SEIZE, p, 0, 0) == 0 && ptrace(PTRACE_INTERRUPT, p, 0, 0) == 0;
	tap_ok(ok, "PTRACE_SEIZE + PTRACE_INTERRUPT");
	if (ok) {
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_STOP, "interrupt stop");
		tap_is_int(ev.sig, SIGTRAP, "  sig SIGTRAP");
		tap_is_int((unsigned)ev.status >> 16, PTRACE_EVENT_STOP, "  status has PTRACE_EVENT_STOP");
		kill(p, SIGSTOP);
		ptrace(PTRACE_CONT, p, 0, 0);
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_SIGNAL, "seized: kill(SIGSTOP) signal-delivery stop");
		ptrace(PTRACE_CONT, p, 0, (void *)(long)SIGSTOP);
		wait_ev(p, &ev);
		is_kind(&ev, CTS_WEV_GROUP_STOP, "seized: group-stop (PTRACE_EVENT_STOP + SIGSTOP)");
		tap_is_int(ev.sig, SIGSTOP, "  sig SIGSTOP");
	}
	reap_all();
}

static void test_names(void)
{
	tap_ok(strcmp(cts_wev_name(CTS_WEV_EXITED), "exited") == 0 &&
	       strcmp(cts_wev_name(CTS_WEV_GROUP_STOP), "group-stop") == 0 &&
	       strcmp(cts_wev_name(CTS_WEV_GONE), "gone") == 0, "names of kinds");
	int distinct = 1;
	for (int a = CTS_WEV_EXITED; a <= CTS_WEV_GONE; a++)
		for (int b = a + 1; b <= CTS_WEV_GONE; b++)
			if (strcmp(cts_wev_name(a), cts_wev_name(b)) == 0 ||
			    strcmp(cts_wev_name(a), "?") == 0)
				distinct = 0;
	tap_ok(distinct, "every kind has its own name");
	tap_ok(strcmp(cts_wev_name((enum cts_wev)99), "?") == 0, "out of range -> '?'");
}

int main(void)
{
	test_exited_killed();
	test_signal();
	test_breakpoint_singlestep();
	test_step_over_syscall();
	test_resume_mid_step();
	test_watchpoint();
	test_sigtrap_codes();
	test_syscall();
	test_seccomp();
	test_clone();
	test_fork();
	test_exec();
	test_exit_event();
	test_group_stop();
	test_seize();
	test_names();
	no_leftovers("all tests");
	return tap_done();
}
