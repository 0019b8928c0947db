/* timeout: 60 */
/* hw/pkey on a real traced child, where the machine has protection keys:
 * the premises break mode on memory ownership stands on (docs/design.md).
 * A PKRU written through ptrace is the thread's; a denied read faults with
 * SEGV_PKUERR and the page's key, seen by the tracer before the program;
 * /proc/PID/mem reads and writes the denied page; the thread's own system
 * call on it fails with EFAULT (so cts must open the page around such
 * calls); re-allowed and with the signal suppressed, the access runs again
 * and the program never knows. Elsewhere: "skipped: <reason>". */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/pkey.h"
#include "tests/unit/tap.h"


struct hello {
	uint64_t page;
	int key;
};

static void child(int out)
{
	int self[2];
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0 || pipe(self) != 0)
		_exit(100);
	int key = (int)syscall(SYS_pkey_alloc, 0, 0);
	char *pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (key < 0 || pg == MAP_FAILED)
		_exit(101);
	pg[0] = 42;
	if (syscall(SYS_pkey_mprotect, pg, 4096, PROT_READ | PROT_WRITE, key) != 0)
		_exit(102);
	struct hello h = { (uint64_t)(uintptr_t)pg, key };
	if (write(out, &h, sizeof(h)) != (ssize_t)sizeof(h))
		_exit(103);
	raise(SIGSTOP); /* the tracer denies the key here */
	ssize_t w = write(self[1], pg, 1);
	int efault = w < 0 && errno == EFAULT;
	char v = *(volatile char *)pg; /* faults; the tracer lets it through */
	_exit((efault ? 1 : 0) | (v == 43 ? 2 : 0));
}

int main(void)
{
	const char *why;
	if (!cts_pkey_available(&why)) {
		printf("1..0 # SKIP skipped: %s\n", why);
		return 0;
	}
	int fds[2];
	if (pipe(fds) != 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(fds[1]);
	}
	close(fds[1]);
	int st;
	struct hello h = { 0, -1 };
	bool stopped = waitpid(pid, &st, 0) == pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP;
	stopped &= read(fds[0], &h, sizeof(h)) == (ssize_t)sizeof(h);
	tap_ok(stopped && h.key > 0, "the child stopped with a page of key %d", h.key);

	uint32_t pkru = 0xffffffff, back = 0;
	bool got = cts_pkey_get(pid, &pkru) == 0;
	tap_ok(got && !(pkru & (3u << (2 * h.key))), "its PKRU read through ptrace allows its key (0x%x)",
	       pkru);
	uint32_t denied = cts_pkru_deny(pkru, h.key);
	got = cts_pkey_set(pid, denied) == 0 && cts_pkey_get(pid, &back) == 0;
	tap_ok(got && back == denied, "a PKRU written through ptrace reads back (0x%x)", back);

	ptrace(PTRACE_CONT, pid, 0, 0);
	siginfo_t si = { 0 };
	bool segv = waitpid(pid, &st, 0) == pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSEGV &&
		    ptrace(PTRACE_GETSIGINFO, pid, 0, &si) == 0;
	tap_ok(segv, "the denied read stops the child with SIGSEGV before delivery");
	tap_ok(si.si_code == CTS_SEGV_PKUERR && (uint64_t)(uintptr_t)si.si_addr == h.page,
	       "si_code SEGV_PKUERR (%d) at the page's address", si.si_code);
	tap_is_int(si.si_pkey, h.key, "si_pkey names the page's key");

	char path[64], v = 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int mem = open(path, O_RDWR);
	bool io = mem >= 0 && pread(mem, &v, 1, (off_t)h.page) == 1;
	tap_ok(io && v == 42, "/proc/PID/mem reads the denied page (%d)", v);
	v = 43;
	tap_ok(mem >= 0 && pwrite(mem, &v, 1, (off_t)h.page) == 1, "...and writes it");
	if (mem >= 0)
		close(mem);

	cts_pkey_set(pid, pkru);
	ptrace(PTRACE_CONT, pid, 0, 0); /* the signal suppressed: the read runs again */
	bool exited = waitpid(pid, &st, 0) == pid && WIFEXITED(st);
	tap_ok(exited && (WEXITSTATUS(st) & 2),
	       "re-allowed, the read runs again and sees the tracer's write (exit %d)",
	       exited ? WEXITSTATUS(st) : -1);
	tap_ok(exited && (WEXITSTATUS(st) & 1),
	       "the thread's own write(2) from the denied page failed with EFAULT");
	if (!exited)
		kill(pid, SIGKILL);
	return tap_done();
}
