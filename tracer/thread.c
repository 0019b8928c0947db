/* Thread control blocks of the live backend: lookup, creation, the cached
 * registers, holding a thread at its next visible operation and resuming it.
 * The bottom layer: it calls nothing else in tracer/. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include "models/error.h"
#include "models/event.h"
#include "tracer/fault.h"
#include "tracer/proc.h"
#include "tracer/tracer_int.h"

static volatile sig_atomic_t user_interrupt;

/* From a signal handler: SIGINT/SIGTERM. Every loop of the tracer that can
 * last (the event pump, planting breakpoints, scanning code, start-up
 * phases) looks at cts_tr_interrupted(), so an interrupt is served within
 * milliseconds. */
void cts_tracer_interrupt(void)
{
	user_interrupt = 1;
}

bool cts_tr_interrupted(void)
{
	return user_interrupt != 0;
}

struct thread *cts_tr_by_tid(struct cts_tracer *tr, pid_t tid)
{
	for (int i = tr->nlive - 1; i >= 0; i--)
		if (tr->live[i]->tid == tid)
			return tr->live[i];
	return NULL;
}

struct thread *cts_tr_by_num(struct cts_tracer *tr, int num)
{
	int lo = 0, hi = tr->nlive;
	while (lo < hi) {   /* live is in creation order */
		int mid = (lo + hi) / 2;
		if (tr->live[mid]->num < num)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tr->nlive && tr->live[lo]->num == num ? tr->live[lo] : NULL;
}

void cts_tr_reaped(struct cts_tracer *tr, struct thread *th)
{
	int i = tr->nlive - 1;
	while (i >= 0 && tr->live[i] != th)
		i--;
	if (i < 0)
		return;
	memmove(tr->live + i, tr->live + i + 1, (size_t)(tr->nlive - i - 1) * sizeof(*tr->live));
	tr->nlive--;
	if (th->handle) {
		/* glibc reuses descriptors: one entry per handle, the newest. */
		int k = 0;
		while (k < tr->ndead_handles && tr->dead_handles[k].handle != th->handle)
			k++;
		if (k == tr->ndead_handles) {
			if ((size_t)k >= tr->dead_handle_cap) {
				size_t cap = cts_grow_cap(tr->dead_handle_cap, (size_t)k + 1);
				tr->dead_handles = cts_xgrow(tr->dead_handles, tr->dead_handle_cap, cap,
							     sizeof(*tr->dead_handles));
				tr->dead_handle_cap = cap;
			}
			tr->ndead_handles++;
		}
		tr->dead_handles[k] = (struct handle_num){ th->handle, th->num };
	}
	if ((size_t)tr->nreaped >= tr->reapcap) {
		size_t cap = cts_grow_cap(tr->reapcap, (size_t)tr->nreaped + 1);
		tr->reaped = cts_xgrow(tr->reaped, tr->reapcap, cap, sizeof(*tr->reaped));
		tr->reapcap = cap;
	}
	tr->reaped[tr->nreaped++] = th;
}

void cts_tr_free_reaped(struct cts_tracer *tr)
{
	for (int i = 0; i < tr->nreaped; i++) {
		free(tr->reaped[i]->pf_insns);
		free(tr->reaped[i]);
	}
	tr->nreaped = 0;
}

void cts_tr_free_threads(struct cts_tracer *tr)
{
	cts_tr_free_reaped(tr);
	for (int i = 0; i < tr->nlive; i++) {
		free(tr->live[i]->pf_insns);
		free(tr->live[i]);
	}
	tr->nlive = 0;
	tr->nthreads = 0;
	tr->ndead_handles = 0;
	tr->nearly = 0;
	tr->running = NULL;
}

void cts_tr_add_early(struct cts_tracer *tr, pid_t tid)
{
	if ((size_t)tr->nearly >= tr->earlycap) {
		size_t cap = cts_grow_cap(tr->earlycap, (size_t)tr->nearly + 1);
		tr->early = cts_xgrow(tr->early, tr->earlycap, cap, sizeof(*tr->early));
		tr->earlycap = cap;
	}
	tr->early[tr->nearly++] = tid;
}

int cts_tr_getregs(struct thread *th)
{
	if (th->regs_valid)
		return 0;
	if (ptrace(PTRACE_GETREGS, th->tid, 0, &th->regs) != 0)
		return -1;
	th->regs_valid = true;
	return 0;
}

int cts_tr_setregs(struct thread *th)
{
	th->regs_dirty = false;
	return ptrace(PTRACE_SETREGS, th->tid, 0, &th->regs);
}

/* A breakpoint hit only rewinds rip in the cached registers: most hits are
 * then emulated (one SETREGS with the final rip), so the rewind is written
 * only when the thread really resumes at the breakpoint. */
int cts_tr_flush_regs(struct thread *th)
{
	if (!th->regs_dirty)
		return 0;
	if (cts_tr_setregs(th) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

void cts_tr_set_error(struct cts_tracer *tr, const char *fmt, ...)
{
	va_list ap;
	if (!tr->st || tr->st->status != CTS_RUN_ACTIVE)
		return;
	va_start(ap, fmt);
	vsnprintf(tr->st->message, sizeof(tr->st->message), fmt, ap);
	va_end(ap);
	tr->st->status = CTS_RUN_ERROR;
}

/* Publish a thread's state to the explorer's view. */
void cts_tr_publish(struct cts_tracer *tr, struct thread *th)
{
	struct cts_thread_view *v = cts_run_state_thread(tr->st, th->num);
	if (!v)
		return;   /* not created: cts_tr_new_thread checked the limit */
	v->alive = th->state != TH_DEAD;
	v->blocked = th->fblocked || th->sys_blocked;
	/* Asleep in the kernel: may come back with no step (the backend's wait). */
	v->outside = th->state == TH_OUTSIDE;
	v->pending = th->pending;
}

/* The thread stops here, at its next visible operation. */
void cts_tr_hold(struct cts_tracer *tr, struct thread *th, enum held_at at)
{
	th->state = TH_HELD;
	th->at = at;
	cts_fault_held(tr, th);
	th->in_call = false;
	th->sys_blocked = false;
	th->pending.tid = th->num;
	cts_tr_publish(tr, th);
}

/* Let th run on (single-stepping in step mode) to its next stop. A thread
 * stopped by a signal in the middle of a step over a displaced instruction
 * goes on stepping: continued, it would run past the breakpoint left
 * unplanted. ESRCH is not an error: the thread is gone and its exit comes
 * through wait. */
int cts_tr_resume(struct cts_tracer *tr, struct thread *th, int sig)
{
	if (cts_tr_flush_regs(th) != 0)
		return -1;
	bool sys = false;
	if (th->sys_entry) {
		/* Out of a seccomp stop: a call that may touch the program's
		 * memory runs with every key allowed, up to its exit stop. */
		th->sys_entry = false;
		sys = th->regs_valid && (long)th->regs.orig_rax >= 0 &&
		      cts_fault_sys_enter(tr, th, (long)th->regs.orig_rax);
	}
	if (cts_fault_resume(tr, th, &sig) != 0)
		return -1;
	th->regs_valid = false;
	th->state = TH_RUNNING;
	/* stepping_over: a key fault in a step the tracer decided reruns as
	 * that step (every key open for it, closed at its SINGLESTEP stop);
	 * resumed with CONT, the thread ran on with every key open. */
	bool step = th->stepping || th->stepping_bp || th->after_step || th->stepping_over;
	int req = step ? PTRACE_SINGLESTEP :
		  tr->trace_syscalls || sys || th->pf_installing || th->flt_exit_apply ? PTRACE_SYSCALL :
		  PTRACE_CONT;
	if (ptrace(req, th->tid, 0, (void *)(long)sig) != 0) {
		if (errno == ESRCH)
			return 0; /* gone: its exit status comes through wait */
		return -1;
	}
	return 0;
}

struct thread *cts_tr_new_thread(struct cts_tracer *tr, pid_t tid)
{
	if (tr->st && tr->nthreads >= cts_run_state_limit(tr->st))
		return NULL;
	if ((size_t)tr->nlive >= tr->livecap) {
		size_t cap = cts_grow_cap(tr->livecap, (size_t)tr->nlive + 1);
		tr->live = cts_xgrow(tr->live, tr->livecap, cap, sizeof(*tr->live));
		tr->livecap = cap;
	}
	struct thread *th = cts_xcalloc(1, sizeof(*th));
	tr->live[tr->nlive++] = th;
	th->tid = tid;
	th->num = tr->nthreads++;
	th->state = TH_NEW;
	th->watch_idx = -1;
	/* The run's first thread has the filters the run starts with; a later
	 * one its creator's (the clone event sets them). */
	th->pf_head = th->num == 0 ? tr->pf_start : -1;
	cts_event_init(&th->pending, th->num, CTS_OP_START);
	return th;
}

/* glibc reuses a dead thread's descriptor (and so its pthread_t) for a new
 * thread: the newest thread with that handle is the one meant. */
int cts_tr_num_of_handle(struct cts_tracer *tr, uint64_t handle)
{
	for (int i = tr->nlive - 1; i >= 0; i--)
		if (tr->live[i]->handle == handle)
			return tr->live[i]->num;
	/* A live thread with the handle is newer than any reaped one (glibc
	 * reuses a descriptor only once its thread is gone). */
	for (int i = 0; i < tr->ndead_handles; i++)
		if (tr->dead_handles[i].handle == handle)
			return tr->dead_handles[i].num;
	return -1;
}

/* Text writes go through PTRACE_POKEDATA, which needs a stopped thread of
 * the process; the leader may be asleep in a system call, outside the
 * schedule, or gone: then any thread we hold will do. */
int cts_tr_poke(struct cts_tracer *tr, uint64_t addr, const void *buf, size_t len)
{
	if (cts_mem_write(tr->pid, addr, buf, len) == 0)
		return 0;
	if (errno != ESRCH)
		return -1;
	if (tr->running && cts_mem_write(tr->running->tid, addr, buf, len) == 0)
		return 0;
	for (int i = 0; i < tr->nlive; i++)
		if (tr->live[i]->state == TH_HELD && cts_mem_write(tr->live[i]->tid, addr, buf, len) == 0)
			return 0;
	/* attach mode: no thread need be stopped but the one at hand */
	return cts_mem_pwrite(tr->pid, addr, buf, len);
}
