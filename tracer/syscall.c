/* Blocking system calls (docs/design.md, "Blocking system calls").
 *
 * Signals between the program's threads are visible operations: a send
 * (kill, tkill, tgkill, sigqueue) runs at its step, and a wait (sigwait and
 * friends, sigsuspend, pause) runs at its own: a signal pending by then is
 * taken before or by the call, in schedule order; with none, the call
 * sleeps in the kernel like any I/O below.
 *
 * Every other call that can sleep (pipes, sockets, ttys, poll, select, epoll,
 * wait4, file locks, SysV IPC...) is a visible "io" operation that runs for
 * real, resumed with PTRACE_SYSCALL so that its exit stops. If the thread is
 * found asleep in it, it leaves the schedule (TH_OUTSIDE), the others go on,
 * and its exit stop brings it back as an "io_return" scheduled like any
 * operation. After each step, threads the step woke (runnable again) are
 * waited for, so who is back is a function of the schedule whenever the
 * program's I/O is between its own threads.
 *
 * Calls that cannot sleep (regular files, /dev/null, zero timeouts,
 * WNOHANG) stop at the seccomp filter once and run on invisibly. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/fault.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"

#ifndef F_OFD_SETLKW
#define F_OFD_SETLKW 38
#endif
#ifndef IPC_NOWAIT
#define IPC_NOWAIT 04000
#endif

/* Polling a thread found runnable in the kernel after a step, and waiting
 * for a thread that could come back by itself, in these slices. */
#define SETTLE_POLL_US 1000
#define OUTSIDE_POLL_US 5000
/* Signal waiters are re-checked at least this often (signals from timers or
 * children arrive at no step of the program). */
#define SIG_CHECK_STEPS 32

/* glibc's own signals (cancellation, setxid): not the program's business. */
#define GLIBC_SIGS (SIGBIT(32) | SIGBIT(33))

/* The calls an io operation can be; also write and writev (not to fds 1
 * and 2) and fcntl as F_SETLKW/F_OFD_SETLKW, filtered by argument. Channel
 * creators run invisibly but stop at their exit, so that their fds are
 * known to be the program's own. */
static const int io_calls[] = {
	SCMP_SYS(read), SCMP_SYS(readv),
	SCMP_SYS(recvfrom), SCMP_SYS(recvmsg), SCMP_SYS(recvmmsg), SCMP_SYS(sendto),
	SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg), SCMP_SYS(accept), SCMP_SYS(accept4),
	SCMP_SYS(connect), SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6),
	SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_pwait2), SCMP_SYS(wait4),
	SCMP_SYS(waitid), SCMP_SYS(flock), SCMP_SYS(splice), SCMP_SYS(tee), SCMP_SYS(sendfile),
	SCMP_SYS(msgrcv), SCMP_SYS(msgsnd), SCMP_SYS(semop), SCMP_SYS(semtimedop),
	SCMP_SYS(mq_timedreceive), SCMP_SYS(mq_timedsend),
};
static const int signal_calls[] = {
	SCMP_SYS(kill), SCMP_SYS(tkill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo),
	SCMP_SYS(rt_tgsigqueueinfo), SCMP_SYS(rt_sigtimedwait), SCMP_SYS(rt_sigsuspend),
	SCMP_SYS(pause), SCMP_SYS(pidfd_send_signal),
};
static const int channel_calls[] = {
	SCMP_SYS(pipe), SCMP_SYS(pipe2), SCMP_SYS(socketpair), SCMP_SYS(eventfd),
	SCMP_SYS(eventfd2),
};

int cts_tr_sys_seccomp_rules(void *scmp_ctx)
{
	const int *lists[] = { io_calls, signal_calls, channel_calls };
	const size_t lens[] = { sizeof(io_calls) / sizeof(int), sizeof(signal_calls) / sizeof(int),
				sizeof(channel_calls) / sizeof(int) };
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lens[l]; i++)
			if (lists[l][i] >= 0 && /* < 0: unknown to this libseccomp */
			    seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), lists[l][i], 0) != 0)
				return -1;
	/* Writes to the standard output and error never stop: they are not
	 * communication between threads, and they are the most frequent. */
	if (seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(write), 1,
			     SCMP_A0(SCMP_CMP_GE, 3)) != 0 ||
	    seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(writev), 1,
			     SCMP_A0(SCMP_CMP_GE, 3)) != 0 ||
	    seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(write), 1,
			     SCMP_A0(SCMP_CMP_EQ, 0)) != 0 ||
	    seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(writev), 1,
			     SCMP_A0(SCMP_CMP_EQ, 0)) != 0)
		return -1;
	if (seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(fcntl), 1,
			     SCMP_A1(SCMP_CMP_EQ, F_SETLKW)) != 0 ||
	    seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(fcntl), 1,
			     SCMP_A1(SCMP_CMP_EQ, F_OFD_SETLKW)) != 0)
		return -1;
	return 0;
}

void cts_tr_sys_reset(struct cts_tracer *tr)
{
	tr->sent_sigs = 0;
	tr->sig_dirty = false;
	tr->steps_since_sig_check = 0;
	tr->came_back = false;
	tr->nchannels = 0;
	tr->channels_shared = false;
}

void cts_tr_sys_forked(struct cts_tracer *tr)
{
	tr->channels_shared = true; /* the child holds copies of every fd */
}

static void save_args(struct thread *th, long nr)
{
	const struct user_regs_struct *r = &th->regs;
	th->sys_nr = (int)nr;
	th->sys_arg[0] = r->rdi;
	th->sys_arg[1] = r->rsi;
	th->sys_arg[2] = r->rdx;
	th->sys_arg[3] = r->r10;
	th->sys_arg[4] = r->r8;
	th->sys_arg[5] = r->r9;
}

/* Resume into the call with its exit stop armed. */
static int resume_into_call(struct cts_tracer *tr, struct thread *th)
{
	if (th->sys_entry) {
		th->sys_entry = false;
		if (th->regs_valid && (long)th->regs.orig_rax >= 0)
			cts_fault_sys_enter(tr, th, (long)th->regs.orig_rax);
	}
	if (cts_tr_flush_regs(th) != 0 || cts_fault_resume(tr, th, NULL) != 0)
		return -1;
	th->regs_valid = false;
	th->in_kcall = true;
	th->state = TH_RUNNING;
	if (ptrace(PTRACE_SYSCALL, th->tid, 0, 0) != 0) {
		th->in_kcall = false;
		return errno == ESRCH ? 0 : -1;
	}
	return 0;
}

/* ---- file descriptors ------------------------------------------------------ */

enum fd_kind {
	FD_NONE,     /* not open: the call fails at once */
	FD_QUIET,    /* regular file, directory, block or memory device: never sleeps */
	FD_TTY,      /* other character devices: reads may sleep */
	FD_CHANNEL,  /* pipe, FIFO, socket, eventfd and other anonymous inodes */
};

/* The fd table is read through the calling thread: the leader's /proc
 * entry has no fds once main has left with pthread_exit. */
static enum fd_kind fd_kind(pid_t tid, int fd)
{
	char path[64];
	struct stat sb;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, fd);
	if (fd < 0 || stat(path, &sb) != 0)
		return FD_NONE;
	switch (sb.st_mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFBLK:
		return FD_QUIET;
	case S_IFCHR:
		return major(sb.st_rdev) == 1 ? FD_QUIET : FD_TTY; /* 1: null, zero, random... */
	default:
		return FD_CHANNEL;
	}
}

/* An identity for the channel behind fd that survives dup and fd reuse: the
 * pipe's inode, or the eventfd's id. 0 if it has none we can use. */
static uint64_t channel_key(pid_t tid, int fd)
{
	char path[64], link[64];
	unsigned long long id;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	if (sscanf(link, "pipe:[%llu]", &id) == 1)
		return id << 2 | 1;
	if (strcmp(link, "anon_inode:[eventfd]") != 0)
		return 0;
	char info[512];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)tid, fd);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	uint64_t key = 0;
	while (fgets(info, sizeof(info), f))
		if (sscanf(info, "eventfd-id: %llu", &id) == 1)
			key = id << 2 | 2;
	fclose(f);
	return key;
}

static bool channel_private(const struct cts_tracer *tr, pid_t tid, int fd)
{
	uint64_t key = channel_key(tid, fd);
	for (int i = 0; key && i < tr->nchannels; i++)
		if (tr->channels[i] == key)
			return true;
	return false;
}

static void add_channel(struct cts_tracer *tr, pid_t tid, int fd)
{
	uint64_t key = channel_key(tid, fd);
	if (key && tr->nchannels < MAX_CHANNELS)
		tr->channels[tr->nchannels++] = key;
}

/* The exit stop of pipe/pipe2/socketpair/eventfd: note the new channels. */
static void record_channels(struct cts_tracer *tr, struct thread *th)
{
	if (cts_tr_getregs(th) != 0 || (long)th->regs.rax < 0)
		return;
	if (th->sys_nr == SYS_eventfd || th->sys_nr == SYS_eventfd2) {
		add_channel(tr, th->tid, (int)th->regs.rax);
		return;
	}
	int fds[2];
	uint64_t at = th->sys_nr == SYS_socketpair ? th->sys_arg[3] : th->sys_arg[0];
	if (cts_mem_read(th->tid, at, fds, sizeof(fds)) == 0) {
		add_channel(tr, th->tid, fds[0]);
		add_channel(tr, th->tid, fds[1]);
	}
}

/* ---- which calls may sleep ------------------------------------------------- */

static bool zero_timespec(const struct thread *th, uint64_t addr)
{
	struct timespec ts;
	return addr && cts_mem_read(th->tid, addr, &ts, sizeof(ts)) == 0 && ts.tv_sec == 0 &&
	       ts.tv_nsec == 0;
}

static bool zero_timeval(const struct thread *th, uint64_t addr)
{
	struct timeval tv;
	return addr && cts_mem_read(th->tid, addr, &tv, sizeof(tv)) == 0 && tv.tv_sec == 0 &&
	       tv.tv_usec == 0;
}

static bool is_write_call(long nr)
{
	return nr == SYS_write || nr == SYS_writev || nr == SYS_sendto || nr == SYS_sendmsg ||
	       nr == SYS_sendmmsg;
}

/* Can this call sleep until another thread (or the world) acts? */
static bool may_sleep(const struct thread *th, long nr)
{
	const uint64_t *a = th->sys_arg;
	switch (nr) {
	case SYS_poll:
		return (int)a[2] != 0;
	case SYS_ppoll:
	case SYS_pselect6:
		return !zero_timespec(th, nr == SYS_ppoll ? a[2] : a[4]);
	case SYS_select:
		return !zero_timeval(th, a[4]);
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
		return (int)a[3] != 0;
	case SYS_epoll_pwait2:
		return !zero_timespec(th, a[3]);
	case SYS_wait4:
		return !(a[2] & WNOHANG);
	case SYS_waitid:
		return !(a[3] & WNOHANG);
	case SYS_msgrcv:
		return !(a[4] & IPC_NOWAIT);
	case SYS_msgsnd:
		return !(a[3] & IPC_NOWAIT);
	case SYS_semop:
	case SYS_semtimedop:
	case SYS_mq_timedreceive:
	case SYS_mq_timedsend:
	case SYS_fcntl: /* fault mode stops at every fcntl (fault.h) */
		return a[1] == F_SETLKW || a[1] == F_OFD_SETLKW;
	case SYS_flock:
	case SYS_accept:
	case SYS_accept4:
	case SYS_connect:
		return true;
	case SYS_splice:
	case SYS_tee:
	case SYS_sendfile: {
		/* splice(in, off, out, ...), tee(in, out, ...), sendfile(out, in, ...) */
		int f1 = (int)a[0], f2 = nr == SYS_splice ? (int)a[2] : (int)a[1];
		return fd_kind(th->tid, f1) >= FD_TTY || fd_kind(th->tid, f2) >= FD_TTY;
	}
	default:
		break;
	}
	/* read/write/send/recv families: by the kind of the fd. Writes to the
	 * standard output and error are not communication between threads. */
	int fd = (int)a[0];
	bool write = is_write_call(nr);
	if (write && (fd == 1 || fd == 2))
		return false;
	enum fd_kind k = fd_kind(th->tid, fd);
	return k == FD_CHANNEL || (k == FD_TTY && !write);
}

/* ---- signals --------------------------------------------------------------- */

static struct thread *thread_of(struct cts_tracer *tr, pid_t tid)
{
	struct thread *t = cts_tr_by_tid(tr, tid);
	return t && t->state != TH_DEAD ? t : NULL;
}

/* A process of cts-trace: this tracer, or with --jobs the coordinator or a
 * worker (the list is read when the call is made: a worker gone is off it). */
static bool is_guarded(const struct cts_tracer *tr, pid_t pid)
{
	if (pid <= 0)
		return false;
	if (pid == getpid())
		return true;
	for (size_t i = 0; i < tr->cfg.nguarded; i++)
		if (__atomic_load_n(&tr->cfg.guarded[i], __ATOMIC_RELAXED) == pid)
			return true;
	return false;
}

/* Would the signal-sending call nr with args a, made by tid, reach
 * cts-trace? Aimed at one of its processes, at their process group, or at
 * every process (kill(-1, ...)). The program's own processes and group are
 * never among them. */
static bool aimed_at_us(const struct cts_tracer *tr, pid_t tid, long nr, const uint64_t *a)
{
	pid_t pid = (pid_t)a[0]; /* low 32 bits: sign-extended or not */
	switch (nr) {
	case SYS_kill:
		/* kill(0, ...) from a process that moved into our group */
		if (pid == -1 || (pid < -1 && -pid == getpgrp()) || (pid == 0 && getpgid(tid) == getpgrp()))
			return true;
		return is_guarded(tr, pid < 0 ? -pid : pid);
	case SYS_pidfd_send_signal:
		return is_guarded(tr, cts_proc_fd_pid(tid, (int)a[0]));
	default: /* tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo: a tid or a tgid */
		return is_guarded(tr, pid);
	}
}

static bool is_signal_send(long nr)
{
	return nr == SYS_kill || nr == SYS_tkill || nr == SYS_tgkill || nr == SYS_rt_sigqueueinfo ||
	       nr == SYS_rt_tgsigqueueinfo || nr == SYS_pidfd_send_signal;
}

void cts_tr_sys_guard_free(const struct cts_tracer *tr, pid_t tid)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, tid, 0, &r) != 0)
		return;
	const uint64_t a[3] = { r.rdi, r.rsi, r.rdx };
	if (!is_signal_send((long)r.orig_rax) || !aimed_at_us(tr, tid, (long)r.orig_rax, a))
		return;
	r.orig_rax = (unsigned long long)-1;
	r.rax = (unsigned long long)-EPERM;
	ptrace(PTRACE_SETREGS, tid, 0, &r);
}

/* A send aimed at this program: a visible operation. */
static int on_signal_send(struct cts_tracer *tr, struct thread *th, long nr)
{
	const uint64_t *a = th->sys_arg;
	pid_t pid = (pid_t)a[0];
	int sig;
	struct thread *to = NULL;
	bool ours;

	/* The filter's EPERM rules for sends aimed at the tracer are shadowed
	 * by the trace rules on the same calls: refuse them here, and those
	 * aimed at the other processes of a --jobs search (issue 27 item 9). */
	if (aimed_at_us(tr, th->tid, nr, a)) {
		cts_tr_skip_syscall(th, -EPERM);
		return cts_tr_resume(tr, th, 0);
	}
	if (nr == SYS_pidfd_send_signal) /* not modelled: it runs as it would */
		return cts_tr_resume(tr, th, 0);
	switch (nr) {
	case SYS_kill:
	case SYS_rt_sigqueueinfo:
		sig = (int)a[1];
		ours = pid == tr->pid || (nr == SYS_kill && (pid == 0 || pid == -tr->pid));
		break;
	case SYS_tkill:
		sig = (int)a[1];
		to = thread_of(tr, pid);
		ours = to != NULL;
		break;
	default: /* tgkill, rt_tgsigqueueinfo */
		sig = (int)a[2];
		to = thread_of(tr, (pid_t)a[1]);
		ours = pid == tr->pid && to;
		break;
	}
	if (!ours || sig <= 0 || sig > 64 || (SIGBIT(sig) & GLIBC_SIGS))
		return cts_tr_resume(tr, th, 0);
	cts_event_init(&th->pending, th->num, CTS_OP_SIGNAL);
	th->pending.obj = (uint64_t)sig;
	th->pending.target = to ? to->num : -1;
	th->pending.pc = th->regs.rip;
	cts_tr_hold(tr, th, AT_SYSCALL);
	return 0;
}

/* What a signal wait does when its step comes. A signal that became pending
 * while the thread was on its way to the call (it is held at the call's
 * entry) and that it does not block reaches it before the call: delivered
 * first, then the wait starts afresh (the lost wake-up of check-then-pause).
 * A pending signal the call takes (one in sigwait's set, one sigsuspend
 * unblocks) ends it at once. Otherwise the call sleeps: in the kernel, or,
 * for a wait with a timeout, parked here until a signal comes or nothing
 * else can run (time is not modelled). */
enum sig_plan { SIG_SLEEP, SIG_BEFORE, SIG_IN_CALL };

static enum sig_plan sig_plan(const struct thread *th, const struct cts_sigstate *ss)
{
	uint64_t pend = ss->pnd | ss->shd;
	if (!th->sig_parked && (pend & ~ss->blk & ~(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))))
		return th->early_signals < 3 ? SIG_BEFORE : SIG_IN_CALL;
	if (th->sig_parked && (pend & ~ss->blk))
		return SIG_IN_CALL; /* a handler interrupts the wait */
	if (th->pending.op == CTS_OP_SIGWAIT)
		return pend & th->pending.value ? SIG_IN_CALL : SIG_SLEEP;
	return pend & ~th->pending.value ? SIG_IN_CALL : SIG_SLEEP;
}

static bool is_parked_waiter(const struct thread *th)
{
	return th->state == TH_HELD && th->sig_parked;
}

static int on_signal_wait(struct cts_tracer *tr, struct thread *th, long nr)
{
	const uint64_t *a = th->sys_arg;
	uint64_t set = 0;
	cts_op op = nr == SYS_rt_sigtimedwait ? CTS_OP_SIGWAIT : CTS_OP_SIGSUSPEND;

	if (nr == SYS_rt_sigtimedwait && zero_timespec(th, a[2]))
		return cts_tr_resume(tr, th, 0); /* a poll of the pending set: never waits */
	if (nr == SYS_pause) {
		struct cts_sigstate ss;
		if (cts_proc_sigstate(th->tid, &ss) == 0)
			set = ss.blk;
	} else if (cts_mem_read(th->tid, a[0], &set, sizeof(set)) != 0) {
		return cts_tr_resume(tr, th, 0); /* bad pointer: EFAULT at once */
	}
	th->sys_set = set;
	th->sig_parked = false;
	cts_event_init(&th->pending, th->num, op);
	th->pending.value = set;
	th->pending.timed = nr == SYS_rt_sigtimedwait && a[2];
	th->pending.pc = th->regs.rip;
	cts_tr_hold(tr, th, AT_SYSCALL);
	return 0;
}

/* Will delivering sig to th end the process (default action, not caught,
 * not ignored)? */
bool cts_tr_sys_signal_kills(const struct thread *th, int sig)
{
	const uint64_t harmless = SIGBIT(SIGCHLD) | SIGBIT(SIGCONT) | SIGBIT(SIGURG) |
				  SIGBIT(SIGWINCH) | SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) |
				  SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU);
	struct cts_sigstate ss;
	if (sig <= 0 || sig > 64 || (SIGBIT(sig) & harmless) || cts_proc_sigstate(th->tid, &ss) != 0)
		return false;
	return !((ss.cgt | ss.ign) & SIGBIT(sig));
}

/* ---- seccomp entry and exit stops ------------------------------------------ */

static bool is_io_call(long nr)
{
	for (size_t i = 0; i < sizeof(io_calls) / sizeof(io_calls[0]); i++)
		if (io_calls[i] == nr)
			return true;
	return nr == SYS_fcntl || nr == SYS_write || nr == SYS_writev;
}

int cts_tr_sys_entry(struct cts_tracer *tr, struct thread *th, long nr)
{
	save_args(th, nr);
	switch (nr) {
	case SYS_kill:
	case SYS_tkill:
	case SYS_tgkill:
	case SYS_rt_sigqueueinfo:
	case SYS_rt_tgsigqueueinfo:
	case SYS_pidfd_send_signal:
		return on_signal_send(tr, th, nr);
	case SYS_rt_sigtimedwait:
	case SYS_rt_sigsuspend:
	case SYS_pause:
		return on_signal_wait(tr, th, nr);
	case SYS_pipe:
	case SYS_pipe2:
	case SYS_socketpair:
	case SYS_eventfd:
	case SYS_eventfd2:
		th->kcall_creates = true;
		return resume_into_call(tr, th);
	default:
		break;
	}
	if (!is_io_call(nr) || !may_sleep(th, nr))
		return cts_tr_resume(tr, th, 0);
	cts_event_init(&th->pending, th->num, CTS_OP_IO);
	th->pending.obj = cts_syscall_has_fd(nr) ? (uint64_t)(int)th->sys_arg[0] : 0;
	th->pending.value = (uint64_t)nr;
	th->pending.pc = th->regs.rip;
	cts_tr_hold(tr, th, AT_SYSCALL);
	return 0;
}

/* What a thread does once back from its call (signal waits too). */
static void set_io_return(struct thread *th)
{
	uint64_t pc = th->pending.pc;
	cts_event_init(&th->pending, th->num, CTS_OP_IO_RETURN);
	th->pending.obj = cts_syscall_has_fd(th->sys_nr) ? (uint64_t)(int)th->sys_arg[0] : 0;
	th->pending.value = (uint64_t)th->sys_nr;
	th->pending.pc = pc;
}

int cts_tr_sys_exit_stop(struct cts_tracer *tr, struct thread *th)
{
	if (!th->in_kcall)
		return cts_tr_resume(tr, th, 0);
	th->in_kcall = false;
	if (th->kcall_creates) {
		th->kcall_creates = false;
		record_channels(tr, th);
		return cts_tr_resume(tr, th, 0);
	}
	/* Held at the exit (pending: its io_return) until the schedule picks
	 * it, whether the call slept or not: a schedule has the same steps
	 * however long the kernel took, and replay only waits for the return. */
	if (th->state == TH_OUTSIDE)
		tr->came_back = true;
	else
		set_io_return(th);
	cts_tr_hold(tr, th, AT_SYSEXIT);
	return 0;
}

bool cts_tr_sys_went_outside(struct cts_tracer *tr, struct thread *th)
{
	if (th->state != TH_RUNNING || !th->in_kcall || cts_proc_state(th->tid) != 'S')
		return false;
	th->state = TH_OUTSIDE;
	th->sys_blocked = true;
	/* Asleep with pages the mprotect mechanism opened for its buffers:
	 * they cannot stay open while others run (fault.h). The run is void,
	 * the pages learned. */
	if (th->pkru_open && cts_fault_io_learn(tr, th))
		tr->st->relearn = true;
	set_io_return(th);
	cts_tr_publish(tr, th);
	return true;
}

/* ---- executing the operations ---------------------------------------------- */

int cts_tr_sys_execute(struct cts_tracer *tr, struct thread *th, bool give_up,
		       struct cts_event *done)
{
	struct cts_sigstate ss;

	switch (th->pending.op) {
	case CTS_OP_SIGNAL:
		tr->sent_sigs |= SIGBIT(th->pending.obj);
		tr->sig_dirty = true;
		return cts_tr_resume(tr, th, 0);
	case CTS_OP_IO:
		return resume_into_call(tr, th);
	case CTS_OP_SIGWAIT:
	case CTS_OP_SIGSUSPEND:
		break;
	default:
		cts_tr_set_error(tr, "thread %d: %s is not a system call", th->num,
				 cts_op_name(th->pending.op));
		return -1;
	}
	tr->sig_dirty = true;
	enum sig_plan plan = cts_proc_sigstate(th->tid, &ss) == 0 ? sig_plan(th, &ss) : SIG_IN_CALL;
	if (plan == SIG_BEFORE) {
		/* Skip the call and rewind to its syscall instruction: the signal
		 * is delivered first, and the wait starts afresh after it. */
		th->early_signals++;
		th->regs.orig_rax = (unsigned long long)-1;
		th->regs.rax = (unsigned long long)th->sys_nr;
		th->regs.rip -= 2;
		th->regs_dirty = true;
		return cts_tr_resume(tr, th, 0);
	}
	th->early_signals = 0;
	if (plan == SIG_SLEEP && th->pending.timed) {
		if (give_up) {
			th->sig_parked = false;
			done->result = EAGAIN;
			cts_tr_skip_syscall(th, -EAGAIN); /* sigtimedwait's timeout */
			return cts_tr_resume(tr, th, 0);
		}
		/* Parked at the entry until a signal comes or nothing else can run. */
		th->sig_parked = true;
		th->sys_blocked = true;
		done->result = 1;
		cts_tr_publish(tr, th);
		return 1;
	}
	th->sig_parked = false;
	/* A signal it takes is pending and the call returns at once, or it
	 * sleeps in the kernel, outside the schedule, until one comes. */
	return resume_into_call(tr, th);
}

/* ---- after a step: who is back, who can go -------------------------------- */

/* Re-check the parked timed waiters; true if one can go now. */
static bool refresh_parked(struct cts_tracer *tr)
{
	bool freed = false;
	tr->sig_dirty = false;
	tr->steps_since_sig_check = 0;
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *w = tr->live[i];
		struct cts_sigstate ss;
		if (!is_parked_waiter(w) || !w->sys_blocked)
			continue;
		if (cts_proc_sigstate(w->tid, &ss) == 0 && sig_plan(w, &ss) == SIG_SLEEP)
			continue;
		w->sys_blocked = false;
		freed = true;
		cts_tr_publish(tr, w);
	}
	return freed;
}

static bool any_parked(const struct cts_tracer *tr)
{
	for (int i = 0; i < tr->nlive; i++)
		if (is_parked_waiter(tr->live[i]))
			return true;
	return false;
}

int cts_tr_sys_after_step(struct cts_tracer *tr)
{
	/* A step that woke a thread asleep in the kernel (a pipe write, a
	 * signal) made it runnable before the step ended: collect it now, so
	 * that it is back at the same point in every run of this schedule. */
	for (int i = 0; i < tr->nlive && tr->st->status == CTS_RUN_ACTIVE; i++) {
		struct thread *o = tr->live[i];
		while (o->state == TH_OUTSIDE && tr->st->status == CTS_RUN_ACTIVE) {
			char c = cts_proc_state(o->tid);
			if (c == 'S')
				break;
			int r = cts_tr_next_event(tr, SETTLE_POLL_US);
			if (r < 0)
				return -1;
			if (r == 0 && c == 0)
				break; /* gone: its exit is reported in time */
		}
	}
	/* Signals from timers or children come at no step: look now and then. */
	if (tr->sig_dirty || (++tr->steps_since_sig_check >= SIG_CHECK_STEPS && any_parked(tr)))
		refresh_parked(tr);
	return 0;
}

/* ---- nothing else can run: wait for the world ------------------------------ */

/* Could something outside the program's threads write into its channels?
 * A child process (fork), an fd sent away, or a signal handler run by a
 * signal from outside. */
static bool world_can_reach(const struct cts_tracer *tr, const struct thread *th)
{
	struct cts_sigstate ss;
	if (tr->channels_shared || tr->nforeign > 0)
		return true;
	if (cts_proc_sigstate(th->tid, &ss) != 0)  /* dispositions are the process's */
		return true;
	return (ss.cgt & ~GLIBC_SIGS) != 0;
}

static bool fd_stuck(const struct cts_tracer *tr, const struct thread *th, int fd)
{
	return fd >= 0 && channel_private(tr, th->tid, fd);
}

static bool poll_stuck(const struct cts_tracer *tr, const struct thread *th)
{
	const uint64_t *a = th->sys_arg;
	struct pollfd pfd[64];
	uint64_t n = a[1];
	bool forever = th->sys_nr == SYS_poll ? (int)a[2] < 0 : a[2] == 0;
	if (!forever || n == 0 || n > 64 || cts_mem_read(th->tid, a[0], pfd, n * sizeof(pfd[0])) != 0)
		return false;
	for (uint64_t i = 0; i < n; i++)
		if (pfd[i].fd >= 0 && !fd_stuck(tr, th, pfd[i].fd))
			return false;
	return true;
}

static bool select_stuck(const struct cts_tracer *tr, const struct thread *th)
{
	const uint64_t *a = th->sys_arg;
	int nfds = (int)a[0];
	if (a[4] || nfds <= 0 || nfds > 1024)
		return false;
	for (int s = 1; s <= 3; s++) {
		uint64_t bits[16];
		if (!a[s])
			continue;
		size_t len = (size_t)(nfds + 63) / 64 * 8;
		if (cts_mem_read(th->tid, a[s], bits, len) != 0)
			return false;
		for (int fd = 0; fd < nfds; fd++)
			if ((bits[fd / 64] >> (fd % 64) & 1) && !fd_stuck(tr, th, fd))
				return false;
	}
	return true;
}

static bool epoll_stuck(const struct cts_tracer *tr, const struct thread *th)
{
	const uint64_t *a = th->sys_arg;
	bool forever = th->sys_nr == SYS_epoll_pwait2 ? a[3] == 0 : (int)a[3] < 0;
	char path[64], line[256];
	int fd, n = 0;
	if (!forever)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)th->tid, (int)a[0]);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool stuck = true;
	while (stuck && fgets(line, sizeof(line), f))
		if (sscanf(line, "tfd: %d", &fd) == 1 && ++n)
			stuck = fd_stuck(tr, th, fd);
	fclose(f);
	return stuck && n > 0;
}

/* A thread asleep in the kernel that only the program's own (all blocked)
 * threads could wake: waiting for it is waiting forever. */
static bool io_stuck(const struct cts_tracer *tr, const struct thread *th)
{
	switch (th->sys_nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_write:
	case SYS_writev:
		return fd_stuck(tr, th, (int)th->sys_arg[0]);
	case SYS_poll:
	case SYS_ppoll:
		return poll_stuck(tr, th);
	case SYS_select:
	case SYS_pselect6:
		return select_stuck(tr, th);
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
		return epoll_stuck(tr, th);
	default:
		return false; /* sockets, children, locks...: the world may answer */
	}
}

/* Asleep in a signal wait whose every waking signal is one the program sent
 * itself (and that was taken already): only its own threads would send it
 * again. Signals it blocks but waits for, and unblocked ones with handlers
 * (they would interrupt the call), wake it. */
static bool sig_stuck(const struct cts_tracer *tr, const struct thread *th)
{
	struct cts_sigstate ss;
	uint64_t wake;
	if (tr->nforeign > 0 || cts_proc_sigstate(th->tid, &ss) != 0)
		return false;
	switch (th->sys_nr) {
	case SYS_rt_sigtimedwait:
		if (th->sys_arg[2])
			return false; /* it has a timeout */
		wake = th->sys_set | (ss.cgt & ~ss.blk);
		break;
	case SYS_rt_sigsuspend:
		wake = ss.cgt & ~th->sys_set;
		break;
	default: /* pause */
		wake = ss.cgt & ~ss.blk;
		break;
	}
	wake &= ~GLIBC_SIGS;
	return wake && (wake & ~tr->sent_sigs) == 0;
}

static bool may_come_back(const struct cts_tracer *tr)
{
	const struct thread *io = NULL;
	for (int i = 0; i < tr->nlive; i++) {
		const struct thread *t = tr->live[i];
		if (t->state != TH_OUTSIDE)
			continue;
		if (cts_syscall_waits_signal(t->sys_nr)) {
			if (!sig_stuck(tr, t))
				return true;
		} else if (!io_stuck(tr, t)) {
			return true;
		} else {
			io = t;
		}
	}
	return io && world_can_reach(tr, io);
}

/* limit_s is the explorer's short grace before a timed wait may give up
 * (OUTSIDE_GRACE_S), not the run's --timeout: that one is the tick's in
 * cts_tr_next_event, on the run clock. Wall time is right for the grace:
 * the run clock counts a stall as two ticks, already more than it. */
int cts_tr_sys_wait(struct cts_tracer *tr, double limit_s)
{
	double deadline = limit_s > 0 ? cts_tr_now_s() + limit_s : 0;
	tr->came_back = false;
	while (tr->st->status == CTS_RUN_ACTIVE) {
		if (refresh_parked(tr))
			return 1;
		if (!may_come_back(tr))
			return 0;
		if (cts_tr_next_event(tr, OUTSIDE_POLL_US) < 0)
			return -1;
		if (tr->came_back) {
			tr->came_back = false;
			return 1;
		}
		if (deadline && cts_tr_now_s() >= deadline)
			return 0;
	}
	return 0;
}

/* The running thread asleep in a call nothing traps (open of a FIFO,
 * io_uring...): its system call number, or -1. */
static long asleep_in(const struct thread *th)
{
	char path[64], buf[64];
	long nr = -1;
	if (th->state != TH_RUNNING || th->in_kcall || cts_proc_state(th->tid) != 'S')
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)th->tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr;
}

bool cts_tr_sys_asleep(const struct thread *th)
{
	return asleep_in(th) >= 0;
}

/* For a timed-out run's message: who was outside the schedule. */
size_t cts_tr_sys_describe_outside(const struct cts_tracer *tr, char *buf, size_t len)
{
	size_t off = 0;
	if (len)
		buf[0] = 0;
	for (int i = 0; i < tr->nlive && off + 1 < len; i++) {
		const struct thread *t = tr->live[i];
		char fd[32] = "";
		long nr = asleep_in(t);
		if (nr >= 0) {
			int w = snprintf(buf + off, len - off, "%sthread %d asleep in system call %ld, "
					 "which cts does not model", off ? "; " : "", t->num, nr);
			if (w > 0)
				off = off + (size_t)w < len ? off + (size_t)w : len - 1;
			continue;
		}
		if (t->state != TH_OUTSIDE && !(t->state == TH_RUNNING && t->in_kcall))
			continue;
		if (cts_syscall_has_fd(t->sys_nr))
			snprintf(fd, sizeof(fd), " on fd %d", (int)t->sys_arg[0]);
		int w = snprintf(buf + off, len - off, "%sthread %d blocked in %s%s outside the schedule",
				 off ? "; " : "", t->num, cts_syscall_name(t->sys_nr), fd);
		if (w > 0)
			off = off + (size_t)w < len ? off + (size_t)w : len - 1;
	}
	return off;
}
