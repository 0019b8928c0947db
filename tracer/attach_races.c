/* Attach mode: --races (models/race.c's detector over what is seen from
 * attach on) and the access breakpoints --races and --watch need. */
#include <inttypes.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include "models/race.h"
#include "tracer/access.h"
#include "tracer/cli.h"
#include "tracer/elf.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/attach_int.h"

/* ---- races ------------------------------------------------------------------- */

/* --races in a live process: models/race.c's detector over what is seen
 * from attach on, one event at a time in the order the tracer let it
 * happen (every thread is stopped at a breakpoint or runs free to its next
 * one, so that order is causal). Releases (unlock, post, signal) are
 * observed when the thread is let into them, acquires once the call has
 * returned (at the thread's next step): the detector sees them late, never
 * early, so it may miss a race but not invent an edge's absence. Every
 * system call stop (PTRACE_SYSCALL) acquires and releases the kernel: a
 * futex wake and its waiter, a pipe and its reader, a clone and the new
 * thread are ordered through it. docs/design.md, "Attach mode". */

static void race_line(struct att *a, const struct cts_race *r, bool sure, bool blind)
{
	struct cts_backend be = cts_tracer_backend(a->tr);
	struct cts_describer d = cts_backend_describer(&be);
	char var[160] = "", p1[256], p2[256], msg[sizeof(a->bug_head)];
	if (d.describe_data)
		d.describe_data(d.be, r->addr, var, sizeof(var));
	cts_att_describe_pc(a, r->pc1, p1, sizeof(p1));
	cts_att_describe_pc(a, r->pc2, p2, sizeof(p2));
	snprintf(msg, sizeof(msg), "data race on %s%s0x%" PRIx64 "%s (%u bytes): thread %d %s at %s "
		 "vs thread %d %s at %s%s", var, var[0] ? " (" : "", r->addr, var[0] ? ")" : "",
		 r->size, r->tid1, cts_op_name(r->op1), p1, r->tid2, cts_op_name(r->op2), p2,
		 sure ? "" : blind ? " (unsure: between the two accesses an int3 was lifted for "
		 "a step while a thread ran outside the schedule, which may have passed it unseen, "
		 "e.g. a free or an unlock; never a bug in attach mode)" :
		 " (unsure: both plain loads/stores, which a C11 atomic or a "
		 "hand-off cts cannot see compiles to as well; never a bug in attach mode)");
	fprintf(stderr, "cts-trace: %s%s\n", sure ? "" : "possible ", msg);
	struct thread *th = cts_tr_by_num(a->tr, r->tid2);
	bool bug = a->cfg->races == CTS_RACES_FAIL && sure && !a->bug;
	if (!bug && th && X(a, th)->stopped) {
		/* held before its access, which completed the race */
		fprintf(stderr, "  thread %d's stack at its %s:\n", r->tid2, cts_op_name(r->op2));
		cts_att_stack_to(a, th, "    ", stderr);
	}
	if (bug) {
		a->bug = true;
		a->bug_kind = "race";
		snprintf(a->bug_head, sizeof(a->bug_head), "%s", msg);
		cts_att_detail(a, "  thread %d's stack at its %s (held before it; the detach prints it):\n",
		       r->tid2, cts_op_name(r->op2));
		a->bug_th = th; /* held on its access: its stack is the access's */
	}
}

/* Decide the candidates so far (at once: a live process has no end of
 * run to wait for). A race with a non-atomic read-modify-write on one side
 * is sure; two plain moves may be a C11 atomic's, or data handed over by
 * a flag cts did not see: reported as unsure, never a bug. */
static void settle(struct att *a)
{
	int fresh = cts_race_flush(a->races);
	int n = cts_race_count(a->races);
	for (int i = n - (fresh > 0 ? fresh : 0); i < n; i++) {
		const struct cts_race *r = cts_race_get(a->races, i);
		bool blind = a->nblind && a->blind_last >= r->step1;
		bool sure = !r->plain && !blind;
		a->nsure += sure;
		a->nunsure += !sure;
		race_line(a, r, sure, blind && !r->plain);
	}
}

static void observe(struct att *a, const struct cts_event *ev)
{
	if (a->races && a->controlling && cts_race_observe(a->races, ev, a->obs_step++) > 0)
		settle(a);
}

/* A system call stop, a signal, a new thread: ordered through the kernel. */
void cts_att_observe_kernel(struct att *a, const struct thread *th)
{
	struct cts_event ev;
	cts_event_init(&ev, th->num, CTS_OP_IO);
	observe(a, &ev);
}

static bool is_acquire(cts_op op)
{
	switch (op) {
	case CTS_OP_LOCK: case CTS_OP_TRYLOCK: case CTS_OP_RDLOCK: case CTS_OP_WRLOCK:
	case CTS_OP_TRYRDLOCK: case CTS_OP_TRYWRLOCK: case CTS_OP_SEM_WAIT:
	case CTS_OP_SEM_TRYWAIT: case CTS_OP_JOIN:
		return true;
	default:
		return false;
	}
}

/* th is let into its pending operation: what the detector learns now, and
 * what it learns only at th's next step (an acquire, once returned). A
 * try-op or a timed one counts as acquired: one edge too many hides a race
 * at worst. */
void cts_att_observe_step(struct att *a, struct thread *th)
{
	struct att_th *x = X(a, th);
	if (!a->races)
		return;
	/* returned from the call that acquired: held at a breakpoint again,
	 * or preempted in the program's own code */
	if (x->has_acq && (th->at == AT_BREAKPOINT || cts_att_in_own_code(a, th->pending.pc))) {
		x->has_acq = false;
		observe(a, &x->acq);
	}
	if (th->at == AT_START)
		return;
	struct cts_event ev = th->pending;
	ev.tid = th->num;
	ev.result = 0;
	switch (ev.op) {
	case CTS_OP_CREATE:
	case CTS_OP_BARRIER_WAIT:
		/* the clone, the barrier's futexes: through the kernel; the
		 * barrier's waiters leave by a wake, its last one acquires below */
		cts_att_observe_kernel(a, th);
		if (ev.op == CTS_OP_BARRIER_WAIT) {
			cts_event_init(&x->acq, th->num, CTS_OP_IO);
			x->has_acq = true;
		}
		return;
	case CTS_OP_COND_WAIT:
		observe(a, &ev); /* releases the mutex */
		x->acq = ev;
		x->acq.op = CTS_OP_COND_REACQUIRE;
		x->has_acq = true;
		return;
	case CTS_OP_THREAD_EXIT:
	case CTS_OP_PROC_EXIT:
	case CTS_OP_CANCEL:
	case CTS_OP_BARRIER_INIT:
		return;
	default:
		break;
	}
	if (is_acquire(ev.op)) {
		ev.timed = false;
		x->acq = ev;
		x->has_acq = true;
		return;
	}
	observe(a, &ev);
}

/* ---- setting up the accesses ---------------------------------------------- */

/* --races/--watch: the program's memory instructions (access.c's scan,
 * planted with the rest), the watches resolved, debug registers armed
 * where they trap; every system call a stop for the race detector. */
int cts_att_setup_accesses(struct att *a)
{
	struct cts_tracer *tr = a->tr;
	cts_att_sym(a); /* --watch SYM, and the races' variables */
	if (cts_access_setup(tr) != 0)
		return -1;
	a->accesses = true;
	tr->gate_access = tr->gate_libcalls = false; /* planted for the whole session */
	tr->access_armed = true;
	for (int i = 0; i < tr->nlive; i++)
		if (tr->live[i]->state != TH_DEAD && tr->live[i]->num != 0)
			cts_access_watch_thread(tr, tr->live[i]);
	if (a->cfg->races) {
		if (!(a->races = cts_race_new())) {
			snprintf(a->st.message, sizeof(a->st.message), "out of memory");
			return -1;
		}
		tr->trace_syscalls = true;
		/* a block freed and handed out again is new memory: libc's
		 * free and realloc forget its accesses (fn -1: attach's own) */
		static const char *const heap[] = { "free", "realloc", "reallocarray" };
		uint64_t val[3] = { 0 }, size[3];
		if (tr->libc_base && cts_elf_lookup(tr->libc_path, heap, 3, val, size) > 0)
			for (int i = 0; i < 3; i++)
				if (val[i] && !cts_tr_bp_find(tr, tr->libc_base + val[i]))
					cts_tr_bp_add(tr, tr->libc_base + val[i], BP_LIBCALL, -1);
	}
	return 0;
}

/* th entered free or realloc (not a step): the block's shadow memory is
 * forgotten, its size from glibc's chunk header (usable bytes: the size
 * field less its own word, and the prev_size word too for an mmapped
 * chunk). Forgetting can only hide a race. */
void cts_att_heap_free(struct att *a, struct thread *th)
{
	uint64_t p = th->regs.rdi, field = 0;
	if (!a->races || !p || cts_mem_read(th->tid, p - 8, &field, 8) != 0)
		return;
	uint64_t chunk = field & ~7ull, head = (field & 2) ? 16 : 8;
	if (chunk <= head || chunk > (1ull << 40))
		return;
	struct cts_event ev;
	cts_event_init(&ev, th->num, CTS_OP_ALLOC);
	ev.obj = p;
	ev.size = (uint32_t)(chunk - head > UINT32_MAX ? UINT32_MAX : chunk - head);
	observe(a, &ev);
}
