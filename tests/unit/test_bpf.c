/* timeout: 60 */
/* tracer/bpf: the classic-BPF evaluator that runs a program's own seccomp
 * filters on the calls cts models (tracer/pfilter.h). Filters recorded from
 * libseccomp (its exported BPF, with argument comparisons split into 32-bit
 * halves) and written by hand (every ALU, jump, scratch and return form),
 * checked against a reference written from the rules, and against the
 * kernel itself: each filter, alone and stacked, installed in a forked
 * child that then makes the call, whose outcome (allowed, the errno, killed
 * by SIGSYS, the SIGSYS handler's si_errno) must be the evaluator's. The
 * checker (cts_bpf_check) must accept and refuse what the kernel does. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer/bpf.h"
#include "tests/unit/tap.h"

struct prog {
	struct sock_filter f[CTS_BPF_MAXINSNS];
	size_t n;
};

/* A libseccomp filter as the kernel gets it (seccomp_export_bpf). */
static int export(scmp_filter_ctx ctx, struct prog *p)
{
	int fd = memfd_create("bpf", 0);
	if (fd < 0 || seccomp_export_bpf(ctx, fd) != 0)
		return -1;
	off_t len = lseek(fd, 0, SEEK_END);
	if (len <= 0 || len % (off_t)sizeof(struct sock_filter) ||
	    len > (off_t)sizeof(p->f) || pread(fd, p->f, (size_t)len, 0) != len) {
		close(fd);
		return -1;
	}
	close(fd);
	p->n = (size_t)len / sizeof(struct sock_filter);
	return 0;
}

static struct seccomp_data data(int nr, uint64_t a0, uint64_t a1)
{
	return (struct seccomp_data){ .nr = nr, .arch = AUDIT_ARCH_X86_64,
				      .instruction_pointer = 0x401000, .args = { a0, a1 } };
}

/* ---- the kernel as the reference ------------------------------------------------ */

/* What the kernel did with syscall(nr, a0, a1) under filters ps[0..n)
 * (installed in that order): 'A' allowed, 'E' failed with *val = errno,
 * 'K' killed by SIGSYS, 'T' SIGSYS delivered with *val = si_errno, 'R' the
 * install was refused, '?' anything else. */
static volatile sig_atomic_t trap_errno = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	trap_errno = si->si_errno;
}

static char kernel(const struct prog *ps, int n, long nr, uint64_t a0, uint64_t a1, int *val)
{
	int fds[2];
	if (pipe(fds) != 0)
		return '?';
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
		sigaction(SIGSYS, &sa, NULL);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(3);
		for (int i = 0; i < n; i++) {
			struct sock_fprog fp = { (unsigned short)ps[i].n, (struct sock_filter *)ps[i].f };
			if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) != 0) {
				char c = 'R';
				if (write(fds[1], &c, 1) != 1)
					_exit(4);
				_exit(0);
			}
		}
		errno = 0;
		long r = syscall(nr, a0, a1);
		int e = errno;
		char out[8] = { 0 };
		if (trap_errno >= 0) {
			out[0] = 'T';
			memcpy(out + 1, (const void *)&trap_errno, sizeof(int));
		} else if (r == -1) {
			out[0] = 'E';
			memcpy(out + 1, &e, sizeof(int));
		} else {
			out[0] = 'A';
		}
		/* write(2) must stay allowed by every filter here */
		if (write(fds[1], out, sizeof(out)) != (ssize_t)sizeof(out))
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	char in[8] = { 0 };
	ssize_t got = pid > 0 ? read(fds[0], in, sizeof(in)) : -1;
	close(fds[0]);
	int st = 0;
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		return 'K';
	if (got >= 1 && (in[0] == 'E' || in[0] == 'T'))
		memcpy(val, in + 1, sizeof(int));
	return got >= 1 ? in[0] : '?';
}

/* The same outcome as predicted from the evaluator, the chain combined as
 * the kernel does (the newest filter first, the first of the lowest action
 * kept). */
static char predict(const struct prog *ps, int n, long nr, uint64_t a0, uint64_t a1, int *val)
{
	struct seccomp_data d = data((int)nr, a0, a1);
	uint32_t ret = SECCOMP_RET_ALLOW;
	for (int i = n - 1; i >= 0; i--) {
		uint32_t r = cts_bpf_run(ps[i].f, ps[i].n, &d);
		if (cts_bpf_action(r) < cts_bpf_action(ret))
			ret = r;
	}
	switch ((uint32_t)cts_bpf_action(ret)) {
	case SECCOMP_RET_ALLOW: case SECCOMP_RET_LOG:
		return 'A';
	case SECCOMP_RET_ERRNO:
		*val = (int)(ret & SECCOMP_RET_DATA);
		return 'E';
	case SECCOMP_RET_TRACE: /* no tracer */
		*val = ENOSYS;
		return 'E';
	case SECCOMP_RET_TRAP:
		*val = (int)(ret & SECCOMP_RET_DATA);
		return 'T';
	default:
		return 'K';
	}
}

static void against_kernel(const char *name, const struct prog *ps, int n, const long *nrs,
			   int nnr, const uint64_t *args, int nargs)
{
	int bad = 0, total = 0;
	for (int i = 0; i < nnr; i++)
		for (int a = 0; a < nargs; a++) {
			int kv = 0, pv = 0;
			char k = kernel(ps, n, nrs[i], args[a], args[nargs - 1 - a], &kv);
			char p = predict(ps, n, nrs[i], args[a], args[nargs - 1 - a], &pv);
			total++;
			if (k != p || ((k == 'E' || k == 'T') && kv != pv)) {
				if (bad++ < 3)
					tap_diag("  %s: call %ld (0x%llx, 0x%llx): kernel %c %d, "
						 "evaluator %c %d", name, nrs[i],
						 (unsigned long long)args[a],
						 (unsigned long long)args[nargs - 1 - a], k, kv, p, pv);
			}
		}
	tap_ok(bad == 0, "%s: the evaluator agrees with the kernel on %d calls", name, total);
}

/* ---- filters -------------------------------------------------------------------- */

/* Calls that succeed whatever their arguments (so a failure is the
 * filter's) and do the child no harm. */
static const long CALLS[] = { SYS_getppid, SYS_getpid, SYS_getuid, SYS_umask, SYS_getgid };
static const uint64_t ARGS[] = { 0, 1, 7, 0x22, 0xff, 0x100000000ull, 0xfffffffffffffff0ull,
				 0x8000000000000007ull };
#define NCALLS (int)(sizeof(CALLS) / sizeof(CALLS[0]))
#define NARGS (int)(sizeof(ARGS) / sizeof(ARGS[0]))

/* libseccomp: each kind of comparison, 64-bit ones included, and each
 * action, over a default that allows. */
static int recorded(struct prog *p)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc = -1;
	if (!ctx)
		return -1;
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(getppid), 1,
			     SCMP_A0(SCMP_CMP_EQ, 7)) == 0 &&
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(getppid), 1,
			     SCMP_A0(SCMP_CMP_GT, 0xff)) == 0 &&
	    seccomp_rule_add(ctx, SCMP_ACT_TRAP, SCMP_SYS(getpid), 1,
			     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, 7)) == 0 &&
	    seccomp_rule_add(ctx, SCMP_ACT_TRACE(3), SCMP_SYS(getuid), 1,
			     SCMP_A0(SCMP_CMP_LT, 1)) == 0 &&
	    seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(umask), 2,
			     SCMP_A0(SCMP_CMP_GE, 0x100000000ull),
			     SCMP_A1(SCMP_CMP_NE, 0)) == 0 &&
	    seccomp_rule_add(ctx, SCMP_ACT_LOG, SCMP_SYS(getgid), 0) == 0)
		rc = export(ctx, p);
	seccomp_release(ctx);
	return rc;
}

/* The same rules in C. */
static uint32_t reference(const struct seccomp_data *d)
{
	uint64_t a0 = d->args[0], a1 = d->args[1];
	if (d->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_THREAD; /* libseccomp's default for another arch */
	switch (d->nr) {
	case SYS_getppid:
		if (a0 == 7)
			return SECCOMP_RET_ERRNO | EPERM;
		if (a0 > 0xff)
			return SECCOMP_RET_ERRNO | EACCES;
		break;
	case SYS_getpid:
		if ((a1 & 0xf) == 7)
			return SECCOMP_RET_TRAP;
		break;
	case SYS_getuid:
		if (a0 < 1)
			return SECCOMP_RET_TRACE | 3;
		break;
	case SYS_umask:
		if (a0 >= 0x100000000ull && a1 != 0)
			return SECCOMP_RET_KILL_PROCESS;
		break;
	case SYS_getgid:
		return SECCOMP_RET_LOG;
	}
	return SECCOMP_RET_ALLOW;
}

/* By hand: the D13 filter, and one that works for its answer. */
static void kill_futex(struct prog *p)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	memcpy(p->f, f, sizeof(f));
	p->n = sizeof(f) / sizeof(f[0]);
}

/* getppid and getuid fail with an errno the program works out from a0
 * through every ALU form, X, the scratch words, every jump and RET A (the
 * same steps in C below); the rest is allowed. */
static void arith(struct prog *p)
{
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 2, 0),
		/* 2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getuid, 1, 0),
		/* 3 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		/* 5 */ BPF_STMT(BPF_ST, 3),
		/* 6 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
		/* 7 */ BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 3),
		/* 8 */ BPF_STMT(BPF_LDX | BPF_IMM, 5),
		/* 9 */ BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		/* 10 */ BPF_STMT(BPF_ALU | BPF_XOR | BPF_K, 2),
		/* 11 */ BPF_STMT(BPF_MISC | BPF_TAX, 0),
		/* 12 */ BPF_STMT(BPF_LD | BPF_MEM, 3),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 2, 0, 1),
		/* 14 */ BPF_STMT(BPF_ALU | BPF_NEG, 0),
		/* 15 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x30),
		/* 16 */ BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		/* 17 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 2, 0, 2),
		/* 18 */ BPF_STMT(BPF_ALU | BPF_SUB | BPF_K, 1),
		/* 19 */ BPF_STMT(BPF_JMP | BPF_JA, 0),
		/* 20 */ BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 4),
		/* 21 */ BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 4),
		/* 22 */ BPF_STMT(BPF_STX, 7),
		/* 23 */ BPF_STMT(BPF_LDX | BPF_MEM, 7),
		/* 24 */ BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 1),
		/* 25 */ BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0),
		/* 26 */ BPF_STMT(BPF_ALU | BPF_OR | BPF_X, 0),
		/* 27 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfff),
		/* 28 */ BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0, 1, 0),
		/* 29 */ BPF_STMT(BPF_LD | BPF_IMM, 1),
		/* 30 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 4096, 0, 1),
		/* 31 */ BPF_STMT(BPF_LD | BPF_IMM, 2),
		/* 32 */ BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
		/* 33 */ BPF_STMT(BPF_RET | BPF_A, 0),
	};
	memcpy(p->f, f, sizeof(f));
	p->n = sizeof(f) / sizeof(f[0]);
}

static uint32_t arith_ref(const struct seccomp_data *d)
{
	if (d->nr != SYS_getppid && d->nr != SYS_getuid)
		return SECCOMP_RET_ALLOW;
	uint32_t a0 = (uint32_t)d->args[0];
	uint32_t x = (((a0 & 0xff) * 3) + 5) ^ 2;
	uint32_t a = (a0 & 2) ? -a0 : a0;
	a = (a & 0x30) + x;
	if (a & 2)
		a -= 1;
	a = (a << 4) >> 4;
	a = (a - x) | x;
	a &= 0xfff;
	if (a == 0)
		a = 1;
	return SECCOMP_RET_ERRNO | a;
}

/* ---- the checker ---------------------------------------------------------------- */

struct bad_case {
	const char *what;
	struct sock_filter f[4];
	size_t n;
	bool valid;
};

static void checker(void)
{
	static const struct bad_case cases[] = {
		{ "a plain allow", { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) }, 1, true },
		{ "a byte load (not allowed in seccomp)",
		  { BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), BPF_STMT(BPF_RET | BPF_A, 0) }, 2, false },
		{ "an unaligned load", { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2),
					 BPF_STMT(BPF_RET | BPF_A, 0) }, 2, false },
		{ "a load past struct seccomp_data", { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64),
						       BPF_STMT(BPF_RET | BPF_A, 0) }, 2, false },
		{ "the last load of struct seccomp_data", { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 60),
							    BPF_STMT(BPF_RET | BPF_K, 0x7fff0000) },
		  2, true },
		{ "a jump past the end", { BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
					   BPF_STMT(BPF_RET | BPF_K, 0x7fff0000) }, 2, false },
		{ "a last instruction that is no return",
		  { BPF_STMT(BPF_RET | BPF_K, 0x7fff0000), BPF_STMT(BPF_LD | BPF_IMM, 1) }, 2, false },
		{ "a division by constant zero", { BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0),
						   BPF_STMT(BPF_RET | BPF_A, 0) }, 2, false },
		{ "a shift by 32", { BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32),
				     BPF_STMT(BPF_RET | BPF_A, 0) }, 2, false },
		{ "scratch read before any write", { BPF_STMT(BPF_LD | BPF_MEM, 1),
						     BPF_STMT(BPF_RET | BPF_A, 0) }, 2, false },
		{ "scratch word 16", { BPF_STMT(BPF_ST, 16), BPF_STMT(BPF_RET | BPF_A, 0) }, 2, false },
		{ "scratch written then read", { BPF_STMT(BPF_ST, 2), BPF_STMT(BPF_LDX | BPF_MEM, 2),
						 BPF_STMT(BPF_RET | BPF_K, 0x7fff0000) }, 3, true },
		{ "scratch written on one path only",
		  { BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1), BPF_STMT(BPF_ST, 2),
		    BPF_STMT(BPF_LD | BPF_MEM, 2), BPF_STMT(BPF_RET | BPF_A, 0) }, 4, false },
		{ "a modulo (not allowed in seccomp)", { BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3),
							  BPF_STMT(BPF_RET | BPF_A, 0) }, 2, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prog p;
		char err[160] = "";
		memcpy(p.f, cases[i].f, sizeof(cases[i].f));
		p.n = cases[i].n;
		int ours = cts_bpf_check(p.f, p.n, err, sizeof(err)) == 0;
		int v = 0;
		char k = kernel(&p, 1, SYS_getppid, 0, 0, &v);
		bool theirs = k != 'R';
		tap_ok(ours == cases[i].valid && theirs == cases[i].valid,
		       "checker: %s is %s (cts %s%s%s, kernel %s)", cases[i].what,
		       cases[i].valid ? "accepted" : "refused", ours ? "accepts" : "refuses",
		       ours ? "" : ": ", err, theirs ? "accepts" : "refuses");
	}
}

int main(void)
{
	static struct prog rec, kf, ar, two[2];
	char err[160];


	/* recorded from libseccomp, against the rules */
	int exported = recorded(&rec);
	if (!tap_ok(exported == 0, "libseccomp exports a filter (%zu instructions)", rec.n))
		return tap_done();
	tap_ok(cts_bpf_check(rec.f, rec.n, err, sizeof(err)) == 0, "the checker accepts it");
	int bad = 0, total = 0;
	for (int i = 0; i < NCALLS; i++)
		for (int a = 0; a < NARGS; a++)
			for (int b = 0; b < NARGS; b++) {
				struct seccomp_data d = data((int)CALLS[i], ARGS[a], ARGS[b]);
				total++;
				if (cts_bpf_run(rec.f, rec.n, &d) != reference(&d) && bad++ < 3)
					tap_diag("  call %ld (0x%llx, 0x%llx): 0x%x, want 0x%x", CALLS[i],
						 (unsigned long long)ARGS[a], (unsigned long long)ARGS[b],
						 cts_bpf_run(rec.f, rec.n, &d), reference(&d));
			}
	tap_ok(bad == 0, "libseccomp's filter: the evaluator returns what its rules say on %d "
	       "calls", total);
	struct seccomp_data i386 = data(SYS_getppid, 0, 0);
	i386.arch = AUDIT_ARCH_I386;
	tap_is_int(cts_bpf_run(rec.f, rec.n, &i386), reference(&i386),
		   "libseccomp's filter: another architecture gets its bad-arch action");

	/* by hand */
	kill_futex(&kf);
	struct seccomp_data fx = data(SYS_futex, 0x1000, 128), gp = data(SYS_getpid, 0, 0);
	tap_ok(cts_bpf_check(kf.f, kf.n, err, sizeof(err)) == 0 &&
	       cts_bpf_run(kf.f, kf.n, &fx) == SECCOMP_RET_KILL_PROCESS &&
	       cts_bpf_run(kf.f, kf.n, &gp) == SECCOMP_RET_ALLOW,
	       "the kill-on-futex filter: futex KILL_PROCESS, getpid ALLOW");
	arith(&ar);
	tap_ok(cts_bpf_check(ar.f, ar.n, err, sizeof(err)) == 0, "the arithmetic filter passes the "
	       "checker%s%s", cts_bpf_check(ar.f, ar.n, err, sizeof(err)) ? ": " : "",
	       cts_bpf_check(ar.f, ar.n, err, sizeof(err)) ? err : "");
	bad = 0;
	for (uint32_t a0 = 0; a0 < 600; a0++) {
		struct seccomp_data d = data(SYS_getuid, a0, 0);
		if (cts_bpf_run(ar.f, ar.n, &d) != arith_ref(&d) && bad++ < 3)
			tap_diag("  a0 %u: 0x%x, want 0x%x", a0, cts_bpf_run(ar.f, ar.n, &d),
				 arith_ref(&d));
	}
	tap_ok(bad == 0, "the arithmetic filter: every ALU, jump, scratch and return form as C "
	       "computes it (600 arguments)");
	struct sock_filter divx[] = {
		BPF_STMT(BPF_LDX | BPF_IMM, 0), BPF_STMT(BPF_LD | BPF_IMM, 9),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	tap_is_int(cts_bpf_run(divx, 4, &gp), 0, "a division by a zero X register returns 0 "
		   "(KILL_THREAD), as the kernel's translation does");

	/* actions and their order */
	tap_ok(cts_bpf_action(SECCOMP_RET_KILL_PROCESS) < cts_bpf_action(SECCOMP_RET_KILL_THREAD) &&
	       cts_bpf_action(SECCOMP_RET_KILL_THREAD) < cts_bpf_action(SECCOMP_RET_TRAP) &&
	       cts_bpf_action(SECCOMP_RET_TRAP) < cts_bpf_action(SECCOMP_RET_ERRNO | 5) &&
	       cts_bpf_action(SECCOMP_RET_ERRNO) < cts_bpf_action(SECCOMP_RET_USER_NOTIF) &&
	       cts_bpf_action(SECCOMP_RET_USER_NOTIF) < cts_bpf_action(SECCOMP_RET_TRACE) &&
	       cts_bpf_action(SECCOMP_RET_TRACE) < cts_bpf_action(SECCOMP_RET_LOG) &&
	       cts_bpf_action(SECCOMP_RET_LOG) < cts_bpf_action(SECCOMP_RET_ALLOW),
	       "actions order from KILL_PROCESS (most restrictive) to ALLOW");
	tap_ok(cts_bpf_action(0x00010000) == (int32_t)SECCOMP_RET_KILL_PROCESS &&
	       !strcmp(cts_bpf_action_name(0x00010000), "KILL_PROCESS"),
	       "an action the kernel does not know counts as KILL_PROCESS");

	/* against the kernel */
	against_kernel("libseccomp's filter", &rec, 1, CALLS, NCALLS, ARGS, NARGS);
	against_kernel("the arithmetic filter", &ar, 1, CALLS, NCALLS, ARGS, NARGS);
	two[0] = rec;
	two[1] = ar;
	against_kernel("both stacked", two, 2, CALLS, NCALLS, ARGS, NARGS);
	two[0] = ar;
	two[1] = rec;
	against_kernel("both stacked the other way", two, 2, CALLS, NCALLS, ARGS, NARGS);

	checker();
	return tap_done();
}
