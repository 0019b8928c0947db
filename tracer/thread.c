/* Thread control blocks of the live backend: lookup, creation, the cached
 * registers, holding a thread at its next visible operation and resuming it.
 * The bottom layer: it calls nothing else in tracer/. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include "models/event.h"
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
	for (int i = 0; i < tr->nthreads; i++)
		if (tr->th[i].tid == tid)
			return &tr->th[i];
	return NULL;
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
	struct cts_thread_view *v = &tr->st->t[th->num];
	v->alive = th->state != TH_DEAD;
	v->blocked = th->fblocked || th->sys_blocked;
	/* Asleep in the kernel: may come back with no step (the backend's wait). */
	v->outside = th->state == TH_OUTSIDE;
	v->pending = th->pending;
	if (th->num >= tr->st->nthreads)
		tr->st->nthreads = th->num + 1;
}

/* The thread stops here, at its next visible operation. */
void cts_tr_hold(struct cts_tracer *tr, struct thread *th, enum held_at at)
{
	th->state = TH_HELD;
	th->at = at;
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
	(void)tr;
	if (cts_tr_flush_regs(th) != 0)
		return -1;
	th->regs_valid = false;
	th->state = TH_RUNNING;
	bool step = th->stepping || th->stepping_bp || th->after_step;
	if (ptrace(step ? PTRACE_SINGLESTEP : PTRACE_CONT, th->tid, 0, (void *)(long)sig) != 0) {
		if (errno == ESRCH)
			return 0; /* gone: its exit status comes through wait */
		return -1;
	}
	return 0;
}

struct thread *cts_tr_new_thread(struct cts_tracer *tr, pid_t tid)
{
	if (tr->nthreads >= CTS_MAX_THREADS)
		return NULL;
	struct thread *th = &tr->th[tr->nthreads];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->num = tr->nthreads++;
	th->state = TH_NEW;
	th->watch_idx = -1;
	cts_event_init(&th->pending, th->num, CTS_OP_START);
	return th;
}

/* glibc reuses a dead thread's descriptor (and so its pthread_t) for a new
 * thread: the newest thread with that handle is the one meant. */
struct thread *cts_tr_handle_of(struct cts_tracer *tr, uint64_t handle)
{
	for (int i = tr->nthreads - 1; i >= 0; i--)
		if (tr->th[i].handle == handle)
			return &tr->th[i];
	return NULL;
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
	for (int i = 0; i < tr->nthreads; i++)
		if (tr->th[i].state == TH_HELD && cts_mem_write(tr->th[i].tid, addr, buf, len) == 0)
			return 0;
	return -1;
}
