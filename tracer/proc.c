#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <elf.h>
#include <unistd.h>
#include "models/error.h"
#include "tracer/proc.h"


/* Probed once: -1 unknown, 0 missing, 1 works. */
static int have_vm_readv = -1;

static int peek_read(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	unsigned char *out = buf;
	uint64_t start = addr & ~7ull;
	for (uint64_t a = start; a < addr + len; a += 8) {
		errno = 0; /* PEEKDATA's -1 can be real data */
		long w = ptrace(PTRACE_PEEKDATA, tid, (void *)a, 0);
		if (errno)
			return -1;
		for (int i = 0; i < 8; i++) {
			uint64_t b = a + (uint64_t)i;
			if (b >= addr && b < addr + len)
				out[b - addr] = (unsigned char)((unsigned long)w >> (8 * i));
		}
	}
	return 0;
}

int cts_mem_read(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	if (have_vm_readv != 0) {
		struct iovec local = { buf, len }, remote = { (void *)addr, len };
		ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n == (ssize_t)len) {
			have_vm_readv = 1;
			return 0;
		}
		if (n < 0 && errno == ENOSYS)
			have_vm_readv = 0;
		else if (n < 0 && errno == ESRCH)
			return -1;
	}
	return peek_read(tid, addr, buf, len);
}

int cts_mem_pwrite(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = pwrite(fd, buf, len, (off_t)addr);
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)len ? 0 : -1;
}

int cts_mem_write(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	const unsigned char *in = buf;
	uint64_t start = addr & ~7ull;
	for (uint64_t a = start; a < addr + len; a += 8) {
		unsigned long w;
		bool partial = a < addr || a + 8 > addr + len;
		if (partial) {
			errno = 0;
			w = (unsigned long)ptrace(PTRACE_PEEKDATA, tid, (void *)a, 0);
			if (errno)
				return -1;
		} else {
			w = 0;
		}
		for (int i = 0; i < 8; i++) {
			uint64_t b = a + (uint64_t)i;
			if (b >= addr && b < addr + len) {
				w &= ~(0xfful << (8 * i));
				w |= (unsigned long)in[b - addr] << (8 * i);
			}
		}
		if (ptrace(PTRACE_POKEDATA, tid, (void *)a, (void *)w) != 0)
			return -1;
	}
	return 0;
}

int cts_mem_write_data(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	if (have_vm_readv != 0) {
		struct iovec local = { (void *)buf, len }, remote = { (void *)addr, len };
		if (process_vm_writev(tid, &local, 1, &remote, 1, 0) == (ssize_t)len)
			return 0;
		if (errno == ESRCH)
			return -1;
	}
	return cts_mem_write(tid, addr, buf, len);
}

/* The next stop of pid (0), or -1: gone or not ours. */
static int next_stop(pid_t pid, int *status)
{
	for (;;) {
		pid_t w = waitpid(pid, status, __WALL);
		if (w < 0 && errno == EINTR)
			continue; /* the run's timer */
		return w == pid && WIFSTOPPED(*status) ? 0 : -1;
	}
}

/* A signal taken out of the way while the tracer ran a call in pid: pending
 * again. */
static void resend(pid_t pid, int sig)
{
	syscall(SYS_tgkill, (pid_t)cts_proc_status_field(pid, "Tgid", NULL, 0), pid, sig);
}

int cts_inject_syscall(pid_t pid, const struct user_regs_struct *regs, uint64_t code, long nr,
		       const uint64_t args[6], int64_t *ret)
{
	static const uint8_t insn[3] = { 0x0f, 0x05, 0xcc }; /* syscall; int3 */
	uint8_t saved[3];
	struct user_regs_struct r = *regs;
	int status, rc = -1, sig = 0;
	bool patch = !code;
	/* Signals that come meanwhile stay pending, with their siginfo: the
	 * thread blocks all but the synchronous ones while the call runs (a
	 * forced one that is blocked loses its handler). */
	uint64_t mask, hold = ~(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP) | SIGBIT(SIGTRAP) | SIGBIT(SIGSEGV) |
				SIGBIT(SIGBUS) | SIGBIT(SIGILL) | SIGBIT(SIGFPE) | SIGBIT(SIGSYS));
	bool held = ptrace(PTRACE_GETSIGMASK, pid, (void *)sizeof(mask), &mask) == 0 &&
		    ptrace(PTRACE_SETSIGMASK, pid, (void *)sizeof(hold), &hold) == 0;

	if (patch && (cts_mem_read(pid, regs->rip, saved, 3) != 0 ||
		      cts_mem_write(pid, regs->rip, insn, 3) != 0))
		return -1;
	r.rip = patch ? regs->rip : code;
	r.rax = (uint64_t)nr;
	r.rdi = args[0];
	r.rsi = args[1];
	r.rdx = args[2];
	r.r10 = args[3];
	r.r8 = args[4];
	r.r9 = args[5];
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) == 0 && ptrace(PTRACE_CONT, pid, 0, 0) == 0) {
		for (;;) {
			if (next_stop(pid, &status) != 0)
				break;
			if (WSTOPSIG(status) == SIGTRAP && (status >> 16) == 0) {
				if (ptrace(PTRACE_GETREGS, pid, 0, &r) == 0) {
					*ret = (int64_t)r.rax;
					rc = 0;
				}
				break;
			}
			/* a seccomp stop: let it run; a signal that came meanwhile:
			 * held back, sent again once the registers are back */
			if (WSTOPSIG(status) != SIGTRAP && !(status >> 16) && !sig)
				sig = WSTOPSIG(status);
			if (ptrace(PTRACE_CONT, pid, 0, 0) != 0)
				break;
		}
	}
	if (patch)
		cts_mem_write(pid, regs->rip, saved, 3);
	ptrace(PTRACE_SETREGS, pid, 0, regs);
	if (held)
		ptrace(PTRACE_SETSIGMASK, pid, (void *)sizeof(mask), &mask);
	if (sig)
		resend(pid, sig);
	return rc;
}

int cts_syscall_leave_entry(pid_t pid, const struct user_regs_struct *regs,
			    struct user_regs_struct *at)
{
	struct user_regs_struct r = *regs;
	int status;
	r.orig_rax = SYS_getpid;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) != 0 || ptrace(PTRACE_SYSCALL, pid, 0, 0) != 0)
		return -1;
	for (;;) {
		if (next_stop(pid, &status) != 0)
			return -1;
		/* signals are taken on the way back to user space, after this */
		if (WSTOPSIG(status) == (SIGTRAP | 0x80))
			return ptrace(PTRACE_GETREGS, pid, 0, at) == 0 ? 0 : -1;
		if (ptrace(PTRACE_SYSCALL, pid, 0, 0) != 0)
			return -1;
	}
}

int cts_syscall_reenter(pid_t pid, const struct user_regs_struct *regs)
{
	struct user_regs_struct r = *regs;
	int status, sig = 0;
	if ((long long)regs->orig_rax < 0) /* the tracer skips the call: no entry to go back to */
		return ptrace(PTRACE_SETREGS, pid, 0, regs) == 0 ? 0 : -1;
	r.rip -= 2; /* syscall (0f 05) again */
	r.rax = regs->orig_rax;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) != 0 || ptrace(PTRACE_CONT, pid, 0, 0) != 0)
		return -1;
	for (;;) {
		if (next_stop(pid, &status) != 0)
			return -1;
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8)))
			break;
		/* a signal delivered before the call: held back, sent again;
		 * any other stop: the call did not come back (never so far) */
		if (WSTOPSIG(status) == SIGTRAP || status >> 16)
			return -1;
		if (!sig)
			sig = WSTOPSIG(status);
		if (ptrace(PTRACE_CONT, pid, 0, 0) != 0)
			return -1;
	}
	if (ptrace(PTRACE_SETREGS, pid, 0, regs) != 0)
		return -1;
	if (sig)
		resend(pid, sig);
	return 0;
}

int cts_step_into_handler(pid_t pid, int sig)
{
	int status;
	if (ptrace(PTRACE_SINGLESTEP, pid, 0, (void *)(long)sig) != 0 || next_stop(pid, &status) != 0)
		return -1;
	return WSTOPSIG(status) == SIGTRAP && !(status >> 16) ? 0 : -1;
}

int cts_mem_read_str(pid_t tid, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;
	if (!len)
		return -1;
	while (got + 1 < len) {
		char chunk[64];
		size_t want = sizeof(chunk);
		/* Do not cross a page we may not be able to read. */
		uint64_t page_left = 4096 - ((addr + got) & 4095);
		if (want > page_left)
			want = page_left;
		if (cts_mem_read(tid, addr + got, chunk, want) != 0)
			break;
		for (size_t i = 0; i < want && got + 1 < len; i++) {
			buf[got++] = chunk[i];
			if (!chunk[i])
				return 0;
		}
	}
	buf[got] = 0;
	return got ? 0 : -1;
}

/* One line of /proc/PID/maps; false if it is not one. */
static bool maps_line(char *line, struct cts_mapping *mp)
{
	unsigned long long lo, hi, off;
	int pos = 0;
	memset(mp, 0, sizeof(*mp));
	if (sscanf(line, "%llx-%llx %4s %llx %*s %*s %n", &lo, &hi, mp->perms, &off, &pos) < 4)
		return false;
	mp->lo = lo;
	mp->hi = hi;
	mp->off = off;
	if (pos > 0) {
		char *p = line + pos;
		p[strcspn(p, "\n")] = 0;
		snprintf(mp->path, sizeof(mp->path), "%s", p);
	}
	return true;
}

int cts_maps_read_fd(int fd, struct cts_mapping **out, size_t *n)
{
	size_t len = 0, bufcap = 65536;
	char *buf = cts_xmalloc(bufcap);
	for (;;) {
		if (bufcap - len < 8192)
			buf = cts_xrealloc(buf, bufcap *= 2);
		ssize_t r = pread(fd, buf + len, bufcap - len - 1, (off_t)len);
		if (r < 0) {
			free(buf);
			return -1;
		}
		len += (size_t)r;
		/* x86-64's last line: no read of the end after it */
		static const char last[] = "[vsyscall]\n";
		if (r == 0 || (len >= sizeof(last) - 1 &&
			       memcmp(buf + len - (sizeof(last) - 1), last, sizeof(last) - 1) == 0))
			break;
	}
	if (!len) {
		free(buf);
		return -1;
	}
	buf[len] = 0;
	size_t cap = 64, cnt = 0;
	struct cts_mapping *m = cts_xmalloc(cap * sizeof(*m));
	for (char *line = buf, *next; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = 0; /* one line at a time, as fgets gives them */
		struct cts_mapping mp;
		if (!maps_line(line, &mp))
			continue;
		if (cnt == cap)
			m = cts_xrealloc(m, (cap *= 2) * sizeof(*m));
		m[cnt++] = mp;
	}
	free(buf);
	*out = m;
	*n = cnt;
	return 0;
}

int cts_maps_read(pid_t pid, struct cts_mapping **out, size_t *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = cts_maps_read_fd(fd, out, n);
	close(fd);
	return r;
}

int cts_heap_block(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *size)
{
	struct cts_mapping *m = NULL;
	size_t n = 0;
	uint64_t lo = 0, hi = 0;
	if (cts_maps_read(pid, &m, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(m[i].path, "[heap]") == 0 && addr >= m[i].lo && addr < m[i].hi) {
			lo = m[i].lo;
			hi = m[i].hi;
		}
	free(m);
	/* A chunk: prev_size, size (low 3 bits flags), then the user block,
	 * which runs into the next chunk's prev_size while in use. */
	uint64_t p = lo;
	for (int k = 0; p && k < (1 << 20) && p + 16 <= hi; k++) {
		uint64_t hdr[2];
		if (cts_mem_read(pid, p, hdr, sizeof(hdr)) != 0)
			return -1;
		uint64_t sz = hdr[1] & ~(uint64_t)7;
		if (sz < 32 || (sz & 15) || p + sz > hi)
			return -1;       /* not a chunk: glibc laid it out otherwise */
		if (p + sz == hi)
			return -1;       /* the top chunk: never allocated */
		if (addr < p + sz + 8) {
			if (addr < p + 16)
				return -1;   /* a header */
			*start = p + 16;
			*size = sz - 8;
			return 0;
		}
		p += sz;
	}
	return -1;
}

uint64_t cts_auxv_entry(pid_t pid)
{
	char path[64];
	Elf64_auxv_t av;
	uint64_t entry = 0;
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, &av, sizeof(av)) == (ssize_t)sizeof(av)) {
		if (av.a_type == AT_ENTRY) {
			entry = av.a_un.a_val;
			break;
		}
		if (av.a_type == AT_NULL)
			break;
	}
	close(fd);
	return entry;
}

/* Small /proc files in one read: they are generated whole. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

void cts_proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (read_small(path, buf, len) < 0)
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* The entries of dir named by a positive number. */
static int numbered_entries(const char *dir, pid_t **out, size_t *n)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long id = strtol(e->d_name, &end, 10);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end || id <= 0)
			continue;
		if (*n >= cap) {
			size_t ncap = cts_grow_cap(cap, *n + 1);
			*out = cts_xgrow(*out, cap, ncap, sizeof(**out));
			cap = ncap;
		}
		(*out)[(*n)++] = (pid_t)id;
	}
	closedir(d);
	return 0;
}

int cts_proc_tasks(pid_t pid, pid_t **out, size_t *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	return numbered_entries(path, out, n);
}

int cts_proc_pids(pid_t **out, size_t *n)
{
	return numbered_entries("/proc", out, n);
}

char cts_proc_state(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	/* "tid (comm) S ...": comm may hold anything, so look after its last ')'. */
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The value of the "Key:" line of a /proc/PID/status text (after the
 * colon and blanks), NULL if there is none; anchored at a line start. */
static const char *status_value(const char *buf, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0 || p[klen] != ':')
			continue;
		p += klen + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		return p;
	}
	return NULL;
}

long cts_proc_status_field(pid_t pid, const char *key, char *text, size_t len)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	const char *v = status_value(buf, key);
	if (!v)
		return -1;
	if (text && len)
		snprintf(text, len, "%.*s", (int)strcspn(v, "\n"), v);
	return strtol(v, NULL, 10);
}

pid_t cts_proc_fd_pid(pid_t tid, int fd)
{
	char path[64], link[64], buf[1024];
	int pid;
	char more;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	if (sscanf(link, "/proc/%d%c", &pid, &more) == 1)
		return pid > 0 ? pid : 0;
	if (strcmp(link, "anon_inode:[pidfd]") != 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)tid, fd);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	const char *v = status_value(buf, "Pid");
	long p = v ? strtol(v, NULL, 10) : 0;
	return p > 0 ? (pid_t)p : 0;
}

int cts_proc_sigstate(pid_t tid, struct cts_sigstate *ss)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{ "SigPnd", offsetof(struct cts_sigstate, pnd) },
		{ "ShdPnd", offsetof(struct cts_sigstate, shd) },
		{ "SigBlk", offsetof(struct cts_sigstate, blk) },
		{ "SigIgn", offsetof(struct cts_sigstate, ign) },
		{ "SigCgt", offsetof(struct cts_sigstate, cgt) },
	};
	char path[64], buf[4096];
	int found = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	memset(ss, 0, sizeof(*ss));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const char *p = status_value(buf, fields[i].key);
		if (!p)
			continue;
		*(uint64_t *)((char *)ss + fields[i].off) = strtoull(p, NULL, 16);
		found++;
	}
	return found == 5 ? 0 : -1;
}
