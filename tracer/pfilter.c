/* The program's own seccomp filters (pfilter.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "tracer/bpf.h"
#include "tracer/pfilter.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"

#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC (1UL << 0)
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

/* One installed filter; prev is the one installed before it on the same
 * chain (the kernel's filter->prev), -1 at the root. */
struct filter {
	struct sock_filter *insns;
	size_t n;
	bool unknown;     /* one cts_bpf_check refuses but the kernel took */
	int prev;
};

struct cts_pf {
	struct filter *f;
	int n, cap;
	int base;         /* filters of the fork server: every run has them */
	int base_head;
};

struct cts_pf *cts_pf_new(void)
{
	struct cts_pf *pf = cts_xcalloc(1, sizeof(*pf));
	pf->base_head = -1;
	return pf;
}

static void drop_from(struct cts_pf *pf, int keep)
{
	for (int i = keep; i < pf->n; i++)
		free(pf->f[i].insns);
	pf->n = keep;
}

void cts_pf_free(struct cts_pf *pf)
{
	if (!pf)
		return;
	drop_from(pf, 0);
	free(pf->f);
	free(pf);
}

void cts_pf_set_base(struct cts_pf *pf, int head)
{
	pf->base = pf->n;
	pf->base_head = head;
}

int cts_pf_begin_run(struct cts_pf *pf, struct cts_run_state *st)
{
	drop_from(pf, pf->base);
	st->own_filters = pf->base_head >= 0;
	return pf->base_head;
}

/* ---- installing ---------------------------------------------------------------- */

/* Is th stopped at a call that installs a filter? Its flags and where its
 * struct sock_fprog is. */
static bool install_call(const struct thread *th, uint64_t *flags, uint64_t *uprog)
{
	const struct user_regs_struct *r = &th->regs;
	if ((long)r->orig_rax == SYS_seccomp && r->rdi == SECCOMP_SET_MODE_FILTER) {
		*flags = r->rsi;
		*uprog = r->rdx;
		return true;
	}
	if ((long)r->orig_rax == SYS_prctl && r->rdi == PR_SET_SECCOMP &&
	    r->rsi == SECCOMP_MODE_FILTER) {
		*flags = 0;
		*uprog = r->rdx;
		return true;
	}
	return false;
}

bool cts_pf_is_install(const struct thread *th)
{
	uint64_t flags, uprog;
	return install_call(th, &flags, &uprog);
}

/* Read the filter th is installing; th->pf_installing if there is one
 * to keep at the call's exit. */
static void read_install(struct thread *th)
{
	uint64_t flags, uprog;
	struct { uint16_t len; uint16_t pad[3]; uint64_t filter; } fprog;

	free(th->pf_insns);
	th->pf_insns = NULL;
	th->pf_installing = false;
	if (!install_call(th, &flags, &uprog) ||
	    cts_mem_read(th->tid, uprog, &fprog, sizeof(fprog)) != 0 ||
	    fprog.len == 0 || fprog.len > CTS_BPF_MAXINSNS)
		return; /* the kernel refuses it too */
	struct sock_filter *insns = cts_xmalloc(fprog.len * sizeof(*insns));
	if (cts_mem_read(th->tid, fprog.filter, insns, fprog.len * sizeof(*insns)) != 0) {
		free(insns);
		return; /* EFAULT */
	}
	th->pf_insns = insns;
	th->pf_n = fprog.len;
	th->pf_flags = flags;
	th->pf_installing = true;
}

int cts_pf_on_install(struct cts_tracer *tr, struct thread *th)
{
	read_install(th);
	return cts_tr_resume(tr, th, 0); /* with pf_installing: to its exit stop */
}

/* Did the call that installs th's filter succeed (its exit stop's regs)? */
static bool succeeded(const struct thread *th)
{
	return (th->pf_flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) ? (long)th->regs.rax >= 0 :
								  th->regs.rax == 0;
}

/* th's filter on top of its chain (th->pf_insns handed over): its index. */
static int keep(struct cts_pf *pf, struct thread *th)
{
	if (pf->n == pf->cap) {
		int cap = pf->cap ? 2 * pf->cap : 8;
		pf->f = cts_xgrow(pf->f, (size_t)pf->cap, (size_t)cap, sizeof(*pf->f));
		pf->cap = cap;
	}
	char why[160];
	struct filter *f = &pf->f[pf->n];
	f->insns = th->pf_insns;
	f->n = th->pf_n;
	f->unknown = cts_bpf_check(f->insns, f->n, why, sizeof(why)) != 0;
	f->prev = th->pf_head;
	if (f->unknown)
		cts_debug_msg("thread %d's seccomp filter: %s", th->num, why);
	th->pf_insns = NULL;
	th->pf_installing = false;
	return pf->n++;
}

void cts_pf_installed(struct cts_tracer *tr, struct thread *th)
{
	th->pf_installing = false;
	if (!th->pf_insns)
		return;
	if (cts_tr_getregs(th) != 0 || !succeeded(th)) {
		free(th->pf_insns);
		th->pf_insns = NULL;
		return;
	}
	th->pf_head = keep(tr->pf, th);
	if (th->pf_flags & SECCOMP_FILTER_FLAG_TSYNC)
		for (int i = 0; i < tr->nlive; i++)
			if (tr->live[i]->state != TH_DEAD)
				tr->live[i]->pf_head = th->pf_head;
	tr->st->own_filters = true;
}

/* ---- running them -------------------------------------------------------------- */

/* The return value the kernel would act on for d: every filter of the chain
 * from the newest, the first of the most restrictive action kept. false if
 * a filter of the chain could not be read. */
static bool run_chain(const struct cts_pf *pf, int head, const struct seccomp_data *d,
		      uint32_t *ret)
{
	*ret = SECCOMP_RET_ALLOW;
	for (int i = head; i >= 0; i = pf->f[i].prev) {
		if (pf->f[i].unknown)
			return false;
		uint32_t r = cts_bpf_run(pf->f[i].insns, pf->f[i].n, d);
		if (cts_bpf_action(r) < cts_bpf_action(*ret))
			*ret = r;
	}
	return true;
}

int cts_pf_startup_stop(struct cts_tracer *tr, pid_t pid)
{
	struct thread th = { .tid = pid, .pf_head = tr->pf_start, .regs_valid = true };
	int status;
	if (ptrace(PTRACE_GETREGS, pid, 0, &th.regs) != 0)
		return 0;
	if (cts_pf_wants_tracer(tr, &th)) {
		th.regs.orig_rax = (unsigned long long)-1;
		th.regs.rax = (unsigned long long)-ENOSYS;
		return ptrace(PTRACE_SETREGS, pid, 0, &th.regs) == 0 ? 0 : -1;
	}
	if (!cts_pf_is_install(&th))
		return 0;
	read_install(&th);
	if (!th.pf_installing)
		return 0;
	int rc = -1;
	if (ptrace(PTRACE_SYSCALL, pid, 0, 0) == 0) {
		pid_t w;
		while ((w = waitpid(pid, &status, __WALL)) != pid && errno == EINTR)
			;
		if (w == pid && WIFSTOPPED(status)) {
			rc = 0;
			/* not the call's exit (a signal on the way): its filter is lost */
			if (WSTOPSIG(status) == (SIGTRAP | 0x80) &&
			    ptrace(PTRACE_GETREGS, pid, 0, &th.regs) == 0 && succeeded(&th)) {
				tr->pf_start = keep(tr->pf, &th);
				tr->st->own_filters = true;
			}
		}
	}
	free(th.pf_insns);
	return rc;
}

bool cts_pf_wants_tracer(struct cts_tracer *tr, struct thread *th)
{
	if (th->pf_head < 0)
		return false;
	const struct user_regs_struct *r = &th->regs;
	struct seccomp_data d = {
		.nr = (int)r->orig_rax, .arch = AUDIT_ARCH_X86_64, .instruction_pointer = r->rip,
		.args = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 },
	};
	uint32_t ret;
	return run_chain(tr->pf, th->pf_head, &d, &ret) &&
	       (uint32_t)cts_bpf_action(ret) == SECCOMP_RET_TRACE;
}

/* ---- calls cts models ------------------------------------------------------------- */

/* How glibc 2.36 takes a futex error where the call is made: its low-level
 * lock (mutexes, a cond wait taking its mutex back, barriers, a mutex
 * unlock's wake) ignores the result and tries again; its checked wrappers
 * (pthread_join, semaphores, rwlocks) end the process through
 * futex_fatal_error for any error they do not expect. */
static bool glibc_fatal(cts_op op, bool wake, int err)
{
	switch (op) {
	case CTS_OP_JOIN: case CTS_OP_SEM_WAIT: case CTS_OP_RDLOCK: case CTS_OP_WRLOCK:
		return !wake && err != EAGAIN && err != EINTR && err != ETIMEDOUT &&
		       err != EOVERFLOW;
	case CTS_OP_SEM_POST: case CTS_OP_RWUNLOCK:
		return wake && err != EFAULT && err != EINVAL;
	default:
		return false;
	}
}

/* The futex call th's pending operation makes natively where cts holds it:
 * a wait (it must wait) or a wake (it releases what others wait for), with
 * the arguments glibc 2.36 passes; a wait's expected value is one more than
 * the word holds, so that the call, if the kernel ever let it through,
 * returns at once. "" in what if the operation makes none (a spin lock). */
static void futex_call(const struct thread *th, bool wake, struct seccomp_data *d, char *what,
		       size_t len)
{
	const struct cts_event *p = &th->pending;
	uint64_t word = p->obj, op = wake ? FUTEX_WAKE_PRIVATE : FUTEX_WAIT_PRIVATE, val = 1;
	uint64_t bitset = 0;
	const char *fn, *opname = wake ? "FUTEX_WAKE_PRIVATE" : "FUTEX_WAIT_PRIVATE";

	what[0] = 0;
	switch (p->op) {
	case CTS_OP_LOCK:
		if (cts_tr_call_spins(th))
			return;
		fn = "pthread_mutex_lock";
		break;
	case CTS_OP_COND_REACQUIRE:
		word = p->obj2;
		fn = "pthread_cond_wait (taking its mutex back)";
		break;
	case CTS_OP_JOIN:
		word = p->obj + GLIBC_TID_OFFSET;
		op = FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME;
		opname = "FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME";
		bitset = FUTEX_BITSET_MATCH_ANY;
		fn = "pthread_join";
		break;
	case CTS_OP_SEM_WAIT:
		op = FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME;
		opname = "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME";
		bitset = FUTEX_BITSET_MATCH_ANY;
		fn = "sem_wait";
		break;
	case CTS_OP_RDLOCK:
		fn = "pthread_rwlock_rdlock";
		break;
	case CTS_OP_WRLOCK:
		fn = "pthread_rwlock_wrlock";
		break;
	case CTS_OP_RESUME:
		fn = "pthread_barrier_wait";
		break;
	case CTS_OP_UNLOCK:
		fn = "pthread_mutex_unlock";
		break;
	case CTS_OP_RWUNLOCK:
		val = INT_MAX;
		fn = "pthread_rwlock_unlock";
		break;
	case CTS_OP_SEM_POST:
		fn = "sem_post";
		break;
	default:
		return;
	}
	if (!wake) {
		uint32_t cur = 0;
		cts_mem_read(th->tid, word, &cur, 4);
		val = (uint32_t)(cur + 1);
	}
	*d = (struct seccomp_data){
		.nr = SYS_futex, .arch = AUDIT_ARCH_X86_64, .instruction_pointer = p->pc,
		.args = { word, op, val, 0, 0, bitset },
	};
	snprintf(what, len, "futex(0x%" PRIx64 ", %s, ...), which %s makes natively here "
		 "%s", word, opname, fn,
		 wake ? "to wake a thread that waits for what it releases" : "when it must wait");
}

/* The process dies here of sig, natively: the run ends as that crash. */
static int dies(struct cts_run_state *st, const struct thread *th, int sig, const char *why)
{
	st->status = CTS_RUN_SIGNALED;
	st->sig = sig;
	st->fault_tid = th->num;
	st->fault_pc = th->pending.pc;
	st->fault_addr = 0;
	snprintf(st->message, sizeof(st->message), "    %s\n", why);
	return 1;
}

/* cts cannot do what the filter asks: the program cannot be tested. */
static int refuse(struct cts_run_state *st, const char *why)
{
	st->status = CTS_RUN_ERROR;
	st->bad_input = true;
	snprintf(st->message, sizeof(st->message), "%s", why);
	return -1;
}

static int live_threads(const struct cts_tracer *tr)
{
	int n = 0;
	for (int i = 0; i < tr->nlive; i++)
		n += tr->live[i]->state != TH_DEAD;
	return n;
}

/* SECCOMP_RET_KILL_THREAD with other threads alive: only this thread dies
 * (do_exit(SIGSYS)). The kernel does it: th makes the call, which its filter
 * kills. */
static int kill_thread(struct cts_tracer *tr, struct thread *th, const struct seccomp_data *d,
		       char *why)
{
	int64_t ret;
	if (th->tid == tr->pid) {
		/* Its death would wait for the others'. */
		snprintf(why + strlen(why), 512 - strlen(why), ": it kills the main thread alone, "
			 "which cts-trace cannot do while other threads run");
		return refuse(tr->st, why);
	}
	if (cts_tr_getregs(th) != 0)
		return 0; /* gone already */
	if (cts_inject_syscall(th->tid, &th->regs, tr->stub_syscall, d->nr,
			       (const uint64_t *)d->args, &ret) == 0) {
		cts_tr_set_error(tr, "thread %d survived a futex call its own seccomp filter kills "
				 "(returned %" PRId64 ")", th->num, ret);
		return -1;
	}
	th->regs_valid = false;
	cts_tr_mark_dead(tr, th);
	cts_tr_reaped(tr, th);
	return 0;
}

int cts_pf_native_call(struct cts_tracer *tr, struct cts_run_state *st, int tid, bool wake)
{
	struct thread *th = cts_tr_by_num(tr, tid);
	struct seccomp_data d;
	char what[256], why[512];
	uint32_t ret;

	tr->st = st;
	if (!th || th->state != TH_HELD || th->pf_head < 0)
		return 0;
	futex_call(th, wake, &d, what, sizeof(what));
	if (!what[0])
		return 0;
	if (!run_chain(tr->pf, th->pf_head, &d, &ret)) {
		snprintf(why, sizeof(why), "thread %d's own seccomp filter cannot be run by "
			 "cts-trace (-d says why), and it would see %s: cts-trace cannot apply it",
			 tid, what);
		return refuse(st, why);
	}
	uint32_t act = (uint32_t)cts_bpf_action(ret);
	int err = (int)(ret & SECCOMP_RET_DATA);
	if (err > 4095)
		err = 4095; /* the kernel's MAX_ERRNO */
	snprintf(why, sizeof(why), "the program's own seccomp filter returns SECCOMP_RET_%s for %s",
		 cts_bpf_action_name(ret), what);
	switch (act) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		return 0;
	case SECCOMP_RET_TRACE:
		err = ENOSYS; /* no tracer natively */
		/* fall through */
	case SECCOMP_RET_ERRNO:
		if (!glibc_fatal(th->pending.op, wake, err))
			return 0;
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 " (error %d): glibc aborts, \"The futex facility returned an unexpected "
			 "error code.\"", err);
		return dies(st, th, SIGABRT, why);
	case SECCOMP_RET_TRAP: {
		struct cts_sigstate ss;
		int bit = SIGSYS - 1;
		if (cts_proc_sigstate(th->tid, &ss) == 0 && (ss.cgt >> bit & 1) && !(ss.blk >> bit & 1)) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why), ": its SIGSYS handler "
				 "would run inside a call cts-trace models; cts-trace cannot apply it");
			return refuse(st, why);
		}
		return dies(st, th, SIGSYS, why);
	}
	case SECCOMP_RET_KILL_THREAD:
		if (live_threads(tr) > 1)
			return kill_thread(tr, th, &d, why);
		return dies(st, th, SIGSYS, why);
	case SECCOMP_RET_USER_NOTIF:
		snprintf(why + strlen(why), sizeof(why) - strlen(why), ": its supervisor would "
			 "answer it; cts-trace cannot apply it");
		return refuse(st, why);
	default: /* SECCOMP_RET_KILL_PROCESS, and what the kernel does not know */
		return dies(st, th, SIGSYS, why);
	}
}
