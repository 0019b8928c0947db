/* libc's entry points as visible operations: the table of pthread/semaphore
 * functions, resolving them to breakpoints, decoding a hit into an event, and
 * marking the objects a call works on so its internal futexes stay hidden. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "models/symbolize.h"
#include "tracer/access.h"
#include "tracer/fault.h"
#include "tracer/own.h"
#include "disasm/disasm.h"
#include "tracer/lcret.h"
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

static void libcalls_resolve(struct cts_tracer *tr);

/* glibc 2.36's struct pthread is about 0x900 bytes; join waits on its tid word. */
#define PTHREAD_DESC_SIZE 0x1000

bool cts_tr_in_libc(const struct cts_tracer *tr, uint64_t pc)
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

/* ret: __assert_fail's return address, 0 if unknown; the call before it is
 * the assert's site. */
static void on_assert(struct cts_tracer *tr, struct thread *th, uint64_t ret)
{
	char expr[256] = "?", file[256] = "?", func[128] = "?";
	cts_mem_read_str(th->tid, th->regs.rdi, expr, sizeof(expr));
	cts_mem_read_str(th->tid, th->regs.rsi, file, sizeof(file));
	cts_mem_read_str(th->tid, th->regs.rcx, func, sizeof(func));
	const char *base = strrchr(file, '/');
	snprintf(tr->st->message, sizeof(tr->st->message),
		 "assertion '%s' failed at %s:%u in %s()", expr, base ? base + 1 : file,
		 (unsigned)th->regs.rdx, func);
	snprintf(tr->st->assert_file, sizeof(tr->st->assert_file), "%s", file[0] == '?' ? "" : file);
	tr->st->assert_line = (int)th->regs.rdx;
	tr->st->fault_tid = th->num;
	tr->st->fault_pc = ret ? ret - 1 : th->regs.rip;
	/* the statement a report's stack of this thread starts from (tr_stack
	 * unwinds a thread held at a call's entry from that call) */
	th->pending.pc = tr->st->fault_pc;
	tr->st->status = CTS_RUN_ASSERT;
	th->state = TH_HELD;
}

int cts_tr_on_sync_bp(struct cts_tracer *tr, struct thread *th, struct bp *b)
{
	const struct syncfn *f = &syncfns[b->fn];
	uint64_t ret;

	if (b->entry)
		ret = th->regs.r11; /* the stub loaded the return address (stub.c) */
	else if (cts_mem_read(th->tid, th->regs.rsp, &ret, 8) != 0)
		ret = 0;
	if (f->flags & F_ASSERT) {
		on_assert(tr, th, ret);
		return 0;
	}
	if ((f->flags & F_INTERNAL_OK) && cts_tr_in_libc(tr, ret)) {
		tr->stats.internal_skips++;
		return cts_tr_step_over_at(tr, th, b->addr);
	}
	struct cts_event *p = &th->pending;
	cts_event_init(p, th->num, f->op);
	p->obj = th->regs.rdi;
	p->pc = ret ? ret - 1 : b->entry ? b->entry : th->regs.rip;
	p->timed = f->flags & F_TIMED;
	switch (f->op) {
	case CTS_OP_CREATE:
		p->obj = 0;
		break;
	case CTS_OP_CANCEL:
	case CTS_OP_JOIN: {
		p->target = cts_tr_num_of_handle(tr, th->regs.rdi);
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

bool cts_tr_call_spins(const struct thread *th)
{
	return th->at == AT_BREAKPOINT && th->pending.op == CTS_OP_LOCK &&
	       (syncfns[th->call_fn].flags & F_SPIN);
}

static void arm_return(struct cts_tracer *tr, struct thread *th);

/* Sync calls whose libc body runs no program code and always returns (no
 * cancellation point: a cancelled wait would run cleanup handlers). */
static bool plain_sync_call(cts_op op)
{
	switch (op) {
	case CTS_OP_LOCK:
	case CTS_OP_TRYLOCK:
	case CTS_OP_UNLOCK:
	case CTS_OP_RDLOCK:
	case CTS_OP_WRLOCK:
	case CTS_OP_TRYRDLOCK:
	case CTS_OP_TRYWRLOCK:
	case CTS_OP_RWUNLOCK:
	case CTS_OP_COND_SIGNAL:
	case CTS_OP_COND_BROADCAST:
	case CTS_OP_SEM_POST:
	case CTS_OP_SEM_TRYWAIT:
		return true;
	default:
		return false;
	}
}

/* th runs the call it is held at: the call's own futex words are internal.
 * With protection-key faults, a plain call's body on a tracked object runs
 * with every key open up to its return (a breakpoint there closes them). */
void cts_tr_enter_call(struct cts_tracer *tr, struct thread *th)
{
	const struct cts_event *p = &th->pending;
	const struct syncfn *f = &syncfns[th->call_fn];
	uint64_t ret = 0;
	th->in_call = true;
	th->call_sp = cts_tr_getregs(th) == 0 ? th->regs.rsp : 0;
	if (cts_mem_read(th->tid, th->call_sp, &th->call_ret, 8) != 0)
		th->call_ret = 0;
	if (cts_fault_on(tr) && plain_sync_call(p->op) && !th->ret_pc &&
	    cts_fault_reaches(tr, p->obj, f->objsize) &&
	    cts_mem_read(th->tid, th->regs.rsp, &ret, 8) == 0 && cts_access_traced_pc(tr, ret)) {
		th->lc_sp = th->regs.rsp;
		th->ret_pc = ret;
		th->ret_spec = -1;
		arm_return(tr, th);
		if (th->ret_pc)
			cts_fault_call(tr, th, true, p->obj, f->objsize);
	}
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

/* Is th (its registers read) still inside the modeled call it entered?
 * Not once its pc left libc (glibc's pthread code calls back into no other
 * library; the stub page runs libc's first instructions), nor once its stack pointer is above the entry's or the return
 * address there was overwritten. (Until its next event otherwise, a
 * thread's work after an unlock counted as the call's own: liblzma's
 * encoder under xz, each access faulting and performed by the tracer,
 * 750,000 a run. A slot left as it was under a deeper frame that never
 * wrote it keeps libc code in the call: performed, as before.) */
bool cts_tr_in_call(const struct cts_tracer *tr, struct thread *th)
{
	uint64_t ret = 0;
	if (th->in_call &&
	    ((!cts_tr_in_libc(tr, th->regs.rip) && !cts_tr_stub_orig_pc(tr, th->regs.rip)) ||
	     th->regs.rsp > th->call_sp ||
	     cts_mem_read(th->tid, th->call_sp, &ret, 8) != 0 || ret != th->call_ret))
		th->in_call = false;
	return th->in_call;
}

bool cts_tr_sync_stubbable(int fn)
{
	return fn >= 0 && fn < NSYNCFN && !(syncfns[fn].flags & F_ASSERT);
}

bool cts_tr_sync_internal_ok(int fn)
{
	return fn >= 0 && fn < NSYNCFN && (syncfns[fn].flags & F_INTERNAL_OK);
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
	/* CTS_NO_LIBCALLS: without library-call events, to measure their cost. */
	if (tr->cfg.mode != CTS_MODE_SYNC && !getenv("CTS_NO_LIBCALLS"))
		libcalls_resolve(tr);
	return 0;
}

/* ---- library calls that touch caller-visible memory ------------------------
 *
 * In break and step mode every PLT stub of the program (and of --trace-lib
 * libraries) gets an int3, so only calls made by traced code stop there;
 * libc's calls to itself never pass the program's PLT. A call to a function
 * of the table below becomes one range event per memory range it reads or
 * writes (memcpy: lib_read of the source, then lib_write of the
 * destination), derived from its arguments at the call and, for ranges
 * marked (ret), made exact from the return value at a breakpoint on the
 * return address. Any other imported function is watched for pointers to
 * shared memory in its argument registers: such a call may touch memory
 * nobody sees, and the search is then not complete (cts_tr_libcalls_unseen). */

enum lc_acc { A_NONE, A_R, A_W, A_FREE, A_ALLOC, A_FMT };

/* How a range's length (and start) is derived; "a"/"b" are argument
 * indices. (ret): the call-time estimate is made exact at the return. */
enum lc_len {
	L_ARG,     /* argument a */
	L_MUL,     /* argument a * argument b */
	L_CONST,   /* a bytes */
	L_STR,     /* strlen + 1 */
	L_STRN,    /* min(strlen + 1, argument a) */
	L_STR_OF,  /* strlen(argument a) + 1: strcpy's destination */
	L_CAT,     /* from the string's end: strlen(a) + 1, at most argument b + 1 (b >= 0) */
	L_CMP,     /* up to the first byte that differs from string a, at most argument b */
	L_BLOCK,   /* the heap block it points to */
	L_RET,     /* (ret) argument a, then the return value when positive */
	L_RET_MUL, /* (ret) argument a * argument b, then the return value * argument a */
	L_RET_STR, /* (ret) argument a, then strlen + 1 when the call returned non-NULL */
	L_RET_FMT, /* (ret) argument a (a < 0: to the end of the mapping), then return + 1 */
	L_FOUND,   /* (ret) argument a (a < 0: strlen + 1), then up to the match */
	L_NEW,     /* (ret) the block the call returns */
	L_NEW_OUT, /* (ret) the block the call stores at the pointer */
};

struct lc_range {
	int8_t ptr;      /* argument holding the start (A_FMT: the format) */
	uint8_t acc, len;
	int8_t a, b;     /* A_FMT: a = first variadic argument */
};

struct libfn {
	const char *name;
	struct lc_range r[3];   /* in event order; a (ret) range comes last */
};

#define RD(p, l, a, b) { p, A_R, l, a, b }
#define WR(p, l, a, b) { p, A_W, l, a, b }
#define FMT(p, a) { p, A_FMT, L_STR, a, -1 }
#define FREE_ARG0 { 0, A_FREE, L_BLOCK, -1, -1 }
#define NEW { -1, A_ALLOC, L_NEW, -1, -1 }
#define COPY { RD(1, L_ARG, 2, -1), WR(0, L_ARG, 2, -1) }
#define SET { WR(0, L_ARG, 2, -1) }
#define CMP { RD(0, L_ARG, 2, -1), RD(1, L_ARG, 2, -1) }
#define QUIET(n) { n, { { -1, A_NONE, 0, -1, -1 } } }

/* The one table of modelled library calls. Rows without ranges are
 * functions known to touch no caller memory through their pointer
 * arguments, or only objects libc synchronizes itself (a FILE): they are
 * neither events nor watched. */
static const struct libfn libfns[] = {
	{ "memcpy", COPY }, { "memmove", COPY }, { "mempcpy", COPY },
	{ "__memcpy_chk", COPY }, { "__memmove_chk", COPY }, { "__mempcpy_chk", COPY },
	{ "memset", SET }, { "__memset_chk", SET },
	{ "bzero", { WR(0, L_ARG, 1, -1) } }, { "explicit_bzero", { WR(0, L_ARG, 1, -1) } },
	{ "memcmp", CMP }, { "bcmp", CMP },
	{ "memchr", { RD(0, L_FOUND, 2, -1) } }, { "memrchr", { RD(0, L_ARG, 2, -1) } },
	{ "strlen", { RD(0, L_STR, -1, -1) } }, { "strnlen", { RD(0, L_STRN, 1, -1) } },
	{ "strcpy", { RD(1, L_STR, -1, -1), WR(0, L_STR_OF, 1, -1) } },
	{ "stpcpy", { RD(1, L_STR, -1, -1), WR(0, L_STR_OF, 1, -1) } },
	{ "__strcpy_chk", { RD(1, L_STR, -1, -1), WR(0, L_STR_OF, 1, -1) } },
	{ "__stpcpy_chk", { RD(1, L_STR, -1, -1), WR(0, L_STR_OF, 1, -1) } },
	{ "strncpy", { RD(1, L_STRN, 2, -1), WR(0, L_ARG, 2, -1) } },
	{ "stpncpy", { RD(1, L_STRN, 2, -1), WR(0, L_ARG, 2, -1) } },
	{ "__strncpy_chk", { RD(1, L_STRN, 2, -1), WR(0, L_ARG, 2, -1) } },
	{ "strcat", { RD(0, L_STR, -1, -1), RD(1, L_STR, -1, -1), WR(0, L_CAT, 1, -1) } },
	{ "__strcat_chk", { RD(0, L_STR, -1, -1), RD(1, L_STR, -1, -1), WR(0, L_CAT, 1, -1) } },
	{ "strncat", { RD(0, L_STR, -1, -1), RD(1, L_STRN, 2, -1), WR(0, L_CAT, 1, 2) } },
	{ "strcmp", { RD(0, L_CMP, 1, -1), RD(1, L_CMP, 0, -1) } },
	{ "strncmp", { RD(0, L_CMP, 1, 2), RD(1, L_CMP, 0, 2) } },
	{ "strcasecmp", { RD(0, L_STR, -1, -1), RD(1, L_STR, -1, -1) } },
	{ "strncasecmp", { RD(0, L_STRN, 2, -1), RD(1, L_STRN, 2, -1) } },
	{ "strcoll", { RD(0, L_STR, -1, -1), RD(1, L_STR, -1, -1) } },
	{ "strchr", { RD(0, L_FOUND, -1, -1) } }, { "strrchr", { RD(0, L_STR, -1, -1) } },
	{ "strstr", { RD(0, L_STR, -1, -1), RD(1, L_STR, -1, -1) } },
	{ "strspn", { RD(0, L_STR, -1, -1), RD(1, L_STR, -1, -1) } },
	{ "strcspn", { RD(0, L_STR, -1, -1), RD(1, L_STR, -1, -1) } },
	{ "atoi", { RD(0, L_STR, -1, -1) } }, { "atol", { RD(0, L_STR, -1, -1) } },
	{ "strtol", { RD(0, L_STR, -1, -1) } }, { "strtoul", { RD(0, L_STR, -1, -1) } },
	{ "strtoll", { RD(0, L_STR, -1, -1) } }, { "strtoull", { RD(0, L_STR, -1, -1) } },
	{ "strdup", { RD(0, L_STR, -1, -1), NEW } }, { "strndup", { RD(0, L_STRN, 1, -1), NEW } },
	{ "malloc", { NEW } }, { "calloc", { NEW } }, { "aligned_alloc", { NEW } },
	{ "memalign", { NEW } }, { "valloc", { NEW } },
	{ "realloc", { FREE_ARG0, NEW } }, { "reallocarray", { FREE_ARG0, NEW } },
	{ "posix_memalign", { { 0, A_ALLOC, L_NEW_OUT, -1, -1 } } },
	{ "free", { FREE_ARG0 } },
	/* GLib's allocator is the system malloc (glib >= 2.46 without
	 * G_SLICE): a block one thread frees with g_free and another gets
	 * again from g_malloc is ordered only by malloc's own lock, which
	 * nothing shows; unseen, its old and new lives raced (issue 31 item 4). */
	{ "g_malloc", { NEW } }, { "g_malloc0", { NEW } },
	{ "g_malloc_n", { NEW } }, { "g_malloc0_n", { NEW } },
	{ "g_try_malloc", { NEW } }, { "g_try_malloc0", { NEW } },
	{ "g_try_malloc_n", { NEW } }, { "g_try_malloc0_n", { NEW } },
	{ "g_realloc", { FREE_ARG0, NEW } }, { "g_realloc_n", { FREE_ARG0, NEW } },
	{ "g_try_realloc", { FREE_ARG0, NEW } }, { "g_try_realloc_n", { FREE_ARG0, NEW } },
	{ "g_free", { FREE_ARG0 } },
	{ "_Znwm", { NEW } }, { "_Znam", { NEW } },
	{ "_ZdlPv", { FREE_ARG0 } }, { "_ZdaPv", { FREE_ARG0 } },
	{ "_ZdlPvm", { FREE_ARG0 } }, { "_ZdaPvm", { FREE_ARG0 } },
	{ "read", { WR(1, L_RET, 2, -1) } }, { "pread", { WR(1, L_RET, 2, -1) } },
	{ "pread64", { WR(1, L_RET, 2, -1) } }, { "recv", { WR(1, L_RET, 2, -1) } },
	{ "recvfrom", { WR(1, L_RET, 2, -1) } },
	{ "write", { RD(1, L_ARG, 2, -1) } }, { "pwrite", { RD(1, L_ARG, 2, -1) } },
	{ "pwrite64", { RD(1, L_ARG, 2, -1) } }, { "send", { RD(1, L_ARG, 2, -1) } },
	{ "sendto", { RD(1, L_ARG, 2, -1) } },
	{ "fread", { WR(0, L_RET_MUL, 1, 2) } }, { "fread_unlocked", { WR(0, L_RET_MUL, 1, 2) } },
	{ "fwrite", { RD(0, L_MUL, 1, 2) } }, { "fwrite_unlocked", { RD(0, L_MUL, 1, 2) } },
	{ "fgets", { WR(0, L_RET_STR, 1, -1) } },
	{ "puts", { RD(0, L_STR, -1, -1) } }, { "fputs", { RD(0, L_STR, -1, -1) } },
	{ "perror", { RD(0, L_STR, -1, -1) } },
	{ "qsort", { WR(0, L_MUL, 1, 2) } },
	{ "printf", { FMT(0, 1) } }, { "fprintf", { FMT(1, 2) } }, { "dprintf", { FMT(1, 2) } },
	{ "__printf_chk", { FMT(1, 2) } }, { "__fprintf_chk", { FMT(2, 3) } },
	{ "sprintf", { FMT(1, 2), WR(0, L_RET_FMT, -1, -1) } },
	{ "__sprintf_chk", { FMT(3, 4), WR(0, L_RET_FMT, 2, -1) } },
	{ "snprintf", { FMT(2, 3), WR(0, L_RET_FMT, 1, -1) } },
	{ "__snprintf_chk", { FMT(4, 5), WR(0, L_RET_FMT, 1, -1) } },
	{ "vsprintf", { FMT(1, -1), WR(0, L_RET_FMT, -1, -1) } },
	{ "vsnprintf", { FMT(2, -1), WR(0, L_RET_FMT, 1, -1) } },
	{ "vprintf", { FMT(0, -1) } }, { "vfprintf", { FMT(1, -1) } },
	{ "clock_gettime", { WR(1, L_CONST, 16, -1) } }, { "gettimeofday", { WR(0, L_CONST, 16, -1) } },
	QUIET("sched_yield"), QUIET("usleep"), QUIET("sleep"), QUIET("nanosleep"), QUIET("clock_nanosleep"),
	QUIET("rand"), QUIET("srand"), QUIET("random"), QUIET("srandom"), QUIET("time"), QUIET("getpid"), QUIET("gettid"),
	QUIET("_exit"), QUIET("abort"), QUIET("__stack_chk_fail"), QUIET("__cxa_finalize"), QUIET("__cxa_atexit"),
	QUIET("atexit"), QUIET("__libc_start_main"), QUIET("pthread_self"), QUIET("pthread_exit"),
	QUIET("pthread_detach"), QUIET("pthread_attr_init"), QUIET("pthread_attr_destroy"),
	QUIET("pthread_attr_setstacksize"), QUIET("pthread_attr_setdetachstate"), QUIET("pthread_once"),
	QUIET("pthread_mutex_init"), QUIET("pthread_mutex_destroy"), QUIET("pthread_mutexattr_init"),
	QUIET("pthread_mutexattr_settype"), QUIET("pthread_mutexattr_destroy"), QUIET("pthread_cond_init"),
	QUIET("pthread_cond_destroy"), QUIET("pthread_rwlock_init"), QUIET("pthread_rwlock_destroy"),
	QUIET("pthread_barrier_destroy"), QUIET("pthread_spin_init"), QUIET("pthread_spin_destroy"),
	QUIET("sem_destroy"), QUIET("pthread_key_create"), QUIET("pthread_getspecific"),
	QUIET("pthread_setspecific"), QUIET("fflush"), QUIET("fclose"), QUIET("putchar"), QUIET("fputc"), QUIET("putc"),
	QUIET("__errno_location"), QUIET("sysconf"),
};
#define NLIBFN (int)(sizeof(libfns) / sizeof(libfns[0]))

/* Imported functions outside the table, and which of them were called with a
 * pointer to shared memory (over the whole exploration). */
struct cts_libcalls {
	char **names;       /* BP_LIBCALL fn = NLIBFN + index */
	uint64_t *where;    /* that function's first such call (return address), 0 none */
	int n, cap, nflagged;
	size_t gotcap;      /* of tr->got */
};

static int find_libfn(const char *name)
{
	for (int i = 0; i < NLIBFN; i++)
		if (strcmp(libfns[i].name, name) == 0)
			return i;
	return -1;
}

/* Library functions whose body runs no program code and makes no system
 * call: the string and memory functions, and the comparisons that read
 * the locale's tables besides their strings (glibc's strcoll allocates
 * nothing since 2.22; in a locale without rules it is strcmp). */
static bool leaf_fn(int fn)
{
	static const char *const leaf[] = {
		"memcpy", "memmove", "mempcpy", "__memcpy_chk", "__memmove_chk", "__mempcpy_chk",
		"memset", "__memset_chk", "bzero", "explicit_bzero", "memcmp", "bcmp", "memchr",
		"memrchr", "strlen", "strnlen", "strcpy", "stpcpy", "__strcpy_chk", "__stpcpy_chk",
		"strncpy", "stpncpy", "__strncpy_chk", "strcat", "__strcat_chk", "strncat", "strcmp",
		"strncmp", "strchr", "strrchr", "strstr", "strspn", "strcspn", "strcasecmp",
		"strncasecmp", "strcoll",
	};
	for (size_t i = 0; fn >= 0 && fn < NLIBFN && i < sizeof(leaf) / sizeof(leaf[0]); i++)
		if (strcmp(libfns[fn].name, leaf[i]) == 0)
			return true;
	return false;
}

/* Does [start, start+len) reach a page decided per access that faults
 * (own.h; not an io page, which is on no key)? */
static bool reaches_per_access(const struct cts_tracer *tr, uint64_t start, uint64_t len)
{
	if (!tr->own || !len || !cts_own_per_access_pages(tr->own, NULL, 0))
		return false; /* at every library call: none learned, no lookup */
	uint64_t last = (start + len - 1) / CTS_PAGE_SIZE;
	for (uint64_t p = start / CTS_PAGE_SIZE; p <= last && p < start / CTS_PAGE_SIZE + 64; p++)
		if (cts_own_is_per_access(tr->own, p) && !cts_own_is_io(tr->own, p))
			return true;
	return false;
}

static bool is_syncfn(const char *name)
{
	for (int i = 0; i < NSYNCFN; i++)
		if (strcmp(syncfns[i].name, name) == 0)
			return true;
	return false;
}

/* The index of name among the unseen-candidates, added when new. */
static int lc_index(struct cts_libcalls *lc, const char *name)
{
	int i;
	for (i = 0; i < lc->n && strcmp(lc->names[i], name) != 0; i++)
		;
	if (i == lc->n) {
		if (lc->n == lc->cap) {
			lc->cap = lc->cap ? lc->cap * 2 : 32;
			lc->names = cts_xrealloc(lc->names, (size_t)lc->cap * sizeof(*lc->names));
			lc->where = cts_xrealloc(lc->where, (size_t)lc->cap * sizeof(*lc->where));
		}
		lc->names[lc->n] = cts_xstrdup(name);
		lc->where[lc->n++] = 0;
	}
	return i;
}

/* A call (returning to ret) may have touched shared memory nobody saw. */
static void note_unseen(struct cts_libcalls *lc, int i, uint64_t ret, uint64_t ptr)
{
	if (lc->where[i])
		return;
	lc->where[i] = ret;
	lc->nflagged++;
	cts_debug_msg("%s called at 0x%" PRIx64 " with a pointer to shared memory (0x%" PRIx64
		      ") it does not show", lc->names[i], ret, ptr);
}

/* --strategy *fuzzer: allocations made while one thread lives are events
 * too (a lock in a block malloc'd before the first pthread_create is then
 * named by its allocation site, as the ones allocated later are). */
static bool early_alloc(const struct cts_tracer *tr, int fn)
{
	return tr->cfg.early_allocs && fn < NLIBFN && libfns[fn].r[0].acc == A_ALLOC;
}

struct stub_ctx {
	struct cts_tracer *tr;
	uint64_t base;     /* where the file's first page is mapped */
	uint64_t lowest;   /* its first PT_LOAD address (filled before the callbacks) */
	char **traced_fns; /* the functions --trace-lib libraries export, sorted */
	size_t ntraced, traced_cap;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_traced_fn(const char *name, void *arg)
{
	struct stub_ctx *c = arg;
	if (c->ntraced == c->traced_cap) {
		c->traced_cap = c->traced_cap ? 2 * c->traced_cap : 256;
		c->traced_fns = cts_xrealloc(c->traced_fns, c->traced_cap * sizeof(*c->traced_fns));
	}
	c->traced_fns[c->ntraced++] = cts_xstrdup(name);
}

/* A call to a function a --trace-lib library exports (the program's call,
 * or the library's own call of its export through its PLT) goes to traced
 * code, whose accesses are seen where they are made: no library call. */
static bool calls_traced(const struct stub_ctx *c, const char *name)
{
	return c->ntraced && bsearch(&name, c->traced_fns, c->ntraced, sizeof(char *), cmp_str);
}

/* The BP_LIBCALL fn of imported function name, -1 when it is not watched. */
static int watched_fn(struct cts_libcalls *lc, const char *name)
{
	int fn = find_libfn(name);
	if (is_syncfn(name) || (fn >= 0 && libfns[fn].r[0].acc == A_NONE))
		return -1;
	return fn >= 0 ? fn : NLIBFN + lc_index(lc, name);
}

static void add_stub(const char *name, uint64_t stub, void *arg)
{
	struct stub_ctx *c = arg;
	uint64_t addr = c->base - c->lowest + stub;
	int fn = calls_traced(c, name) ? -1 : watched_fn(c->tr->lc, name);

	if (fn >= 0 && !cts_tr_bp_find(c->tr, addr))
		cts_tr_bp_add(c->tr, addr, BP_LIBCALL, fn)->early = early_alloc(c->tr, fn);
}

static void add_got_slot(const char *name, uint64_t slot, void *arg)
{
	struct stub_ctx *c = arg;
	struct cts_tracer *tr = c->tr;
	int fn = calls_traced(c, name) ? -1 : watched_fn(tr->lc, name);

	if (fn < 0)
		return;
	if (tr->ngot == tr->lc->gotcap) {
		tr->lc->gotcap = tr->lc->gotcap ? tr->lc->gotcap * 2 : 64;
		tr->got = cts_xrealloc(tr->got, tr->lc->gotcap * sizeof(*tr->got));
	}
	tr->got[tr->ngot++] = (struct cts_got_slot){ c->base - c->lowest + slot, fn,
						     early_alloc(tr, fn) };
}

/* Break/step mode: a breakpoint on every PLT stub of the traced files. */
static void libcalls_resolve(struct cts_tracer *tr)
{
	struct cts_mapping *maps;
	size_t n;

	if (!tr->lc)
		tr->lc = cts_xcalloc(1, sizeof(*tr->lc));
	tr->ngot = 0;
	if (cts_maps_read(tr->pid, &maps, &n) != 0)
		return;
	struct stub_ctx c = { .tr = tr };
	for (size_t i = 0; i < n; i++)
		if (maps[i].off == 0 && maps[i].path[0] && strcmp(maps[i].path, tr->image) != 0 &&
		    cts_access_lib_wanted(tr, maps[i].path))
			cts_elf_exported_functions(maps[i].path, add_traced_fn, &c);
	if (c.ntraced)
		qsort(c.traced_fns, c.ntraced, sizeof(*c.traced_fns), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (maps[i].off != 0 || !maps[i].path[0] ||
		    (strcmp(maps[i].path, tr->image) != 0 && !cts_access_lib_wanted(tr, maps[i].path)))
			continue;
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= maps[j].off == 0 && strcmp(maps[j].path, maps[i].path) == 0;
		c.base = maps[i].lo;
		if (!seen && (cts_elf_plt_stubs(maps[i].path, &c.lowest, add_stub, &c) < 0 ||
			      cts_elf_got_slots(maps[i].path, &c.lowest, add_got_slot, &c) < 0))
			cts_error_msg("warning: cannot read the PLT of %s", maps[i].path);
	}
	for (size_t i = 0; i < c.ntraced; i++)
		free(c.traced_fns[i]);
	free(c.traced_fns);
	free(maps);
	if (tr->ngot)
		qsort(tr->got, tr->ngot, sizeof(*tr->got), cts_tr_got_slot_cmp);
}

void cts_tr_libcalls_free(struct cts_tracer *tr)
{
	struct cts_libcalls *lc = tr->lc;
	if (!lc)
		return;
	for (int i = 0; i < lc->n; i++)
		free(lc->names[i]);
	free(lc->names);
	free(lc->where);
	free(tr->got);
	tr->got = NULL;
	tr->ngot = 0;
	free(lc);
	tr->lc = NULL;
}

/* ---- deriving ranges ---- */

/* Argument i of the call th is held at (at the stub: rsp = return address). */
static uint64_t arg_at(const struct thread *th, int i)
{
	uint64_t v = 0;
	if (i >= 0 && i < 6)
		return th->lc_args[i];
	if (i >= 6)
		cts_mem_read(th->tid, th->lc_sp + 8 * (uint64_t)(i - 5), &v, 8);
	return v;
}

/* strlen of the program's string at addr, stopping at max. */
static uint64_t tracee_strnlen(pid_t tid, uint64_t addr, uint64_t max)
{
	uint64_t n = 0;
	while (n < max) {
		char chunk[256];
		uint64_t want = sizeof(chunk), page_left = 4096 - ((addr + n) & 4095);
		if (want > page_left)
			want = page_left;
		if (cts_mem_read(tid, addr + n, chunk, want) != 0)
			return n;
		for (uint64_t i = 0; i < want && n < max; i++, n++)
			if (!chunk[i])
				return n;
	}
	return n;
}

/* Bytes strcmp reads of each string: up to and including the first that
 * differs (or the NUL), at most max. */
static uint64_t tracee_cmplen(pid_t tid, uint64_t a, uint64_t b, uint64_t max)
{
	uint64_t n = 0;
	while (n < max) {
		char ca[64], cb[64];
		uint64_t want = sizeof(ca), la = 4096 - ((a + n) & 4095), lb = 4096 - ((b + n) & 4095);
		want = want < la ? want : la;
		want = want < lb ? want : lb;
		if (cts_mem_read(tid, a + n, ca, want) != 0 || cts_mem_read(tid, b + n, cb, want) != 0)
			return n + 1;
		for (uint64_t i = 0; i < want && n < max; i++) {
			n++;
			if (ca[i] != cb[i] || !ca[i])
				return n;
		}
	}
	return n;
}

/* Usable size of the glibc heap block at p (its chunk header), 1 if it does
 * not look like one. */
static uint64_t block_size(pid_t tid, uint64_t p)
{
	uint64_t hdr = 0;
	if (cts_mem_read(tid, p - 8, &hdr, 8) != 0)
		return 1;
	uint64_t size = hdr & ~(uint64_t)7;
	if (size < 32 || size > (1ull << 40))
		return 1;
	return size - (hdr & 2 ? 16 : 8); /* bit 1: mmapped chunk, two header words */
}

#define NO_LIMIT (1ull << 32)

/* The range r of the call th is held at, as the call will see it. */
static void range_at_call(struct cts_tracer *tr, struct thread *th, const struct lc_range *r,
			  uint64_t *start, uint64_t *len)
{
	uint64_t p = r->ptr >= 0 ? arg_at(th, r->ptr) : 0;
	uint64_t a = arg_at(th, r->a), b = arg_at(th, r->b);
	pid_t tid = th->tid;

	*start = p;
	switch ((enum lc_len)r->len) {
	case L_ARG: case L_RET: case L_RET_STR: *len = a; break;
	case L_MUL: case L_RET_MUL: *len = a * b; break;
	case L_CONST: *len = (uint64_t)r->a; break;
	case L_STR: *len = tracee_strnlen(tid, p, NO_LIMIT) + 1; break;
	case L_STRN: *len = tracee_strnlen(tid, p, a); *len += *len < a; break;
	case L_STR_OF: *len = tracee_strnlen(tid, a, NO_LIMIT) + 1; break;
	case L_CAT:
		*start = p + tracee_strnlen(tid, p, NO_LIMIT);
		*len = tracee_strnlen(tid, a, r->b >= 0 ? b : NO_LIMIT) + 1;
		break;
	case L_CMP: *len = tracee_cmplen(tid, p, a, r->b >= 0 ? b : NO_LIMIT); break;
	case L_BLOCK: /* a pointer that is no heap block must not make a huge range */
		*len = p ? block_size(tid, p) : 0;
		if (*len > cts_access_mapping_end(tr, p) - p)
			*len = cts_access_mapping_end(tr, p) - p;
		break;
	case L_RET_FMT:
		*len = r->a >= 0 ? a : cts_access_mapping_end(tr, p) - p;
		break;
	case L_FOUND: *len = r->a >= 0 ? a : tracee_strnlen(tid, p, NO_LIMIT) + 1; break;
	case L_NEW: case L_NEW_OUT: *start = 0; *len = 0; break;
	}
}

/* The same range once the call returned ret. */
static void range_at_return(struct thread *th, const struct lc_range *r, uint64_t ret,
			    uint64_t *start, uint64_t *len)
{
	uint64_t a = arg_at(th, r->a);
	int64_t sret = (int64_t)ret;

	switch ((enum lc_len)r->len) {
	case L_RET: *len = sret > 0 ? ret : 0; break;
	case L_RET_MUL: *len = sret > 0 ? ret * a : 0; break;
	case L_RET_STR: *len = ret ? tracee_strnlen(th->tid, *start, a) + 1 : 0; break;
	case L_RET_FMT:
		if (sret < 0)
			*len = 0;
		else if (ret + 1 < *len || r->a < 0)
			*len = ret + 1;
		break;
	case L_FOUND:
		if (ret >= *start && ret < *start + *len)
			*len = ret - *start + 1;
		break;
	case L_NEW:
		*start = ret;
		*len = ret ? block_size(th->tid, ret) : 0;
		break;
	case L_NEW_OUT: {
		uint64_t p = 0;
		if (ret == 0 && cts_mem_read(th->tid, arg_at(th, r->ptr), &p, 8) == 0 && p) {
			*start = p;
			*len = block_size(th->tid, p);
		}
		break;
	}
	default:
		break;
	}
}

static bool needs_return(const struct lc_range *r)
{
	return r->len >= L_RET;
}

static void add_range(struct thread *th, cts_op op, const char *fn, uint64_t start, uint64_t len,
		      int spec)
{
	if (th->lc_n == LC_MAX_EVENTS)
		return;
	struct cts_event *ev = &th->lc_ev[th->lc_n];
	cts_event_init(ev, th->num, op);
	ev->obj = start;
	ev->size = (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len);
	ev->pc = th->pending.pc;
	ev->fn = fn;
	th->lc_r[th->lc_n++] = (signed char)spec;
}

/* A call that only reads gets, in every event, a hash of what it reads (the
 * first bytes of each range): the explorer tells a loop re-reading
 * unchanged memory through the same call (a spin) by it. */
static void hash_reads(struct thread *th)
{
	uint64_t h = 14695981039346656037ull;
	for (int i = 0; i < th->lc_n; i++) {
		const struct cts_event *e = &th->lc_ev[i];
		unsigned char b[64];
		size_t n = e->size < sizeof(b) ? e->size : sizeof(b);
		if (e->op != CTS_OP_LIB_READ)
			return;
		if (cts_mem_read(th->tid, e->obj, b, n) == 0)
			for (size_t k = 0; k < n; k++)
				h = (h ^ b[k]) * 1099511628211ull;
	}
	for (int i = 0; i < th->lc_n; i++)
		th->lc_ev[i].value = h;
}

static bool format_followed(struct cts_tracer *tr, struct thread *th, const char *fn,
			    const char *f, int first);

/* Has the format a conversion that takes a pointer to memory (%s, %n)? */
static bool pointer_conversion(const char *f)
{
	for (const char *c = f; (c = strchr(c, '%'));) {
		c += 1 + strcspn(c + 1, "diouxXeEfFgGaAcCsSpnm%");
		if (*c == 's' || *c == 'S' || *c == 'n')
			return true;
		if (*c)
			c++;
	}
	return false;
}

/* A printf format at fmt whose variadic arguments start at argument first
 * (< 0: a va_list, not followed): every %s argument is read (up to its
 * precision), every %n written. What it cannot follow (a va_list,
 * positional arguments, long double) with a pointer argument is unseen. */
static void format_ranges(struct cts_tracer *tr, struct thread *th, const char *fn, uint64_t fmt,
			  int first)
{
	char f[512];
	if (cts_mem_read_str(th->tid, fmt, f, sizeof(f)) != 0)
		return;
	if (!format_followed(tr, th, fn, f, first) && pointer_conversion(f))
		note_unseen(tr->lc, lc_index(tr->lc, fn), th->pending.pc + 1, fmt);
}

static bool format_followed(struct cts_tracer *tr, struct thread *th, const char *fn,
			    const char *f, int first)
{
	int gp = first, fp = 0;
	if (first < 0)
		return false;
	for (const char *c = f; (c = strchr(c, '%'));) {
		c++;
		if (*c == '%') {
			c++;
			continue;
		}
		c += strspn(c, "-+ #0'I");
		if (*c == '*')
			gp++, c++;
		else
			c += strspn(c, "0123456789");
		if (*c == '$')
			return false;
		long prec = -1;
		if (*c == '.') {
			c++;
			if (*c == '*') {
				gp++, c++;
			} else {
				prec = strtol(c, NULL, 10);
				c += strspn(c, "0123456789");
			}
		}
		int longs = 0;
		while (*c && strchr("hlqjztL", *c)) {
			if (*c == 'L')
				return false;
			longs += *c == 'l';
			c++;
		}
		if (!*c)
			return true;
		if (strchr("eEfFgGaA", *c)) {
			if (++fp > 8)
				return false; /* past the xmm registers: interleaved on the stack */
		} else if (*c == 's' && !longs) {
			uint64_t p = arg_at(th, gp++);
			uint64_t n = tracee_strnlen(th->tid, p, prec >= 0 ? (uint64_t)prec : NO_LIMIT);
			if (p && cts_access_shared(tr, th, p))
				add_range(th, CTS_OP_LIB_READ, fn, p, n + (prec < 0 || (uint64_t)prec > n), -1);
		} else if (*c == 'n') {
			uint64_t p = arg_at(th, gp++);
			if (p && cts_access_shared(tr, th, p))
				add_range(th, CTS_OP_LIB_WRITE, fn, p, longs ? 8 : 4, -1);
		} else if (*c != 'm') {
			gp++;
		}
		c++;
	}
	return true;
}

/* ---- hits ---- */

/* An imported function outside the table: a pointer to shared memory in an
 * argument register means it may touch memory nobody sees. */
static void watch_unmodelled(struct cts_tracer *tr, struct thread *th, struct bp *b, uint64_t ret)
{
	struct cts_libcalls *lc = tr->lc;
	int i = b->fn - NLIBFN;
	for (int k = 0; k < 6 && i < lc->n && !lc->where[i]; k++) {
		if (!cts_access_shared(tr, th, th->lc_args[k]))
			continue;
		note_unseen(lc, i, ret, th->lc_args[k]);
		cts_tr_bp_retire(tr, b); /* known now: no need to stop there again */
	}
}

/* A breakpoint on th->ret_pc, the return address of the call th is let
 * into (th->lc_sp its stack pointer at the call). */
static void arm_return(struct cts_tracer *tr, struct thread *th)
{
	th->ret_sp = th->lc_sp + 8;
	th->ret_seen = false;
	struct bp *rb = cts_tr_bp_find(tr, th->ret_pc);
	if (!rb)
		rb = cts_tr_bp_add(tr, th->ret_pc, BP_LIBRET, 0);
	if (!rb->active) {
		rb->active = true;
		tr->bps_dirty = true;
	}
	if (cts_tr_bp_plant(tr, rb) != 0)
		th->ret_pc = 0;
}

/* At a learned call site (lcret.h): the call made by the tracer, straight
 * to where its stub's GOT slot sends it (the stub's jump, done): no step,
 * no second stop at the stub. */
static bool site_call(struct cts_tracer *tr, struct thread *th, struct bp *b)
{
	uint64_t ret = b->addr + 5, to;
	if (b->call_len != 5 || b->orig != 0xe8 || tr->cfg.mode != CTS_MODE_BREAK ||
	    !(to = cts_lcret_site_entry(tr, th->tid, b)) || cts_tr_getregs(th) != 0 ||
	    th->regs.rip != b->addr || cts_mem_write_data(th->tid, th->regs.rsp - 8, &ret, 8) != 0)
		return false;
	th->regs.rsp -= 8;
	th->regs.rip = to;
	th->regs_dirty = true;
	return true;
}

static int let_through(struct cts_tracer *tr, struct thread *th, struct bp *b)
{
	th->ret_spec = -1;
	if (th->ret_pc)
		arm_return(tr, th); /* step mode: stepping resumes there */
	if (site_call(tr, th, b))
		return cts_tr_resume(tr, th, 0);
	if (!b->active) {
		th->regs_dirty = true;
		return cts_tr_resume(tr, th, 0);
	}
	return cts_tr_step_over_at(tr, th, b->addr);
}

/* th is on the PLT stub of an imported function. */
int cts_tr_on_libcall_bp(struct cts_tracer *tr, struct thread *th, struct bp *b)
{
	uint64_t ret = 0, sp = th->regs.rsp;
	const struct user_regs_struct *r = &th->regs;

	if (b->call_len) {
		ret = b->addr + b->call_len;
		sp -= 8;
	} else {
		cts_mem_read(th->tid, sp, &ret, 8);
	}
	th->ret_pc = 0;
	if (!cts_access_traced_pc(tr, ret))
		return let_through(tr, th, b); /* a library calling through a traced PLT */
	/* a call its learned call site's breakpoint stopped already (lcret.h) */
	const struct bp *site = b->call_len || ret < 5 ? NULL : cts_tr_bp_find(tr, ret - 5);
	if (site && site != b && site->kind == BP_LIBCALL && site->call_len == 5)
		return let_through(tr, th, b);
	th->lc_sp = sp;
	th->lc_ret = ret;
	th->lc_args[0] = r->rdi, th->lc_args[1] = r->rsi, th->lc_args[2] = r->rdx;
	th->lc_args[3] = r->rcx, th->lc_args[4] = r->r8, th->lc_args[5] = r->r9;
	if (tr->cfg.mode == CTS_MODE_STEP)
		th->ret_pc = ret;
	if (cts_access_live_threads(tr) < 2 && !b->early)
		return let_through(tr, th, b);
	if (b->fn >= NLIBFN) {
		watch_unmodelled(tr, th, b, ret);
		return let_through(tr, th, b);
	}
	const struct libfn *f = &libfns[b->fn];
	/* The same call from the same site on the same ranges as the thread's
	 * last hidden one: maybe a spin, so it stays visible. */
	uint64_t sig = 14695981039346656037ull ^ b->fn;
	for (int i = 0; i < 6; i++)
		sig = (sig ^ th->lc_args[i]) * 1099511628211ull;
	sig = (sig ^ ret) * 1099511628211ull;
	bool may_hide = sig != th->lc_hidden_sig;
	th->lc_hidden_sig = 0;
	th->lc_n = th->lc_i = 0;
	th->lc_fn = b->fn;
	th->pending.pc = ret - 1;
	bool per_access = false;
	/* may its breakpoint leave the text (lcret.h)? */
	bool qualifies = may_hide;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < 3 && f->r[i].acc != A_NONE; i++) {
		const struct lc_range *rg = &f->r[i];
		static const cts_op ops[] = { [A_R] = CTS_OP_LIB_READ, [A_W] = CTS_OP_LIB_WRITE,
					      [A_FREE] = CTS_OP_FREE, [A_ALLOC] = CTS_OP_ALLOC,
					      [A_FMT] = CTS_OP_LIB_READ };
		uint64_t start = 0, len = 0;
		range_at_call(tr, th, rg, &start, &len);
		if (start && len && len < UINT64_MAX - start && reaches_per_access(tr, start, len)) {
			per_access = true;
			lo = start < lo ? start : lo;
			hi = start + len > hi ? start + len : hi;
		}
		/* A write on the pages beside the GOT that every thread reads
		 * unseen (fault.h's read key): the run is void. */
		if (rg->acc == A_W && start && len && cts_fault_ro_write(tr, start, len))
			tr->st->relearn = true;
		/* A range known at the call on lines the thread may use unseen is
		 * no event, as a plain access there would not be (own.h). */
		bool plain = rg->acc == A_R || rg->acc == A_W || rg->acc == A_FMT;
		qualifies = qualifies && (rg->acc == A_R || rg->acc == A_W);
		if (rg->acc == A_ALLOC)
			add_range(th, CTS_OP_ALLOC, f->name, 0, 0, i);
		else if (start && len && cts_access_shared(tr, th, start)) {
			qualifies = qualifies && len < UINT64_MAX - start &&
				    cts_fault_allows(tr, th, start, len, rg->acc == A_W);
			if (may_hide && plain && !needs_return(rg) &&
			    cts_access_range_hidden(tr, th, rg->acc == A_W, ret - 1, start, len))
				th->lc_hidden_sig = sig;
			else
				add_range(th, ops[rg->acc], f->name, start, len, i);
		}
		if (rg->acc == A_FMT)
			format_ranges(tr, th, f->name, start, rg->a);
	}
	cts_lcret_call(tr, th, b, qualifies && !per_access && !th->lc_n);
	if (!th->lc_n) {
		/* A hidden call of a leaf function on a page decided per
		 * access: each access of its body there would be a fault of
		 * library code and no event (lib_private_ok: 495,031 faults);
		 * its body runs with the keys open up to its return, as a
		 * plain sync call's does. */
		if (per_access && leaf_fn(b->fn) && cts_fault_on(tr) && !th->ret_pc) {
			th->ret_pc = ret;
			th->ret_spec = -1;
			arm_return(tr, th);
			if (th->ret_pc)
				cts_fault_call(tr, th, true, lo, hi - lo);
		}
		return let_through(tr, th, b);
	}
	hash_reads(th);
	th->pending = th->lc_ev[0];
	cts_tr_hold(tr, th, AT_BREAKPOINT);
	th->bp_addr = b->addr;
	return 0;
}

/* Execute th's pending range event. Returns 1 when th stays held at the
 * same call (its next range event is pending now), else steps it into the
 * call: with a return breakpoint when the range needs the result. */
int cts_tr_libcall_execute(struct cts_tracer *tr, struct thread *th)
{
	if (th->lc_i + 1 < th->lc_n) {
		th->pending = th->lc_ev[++th->lc_i];
		cts_tr_publish(tr, th);
		return 1;
	}
	int spec = th->lc_r[th->lc_i];
	th->ret_spec = spec >= 0 && needs_return(&libfns[th->lc_fn].r[spec]) ? spec : -1;
	if (th->ret_spec >= 0)
		th->ret_pc = th->lc_ret;
	if (th->ret_pc)
		arm_return(tr, th);
	struct bp *b = cts_tr_bp_find(tr, th->bp_addr);
	if (b && site_call(tr, th, b))
		return cts_tr_resume(tr, th, 0) != 0 ? -1 : 0;
	return cts_tr_step_over_at(tr, th, th->bp_addr) != 0 ? -1 : 0;
}

/* th reached the return address of the call it was let into: the range
 * that waited for the result is made exact (the call's arguments are still
 * the ones saved at its stub). */
void cts_tr_libcall_returned(struct cts_tracer *tr, struct thread *th)
{
	if (th->regs.rsp != th->ret_sp)
		return; /* the same call site, deeper in a callback */
	th->ret_pc = 0;
	cts_fault_call(tr, th, false, 0, 0);
	if (th->ret_spec >= 0 && th->lc_i < th->lc_n) {
		th->ret_start = th->lc_ev[th->lc_i].obj;
		th->ret_len = th->lc_ev[th->lc_i].size;
		range_at_return(th, &libfns[th->lc_fn].r[th->ret_spec], th->regs.rax, &th->ret_start,
				&th->ret_len);
		th->ret_seen = true;
	}
	if (tr->cfg.mode == CTS_MODE_STEP)
		th->stepping = true;
}

/* A return breakpoint nobody waits for (any more): gone until needed. */
int cts_tr_on_libret_bp(struct cts_tracer *tr, struct thread *th, struct bp *b)
{
	if (th->ret_pc == b->addr)
		return cts_tr_step_over_at(tr, th, b->addr); /* a deeper call: still waiting */
	cts_tr_bp_retire(tr, b);
	return cts_tr_resume(tr, th, 0);
}

/* The pages the tracer opens for one rep instruction at most (its two
 * ranges may lie in different mappings: never the span between them). */
#define REP_OPEN_MAX (64u << 20)

int cts_tr_rep_open(struct cts_tracer *tr, struct thread *th, const struct cts_insn *in)
{
	uint64_t slo, shi, dlo, dhi;
	if (!in || !in->rep || in->access != CTS_ACC_STRING || !in->len || th->ret_pc ||
	    th->pkru_call || !cts_fault_on(tr) || cts_tr_getregs(th) != 0 || th->regs.rip != in->pc)
		return 0;
	cts_disasm_string_ranges(in, &th->regs, &slo, &shi, &dlo, &dhi);
	uint64_t lo = UINT64_MAX, hi = 0;
	if (shi > slo)
		lo = slo, hi = shi;
	if (dhi > dlo) {
		lo = dlo < lo ? dlo : lo;
		hi = dhi > hi ? dhi : hi;
	}
	if (hi <= lo || hi - lo > REP_OPEN_MAX)
		return 0;
	th->lc_sp = th->regs.rsp - 8; /* the return breakpoint's stack check: rsp as now */
	th->ret_pc = in->pc + in->len;
	th->ret_spec = -1;
	arm_return(tr, th);
	if (!th->ret_pc)
		return 0;
	cts_fault_call(tr, th, true, lo, hi - lo);
	return 1;
}

/* The step that ran th's last range event is over: make its range exact. */
void cts_tr_libcall_done(struct thread *th, struct cts_event *done)
{
	if (th->ret_seen) {
		done->obj = th->ret_start;
		done->size = (uint32_t)(th->ret_len > UINT32_MAX ? UINT32_MAX : th->ret_len);
	}
	th->ret_seen = false;
	th->ret_spec = -1;
}

int cts_tr_libcalls_unseen(struct cts_tracer *tr, char *buf, size_t len)
{
	struct cts_libcalls *lc = tr->lc;
	size_t off = 0;
	if (len)
		buf[0] = 0;
	if (!lc || !lc->nflagged)
		return 0;
	off += (size_t)snprintf(buf, len, "%d untraced library function%s called with a pointer "
				"to shared memory:", lc->nflagged, lc->nflagged == 1 ? " was" : "s were");
	for (int i = 0, k = 0; i < lc->n && off < len; i++) {
		char where[256];
		if (!lc->where[i])
			continue;
		if (tr->sym)
			cts_sym_format(tr->sym, lc->where[i] - 1, where, sizeof(where));
		else
			snprintf(where, sizeof(where), "0x%" PRIx64, lc->where[i] - 1);
		off += (size_t)snprintf(buf + off, len - off, "%s %s (at %s)", k++ ? "," : "",
					lc->names[i], where);
	}
	return lc->nflagged;
}
