/* The futex model and the seccomp syscall stops. No thread ever blocks in a
 * futex in the kernel: a futex wait that would block is held at its
 * syscall-entry stop (parked) and its wake is emulated here, so a run never
 * depends on timing. Signals and calls that may sleep go to syscall.c. */
#include <errno.h>
#include <stdint.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include "models/objmodel.h"
#include "tracer/access.h"
#include "tracer/native.h"
#include "tracer/pfilter.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"

/* th is gone (exited or killed): anything joining it is woken. */
void cts_tr_mark_dead(struct cts_tracer *tr, struct thread *th)
{
	th->state = TH_DEAD;
	th->fblocked = false;
	cts_tr_publish(tr, th);
	cts_access_threads_changed(tr);
	/* The kernel's exit-time wake never passes through our futex model. */
	if (th->handle && th->tid != tr->pid)
		cts_tr_futex_wake(tr, th->handle + GLIBC_TID_OFFSET, INT32_MAX);
}

void cts_tr_skip_syscall(struct thread *th, long ret)
{
	th->regs.orig_rax = (unsigned long long)-1;
	th->regs.rax = (unsigned long long)ret;
	cts_tr_setregs(th);
}

/* Wake up to n threads parked on uaddr, oldest first. */
int cts_tr_futex_wake(struct cts_tracer *tr, uint64_t uaddr, int n)
{
	int woken = 0;
	while (woken < n) {
		struct thread *best = NULL;
		for (int i = 0; i < tr->nlive; i++) {
			struct thread *w = tr->live[i];
			if (w->state == TH_HELD && w->fblocked && w->fwait_addr == uaddr &&
			    (!best || w->fseq < best->fseq))
				best = w;
		}
		if (!best)
			break;
		best->fblocked = false;
		best->fwoken = true;
		if (best->pending.op == CTS_OP_COND_REACQUIRE)
			cts_objmodel_cond_woken(tr->model, best->num);
		cts_tr_publish(tr, best);
		woken++;
	}
	return woken;
}

static int futex_requeue(struct cts_tracer *tr, uint64_t from, uint64_t to, int n)
{
	int moved = 0;
	for (int i = 0; i < tr->nlive && moved < n; i++) {
		struct thread *w = tr->live[i];
		if (w->state == TH_HELD && w->fblocked && w->fwait_addr == from) {
			w->fwait_addr = to;
			moved++;
		}
	}
	return moved;
}

static bool internal_addr(const struct cts_tracer *tr, struct thread *th, uint64_t a)
{
	if (!cts_tr_in_call(tr, th))
		return false;
	for (int i = 0; i < 2; i++)
		if (a >= th->call_lo[i] && a < th->call_hi[i])
			return true;
	return false;
}

void cts_tr_park(struct cts_tracer *tr, struct thread *th, uint64_t uaddr, bool timed)
{
	th->fblocked = true;
	th->fwoken = false;
	th->fwait_addr = uaddr;
	th->fseq = ++tr->fseq;
	th->pending.timed = timed;
}

/* A futex syscall at its seccomp stop. Returns after either holding the
 * thread or letting it go on. */
static int on_futex(struct cts_tracer *tr, struct thread *th)
{
	uint64_t uaddr = th->regs.rdi;
	int cmd = (int)(th->regs.rsi & FUTEX_CMD_MASK);
	uint32_t val = (uint32_t)th->regs.rdx;
	bool timed = th->regs.r10 != 0;
	bool internal = internal_addr(tr, th, uaddr);

	tr->stats.futex_calls++;
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET: {
		if (!internal) {
			cts_event_init(&th->pending, th->num, CTS_OP_FUTEX_WAIT);
			th->pending.obj = uaddr;
			th->pending.value = val;
			th->pending.timed = timed;
			th->pending.pc = th->regs.rip;
			cts_tr_hold(tr, th, AT_SYSCALL);
			return 0;
		}
		uint32_t cur;
		if (cts_mem_read(th->tid, uaddr, &cur, 4) == 0 && cur != val) {
			cts_tr_skip_syscall(th, -EAGAIN);
			return cts_tr_resume(tr, th, 0);
		}
		/* Parked inside a pthread call: what it does when woken. */
		struct cts_event last = th->pending;
		uint64_t pc = last.pc;
		if (last.op == CTS_OP_COND_WAIT || last.op == CTS_OP_COND_REACQUIRE) {
			/* value 0: parked on the condition (glibc's post-wake
			 * bookkeeping runs first, without the mutex); value 1:
			 * parked on the mutex itself, which it needs free. */
			cts_event_init(&th->pending, th->num, CTS_OP_COND_REACQUIRE);
			th->pending.obj = last.obj;
			th->pending.obj2 = last.obj2;
			th->pending.value = last.op == CTS_OP_COND_REACQUIRE;
		} else {
			cts_event_init(&th->pending, th->num, CTS_OP_RESUME);
			th->pending.obj = last.obj;
		}
		th->pending.pc = pc;
		cts_tr_park(tr, th, uaddr, timed);
		bool in_call = th->in_call;
		cts_tr_hold(tr, th, AT_SYSCALL);
		th->in_call = in_call; /* still inside the same call when it resumes */
		cts_tr_publish(tr, th);
		return 0;
	}
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		if (!internal) {
			cts_event_init(&th->pending, th->num, CTS_OP_FUTEX_WAKE);
			th->pending.obj = uaddr;
			th->pending.value = val;
			th->pending.pc = th->regs.rip;
			cts_tr_hold(tr, th, AT_SYSCALL);
			return 0;
		}
		cts_tr_skip_syscall(th, cts_tr_futex_wake(tr, uaddr, (int)val));
		return cts_tr_resume(tr, th, 0);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE: {
		if (cmd == FUTEX_CMP_REQUEUE) {
			uint32_t cur;
			if (cts_mem_read(th->tid, uaddr, &cur, 4) == 0 && cur != (uint32_t)th->regs.r9) {
				cts_tr_skip_syscall(th, -EAGAIN);
				return cts_tr_resume(tr, th, 0);
			}
		}
		int woken = cts_tr_futex_wake(tr, uaddr, (int)val);
		int moved = futex_requeue(tr, uaddr, th->regs.r8, (int)th->regs.r10);
		cts_tr_skip_syscall(th, woken + moved);
		return cts_tr_resume(tr, th, 0);
	}
	case FUTEX_WAKE_OP:
		/* The kernel does the operation on uaddr2; waking is ours, and a
		 * spurious wake of uaddr2's waiters is allowed by futex semantics. */
		cts_tr_futex_wake(tr, uaddr, (int)val);
		cts_tr_futex_wake(tr, th->regs.r8, (int)th->regs.r10);
		return cts_tr_resume(tr, th, 0);
	default:
		return cts_tr_resume(tr, th, 0);
	}
}

int cts_tr_on_seccomp(struct cts_tracer *tr, struct thread *th)
{
	if (cts_tr_getregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	long nr = (long)th->regs.orig_rax;
	cts_op op;
	th->sys_entry = true;
	if (th->pf_head >= 0 && cts_pf_wants_tracer(tr, th)) {
		/* Its own filter hands the call to a tracer: natively there is
		 * none, and the call fails. */
		cts_tr_skip_syscall(th, -ENOSYS);
		return cts_tr_resume(tr, th, 0);
	}
	if ((nr == SYS_seccomp || nr == SYS_prctl) && cts_pf_is_install(th))
		return cts_pf_on_install(tr, th);

	switch (nr) {
	case SYS_futex:
		return on_futex(tr, th);
	case SYS_exit:
		op = CTS_OP_THREAD_EXIT;
		break;
	case SYS_exit_group:
		if (th->in_proc_exit || tr->proc_exiting) {
			tr->proc_exiting = true;
			return cts_tr_resume(tr, th, 0);
		}
		op = CTS_OP_PROC_EXIT;
		break;
	case SYS_sched_yield:
		op = CTS_OP_YIELD;
		break;
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		op = CTS_OP_SLEEP;
		break;
	case SYS_clone:
	case SYS_clone3: /* the clone event follows */
		return cts_tr_resume(tr, th, 0);
	case SYS_getrandom:
		return cts_tr_on_getrandom(tr, th);
	case SYS_sched_getaffinity:
	case SYS_sched_setaffinity:
	case SYS_personality: {
		long ret;
		if (cts_view_call(tr->view, th->tid, &th->regs, &ret))
			cts_tr_skip_syscall(th, ret);
		return cts_tr_resume(tr, th, 0);
	}
	default:
		return cts_tr_sys_entry(tr, th, nr);
	}
	cts_event_init(&th->pending, th->num, op);
	th->pending.pc = th->regs.rip;
	cts_tr_hold(tr, th, AT_SYSCALL);
	return 0;
}
