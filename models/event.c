#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include "models/event.h"

static const char *const op_names[CTS_OP__COUNT] = {
	[CTS_OP_NONE] = "none",
	[CTS_OP_START] = "start",
	[CTS_OP_CREATE] = "create",
	[CTS_OP_JOIN] = "join",
	[CTS_OP_THREAD_EXIT] = "thread_exit",
	[CTS_OP_PROC_EXIT] = "exit",
	[CTS_OP_LOCK] = "lock",
	[CTS_OP_TRYLOCK] = "trylock",
	[CTS_OP_UNLOCK] = "unlock",
	[CTS_OP_RDLOCK] = "rdlock",
	[CTS_OP_WRLOCK] = "wrlock",
	[CTS_OP_TRYRDLOCK] = "tryrdlock",
	[CTS_OP_TRYWRLOCK] = "trywrlock",
	[CTS_OP_RWUNLOCK] = "rwunlock",
	[CTS_OP_COND_WAIT] = "cond_wait",
	[CTS_OP_COND_REACQUIRE] = "cond_reacquire",
	[CTS_OP_COND_SIGNAL] = "cond_signal",
	[CTS_OP_COND_BROADCAST] = "cond_broadcast",
	[CTS_OP_BARRIER_INIT] = "barrier_init",
	[CTS_OP_BARRIER_WAIT] = "barrier_wait",
	[CTS_OP_SEM_INIT] = "sem_init",
	[CTS_OP_SEM_WAIT] = "sem_wait",
	[CTS_OP_SEM_TRYWAIT] = "sem_trywait",
	[CTS_OP_SEM_POST] = "sem_post",
	[CTS_OP_YIELD] = "yield",
	[CTS_OP_SLEEP] = "sleep",
	[CTS_OP_FUTEX_WAIT] = "futex_wait",
	[CTS_OP_FUTEX_WAKE] = "futex_wake",
	[CTS_OP_READ] = "read",
	[CTS_OP_WRITE] = "write",
	[CTS_OP_RMW] = "rmw",
	[CTS_OP_ATOMIC] = "atomic",
	[CTS_OP_RESUME] = "resume",
	[CTS_OP_CANCEL] = "cancel",
	[CTS_OP_SIGNAL] = "signal",
	[CTS_OP_SIGWAIT] = "sigwait",
	[CTS_OP_SIGSUSPEND] = "sigsuspend",
	[CTS_OP_IO] = "io",
	[CTS_OP_IO_RETURN] = "io_return",
	[CTS_OP_LIB_READ] = "lib_read",
	[CTS_OP_LIB_WRITE] = "lib_write",
	[CTS_OP_FREE] = "free",
	[CTS_OP_ALLOC] = "alloc",
};

const char *cts_op_name(cts_op op)
{
	if ((unsigned)op >= CTS_OP__COUNT || !op_names[op])
		return "?";
	return op_names[op];
}

cts_op cts_op_from_name(const char *name)
{
	for (int i = 1; i < CTS_OP__COUNT; i++)
		if (op_names[i] && strcmp(op_names[i], name) == 0)
			return (cts_op)i;
	return CTS_OP_NONE;
}

bool cts_op_is_access(cts_op op)
{
	return op == CTS_OP_READ || op == CTS_OP_WRITE || op == CTS_OP_RMW || op == CTS_OP_ATOMIC;
}

bool cts_op_is_libcall(cts_op op)
{
	return op == CTS_OP_LIB_READ || op == CTS_OP_LIB_WRITE || op == CTS_OP_FREE ||
	       op == CTS_OP_ALLOC;
}

bool cts_op_is_range(cts_op op)
{
	return cts_op_is_access(op) || cts_op_is_libcall(op);
}

bool cts_op_is_write(cts_op op)
{
	return op == CTS_OP_WRITE || op == CTS_OP_RMW || op == CTS_OP_ATOMIC ||
	       op == CTS_OP_LIB_WRITE || op == CTS_OP_FREE || op == CTS_OP_ALLOC;
}

bool cts_op_is_sync(cts_op op)
{
	switch (op) {
	case CTS_OP_LOCK: case CTS_OP_TRYLOCK: case CTS_OP_UNLOCK:
	case CTS_OP_RDLOCK: case CTS_OP_WRLOCK: case CTS_OP_TRYRDLOCK: case CTS_OP_TRYWRLOCK:
	case CTS_OP_RWUNLOCK:
	case CTS_OP_COND_WAIT: case CTS_OP_COND_REACQUIRE: case CTS_OP_COND_SIGNAL:
	case CTS_OP_COND_BROADCAST:
	case CTS_OP_BARRIER_INIT: case CTS_OP_BARRIER_WAIT:
	case CTS_OP_SEM_INIT: case CTS_OP_SEM_WAIT: case CTS_OP_SEM_TRYWAIT: case CTS_OP_SEM_POST:
	case CTS_OP_FUTEX_WAIT: case CTS_OP_FUTEX_WAKE: case CTS_OP_RESUME:
		return true;
	default:
		return false;
	}
}

/* The calls an io op (or a signal wait gone to sleep) can be: tracer/syscall.c
 * traps them. x86-64 numbers. */
static const struct {
	long nr;
	const char *name;
	bool fd;     /* first argument is the file descriptor */
} syscalls[] = {
	{ SYS_read, "read", true }, { SYS_write, "write", true }, { SYS_readv, "readv", true },
	{ SYS_writev, "writev", true }, { SYS_recvfrom, "recvfrom", true },
	{ SYS_recvmsg, "recvmsg", true }, { SYS_recvmmsg, "recvmmsg", true },
	{ SYS_sendto, "sendto", true }, { SYS_sendmsg, "sendmsg", true },
	{ SYS_sendmmsg, "sendmmsg", true }, { SYS_accept, "accept", true },
	{ SYS_accept4, "accept4", true }, { SYS_connect, "connect", true },
	{ SYS_poll, "poll", false }, { SYS_ppoll, "ppoll", false }, { SYS_select, "select", false },
	{ SYS_pselect6, "pselect6", false }, { SYS_epoll_wait, "epoll_wait", true },
	{ SYS_epoll_pwait, "epoll_pwait", true }, { SYS_epoll_pwait2, "epoll_pwait2", true },
	{ SYS_wait4, "wait4", false }, { SYS_waitid, "waitid", false },
	{ SYS_flock, "flock", true }, { SYS_fcntl, "fcntl", true },
	{ SYS_splice, "splice", true }, { SYS_tee, "tee", true }, { SYS_sendfile, "sendfile", true },
	{ SYS_msgrcv, "msgrcv", false }, { SYS_msgsnd, "msgsnd", false },
	{ SYS_semop, "semop", false }, { SYS_semtimedop, "semtimedop", false },
	{ SYS_mq_timedreceive, "mq_timedreceive", true },
	{ SYS_mq_timedsend, "mq_timedsend", true },
	{ SYS_rt_sigtimedwait, "sigtimedwait", false }, { SYS_rt_sigsuspend, "sigsuspend", false },
	{ SYS_pause, "pause", false },
};

const char *cts_syscall_name(long nr)
{
	for (size_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (syscalls[i].nr == nr)
			return syscalls[i].name;
	return "syscall";
}

bool cts_syscall_waits_signal(long nr)
{
	return nr == SYS_rt_sigtimedwait || nr == SYS_rt_sigsuspend || nr == SYS_pause;
}

bool cts_syscall_has_fd(long nr)
{
	for (size_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (syscalls[i].nr == nr)
			return syscalls[i].fd;
	return false;
}

bool cts_op_is_kernel(cts_op op)
{
	return op == CTS_OP_SIGNAL || op == CTS_OP_SIGWAIT || op == CTS_OP_SIGSUSPEND ||
	       op == CTS_OP_IO || op == CTS_OP_IO_RETURN;
}

static bool overlap(const struct cts_event *a, const struct cts_event *b)
{
	uint64_t as = a->size ? a->size : 1, bs = b->size ? b->size : 1;
	return a->obj < b->obj + bs && b->obj < a->obj + as;
}

/* Objects a sync op touches: cond ops also touch their mutex. */
static bool sync_objects_meet(const struct cts_event *a, const struct cts_event *b)
{
	uint64_t ao[2] = { a->obj, 0 }, bo[2] = { b->obj, 0 };
	if (a->op == CTS_OP_COND_WAIT || a->op == CTS_OP_COND_REACQUIRE)
		ao[1] = a->obj2;
	if (b->op == CTS_OP_COND_WAIT || b->op == CTS_OP_COND_REACQUIRE)
		bo[1] = b->obj2;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (ao[i] && ao[i] == bo[j])
				return true;
	return false;
}

bool cts_event_dependent(const struct cts_event *a, const struct cts_event *b)
{
	if (a->tid == b->tid)
		return true;
	if ((a->op == CTS_OP_CREATE && a->target == b->tid) ||
	    (b->op == CTS_OP_CREATE && b->target == a->tid))
		return true;
	if ((a->op == CTS_OP_JOIN && a->target == b->tid) ||
	    (b->op == CTS_OP_JOIN && b->target == a->tid))
		return true;
	/* A cancel changes what its target does next. */
	if ((a->op == CTS_OP_CANCEL && a->target == b->tid) ||
	    (b->op == CTS_OP_CANCEL && b->target == a->tid))
		return true;
	if (a->op == CTS_OP_PROC_EXIT || b->op == CTS_OP_PROC_EXIT)
		return true;
	/* An allocation whose block is not known yet (pending) touches nothing. */
	if ((a->op == CTS_OP_ALLOC && !a->obj) || (b->op == CTS_OP_ALLOC && !b->obj))
		return false;
	if (cts_op_is_range(a->op) && cts_op_is_range(b->op))
		return (cts_op_is_write(a->op) || cts_op_is_write(b->op)) && overlap(a, b);
	/* A futex word is also plain memory: a store to it is what a waiter checks. */
	if ((cts_op_is_range(a->op) && (b->op == CTS_OP_FUTEX_WAIT || b->op == CTS_OP_FUTEX_WAKE)) ||
	    (cts_op_is_range(b->op) && (a->op == CTS_OP_FUTEX_WAIT || a->op == CTS_OP_FUTEX_WAKE)))
		return (cts_op_is_write(a->op) || cts_op_is_write(b->op)) && overlap(a, b);
	if (cts_op_is_sync(a->op) && cts_op_is_sync(b->op))
		return sync_objects_meet(a, b);
	return cts_op_is_kernel(a->op) && cts_op_is_kernel(b->op);
}

char *cts_event_str(const struct cts_event *ev, char *buf, size_t len)
{
	switch (ev->op) {
	case CTS_OP_CREATE:
	case CTS_OP_JOIN:
	case CTS_OP_CANCEL:
		if (ev->target >= 0) {
			snprintf(buf, len, "%s thread %d", cts_op_name(ev->op), ev->target);
			break;
		}
		snprintf(buf, len, "%s", cts_op_name(ev->op));
		break;
	case CTS_OP_START:
	case CTS_OP_THREAD_EXIT:
	case CTS_OP_PROC_EXIT:
	case CTS_OP_YIELD:
	case CTS_OP_SLEEP:
		snprintf(buf, len, "%s", cts_op_name(ev->op));
		break;
	case CTS_OP_COND_WAIT:
	case CTS_OP_COND_REACQUIRE:
		snprintf(buf, len, "%s 0x%" PRIx64 " mutex 0x%" PRIx64, cts_op_name(ev->op), ev->obj,
			 ev->obj2);
		break;
	case CTS_OP_READ:
	case CTS_OP_WRITE:
	case CTS_OP_RMW:
	case CTS_OP_ATOMIC:
		snprintf(buf, len, "%s%u 0x%" PRIx64, cts_op_name(ev->op), ev->size * 8, ev->obj);
		break;
	case CTS_OP_SIGNAL:
		if (ev->target >= 0)
			snprintf(buf, len, "signal %" PRIu64 " to thread %d", ev->obj, ev->target);
		else
			snprintf(buf, len, "signal %" PRIu64 " to the process", ev->obj);
		break;
	case CTS_OP_SIGWAIT:
	case CTS_OP_SIGSUSPEND:
		snprintf(buf, len, "%s (set 0x%" PRIx64 ")", cts_op_name(ev->op), ev->value);
		break;
	case CTS_OP_IO:
	case CTS_OP_IO_RETURN:
		if (cts_syscall_has_fd((long)ev->value))
			snprintf(buf, len, "%s %s fd %" PRIu64, cts_op_name(ev->op),
				 cts_syscall_name((long)ev->value), ev->obj);
		else
			snprintf(buf, len, "%s %s", cts_op_name(ev->op), cts_syscall_name((long)ev->value));
		break;
	case CTS_OP_LIB_READ:
	case CTS_OP_LIB_WRITE:
	case CTS_OP_FREE:
	case CTS_OP_ALLOC:
		snprintf(buf, len, "%s %u bytes 0x%" PRIx64 " (%s)", cts_op_name(ev->op), ev->size,
			 ev->obj, ev->fn ? ev->fn : "library call");
		break;
	default:
		snprintf(buf, len, "%s 0x%" PRIx64, cts_op_name(ev->op), ev->obj);
		break;
	}
	return buf;
}

void cts_event_init(struct cts_event *ev, int tid, cts_op op)
{
	memset(ev, 0, sizeof(*ev));
	ev->tid = tid;
	ev->op = op;
	ev->target = -1;
}
