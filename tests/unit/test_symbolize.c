/* timeout: 60 */
/* models/symbolize: a forked copy of this test stops itself three calls deep
 * (a raw tgkill(SIGSTOP) inside level3), and the parent symbolizes it.
 * Built with -g; the child sends the line of the stopping instruction down a pipe. */
#include "models/symbolize.h"
#include "tests/unit/tap.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sym_global = 1;
static volatile long sym_array[8] = { 1 };
static char sym_big[1 << 20];   /* mostly past the file-backed mapping */

/* The stop is a raw syscall so that the stopped pc lies in level3 itself. */
__attribute__((noipa)) static int level3(int fd, int x)
{
	long tgid = getpid(), tid = syscall(SYS_gettid), ret;
	enum { STOP_LINE = __LINE__ + 5 };

	/* Tell the parent where we stop (and that we got this far). */
	if (write(fd, &(int){ STOP_LINE }, sizeof(int)) != sizeof(int))
		_exit(1);
	__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_tgkill), "D"(tgid), "S"(tid), "d"((long)SIGSTOP) : "rcx", "r11", "memory");
	return x + (int)ret + sym_global;
}

enum { LEVEL2_CALL_LINE = __LINE__ + 1 };
__attribute__((noipa)) static int level2(int fd, int x) { return level3(fd, x + 1) * 2; }

enum { LEVEL1_CALL_LINE = __LINE__ + 1 };
__attribute__((noipa)) static int level1(int fd, int x) { return level2(fd, x + 1) * 3; }

/* Second stop, with a different stack over the same memory. */
__attribute__((noipa)) static int alt1(int fd) { return level3(fd, 5) * 7; }

__attribute__((noipa)) static void child_main(int fd)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
		_exit(2);
	sym_array[1] = level1(fd, 1);
	sym_big[sizeof sym_big - 1] = (char)alt1(fd);
	_exit(0);
}

static int contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

static int streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static void check_pc(struct cts_sym *s, pid_t pid, int line)
{
	struct user_regs_struct regs;
	struct cts_srcloc loc, again;
	char buf[512], exe[PATH_MAX] = "";

	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0) {
		tap_ok(0, "GETREGS");
		return;
	}
	errno = 0;
	long insn = ptrace(PTRACE_PEEKDATA, pid, (void *)(regs.rip - 2), NULL);
	tap_ok(!errno && (insn & 0xffff) == 0x050f, "child stopped just after its syscall instruction");

	tap_is_int(cts_sym_pc(s, regs.rip, &loc), 0, "pc is in a module");
	tap_ok(streq(loc.func, "level3"), "pc is in level3 (got %s+0x%llx)",
	       loc.func ? loc.func : "(null)", (unsigned long long)loc.func_off);
	tap_ok(loc.func_off > 0 && regs.rip - loc.func_off == (uintptr_t)level3,
	       "func_off is measured from level3's address");
	tap_ok(contains(loc.file, "test_symbolize.c"), "file is this test (%s)", loc.file ? loc.file : "(null)");
	tap_ok(loc.line >= line && loc.line <= line + 3, "line %d is at or just after %d", loc.line, line);
	readlink("/proc/self/exe", exe, sizeof exe - 1);
	tap_ok(streq(loc.module, exe), "module is the test binary (%s)", loc.module ? loc.module : "(null)");

	struct cts_srcloc sc;
	int r = cts_sym_pc(s, regs.rip - 2, &sc);
	tap_ok(r == 0 && sc.line == line && streq(sc.func, "level3"),
	       "the syscall instruction is on line %d (got %d)", line, sc.line);

	r = cts_sym_pc(s, regs.rip, &again);
	tap_ok(r == 0 && !memcmp(&loc, &again, sizeof loc),
	       "second lookup returns the same answer (same strings)");

	cts_sym_format(s, regs.rip, buf, sizeof buf);
	char want[64];
	snprintf(want, sizeof want, "level3+0x%llx (test_symbolize.c:%d)",
		 (unsigned long long)loc.func_off, loc.line);
	tap_ok(streq(buf, want), "format: %s", buf);

	const char *func_before = loc.func;
	tap_is_int(cts_sym_refresh(s), 0, "refresh");
	r = cts_sym_pc(s, regs.rip, &again);
	tap_ok(r == 0 && again.func == func_before &&
	       again.line == loc.line && !strcmp(func_before, "level3"),
	       "after refresh: same answer, earlier strings still valid");
}

static void check_stack(struct cts_sym *s, pid_t pid)
{
	uint64_t pcs[16];
	static const char *const want[] = { "level3", "level2", "level1", "child_main" };
	int n = cts_sym_stack(s, pid, pcs, 16);
	char buf[512];

	tap_ok(n >= 4, "unwound %d frames", n);
	for (int i = 0; i < n; i++)
		tap_diag("  #%d %s", i, cts_sym_format_frame(s, pcs[i], i > 0, buf, sizeof buf));
	for (int i = 0; i < 4; i++) {
		struct cts_srcloc loc = { 0 };
		uint64_t pc = i < n ? pcs[i] - (i > 0) : 0;
		cts_sym_pc(s, pc, &loc);
		tap_ok(streq(loc.func, want[i]), "frame %d is %s (got %s)", i, want[i],
		       loc.func ? loc.func : "(null)");
	}
	if (n < 3)
		return;
	struct cts_srcloc l2, l1;
	cts_sym_pc(s, pcs[1] - 1, &l2);
	cts_sym_pc(s, pcs[2] - 1, &l1);
	tap_is_int(l2.line, LEVEL2_CALL_LINE, "frame 1 line is level2's call");
	tap_is_int(l1.line, LEVEL1_CALL_LINE, "frame 2 line is level1's call");

	char want_fmt[64];
	snprintf(want_fmt, sizeof want_fmt, "level2+0x%llx (test_symbolize.c:%d)",
		 (unsigned long long)(pcs[1] - (uintptr_t)level2), LEVEL2_CALL_LINE);
	tap_ok(streq(cts_sym_format_frame(s, pcs[1], 1, buf, sizeof buf), want_fmt),
	       "caller frame format: %s", buf);

	uint64_t one;
	tap_is_int(cts_sym_stack(s, pid, &one, 1), 1, "max 1 gives just the innermost frame");
	tap_ok(one == pcs[0], "innermost frame is the same");
}

static void check_data(struct cts_sym *s)
{
	char buf[256];
	uint64_t addr = 0, size = 0;

	int r = cts_sym_data(s, (uintptr_t)&sym_global, buf, sizeof buf);
	tap_ok(r == 0 && streq(buf, "sym_global"), "data: &sym_global is %s", buf);
	buf[0] = 0;
	r = cts_sym_data(s, (uintptr_t)&sym_array[2], buf, sizeof buf);
	tap_ok(r == 0 && streq(buf, "sym_array+0x10"), "data: &sym_array[2] is %s", buf);
	r = cts_sym_data(s, (uintptr_t)&sym_big[600000], buf, sizeof buf);
	tap_ok(r == 0 && streq(buf, "sym_big+0x927c0"), "data: deep in a large .bss: %s", buf);
	int on_stack;
	tap_is_int(cts_sym_data(s, (uintptr_t)&on_stack, buf, sizeof buf), -1,
		   "data: a stack address has no symbol");

	r = cts_sym_lookup(s, "sym_array", &addr, &size);
	tap_ok(r == 0 && addr == (uintptr_t)sym_array && size == sizeof sym_array,
	       "lookup sym_array: 0x%llx size %llu", (unsigned long long)addr,
	       (unsigned long long)size);
	tap_ok(cts_sym_lookup(s, "level3", &addr, NULL) == 0 && addr == (uintptr_t)level3,
	       "lookup level3 gives the function's address");
	/* libc's own entries (a sanitizer runtime interposes malloc and pthread_mutex_lock). */
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	uintptr_t libc_malloc = libc ? (uintptr_t)dlsym(libc, "malloc") : 0;
	uintptr_t libc_lock = libc ? (uintptr_t)dlsym(libc, "pthread_mutex_lock") : 0;
	struct cts_srcloc loc;
	r = cts_sym_pc(s, libc_malloc, &loc);
	tap_ok(r == 0 && streq(loc.func, "malloc") && loc.func_off == 0,
	       "libc's malloc is named malloc among its aliases (got %s)",
	       loc.func ? loc.func : "(null)");
	r = cts_sym_pc(s, libc_lock + 1, &loc);
	tap_ok(r == 0 && streq(loc.func, "pthread_mutex_lock") && loc.func_off == 1,
	       "default-version alias wins, version suffix dropped (got %s)",
	       loc.func ? loc.func : "(null)");
	r = cts_sym_lookup(s, "pthread_cond_wait", &addr, NULL);
	tap_ok(r == 0 && addr == (uintptr_t)pthread_cond_wait,
	       "lookup picks the default version of pthread_cond_wait");
	errno = 0;
	tap_ok(cts_sym_lookup(s, "no_such_symbol_anywhere", &addr, &size) == -1 && errno == ENOENT,
	       "unknown name gives ENOENT");
	tap_ok(cts_sym_pc(s, 0x10, &loc) == -1 && loc.func == NULL &&
	       streq(cts_sym_format(s, 0x10, buf, sizeof buf), "0x10"),
	       "an unmapped pc is shown as a number");
}

int main(void)
{
	int fds[2], st, line = 0;

	if (pipe(fds) < 0)
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1]);
	}
	close(fds[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP ||
	    read(fds[0], &line, sizeof line) != sizeof line) {
		tap_ok(0, "child stops in level3 (status 0x%x)", st);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return tap_done();
	}
	struct cts_sym *s = cts_sym_new(pid);
	if (!tap_ok(s != NULL, "cts_sym_new")) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return tap_done();
	}
	check_pc(s, pid, line);
	check_stack(s, pid);
	check_data(s);

	/* The child runs on and stops again under alt1: nothing stale may remain. */
	uint64_t pcs[8];
	int n = 0;
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) == 0 && waitpid(pid, &st, 0) == pid &&
	    WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP)
		n = cts_sym_stack(s, pid, pcs, 8);
	struct cts_srcloc f0 = { 0 }, f1 = { 0 }, f2 = { 0 };
	if (n >= 3) {
		cts_sym_pc(s, pcs[0], &f0);
		cts_sym_pc(s, pcs[1] - 1, &f1);
		cts_sym_pc(s, pcs[2] - 1, &f2);
	}
	tap_ok(streq(f0.func, "level3") && streq(f1.func, "alt1") && streq(f2.func, "child_main"),
	       "second stop unwinds to level3 <- alt1 <- child_main (got %s <- %s <- %s)",
	       f0.func ? f0.func : "?", f1.func ? f1.func : "?", f2.func ? f2.func : "?");
	cts_sym_free(s);

	kill(pid, SIGKILL);
	tap_ok(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st), "child killed and reaped");
	errno = 0;
	tap_ok(cts_sym_new(pid) == NULL, "no handle for a reaped process");
	return tap_done();
}
