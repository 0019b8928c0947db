/* libc's entry points as visible operations: the table of pthread/semaphore
 * functions, resolving them to breakpoints, decoding a hit into an event, and
 * marking the objects a call works on so its internal futexes stay hidden. */
#include <stdio.h>
#include <string.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "tracer/access.h"
#include "tracer/elf.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"

enum { F_TIMED = 1, F_INTERNAL_OK = 2, F_SPIN = 4, F_ASSERT = 8, F_READ_KIND = 16 };

struct syncfn {
	const char *name;
	cts_op op;
	unsigned flags;
	unsigned objsize;   /* bytes of the object whose futex words are internal */
};

/* F_INTERNAL_OK: calls from inside libc/ld.so (its own locks) are not
 * visible operations; they are let through untouched. */
static const struct syncfn syncfns[] = {
	{ "pthread_create", CTS_OP_CREATE, 0, 0 },
	{ "pthread_join", CTS_OP_JOIN, 0, 0 },
	{ "pthread_cancel", CTS_OP_CANCEL, 0, 0 },
	{ "pthread_mutex_lock", CTS_OP_LOCK, F_INTERNAL_OK | F_READ_KIND, 40 },
	{ "pthread_mutex_trylock", CTS_OP_TRYLOCK, F_INTERNAL_OK | F_READ_KIND, 40 },
	{ "pthread_mutex_timedlock", CTS_OP_LOCK, F_TIMED | F_INTERNAL_OK | F_READ_KIND, 40 },
	{ "pthread_mutex_clocklock", CTS_OP_LOCK, F_TIMED | F_INTERNAL_OK | F_READ_KIND, 40 },
	{ "pthread_mutex_unlock", CTS_OP_UNLOCK, F_INTERNAL_OK, 40 },
	{ "pthread_rwlock_rdlock", CTS_OP_RDLOCK, F_INTERNAL_OK, 56 },
	{ "pthread_rwlock_wrlock", CTS_OP_WRLOCK, F_INTERNAL_OK, 56 },
	{ "pthread_rwlock_tryrdlock", CTS_OP_TRYRDLOCK, F_INTERNAL_OK, 56 },
	{ "pthread_rwlock_trywrlock", CTS_OP_TRYWRLOCK, F_INTERNAL_OK, 56 },
	{ "pthread_rwlock_timedrdlock", CTS_OP_RDLOCK, F_TIMED | F_INTERNAL_OK, 56 },
	{ "pthread_rwlock_timedwrlock", CTS_OP_WRLOCK, F_TIMED | F_INTERNAL_OK, 56 },
	{ "pthread_rwlock_clockrdlock", CTS_OP_RDLOCK, F_TIMED | F_INTERNAL_OK, 56 },
	{ "pthread_rwlock_clockwrlock", CTS_OP_WRLOCK, F_TIMED | F_INTERNAL_OK, 56 },
	{ "pthread_rwlock_unlock", CTS_OP_RWUNLOCK, F_INTERNAL_OK, 56 },
	{ "pthread_spin_lock", CTS_OP_LOCK, F_SPIN, 4 },
	{ "pthread_spin_trylock", CTS_OP_TRYLOCK, F_SPIN, 4 },
	{ "pthread_spin_unlock", CTS_OP_UNLOCK, F_SPIN, 4 },
	{ "pthread_cond_wait", CTS_OP_COND_WAIT, F_INTERNAL_OK, 48 },
	{ "pthread_cond_timedwait", CTS_OP_COND_WAIT, F_TIMED | F_INTERNAL_OK, 48 },
	{ "pthread_cond_clockwait", CTS_OP_COND_WAIT, F_TIMED | F_INTERNAL_OK, 48 },
	{ "pthread_cond_signal", CTS_OP_COND_SIGNAL, F_INTERNAL_OK, 48 },
	{ "pthread_cond_broadcast", CTS_OP_COND_BROADCAST, F_INTERNAL_OK, 48 },
	{ "pthread_barrier_init", CTS_OP_BARRIER_INIT, 0, 32 },
	{ "pthread_barrier_wait", CTS_OP_BARRIER_WAIT, 0, 32 },
	{ "sem_init", CTS_OP_SEM_INIT, 0, 32 },
	{ "sem_wait", CTS_OP_SEM_WAIT, 0, 32 },
	{ "sem_timedwait", CTS_OP_SEM_WAIT, F_TIMED, 32 },
	{ "sem_clockwait", CTS_OP_SEM_WAIT, F_TIMED, 32 },
	{ "sem_trywait", CTS_OP_SEM_TRYWAIT, 0, 32 },
	{ "sem_post", CTS_OP_SEM_POST, 0, 32 },
	{ "exit", CTS_OP_PROC_EXIT, 0, 0 },
	{ "__assert_fail", CTS_OP_NONE, F_ASSERT, 0 },
};
#define NSYNCFN (int)(sizeof(syncfns) / sizeof(syncfns[0]))

/* glibc 2.36's struct pthread is about 0x900 bytes; join waits on its tid word. */
#define PTHREAD_DESC_SIZE 0x1000

static bool in_ranges(const struct cts_tracer *tr, uint64_t pc)
{
	for (int i = 0; i < tr->nlibc_ranges; i++)
		if (pc >= tr->libc_lo[i] && pc < tr->libc_hi[i])
			return true;
	return false;
}

/* Let th past the libc entry point it is held on. */
int cts_tr_step_over_at(struct cts_tracer *tr, struct thread *th, uint64_t addr)
{
	return cts_access_step_over(tr, th, cts_tr_bp_find(tr, addr), false);
}

static void on_assert(struct cts_tracer *tr, struct thread *th)
{
	char expr[256] = "?", file[256] = "?", func[128] = "?";
	cts_mem_read_str(th->tid, th->regs.rdi, expr, sizeof(expr));
	cts_mem_read_str(th->tid, th->regs.rsi, file, sizeof(file));
	cts_mem_read_str(th->tid, th->regs.rcx, func, sizeof(func));
	const char *base = strrchr(file, '/');
	snprintf(tr->st->message, sizeof(tr->st->message),
		 "assertion '%s' failed at %s:%u in %s()", expr, base ? base + 1 : file,
		 (unsigned)th->regs.rdx, func);
	tr->st->fault_tid = th->num;
	tr->st->fault_pc = th->regs.rip;
	tr->st->status = CTS_RUN_ASSERT;
	th->state = TH_HELD;
}

int cts_tr_on_sync_bp(struct cts_tracer *tr, struct thread *th, struct bp *b)
{
	const struct syncfn *f = &syncfns[b->fn];
	uint64_t ret;

	if (cts_mem_read(th->tid, th->regs.rsp, &ret, 8) != 0)
		ret = 0;
	if (f->flags & F_ASSERT) {
		on_assert(tr, th);
		return 0;
	}
	if ((f->flags & F_INTERNAL_OK) && in_ranges(tr, ret)) {
		tr->stats.internal_skips++;
		return cts_tr_step_over_at(tr, th, b->addr);
	}
	struct cts_event *p = &th->pending;
	cts_event_init(p, th->num, f->op);
	p->obj = th->regs.rdi;
	p->pc = ret ? ret - 1 : th->regs.rip;
	p->timed = f->flags & F_TIMED;
	switch (f->op) {
	case CTS_OP_CREATE:
		p->obj = 0;
		break;
	case CTS_OP_CANCEL:
	case CTS_OP_JOIN: {
		struct thread *t = cts_tr_handle_of(tr, th->regs.rdi);
		p->target = t ? t->num : -1;
		break;
	}
	case CTS_OP_PROC_EXIT:
		p->obj = 0;
		p->value = th->regs.rdi;
		break;
	case CTS_OP_COND_WAIT:
		p->obj2 = th->regs.rsi;
		break;
	case CTS_OP_SEM_INIT:
	case CTS_OP_BARRIER_INIT:
		p->value = (uint32_t)th->regs.rdx;
		break;
	default:
		break;
	}
	/* Facts the model needs, read once per object. */
	if ((f->flags & (F_READ_KIND | F_SPIN)) && !cts_objmodel_knows(tr->model, p->obj)) {
		uint32_t kind = 0;
		if (!(f->flags & F_SPIN))
			cts_mem_read(th->tid, p->obj + 16, &kind, 4);
		cts_objmodel_set_mutex_kind(tr->model, p->obj, (enum cts_mutex_kind)(kind & 3) == 3 ?
					    CTS_MUTEX_NORMAL : (enum cts_mutex_kind)(kind & 3));
	}
	if ((f->op == CTS_OP_SEM_WAIT || f->op == CTS_OP_SEM_TRYWAIT || f->op == CTS_OP_SEM_POST) &&
	    !cts_objmodel_knows(tr->model, p->obj)) {
		uint32_t v = 0;
		if (cts_mem_read(th->tid, p->obj, &v, 4) == 0)
			cts_objmodel_set_sem(tr->model, p->obj, v);
	}
	if (f->op == CTS_OP_BARRIER_WAIT && !cts_objmodel_knows(tr->model, p->obj)) {
		uint32_t count = 0;
		if (cts_mem_read(th->tid, p->obj + 8, &count, 4) == 0)
			cts_objmodel_set_barrier(tr->model, p->obj, count);
	}
	th->call_fn = b->fn;
	cts_tr_hold(tr, th, AT_BREAKPOINT);
	th->bp_addr = b->addr;
	return 0;
}

/* th runs the call it is held at: the call's own futex words are internal. */
void cts_tr_enter_call(struct thread *th)
{
	const struct cts_event *p = &th->pending;
	const struct syncfn *f = &syncfns[th->call_fn];
	th->in_call = true;
	th->call_lo[0] = th->call_hi[0] = th->call_lo[1] = th->call_hi[1] = 0;
	switch (p->op) {
	case CTS_OP_JOIN:
		th->call_lo[0] = th->regs.rdi;
		th->call_hi[0] = th->regs.rdi + PTHREAD_DESC_SIZE;
		break;
	case CTS_OP_COND_WAIT:
		th->call_lo[1] = p->obj2;
		th->call_hi[1] = p->obj2 + 40;
		th->call_lo[0] = p->obj;
		th->call_hi[0] = p->obj + f->objsize;
		break;
	default:
		th->call_lo[0] = p->obj;
		th->call_hi[0] = p->obj + f->objsize;
		break;
	}
}

/* Resolve the table's entry points in libc and create their breakpoints. */
int cts_tr_sync_resolve(struct cts_tracer *tr, const char *libc_path, uint64_t libc_base)
{
	const char *names[NSYNCFN];
	uint64_t values[NSYNCFN];
	for (int i = 0; i < NSYNCFN; i++)
		names[i] = syncfns[i].name;
	int found = cts_elf_lookup(libc_path, names, NSYNCFN, values, NULL);
	if (found <= 0 || !values[0]) {
		cts_tr_set_error(tr, "libc symbols not found in %s (pthread_create and friends): not glibc?",
			  libc_path);
		tr->st->bad_input = true;
		return -1;
	}
	for (int i = 0; i < NSYNCFN; i++) {
		if (!values[i]) {
			cts_debug_msg("libc symbol %s not found", syncfns[i].name);
			continue;
		}
		cts_tr_bp_add(tr, libc_base + values[i], BP_SYNC, i);
	}
	return 0;
}
