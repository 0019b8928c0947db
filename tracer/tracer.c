/* Live backend: launches the program under ptrace and runs exactly one thread
 * at a time from one visible operation to the next.
 *
 * Visible operations are caught three ways: int3 on libc's pthread entry
 * points (and on the program's memory accesses in break mode), seccomp
 * SECCOMP_RET_TRACE stops for futex/clone/exit/yield/sleeps, signals and
 * calls that may sleep (syscall.c), and ptrace events for thread creation
 * and exit. This file holds the backend's
 * operations (start, step, stop, describe) and its lifetime; the machinery
 * is split by concern (docs/design.md, "tracer/ layering"). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/user.h>
#include <jansson.h>
#include "models/error.h"
#include "models/symbolize.h"
#include "tracer/native.h"
#include "tracer/context.h"
#include "tracer/cpu.h"
#include "tracer/access.h"
#include "tracer/catch.h"
#include "tracer/cold.h"
#include "tracer/fault.h"
#include "tracer/own.h"
#include "tracer/lcret.h"
#include "tracer/elf.h"
#include "tracer/isolate.h"
#include "tracer/proc.h"
#include "tracer/pfilter.h"
#include "tracer/run_int.h"
#include "tracer/spinstate.h"
#include "tracer/tracer.h"

/* Fresh overlays for the run to come (tracer/isolate.h). */
static int isolate_run(struct cts_tracer *tr)
{
	if (!tr->cfg.iso || cts_iso_reset(tr->cfg.iso) == 0)
		return 0;
	cts_tr_set_error(tr, "cannot isolate the run (fresh overlays on %s): %s",
			 cts_iso_describe(tr->cfg.iso), strerror(errno));
	return -1;
}

/* A run's process from the fork server, working in its fresh overlays: it
 * inherits the server's working directory, moved into them (an injected
 * chdir) whenever they were mounted afresh. -1: no fork (exec instead);
 * -2: an error. */
static pid_t fork_run(struct cts_tracer *tr)
{
	struct cts_iso *iso = tr->cfg.iso;
	if (isolate_run(tr) != 0)
		return -2;
	if (iso && tr->server_iso_gen != cts_iso_generation(iso)) {
		if (cts_iso_chdir_tracee(iso, tr->server, &tr->server_regs, tr->stub_syscall) != 0) {
			cts_tr_set_error(tr, "cannot move the fork server into the isolated working "
					 "directory: %s", strerror(errno));
			return -2;
		}
		tr->server_iso_gen = cts_iso_generation(iso);
	}
	return cts_tr_fork_from_server(tr);
}

/* A report's re-run (tr->mute) of a program whose output is shown: its
 * stdout and stderr go to /dev/null, so the output is shown once. openat,
 * dup2 and close injected into the process stopped at regs (the path below
 * its stack's red zone, the bytes there put back). */
static int silence_output(struct cts_tracer *tr, const struct user_regs_struct *regs)
{
	static const char path[] = "/dev/null";
	uint64_t at = (regs->rsp - 256 - sizeof(path)) & ~15ull;
	char saved[sizeof(path)];
	int64_t fd = -1, r1 = -1, r2 = -1, rc;
	if (cts_mem_read(tr->pid, at, saved, sizeof(path)) != 0 ||
	    cts_mem_write_data(tr->pid, at, path, sizeof(path)) != 0)
		return -1;
	const uint64_t open_args[6] = { (uint64_t)AT_FDCWD, at, O_WRONLY | O_CLOEXEC };
	int ok = cts_inject_syscall(tr->pid, regs, tr->stub_syscall, SYS_openat, open_args, &fd);
	cts_mem_write_data(tr->pid, at, saved, sizeof(path));
	if (ok != 0 || fd < 0)
		return -1;
	const uint64_t to1[6] = { (uint64_t)fd, 1 }, to2[6] = { (uint64_t)fd, 2 },
		       cl[6] = { (uint64_t)fd };
	if (cts_inject_syscall(tr->pid, regs, tr->stub_syscall, SYS_dup2, to1, &r1) != 0 ||
	    cts_inject_syscall(tr->pid, regs, tr->stub_syscall, SYS_dup2, to2, &r2) != 0 ||
	    cts_inject_syscall(tr->pid, regs, tr->stub_syscall, SYS_close, cl, &rc) != 0)
		return -1;
	return r1 == 1 && r2 == 2 ? 0 : -1;
}

static int start_run(void *be, struct cts_run_state *st)
{
	struct cts_tracer *tr = be;
	struct user_regs_struct regs;

	tr->st = st;
	cts_tr_free_threads(tr);
	tr->proc_exiting = false;
	tr->exec_free = false;
	tr->self_sig = 0;
	tr->cancel_seen = false;
	tr->access_armed = false; /* a new process: its text has no gated int3 */
	tr->fseq = 0;
	tr->entropy = 0x6374732d74726163ull; /* every run draws the same bytes */
	cts_catch_run_start(tr); /* before the fork server is synced */
	if (tr->cold)
		cts_cold_begin_run(tr->cold);
	if (tr->own)
		cts_own_begin_run(tr->own, st);
	cts_tr_sys_reset(tr);
	cts_tr_clear_alarm();
	st->status = CTS_RUN_ACTIVE;
	tr->pf_start = cts_pf_begin_run(tr->pf, st);
	cts_access_run_start(tr);

	if (tr->server) {
		cts_lcret_plant_sites(tr, tr->server); /* learned in the last run */
		cts_tr_bp_sync_server(tr);
		pid_t child = fork_run(tr);
		if (child > 0) {
			tr->pid = child;
			regs = tr->server_regs;
			goto ready;
		}
		if (child == -2)
			return -1;
		cts_debug_msg("fork server failed; exec'ing every run from now on");
		cts_tr_stop_server(tr);
		tr->no_server = true;
	}
	if (isolate_run(tr) != 0 || cts_tr_launch(tr, &regs) != 0)
		return -1;
	if (!tr->main_known) {
		const char *names[1] = { "main" };
		uint64_t v = 0;
		struct cts_elf_info info;
		char err[256];
		tr->main_known = true;
		if (cts_elf_lookup(tr->image, names, 1, &v, NULL) == 1 && v &&
		    cts_elf_check(tr->image, &info, err, sizeof(err)) == CTS_ELF_OK)
			tr->main_addr = v + (info.pie ? tr->exe_base : 0);
	}
	int r = tr->no_main ? 1 : cts_tr_run_to_main(tr, &regs);
	if (r < 0)
		return -1;
	if (r > 0 && !tr->no_main && tr->main_addr) {
		/* Threads before main: start over, scheduling from the entry point. */
		tr->no_main = true;
		cts_tr_kill_and_reap(tr);
		return start_run(be, st);
	}
	if (r == 0 && !tr->no_server && !tr->server && cts_tr_become_server(tr, &regs)) {
		/* Again: what the server's start-up wrote reaches no run. */
		tr->server_iso_gen = 0;
		/* Filters the program installed before main are every run's. */
		cts_pf_set_base(tr->pf, tr->pf_start);
		cts_fault_server_setup(tr);
		pid_t child = fork_run(tr);
		if (child == -2)
			return -1;
		if (child <= 0) {
			cts_tr_stop_server(tr);
			tr->no_server = true;
			return start_run(be, st);
		}
		tr->pid = child;
	}
ready:
	if (tr->mute && tr->cfg.show_output && silence_output(tr, &regs) != 0)
		cts_debug_msg("a report's re-run shows the program's output again: %s",
			      strerror(errno));
	struct thread *main_th = cts_tr_new_thread(tr, tr->pid);
	main_th->regs = regs;
	main_th->regs_valid = true;
	main_th->handle = regs.fs_base;
	main_th->pending.pc = regs.rip;
	if (tr->acc)
		cts_access_watch_thread(tr, main_th);
	if (tr->flt && cts_fault_setup(tr, main_th) != 0)
		return -1;
	cts_tr_hold(tr, main_th, AT_START);
	tr->run_started = cts_tr_run_clock(tr);
	return 0;
}

/* An interrupt during start-up (exec, scanning code, planting breakpoints,
 * the program's own start-up code) ends the run as interrupted at once, not
 * as an error; stop() kills whatever was started. */
static int tr_start(void *be, struct cts_run_state *st)
{
	/* A periodic tick: the run's wall-clock limit, the time slice after
	 * which a thread that reaches no visible operation is probed for a spin,
	 * and a wake-up for every wait, so an interrupt that lands just before
	 * one (start-up included) is seen within a tick. */
	struct cts_tracer *tr = be;
	struct timeval slice = { tr->slice_us / 1000000, tr->slice_us % 1000000 };
	struct itimerval it = { slice, slice };
	setitimer(ITIMER_REAL, &it, NULL);
	int rc = start_run(be, st);
	if (cts_tr_interrupted()) {
		st->status = CTS_RUN_INTERRUPTED;
		snprintf(st->message, sizeof(st->message), "interrupted");
		return 0;
	}
	return rc;
}

static int step_one(void *be, struct cts_run_state *st, int tid, bool give_up,
		    struct cts_event *done)
{
	struct cts_tracer *tr = be;
	cts_tr_free_reaped(tr);
	struct thread *th = cts_tr_by_num(tr, tid);
	bool libcall = false;
	int rc = 0;

	tr->st = st;
	if (!th) {
		cts_tr_set_error(tr, "thread %d is gone", tid);
		return -1;
	}
	*done = th->pending;
	tr->running = th;
	tr->step_started = cts_tr_run_clock(tr);
	tr->last_created = -1;
	if (th->state != TH_HELD) {
		cts_tr_set_error(tr, "thread %d is not held (state %d)", tid, th->state);
		return -1;
	}
	switch (th->at) {
	case AT_START:
		rc = cts_tr_resume(tr, th, 0);
		break;
	case AT_BREAKPOINT:
		if (th->pending.op == CTS_OP_PROC_EXIT)
			th->in_proc_exit = true;
		if (cts_op_is_access(th->pending.op)) {
			rc = cts_access_execute(tr, th, done);
			break;
		}
		if (cts_op_is_libcall(th->pending.op)) {
			rc = cts_tr_libcall_execute(tr, th);
			if (rc > 0) {
				/* the call's next range event: th has not moved */
				tr->running = NULL;
				return 0;
			}
			libcall = true;
			break;
		}
		if (th->pending.op == CTS_OP_PROC_EXIT)
			th->stepping = false;
		if (cts_op_is_sync(th->pending.op) || th->pending.op == CTS_OP_JOIN)
			cts_tr_enter_call(tr, th);
		rc = cts_tr_step_over_at(tr, th, th->bp_addr);
		break;
	case AT_STEP:
		rc = cts_access_execute(tr, th, done);
		break;
	case AT_SYSEXIT: /* io_return */
		rc = cts_tr_resume(tr, th, 0);
		break;
	case AT_SYSCALL:
		if (cts_tr_getregs(th) != 0) {
			rc = errno == ESRCH ? 0 : -1;
			break;
		}
		switch (th->pending.op) {
		case CTS_OP_THREAD_EXIT:
			th->exit_taken = true;
			rc = cts_access_threads_changed(tr);
			if (rc == 0)
				rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_PROC_EXIT:
			tr->proc_exiting = true;
			rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_YIELD:
		case CTS_OP_SLEEP:
			cts_tr_skip_syscall(th, 0);
			rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_FUTEX_WAIT:
			if (th->sig_interrupt) {
				th->sig_interrupt = false;
				done->result = EINTR;
				cts_tr_skip_syscall(th, -EINTR);
			} else if (th->fwoken) {
				th->fwoken = false;
				cts_tr_skip_syscall(th, 0);
			} else if (give_up) {
				done->result = ETIMEDOUT;
				cts_tr_skip_syscall(th, -ETIMEDOUT);
			} else {
				uint32_t cur;
				if (cts_mem_read(th->tid, th->pending.obj, &cur, 4) == 0 &&
				    cur == (uint32_t)th->pending.value) {
					/* Really waits: parked until a wake on this word. */
					cts_tr_park(tr, th, th->pending.obj, th->pending.timed);
					done->result = 1;
					cts_tr_publish(tr, th);
					return 0;
				}
				done->result = EAGAIN;
				cts_tr_skip_syscall(th, -EAGAIN);
			}
			rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_FUTEX_WAKE:
			done->result = cts_tr_futex_wake(tr, th->pending.obj, (int)th->pending.value);
			cts_tr_skip_syscall(th, done->result);
			rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_SIGNAL:
		case CTS_OP_SIGWAIT:
		case CTS_OP_SIGSUSPEND:
		case CTS_OP_IO:
			rc = cts_tr_sys_execute(tr, th, give_up, done);
			if (rc > 0)
				return 0; /* parked: nothing runs */
			break;
		default: /* parked inside a pthread call, now woken or giving up */
			if (th->sig_interrupt) {
				th->sig_interrupt = false;
				cts_tr_skip_syscall(th, -EINTR);
			} else if (th->fblocked) {
				th->fblocked = false;
				done->result = ETIMEDOUT;
				cts_tr_skip_syscall(th, -ETIMEDOUT);
			} else {
				th->fwoken = false;
				cts_tr_skip_syscall(th, 0);
			}
			th->in_call = true;
			rc = cts_tr_resume(tr, th, 0);
			break;
		}
		break;
	}
	if (rc != 0) {
		cts_tr_set_error(tr, "cannot resume thread %d: %s", tid, strerror(errno));
		return -1;
	}
	if (cts_tr_pump(tr) != 0 || cts_tr_sys_after_step(tr) != 0)
		return -1;
	if (done->op == CTS_OP_CANCEL && st->status == CTS_RUN_ACTIVE) {
		if (done->target < 0)
			done->target = cts_tr_num_of_handle(tr, done->obj);
		if (cts_tr_cancel_sent(tr, done->target) != 0)
			return -1;
	}
	/* A join reached before its target's first stop was seen (both happen
	 * in the same step, in either order) is resolved now that every new
	 * thread has been collected. */
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *j = tr->live[i];
		if (j->state == TH_HELD && (j->pending.op == CTS_OP_JOIN || j->pending.op == CTS_OP_CANCEL) &&
		    j->pending.target < 0) {
			j->pending.target = cts_tr_num_of_handle(tr, j->pending.obj);
			cts_tr_publish(tr, j);
		}
	}
	if (tr->cancel_seen && st->status == CTS_RUN_ACTIVE)
		cts_tr_note_cancels(tr);
	if (done->op == CTS_OP_CREATE)
		done->target = tr->last_created;
	if (cts_op_is_access(done->op) && th->acc_capture)
		done->value = th->acc_written;
	if (libcall)
		cts_tr_libcall_done(th, done);
	if (th->state == TH_DEAD && done->op != CTS_OP_THREAD_EXIT &&
	    st->status == CTS_RUN_ACTIVE && th->tid != tr->pid) {
		/* Died without passing its exit syscall (killed?): still an exit. */
		done->op = CTS_OP_THREAD_EXIT;
	}
	tr->running = NULL;
	return 0;
}

/* What the run wrote to the stand-in files of its stdout and stderr
 * (cfg.stdout_fd, stderr_fd: a replay's), shown on cts-trace's own after
 * the run and before its verdict. One file for both is shown once. */
static void show_standins(struct cts_tracer *tr)
{
	const int fds[2] = { tr->cfg.stdout_fd, tr->cfg.stderr_fd };
	for (int i = 0; i < 2; i++) {
		if (fds[i] <= 0 || (i == 1 && fds[1] == fds[0]))
			continue;
		char buf[65536];
		ssize_t n, w;
		fflush(i ? stderr : stdout);
		while ((n = pread(fds[i], buf, sizeof(buf), (off_t)tr->standin_off[i])) > 0) {
			tr->standin_off[i] += (uint64_t)n;
			for (ssize_t off = 0; off < n; off += w)
				if ((w = write(i + 1, buf + off, (size_t)(n - off))) < 0) {
					if (errno != EINTR)
						return;
					w = 0;
				}
		}
	}
}

static void tr_stop(void *be, struct cts_run_state *st)
{
	struct cts_tracer *tr = be;
	(void)st;
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	pid_t group = tr->pid; /* the run's process group (launch.c, server.c) */
	cts_tr_kill_and_reap(tr);
	cts_tr_kill_foreign(tr, group);
	tr->pid_reaped = false;
	show_standins(tr);
}

static int tr_wait(void *be, struct cts_run_state *st, double limit_s)
{
	struct cts_tracer *tr = be;
	tr->st = st;
	cts_tr_free_reaped(tr);
	return cts_tr_sys_wait(tr, limit_s);
}

static void tr_describe_pc(void *be, uint64_t pc, char *buf, size_t len)
{
	struct cts_tracer *tr = be;
	if (tr->sym)
		cts_sym_format(tr->sym, pc, buf, len);
	else
		snprintf(buf, len, "0x%" PRIx64, pc);
}

static void tr_describe_data(void *be, uint64_t addr, char *buf, size_t len)
{
	struct cts_tracer *tr = be;
	if (!tr->sym || cts_sym_data(tr->sym, addr, buf, len) != 0)
		buf[0] = 0;
}

/* Ownership of lines (own.h), before thread tid's pending event runs: a
 * library call's range, an atomic, a free, or an access held because it
 * met a line used unordered, is tid's access now, with the clocks of
 * every event so far; a conflict makes the run void (-1: it need not
 * even run). Then tid's later accesses belong to its next epoch. */
static int own_before(struct cts_tracer *tr, struct cts_run_state *st, int tid)
{
	const struct cts_event *p = &st->t[tid].pending;
	struct thread *th = cts_tr_by_num(tr, tid);
	bool recheck = th && th->own_recheck;
	if (th) {
		th->own_recheck = false;
		th->own_progress += p->op != CTS_OP_YIELD && p->op != CTS_OP_SLEEP &&
				    p->op != CTS_OP_READ;
	}
	bool fed = recheck || p->op == CTS_OP_ATOMIC || p->op == CTS_OP_LIB_READ ||
		   p->op == CTS_OP_LIB_WRITE || p->op == CTS_OP_FREE;
	if (fed && p->obj && cts_own_access(tr->own, tid, p->obj, p->size ? p->size : 1,
					    cts_op_is_write(p->op)) == CTS_PAGE_CONFLICT) {
		st->relearn = true;
		return -1;
	}
	cts_own_stepped(tr->own, tid);
	return 0;
}

/* --races catch keeps its window around every step (catch.c). */
static int tr_step(void *be, struct cts_run_state *st, int tid, bool give_up,
		   struct cts_event *done)
{
	struct cts_tracer *tr = be;
	tr->st = st;
	/* A write to a line another thread read cold: the run is void, and
	 * the write need not even run (cold.h). An allocation's range is
	 * known once it ran. */
	const struct cts_event *p = &st->t[tid].pending;
	if (tr->cold && cts_op_is_range(p->op) && cts_op_is_write(p->op) && p->obj &&
	    cts_cold_write(tr->cold, tid, p->obj, p->size)) {
		st->relearn = true;
		return 0;
	}
	if (tr->own && own_before(tr, st, tid) != 0)
		return 0;
	cts_catch_before_step(tr, tid);
	int rc = step_one(be, st, tid, give_up, done);
	if (rc == 0)
		cts_catch_after_step(tr, tid);
	if (rc == 0 && tr->cold && done->op == CTS_OP_ALLOC && done->obj &&
	    cts_cold_write(tr->cold, tid, done->obj, done->size))
		st->relearn = true;
	if (rc == 0 && tr->own && done->obj && done->op == CTS_OP_FREE)
		cts_own_freed(tr->own, done->obj, done->size ? done->size : 1);
	if (rc == 0 && tr->own && done->obj && done->op == CTS_OP_ALLOC && done->size &&
	    cts_own_allocated(tr->own, tid, done->obj, done->size) == CTS_PAGE_CONFLICT)
		st->relearn = true;
	return rc;
}

static void tr_relearn(void *be, bool everything)
{
	struct cts_tracer *tr = be;
	if (tr->cold)
		cts_cold_commit(tr->cold, everything);
	if (tr->own)
		cts_own_commit(tr->own, everything);
}

static bool tr_pending_conflict(void *be, struct cts_run_state *st)
{
	struct cts_tracer *tr = be;
	if (!tr->own)
		return false;
	for (int tid = 0; tid < st->nthreads; tid++) {
		const struct cts_event *p = &st->t[tid].pending;
		if (!st->t[tid].alive || !p->obj || !cts_op_is_range(p->op) || p->op == CTS_OP_ALLOC)
			continue;
		if (cts_own_access(tr->own, tid, p->obj, p->size ? p->size : 1,
				   cts_op_is_write(p->op)) == CTS_PAGE_CONFLICT)
			return true;
	}
	return false;
}

static char *tr_hot_lines(void *be)
{
	struct cts_tracer *tr = be;
	return tr->cold ? cts_cold_format(tr->cold) : tr->own ? cts_own_format(tr->own) : NULL;
}

static void tr_caught(void *be, struct cts_race_detector *d)
{
	cts_catch_caught(be, d);
}

static int tr_source_pc(void *be, uint64_t pc, char *file, size_t len, int *line)
{
	struct cts_tracer *tr = be;
	struct cts_srcloc loc;
	if (!tr->sym || cts_sym_pc(tr->sym, pc, &loc) != 0 || !loc.file || loc.line <= 0)
		return -1;
	/* Absolute, as SARIF places it relative to its source root. */
	if (loc.file[0] != '/' && loc.comp_dir && loc.comp_dir[0])
		snprintf(file, len, "%s/%s", loc.comp_dir, loc.file);
	else
		snprintf(file, len, "%s", loc.file);
	*line = loc.line;
	return 0;
}

static int tr_pc_info(void *be, uint64_t pc, struct cts_pc_info *out)
{
	struct cts_tracer *tr = be;
	struct cts_srcloc loc;
	memset(out, 0, sizeof(*out));
	if (!tr->sym || cts_sym_pc(tr->sym, pc, &loc) != 0)
		return -1;
	out->function = loc.func;
	out->offset = loc.func ? loc.func_off : loc.module_off;
	out->file = loc.line > 0 ? loc.file : NULL;
	out->comp_dir = out->file ? loc.comp_dir : NULL;
	out->line = out->file ? loc.line : 0;
	out->module = loc.module;
	return 0;
}

/* Untraced calls with pointers to shared memory (sync.c) and, in sync
 * mode, the program's own atomic instructions: locks and atomics of its
 * own that no pthread call or futex shows (Rust's std Mutex takes an
 * uncontended lock with a lock cmpxchg in the program's code). */
static int tr_unseen(void *be, char *buf, size_t len)
{
	struct cts_tracer *tr = be;
	int n = cts_tr_libcalls_unseen(tr, buf, len);
	int na = cts_access_own_atomics(tr);
	if (na > 0 && len) {
		size_t off = strlen(buf);
		snprintf(buf + off, len - off, "%ssync mode: the program has %d atomic instruction%s "
			 "(locks or atomics of its own) that sync mode does not see; break mode "
			 "sees them", off ? "; " : "", na, na == 1 ? "" : "s");
	}
	return n + na;
}

/* A held thread's calling context above its pending statement (context.h). */
static int tr_context(void *be, int tid, int k, uint64_t *ret)
{
	struct cts_tracer *tr = be;
	struct thread *th = cts_tr_by_num(tr, tid);
	if (!th || th->state != TH_HELD || cts_tr_getregs(th) != 0)
		return -1;
	if (!tr->ctx)
		tr->ctx = cts_ctx_new();
	return cts_ctx_capture(tr->ctx, tr->pid, th->tid, &th->regs, th->pending.pc, k, ret);
}

/* A held thread's call stack for reports: as tr_context, but a thread held
 * in a stub at a library call's entry (stub.c), where no CFI describes the
 * frame, is unwound from its caller: the return address on top of its stack
 * (checked against the call site) and the caller's registers at the return. */
static int tr_stack(void *be, int tid, int k, uint64_t *ret)
{
	struct cts_tracer *tr = be;
	struct thread *th = cts_tr_by_num(tr, tid);
	int n = tr_context(be, tid, k, ret);
	uint64_t ra = 0;
	if (n != 0 || !th->pending.pc || cts_mem_read(th->tid, th->regs.rsp, &ra, 8) != 0 ||
	    ra - 1 != th->pending.pc)
		return n;
	struct user_regs_struct r = th->regs;
	r.rip = ra;
	r.rsp += 8;
	return cts_ctx_capture(tr->ctx, tr->pid, th->tid, &r, ra, k, ret);
}

static int tr_heap_block(void *be, uint64_t addr, uint64_t *start, uint64_t *size)
{
	struct cts_tracer *tr = be;
	return tr->pid > 0 && !tr->pid_reaped ? cts_heap_block(tr->pid, addr, start, size) : -1;
}

static void tr_mute(void *be, bool on)
{
	((struct cts_tracer *)be)->mute = on;
}

static int tr_run_fs(void *be, bool enter)
{
	struct cts_tracer *tr = be;
	if (!tr->cfg.iso)
		return 0;
	if (!enter) {
		cts_iso_leave(tr->cfg.iso);
		return 0;
	}
	return cts_iso_enter(tr->cfg.iso);
}

static int tr_release(void *be, struct cts_run_state *st, pid_t *tids)
{
	struct cts_tracer *tr = be;
	tr->st = st;
	return cts_tr_release(tr, st, tids);
}

static int tr_native_call(void *be, struct cts_run_state *st, int tid, bool wake)
{
	return cts_pf_native_call(be, st, tid, wake);
}

static const struct cts_backend_ops tracer_ops = {
	.name = "ptrace",
	.start = tr_start,
	.step = tr_step,
	.wait = tr_wait,
	.stop = tr_stop,
	.describe_pc = tr_describe_pc,
	.describe_data = tr_describe_data,
	.source_pc = tr_source_pc,
	.pc_info = tr_pc_info,
	.unseen = tr_unseen,
	.thread_state = cts_tr_thread_state,
	.caught = tr_caught,
	.context = tr_context,
	.stack = tr_stack,
	.mute = tr_mute,
	.heap_block = tr_heap_block,
	.relearn = tr_relearn,
	.pending_conflict = tr_pending_conflict,
	.hot_lines = tr_hot_lines,
	.run_fs = tr_run_fs,
	.release = tr_release,
	.native_call = tr_native_call,
};

struct cts_backend cts_tracer_backend(struct cts_tracer *t)
{
	return (struct cts_backend){ .ops = &tracer_ops, .be = t };
}

/* CTS_SLICE_MS=N, for testing only: a time slice of N ms (1 to 1000)
 * instead of SLICE_US's 200. A short one makes a spin load be learned while
 * a systematic run replays its prefix (explorer.c voids the run and
 * restarts the search: systematic.t). */
static int slice_from_env(struct cts_tracer *tr, char *err, size_t errlen)
{
	const char *s = getenv("CTS_SLICE_MS");
	tr->slice_us = SLICE_US;
	if (!s)
		return 0;
	char *end;
	errno = 0;
	long ms = isdigit((unsigned char)*s) ? strtol(s, &end, 10) : 0;
	if (!ms || errno || *end || ms > 1000) {
		snprintf(err, errlen, "CTS_SLICE_MS wants a whole number from 1 to 1000, not '%.64s'", s);
		return -1;
	}
	tr->slice_us = ms * 1000;
	return 0;
}

struct cts_tracer *cts_tracer_new(const struct cts_tracer_config *cfg, struct cts_objmodel *model,
				  char *err, size_t errlen)
{
	struct cts_tracer *tr = cts_xcalloc(1, sizeof(*tr));

	tr->cfg = *cfg;
	tr->model = model;
	tr->no_server = cfg->no_fork_server;
	tr->no_emulate = getenv("CTS_NO_EMULATE") != NULL; /* to test the single-step path */
	if (slice_from_env(tr, err, errlen) != 0) {
		free(tr);
		return NULL;
	}
	snprintf(tr->image, sizeof(tr->image), "%s", cfg->path);
	tr->script = cts_elf_script(cfg->path, tr->interp, sizeof(tr->interp));
	cts_native_save(); /* before the pin (main did it already) */
	cts_cpu_pin_least_used();
	tr->view = cts_view_new();
	tr->pf = cts_pf_new();
	tr->pf_start = -1;
	cts_tr_catch_alarm();
	/* Ownership with protection-key faults (fault.h): its seccomp rules
	 * are the filter's, so it is decided here. A schedule says which
	 * mechanism made it: its events are the mechanism's. */
	bool own_wanted = cfg->cold_reads && cfg->mode != CTS_MODE_SYNC && !cfg->nwatch &&
			  (cfg->hot_lines ? cts_own_spec(cfg->hot_lines) : !cfg->no_ownership);
	/* A learned set to start from is of the search's own form. */
	const char *from = cfg->hot_lines ? NULL : cfg->learned;
	if (from && cfg->cold_reads && cfg->mode != CTS_MODE_SYNC && !cfg->nwatch &&
	    cts_own_spec(from) != own_wanted) {
		snprintf(err, errlen, "--hot-lines: the learned set is %s, this search uses %s "
			 "(CTS_NO_OWNERSHIP)", own_wanted ? "of cold reads" : "of line ownership",
			 own_wanted ? "line ownership" : "cold reads");
		free(tr);
		return NULL;
	}
	bool keys = own_wanted && (cfg->hot_lines ? cts_own_spec_keys(cfg->hot_lines) : cfg->faults);
	/* mprotect: the same pages and events as keys, on any machine; where
	 * the probe finds no keys, and with CTS_FAULTS=mprotect */
	const char *no_keys = NULL;
	bool mprot = keys && (!cts_fault_possible(&no_keys) || cfg->faults_mprotect);
	if (mprot)
		tr->fault_why = no_keys ? no_keys : "CTS_FAULTS=mprotect";
	if (from && own_wanted && cts_own_spec_keys(from) != keys) {
		snprintf(err, errlen, "--hot-lines: the learned set was made %s protection-key faults "
			 "(%s), this search runs %s them%s%s", keys ? "without" : "with",
			 keys ? "own:" : "ownk:", keys ? "with" : "without",
			 keys ? " (CTS_FAULTS=0 turns them off)" : tr->fault_why ? ": " : "",
			 !keys && tr->fault_why ? tr->fault_why : "");
		free(tr);
		return NULL;
	}
	tr->fault_rules = keys;
	if (own_wanted && !keys && !tr->fault_why)
		tr->fault_why = cfg->hot_lines ? "the schedule was made without them" :
				"turned off: CTS_FAULTS=0";
	if (cts_tr_build_seccomp(tr) != 0) {
		snprintf(err, errlen, "cannot build the seccomp filter (libseccomp)");
		free(tr);
		return NULL;
	}
	if (cts_access_init(tr, err, errlen) != 0 || cts_catch_init(tr, err, errlen) != 0) {
		cts_access_fini(tr);
		free(tr->bpf);
		free(tr);
		return NULL;
	}
	/* Only where reads are scheduling points: break and step mode, not
	 * --watch's address filter. */
	bool own = cfg->hot_lines ? cts_own_spec(cfg->hot_lines) : !cfg->no_ownership;
	if (cfg->cold_reads && cfg->mode != CTS_MODE_SYNC && !cfg->nwatch && own) {
		tr->own = cts_own_new();
		if (keys) {
			tr->flt = cts_fault_new(tr->own, mprot);
			cts_own_set_keys(tr->own, true);
		}
		if ((cfg->hot_lines && cts_own_parse(tr->own, cfg->hot_lines) != 0) ||
		    (from && cts_own_parse(tr->own, from) != 0)) {
			snprintf(err, errlen, "malformed hot-lines in the %s: %.200s",
				 from ? "--hot-lines set" : "schedule", from ? from : cfg->hot_lines);
			cts_own_free(tr->own);
			cts_catch_fini(tr);
			cts_access_fini(tr);
			free(tr->bpf);
			free(tr);
			return NULL;
		}
	} else if (cfg->cold_reads && cfg->mode != CTS_MODE_SYNC && !cfg->nwatch) {
		tr->cold = cts_cold_new();
		if ((cfg->hot_lines && cts_cold_parse(tr->cold, cfg->hot_lines) != 0) ||
		    (from && cts_cold_parse(tr->cold, from) != 0)) {
			snprintf(err, errlen, "malformed hot-lines in the %s: %.200s",
				 from ? "--hot-lines set" : "schedule", from ? from : cfg->hot_lines);
			cts_cold_free(tr->cold);
			cts_catch_fini(tr);
			cts_access_fini(tr);
			free(tr->bpf);
			free(tr);
			return NULL;
		}
	}
	return tr;
}

void cts_tracer_free(struct cts_tracer *tr)
{
	if (!tr)
		return;
	pid_t group = tr->pid;
	cts_tr_kill_and_reap(tr);
	cts_tr_kill_foreign(tr, group);
	cts_tr_stop_server(tr);
	cts_catch_fini(tr);
	cts_access_fini(tr);
	cts_cold_free(tr->cold);
	cts_fault_free(tr->flt);
	cts_own_free(tr->own);
	cts_lcret_free(tr->lcret);
	cts_tr_libcalls_free(tr);
	cts_tr_stubs_free(tr);
	if (tr->sym)
		cts_sym_free(tr->sym);
	cts_ctx_free(tr->ctx);
	cts_view_free(tr->view);
	cts_pf_free(tr->pf);
	free(tr->bps);
	free(tr->bpf);
	cts_tr_free_threads(tr);
	free(tr->live);
	free(tr->reaped);
	free(tr->dead_handles);
	free(tr->early);
	free(tr->foreign);
	free(tr);
}

void cts_tracer_get_stats(const struct cts_tracer *t, struct cts_tracer_stats *out)
{
	*out = t->stats;
}

struct json_t *cts_tracer_stats_json(const struct cts_tracer *t)
{
	const struct cts_tracer_stats *s = &t->stats;
	json_t *j = json_pack("{sIsIsIsIsIsIsIsIsIsIsIsI}", "stops", (json_int_t)s->stops,
			 "breakpoint_hits", (json_int_t)s->bp_hits, "emulated", (json_int_t)s->emulated,
			 "internal_lock_calls", (json_int_t)s->internal_skips,
			 "futex_calls", (json_int_t)s->futex_calls,
			 "shared_accesses", (json_int_t)s->accesses,
			 "local_accesses", (json_int_t)s->local_accesses,
			 "retired_breakpoints", (json_int_t)s->retired,
			 "cold_reads", (json_int_t)s->cold_reads,
			 "owned_accesses", (json_int_t)s->owned_accesses,
			 "library_calls_retired", (json_int_t)s->lc_retired,
			 "library_call_faults", (json_int_t)s->lc_faults);
	if (j && t->flt) {
		/* Protection-key faults (fault.h): which mechanism ran, and its work. */
		struct cts_fault_stats f;
		cts_fault_get_stats(t, &f);
		json_object_set_new(j, "key_faults",
				    json_pack("{sssisIsIsIsIsIsIsIsIsIsIsIsIsI}", "mechanism",
					      f.mprot ? "mprotect" : "protection keys", "keys", f.keys, "faults",
					      (json_int_t)f.faults, "grants", (json_int_t)f.grants,
					      "revivals", (json_int_t)f.revivals,
					      "opened_steps", (json_int_t)f.opens,
					      "revokes", (json_int_t)f.revokes,
					      "sweeps", (json_int_t)f.sweeps,
					      "retags", (json_int_t)f.retags,
					      "system_calls", (json_int_t)f.syscalls,
					      "mprotect_calls", (json_int_t)f.protects,
					      "lazy_opens", (json_int_t)f.lazy,
					      "read_key_pages", (json_int_t)f.ro_pages,
					      "read_key_writes", (json_int_t)f.ro_writes,
					      "library_stretches", (json_int_t)f.lib_modes));
	}
	return j;
}

struct json_t *cts_tracer_watch_json(const struct cts_tracer *t)
{
	return t->acc ? cts_access_watch_json(t) : NULL;
}

struct json_t *cts_tracer_code_json(const struct cts_tracer *t)
{
	return t->acc ? cts_access_code_json(t) : NULL;
}

char *cts_tracer_learned_union(const char *a, const char *b)
{
	char *out = NULL;
	if (cts_own_spec(a) != cts_own_spec(b))
		return NULL;
	if (cts_own_spec(a)) {
		if (cts_own_spec_keys(a) != cts_own_spec_keys(b))
			return NULL;
		struct cts_own *o = cts_own_new();
		if (cts_own_parse(o, a) == 0 && cts_own_parse(o, b) == 0)
			out = cts_own_format(o);
		cts_own_free(o);
		return out;
	}
	struct cts_cold *c = cts_cold_new();
	if (cts_cold_parse(c, a) == 0 && cts_cold_parse(c, b) == 0)
		out = cts_cold_format(c);
	cts_cold_free(c);
	return out;
}

char *cts_tracer_learned(const struct cts_tracer *t)
{
	return t->cold ? cts_cold_format(t->cold) : t->own ? cts_own_format(t->own) : NULL;
}

char *cts_tracer_ownership_str(const struct cts_tracer *t, char *buf, size_t len)
{
	buf[0] = 0;
	if (!t->own)
		return buf;
	if (!t->flt) {
		snprintf(buf, len, "lines decided at access breakpoints only (no protection-key faults: %s)",
			 t->fault_why ? t->fault_why : "not asked");
		return buf;
	}
	struct cts_fault_stats f;
	cts_fault_get_stats(t, &f);
	if (f.mprot) {
		snprintf(buf, len, "page faults, the mprotect mechanism (%s; protections switched with "
			 "the running thread, %d keys of its own): %" PRIu64 " faults, %" PRIu64 " grants of "
			 "pages, %" PRIu64 " revocations, %" PRIu64 " mprotect calls, %" PRIu64
			 " accesses performed by the tracer, %" PRIu64 " system calls let through",
			 t->fault_why ? t->fault_why : "no protection keys", f.keys, f.faults, f.grants,
			 f.revokes, f.protects, f.opens, f.syscalls);
		return buf;
	}
	int off = snprintf(buf, len, "protection-key faults (%d keys): %" PRIu64 " faults, %" PRIu64
			   " grants of pages, %" PRIu64 " regrants by PKRU, %" PRIu64 " revocations, %"
			   PRIu64 " accesses performed by the tracer, %" PRIu64 " system calls let "
			   "through", f.keys, f.faults, f.grants, f.revivals, f.revokes, f.opens,
			   f.syscalls);
	if (f.ro_pages && off > 0 && (size_t)off < len)
		snprintf(buf + off, len - (size_t)off, "; %" PRIu64 " page%s beside the GOT read by "
			 "every thread natively (a read key)", f.ro_pages, f.ro_pages == 1 ? "" : "s");
	return buf;
}

char *cts_tracer_code_str(const struct cts_tracer *t, char *buf, size_t len)
{
	buf[0] = 0;
	return t->acc ? cts_access_code_str(t, buf, len) : buf;
}

struct json_t *cts_tracer_catch_json(const struct cts_tracer *t, const struct cts_race_detector *d)
{
	return cts_catch_json(t, d);
}
