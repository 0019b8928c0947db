/* Handing the held program to another tracer (--gdb, --core): every thread
 * left at its pending operation in a group-stop, cts's patches out of the
 * text, every thread detached. The debugger attaches next; nothing of the
 * program runs in between, because SIGSTOP keeps it stopped. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "models/error.h"
#include "tracer/fault.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/wait.h"

static void unwind_syscall(struct thread *th);

/* A thread that is not in a ptrace-stop (asleep in the kernel, outside
 * the schedule) is stopped with a SIGSTOP of its own. 0, 1 if it is gone,
 * -1 on error; *sig gets a signal it stopped for instead, to pass on. Any
 * stop that comes before the SIGSTOP leaves it pending: it stops the thread
 * once detached. */
static int stop_thread(struct cts_tracer *tr, struct thread *th, int *sig)
{
	int status;
	*sig = 0;
	if (syscall(SYS_tgkill, tr->pid, th->tid, SIGSTOP) != 0)
		return errno == ESRCH ? 1 : -1;
	for (;;) {
		pid_t r = waitpid(th->tid, &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == ECHILD ? 1 : -1;
		struct cts_wait_event ev;
		cts_wait_decode(th->tid, status, &ev);
		th->regs_valid = false;
		switch (ev.kind) {
		case CTS_WEV_EXITED:
		case CTS_WEV_KILLED:
		case CTS_WEV_GONE:
			return 1;
		case CTS_WEV_BREAKPOINT:
			/* ran free into one of our int3s: back onto its instruction */
			if (cts_tr_getregs(th) == 0) {
				struct bp *b = cts_tr_bp_find(tr, th->regs.rip - 1);
				if (b) {
					th->regs.rip = b->entry ? b->entry : b->addr;
					th->regs_dirty = true;
				}
			}
			return 0;
		case CTS_WEV_SECCOMP:
			unwind_syscall(th);
			return 0;
		case CTS_WEV_SIGNAL:
			if (ev.sig != SIGSTOP)
				*sig = ev.sig;
			return 0;
		default: /* a syscall exit, its exit, an event: stopped all the same */
			return 0;
		}
	}
}

/* A thread held at a system call's entry (seccomp stop) is put back before
 * its syscall instruction with the call skipped: detached there, the call
 * would run (a thread at its exit would be gone). */
static void unwind_syscall(struct thread *th)
{
	if (cts_tr_getregs(th) != 0)
		return;
	uint64_t nr = th->regs.orig_rax;
	th->regs.orig_rax = (unsigned long long)-1;
	th->regs.rax = nr;
	th->regs.rip -= 2;
	th->regs_dirty = true;
}

/* Every trap byte and entry jmp cts wrote, put back where the text still
 * holds it (the stub page's own traps stay: no thread is left in it). */
static int restore_text(struct cts_tracer *tr)
{
	int rc = 0;
	for (size_t i = 0; i < tr->bpcap; i++) {
		struct bp *b = &tr->bps[i];
		uint8_t now[5], cc = 0xCC;
		size_t len = b->plen ? b->plen : 1;
		const uint8_t *ours = b->plen ? b->patch : &cc, *orig = b->plen ? b->saved : &b->orig;
		if (!b->addr || b->entry || cts_mem_read(tr->pid, b->addr, now, len) != 0 ||
		    memcmp(now, ours, len) != 0)
			continue;
		if (cts_tr_poke(tr, b->addr, orig, len) != 0)
			rc = -1;
	}
	return rc;
}

__attribute__((format(printf, 2, 3)))
static int fail(struct cts_run_state *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->message, sizeof(st->message), fmt, ap);
	va_end(ap);
	return -1;
}

int cts_tr_release(struct cts_tracer *tr, struct cts_run_state *st, pid_t *tids)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL); /* no ticks into the debugger's session */
	if (tr->pid <= 0 || tr->pid_reaped || kill(tr->pid, 0) != 0)
		return fail(st, "the program has exited: there is no process to hand over");
	/* Processes the program forked are traced by us and would hang. */
	cts_tr_kill_foreign(tr, 0);
	int *sigs = cts_xcalloc((size_t)tr->nlive + 1, sizeof(*sigs));
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *th = tr->live[i];
		if (th->state == TH_DEAD)
			continue;
		if (th->state != TH_HELD) {
			int r = stop_thread(tr, th, &sigs[i]);
			if (r < 0) {
				fail(st, "cannot stop thread %d for the hand-over: %s", th->num,
				     strerror(errno));
				free(sigs);
				return -1;
			}
			if (r > 0) {
				th->state = TH_DEAD;
				continue;
			}
		} else if (th->at == AT_BREAKPOINT) {
			cts_tr_bp_rewind(tr, th);
		} else if (th->at == AT_SYSCALL) {
			unwind_syscall(th);
		}
		/* Anywhere in a stub (its trap, a displaced instruction): the
		 * same state at the libc instruction it stands for. */
		uint64_t orig;
		if (cts_tr_getregs(th) == 0 && (orig = cts_tr_stub_orig_pc(tr, th->regs.rip)) != 0) {
			th->regs.rip = orig;
			th->regs_dirty = true;
		}
	}
	if (restore_text(tr) != 0) {
		fail(st, "cannot restore the program's text: %s", strerror(errno));
		free(sigs);
		return -1;
	}
	int rc = 0;
	/* Every thread's pages and registers as the program's first: the
	 * mprotect mechanism's release runs calls in the thread, which must
	 * not meet the SIGSTOP below (a thread that took it there went on
	 * from another kind of stop and ran on in user space before the
	 * group-stop held it: gdb.t saw its step done, under load). */
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *th = tr->live[i];
		if (th->state == TH_DEAD)
			continue;
		th->stepping_bp = 0;
		cts_hw_clear(th->tid, &th->hw);
		cts_fault_release(tr, th); /* every key allowed: the debugger's program faults on none */
		if (cts_tr_flush_regs(th) != 0 && errno != ESRCH)
			rc = -1;
	}
	/* Queued for the process while every thread is in a ptrace-stop: the
	 * first one detached takes it and the group-stop holds the others as
	 * they are detached (the kernel puts a detached thread into a
	 * group-stop in effect). */
	kill(tr->pid, SIGSTOP);
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *th = tr->live[i];
		if (th->state == TH_DEAD)
			continue;
		if (ptrace(PTRACE_DETACH, th->tid, 0, (void *)(long)sigs[i]) != 0 && errno != ESRCH)
			rc = -1;
		if (th->num < st->nthreads)
			tids[th->num] = th->tid;
		th->state = TH_DEAD; /* ours no more: stop() only kills and reaps */
	}
	free(sigs);
	if (rc != 0) {
		fail(st, "cannot detach from the program: %s", strerror(errno));
		return -1;
	}
	/* The debugger must find every thread stopped (bounded: 5 s). */
	for (int tries = 0; tries < 5000; tries++) {
		bool all = true;
		for (int i = 0; i < tr->nlive && all; i++) {
			char s = cts_proc_state(tr->live[i]->tid);
			all = s == 0 || s == 'T' || s == 'Z' || s == 'X';
		}
		if (all)
			return tr->pid;
		usleep(1000);
	}
	return fail(st, "the program did not stop after the detach");
}
