/* What the program would see natively (native.h): the caller's state saved
 * at start-up, put back at exec, and the calls that would show the tracer's
 * changes answered from it. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "models/error.h"
#include "tracer/native.h"
#include "tracer/proc.h"

/* The kernel's cpumask is at most NR_CPUS = 8192 bits. */
#define KMASK_MAX 1024
#define PERSONA_QUERY 0xffffffffu

static bool saved;
static cpu_set_t native_cpus;
static uint64_t native_sigmask; /* the kernel's sigset: bit n-1 is signal n */
static sigset_t native_ignored;
static int native_persona;

void cts_native_save(void)
{
	if (saved)
		return;
	saved = true;
	if (sched_getaffinity(0, sizeof(native_cpus), &native_cpus) != 0)
		CPU_ZERO(&native_cpus);
	/* Raw: glibc's sigprocmask hides its own signals (32, 33). */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &native_sigmask, sizeof(native_sigmask));
	sigemptyset(&native_ignored);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old;
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			sigaddset(&native_ignored, sig);
	}
	native_persona = personality(PERSONA_QUERY);
	if (native_persona == -1)
		native_persona = 0;
}

const cpu_set_t *cts_native_cpus(void)
{
	cts_native_save();
	return &native_cpus;
}

/* Handlers are reset by exec anyway; what the tracer's own handlers replaced
 * is an ignored signal (SIGALRM, --jobs' SIGUSR1), which would stay ignored. */
int cts_native_exec_prepare(void)
{
	struct sigaction ign;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&native_ignored, sig))
			sigaction(sig, &ign, NULL);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &native_sigmask, NULL, sizeof(native_sigmask));
	return personality((unsigned long)native_persona | ADDR_NO_RANDOMIZE) == -1 ? -1 : 0;
}

const char *cts_native_fd_kind(int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return "closed";
	if (isatty(fd))
		return "tty";
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return "pipe";
	if (S_ISREG(st.st_mode))
		return "file";
	if (S_ISCHR(st.st_mode))
		return st.st_rdev == makedev(1, 3) ? "null" : "char";
	return "other";
}

/* null and file: seekable, not a terminal */
static bool seekable_kind(const char *k)
{
	return strcmp(k, "null") == 0 || strcmp(k, "file") == 0;
}

bool cts_native_kinds_alike(const char *a, const char *b)
{
	return strcmp(a, b) == 0 || (seekable_kind(a) && seekable_kind(b));
}

int cts_native_seccomp_rules(void *scmp_ctx)
{
	static const int calls[] = { SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_setaffinity),
				     SCMP_SYS(personality) };
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), calls[i], 0) != 0)
			return -1;
	return 0;
}

/* ---- per-thread views -------------------------------------------------------- */

struct view_entry {
	pid_t tid;
	bool has_mask;      /* it set its affinity: mask is what the kernel made of it */
	bool own_persona;   /* it set its personality: queries are the kernel's */
	cpu_set_t mask;
};

struct cts_view {
	struct view_entry *e;
	size_t n, cap;
	long ksize;         /* the kernel's cpumask size in bytes */
};

struct cts_view *cts_view_new(void)
{
	struct cts_view *v = cts_xcalloc(1, sizeof(*v));
	uint8_t buf[KMASK_MAX];
	v->ksize = syscall(SYS_sched_getaffinity, 0, sizeof(buf), buf);
	if (v->ksize <= 0)
		v->ksize = sizeof(cpu_set_t);
	return v;
}

void cts_view_free(struct cts_view *v)
{
	if (!v)
		return;
	free(v->e);
	free(v);
}

static struct view_entry *find(struct cts_view *v, pid_t tid)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->e[i].tid == tid)
			return &v->e[i];
	return NULL;
}

static struct view_entry *get(struct cts_view *v, pid_t tid)
{
	struct view_entry *e = find(v, tid);
	if (e)
		return e;
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 8;
		v->e = cts_xrealloc(v->e, v->cap * sizeof(*v->e));
	}
	e = &v->e[v->n++];
	memset(e, 0, sizeof(*e));
	e->tid = tid;
	return e;
}

void cts_view_forget(struct cts_view *v, pid_t tid)
{
	struct view_entry *e = find(v, tid);
	if (e)
		*e = v->e[--v->n];
}

void cts_view_inherit(struct cts_view *v, pid_t parent, pid_t child)
{
	struct view_entry *p = find(v, parent);
	if (!p) {
		cts_view_forget(v, child); /* a stale entry of a reused tid */
		return;
	}
	struct view_entry copy = *p;
	copy.tid = child;
	*get(v, child) = copy;
}

/* The thread a pid argument names, if it is one of the tracer's (the
 * program's threads and the processes it forked): 0 if not, and the call is
 * the kernel's. */
static pid_t target_of(pid_t caller, long arg)
{
	pid_t pid = (pid_t)arg;
	if (pid == 0 || pid == caller)
		return caller;
	if (pid < 0)
		return 0; /* the kernel's ESRCH (EINVAL) */
	return cts_proc_status_field(pid, "TracerPid", NULL, 0) == getpid() ? pid : 0;
}

/* sched_getaffinity(pid, len, mask): the kernel checks len (the tracer's
 * own call with the same len gives the same EINVAL or the size it copies);
 * the bytes are the target's view, written into the caller's buffer. */
static long getaffinity(struct cts_view *v, pid_t caller, pid_t target,
			const struct user_regs_struct *regs)
{
	unsigned int len = (unsigned int)regs->rsi;
	uint8_t probe[KMASK_MAX + 8], bytes[KMASK_MAX];
	/* A longer len copies ksize bytes: keep its alignment, the only check. */
	unsigned int plen = len > KMASK_MAX ? KMASK_MAX + (len & 7) : len;
	long n = syscall(SYS_sched_getaffinity, 0, plen, probe);
	if (n < 0)
		return -errno;
	struct view_entry *e = find(v, target);
	const cpu_set_t *mask = e && e->has_mask ? &e->mask : &native_cpus;
	memset(bytes, 0, sizeof(bytes));
	memcpy(bytes, mask, sizeof(*mask) < (size_t)n ? sizeof(*mask) : (size_t)n);
	if (n && cts_mem_write_data(caller, regs->rdx, bytes, (size_t)n) != 0)
		return -EFAULT;
	return n;
}

/* sched_setaffinity(pid, len, mask): the kernel validates it by doing it
 * (on the stopped target, from here: EINVAL for a mask without an allowed
 * CPU, EPERM, ...); what it made of the mask is recorded, and the target
 * goes back to the tracer's CPU. */
static long setaffinity(struct cts_view *v, pid_t caller, pid_t target,
			const struct user_regs_struct *regs)
{
	unsigned int len = (unsigned int)regs->rsi;
	uint8_t bytes[KMASK_MAX];
	size_t n = len < (unsigned long)v->ksize ? len : (size_t)v->ksize;
	memset(bytes, 0, sizeof(bytes));
	if (n && cts_mem_read(caller, regs->rdx, bytes, n) != 0)
		return -EFAULT;
	cpu_set_t pin, now;
	if (sched_getaffinity(0, sizeof(pin), &pin) != 0)
		return -errno;
	if (syscall(SYS_sched_setaffinity, target, (size_t)v->ksize, bytes) != 0)
		return -errno;
	int rc = sched_getaffinity(target, sizeof(now), &now);
	sched_setaffinity(target, sizeof(pin), &pin);
	if (rc != 0)
		return -errno;
	struct view_entry *e = get(v, target);
	e->has_mask = true;
	e->mask = now;
	return 0;
}

/* personality(0xffffffff) is a query: the kernel's answer without the
 * ADDR_NO_RANDOMIZE the launch added, until the program sets a personality
 * of its own (then everything is the kernel's: a program that re-execs
 * itself with ADDR_NO_RANDOMIZE must see it set). */
static bool persona(struct cts_view *v, pid_t caller, const struct user_regs_struct *regs, long *ret)
{
	struct view_entry *e = find(v, caller);
	if ((unsigned int)regs->rdi != PERSONA_QUERY) {
		get(v, caller)->own_persona = true;
		return false;
	}
	if (e && e->own_persona)
		return false;
	char path[64], buf[32];
	snprintf(path, sizeof(path), "/proc/%d/personality", caller);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = 0;
	unsigned long p = strtoul(buf, NULL, 16);
	*ret = (long)((p & ~(unsigned long)ADDR_NO_RANDOMIZE) |
		      ((unsigned long)native_persona & ADDR_NO_RANDOMIZE));
	return true;
}

bool cts_view_call(struct cts_view *v, pid_t tid, const struct user_regs_struct *regs, long *ret)
{
	pid_t target;
	switch ((long)regs->orig_rax) {
	case SYS_sched_getaffinity:
		if (!(target = target_of(tid, (long)regs->rdi)))
			return false;
		*ret = getaffinity(v, tid, target, regs);
		return true;
	case SYS_sched_setaffinity:
		if (!(target = target_of(tid, (long)regs->rdi)))
			return false;
		*ret = setaffinity(v, tid, target, regs);
		return true;
	case SYS_personality:
		return persona(v, tid, regs, ret);
	default:
		return false;
	}
}

void cts_view_free_call(struct cts_view *v, pid_t tid)
{
	struct user_regs_struct regs;
	long ret;
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) != 0 || !cts_view_call(v, tid, &regs, &ret))
		return;
	regs.orig_rax = (unsigned long long)-1;
	regs.rax = (unsigned long long)ret;
	ptrace(PTRACE_SETREGS, tid, 0, &regs);
}
