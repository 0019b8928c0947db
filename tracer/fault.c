#include "tracer/fault.h"
#include "tracer/elf.h"

#include <errno.h>
#include <inttypes.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "hw/pkey.h"
#include "models/error.h"
#include "models/htab.h"
#include "tracer/access.h"
#include "tracer/own.h"
#include "tracer/proc.h"
#include "tracer/wait.h"

#define PAGE ((uint64_t)4096)
/* A claim or retag over more pages than this walks the table instead. */
#define WALK_PAGES 64
/* Pages after a granted one given with it while they qualify. */
#define RUN_AHEAD 16
/* The mprotect mechanism: pages of one key opened by one lazy fault. */
#define LAZY_SPAN 256

enum key_state {
	K_NONE,   /* not allocated in this run's process */
	K_DENY,   /* the key of tracked pages nobody holds: denied to all */
	K_FREE,
	K_LIVE,   /* granted: its owner's PKRU allows it */
	K_STALE,  /* revoked at the owner's event `epoch`: denied to all */
	K_RO,     /* the read key: every thread reads its pages, none writes them */
};

struct key {
	enum key_state state;
	int owner;
	bool write;             /* its owner may write (else read only) */
	uint32_t epoch;
	uint64_t *pages;        /* pages granted with it (some may have moved on since) */
	size_t npages, cap;
	uint64_t *claimed;      /* stale: its pages claimed since the revocation */
	size_t nclaimed, ccap;
};

/* A page carrying a thread's key (absent: the deny key, or untracked). */
struct pk {
	uint8_t key;
	uint8_t claimed;        /* stale key: its states were claimed for the owner */
};

struct range {
	uint64_t lo, hi;
	int prot;               /* tracked memory: the program's PROT_* for it */
};

/* What the fork server was given (cts_fault_server_setup): its runs
 * inherit keys and tags, so a run starts from this, nothing injected. */
struct fault_snap {
	pid_t server;           /* 0: none */
	int ro;                 /* the read key and its pages */
	enum key_state state[CTS_PKEY_COUNT];
	int kx;
	uint32_t deny;
	uint64_t brk_end;
	struct range *tracked;
	size_t ntracked;
	uint64_t *ro_pages;
	size_t nro;
};

struct cts_fault {
	struct cts_own *own;
	struct cts_tracer *tr;
	bool on;                /* this run */
	bool armed;             /* at least two threads live: else nothing is denied */
	bool broken;            /* the keys could not be set up: never again */
	int kx;
	struct key keys[CTS_PKEY_COUNT];
	uint32_t deny;          /* PKRU that denies every key of ours */
	struct cts_htab *pages; /* page number -> struct pk */
	struct range *tracked;
	size_t ntracked, tcap;
	uint64_t brk_end;
	/* The program's GOT (offsets from its first page): the dynamic
	 * linker's memory, not the program's data, though it shares pages. */
	struct range holes[4];
	int nholes;
	bool holes_read;
	uint64_t exe_base;
	/* The read key (keys only): the pages of the program's writable data
	 * that hold its GOT. The dynamic linker writes the GOT and PLT stubs
	 * read it, so the deny key cannot be theirs; on key 0 every access to
	 * the program's globals beside it stopped at its int3 (GNU sort's
	 * comparison function: three a call). With the read key every thread
	 * reads them natively; a write by the program while two threads live
	 * voids the run (who read what is unknown) and the page is decided per
	 * access from then on, on key 0 as before. ro_pages: sorted. */
	int ro;
	uint64_t *ro_pages;
	size_t nro, rocap;
	struct fault_snap snap;
	struct cts_fault_stats st;
	/* The mprotect mechanism (no keys, or CTS_FAULTS=mprotect): the keys
	 * are the tracer's; a page's protection is what the PKRU of the thread
	 * that runs gives its key, and it is switched (injected mprotect
	 * calls) before a thread runs with other rights than the last one. */
	bool mprot;
	uint32_t applied;       /* the PKRU the pages' protections follow now */
	bool applied_ok;        /* else every tracked page's is set again */
	uint64_t *dirty;        /* pages whose key changed since */
	size_t ndirty, dcap;
	/* ...the pages the running thread has open (a step, a call's buffers,
	 * a sync call's object; every key is open with keys): sorted */
	uint64_t *open;
	size_t nopen, ocap;
	/* ...the pages opened beyond `applied` for the thread whose PKRU is
	 * lazy_want (a fault on a page it may use: lazy_open): sorted */
	uint64_t *lazy;
	size_t nlazy;
	uint32_t lazy_want;
	bool lazy_off;          /* CTS_MPROTECT_EAGER: every switch opens too */
	bool text_nx;           /* the traced text is not executable now (a thread in
	                         * library code's own mode runs: cts_fault_lib_enter) */
	bool text_stale;        /* ...or may be either (a fork): set at the next switch */
	/* the traced text's pages and their protection, read once while they
	 * were the program's (the maps show ours after) */
	uint64_t text_lo[CTS_ACCESS_RANGES], text_hi[CTS_ACCESS_RANGES];
	int text_prot[CTS_ACCESS_RANGES];
	size_t ntext;
};

bool cts_fault_possible(const char **why)
{
	return cts_pkey_available(why);
}

/* Pointer-free calls: they run with the thread's own PKRU, no stop. */
static const int no_pointer_calls[] = {
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(getuid), SCMP_SYS(geteuid),
	SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(getpgrp), SCMP_SYS(getpgid), SCMP_SYS(getsid),
	SCMP_SYS(close), SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(lseek),
	SCMP_SYS(madvise), SCMP_SYS(msync), SCMP_SYS(mlock), SCMP_SYS(munlock), SCMP_SYS(fsync),
	SCMP_SYS(fdatasync), SCMP_SYS(ftruncate), SCMP_SYS(fallocate), SCMP_SYS(fadvise64),
	SCMP_SYS(alarm), SCMP_SYS(umask), SCMP_SYS(setpgid), SCMP_SYS(setsid),
	SCMP_SYS(sched_get_priority_max), SCMP_SYS(sched_get_priority_min),
	SCMP_SYS(sched_getscheduler), SCMP_SYS(getpriority), SCMP_SYS(setpriority),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(close_range), SCMP_SYS(fchmod), SCMP_SYS(fchown),
	SCMP_SYS(fchdir), SCMP_SYS(flock), SCMP_SYS(listen), SCMP_SYS(shutdown),
	SCMP_SYS(eventfd), SCMP_SYS(eventfd2), SCMP_SYS(epoll_create), SCMP_SYS(epoll_create1),
	SCMP_SYS(inotify_init), SCMP_SYS(inotify_init1), SCMP_SYS(inotify_rm_watch),
	SCMP_SYS(timerfd_create), SCMP_SYS(socket), SCMP_SYS(sync), SCMP_SYS(syncfs),
	SCMP_SYS(pkey_alloc), SCMP_SYS(pkey_free), SCMP_SYS(membarrier), SCMP_SYS(ioprio_get),
	SCMP_SYS(ioprio_set), SCMP_SYS(setuid), SCMP_SYS(setgid), SCMP_SYS(kcmp),
	SCMP_SYS(pidfd_open), SCMP_SYS(tkill), SCMP_SYS(tgkill), SCMP_SYS(kill),
};

/* The calls the rest of the tracer stops at already (launch.c, syscall.c,
 * native.c): fault mode must not add a rule that changes their action. */
static const int handled_calls[] = {
	SCMP_SYS(futex), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(sched_yield),
	SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep), SCMP_SYS(getrandom), SCMP_SYS(ptrace),
	SCMP_SYS(process_vm_writev), SCMP_SYS(process_vm_readv), SCMP_SYS(rt_sigqueueinfo),
	SCMP_SYS(rt_tgsigqueueinfo), SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_setaffinity),
	SCMP_SYS(personality), SCMP_SYS(read), SCMP_SYS(readv), SCMP_SYS(recvfrom),
	SCMP_SYS(recvmsg), SCMP_SYS(recvmmsg), SCMP_SYS(sendto), SCMP_SYS(sendmsg),
	SCMP_SYS(sendmmsg), SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(connect), SCMP_SYS(poll),
	SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6), SCMP_SYS(epoll_wait),
	SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_pwait2), SCMP_SYS(wait4), SCMP_SYS(waitid),
	SCMP_SYS(splice), SCMP_SYS(tee), SCMP_SYS(sendfile), SCMP_SYS(msgrcv), SCMP_SYS(msgsnd),
	SCMP_SYS(semop), SCMP_SYS(semtimedop), SCMP_SYS(mq_timedreceive), SCMP_SYS(mq_timedsend),
	SCMP_SYS(rt_sigtimedwait), SCMP_SYS(rt_sigsuspend), SCMP_SYS(pause),
	SCMP_SYS(pidfd_send_signal), SCMP_SYS(pipe), SCMP_SYS(pipe2), SCMP_SYS(socketpair),
	SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(fcntl),
	/* the launch's own exec runs under the filter before the tracer sets
	 * PTRACE_O_TRACESECCOMP: a traced call would fail there with ENOSYS */
	SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(prctl),
	/* the program's own filters (pfilter.h): launch.c's rule */
	SCMP_SYS(seccomp),
};

static bool in_list(const int *l, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] == nr)
			return true;
	return false;
}

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

int cts_fault_seccomp_rules(void *scmp_ctx)
{
	for (int nr = 0; nr < 512; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
		if (!name)
			continue;
		free(name);
		if (in_list(no_pointer_calls, LEN(no_pointer_calls), nr) ||
		    in_list(handled_calls, LEN(handled_calls), nr))
			continue;
		if (seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), nr, 0) != 0)
			return -1;
	}
	/* The standard output and error too: their buffers are the program's. */
	if (seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(write), 1,
			     SCMP_A0(SCMP_CMP_LT, 3)) != 0 ||
	    seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(writev), 1,
			     SCMP_A0(SCMP_CMP_LT, 3)) != 0 ||
	    seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(fcntl), 0) != 0)
		return -1;
	/* prctl but the two a failed launch uses to end itself (launch.c) */
	if (seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(prctl), 1,
			     SCMP_A0(SCMP_CMP_LT, PR_SET_SECCOMP)) != 0 ||
	    seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(prctl), 1,
			     SCMP_A0(SCMP_CMP_GT, PR_SET_NO_NEW_PRIVS)) != 0)
		return -1;
	for (int op = PR_SET_SECCOMP + 1; op < PR_SET_NO_NEW_PRIVS; op++)
		if (seccomp_rule_add(scmp_ctx, SCMP_ACT_TRACE(0), SCMP_SYS(prctl), 1,
				     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)op)) != 0)
			return -1;
	return 0;
}

struct cts_fault *cts_fault_new(struct cts_own *own, bool mprot)
{
	struct cts_fault *f = cts_xcalloc(1, sizeof(*f));
	f->own = own;
	f->mprot = mprot;
	const char *eager = getenv("CTS_MPROTECT_EAGER"); /* to measure the bound */
	f->lazy_off = eager && *eager && strcmp(eager, "0") != 0;
	f->pages = cts_htab_new(sizeof(uint64_t), sizeof(struct pk));
	return f;
}

void cts_fault_free(struct cts_fault *f)
{
	if (!f)
		return;
	cts_htab_free(f->pages);
	for (int k = 0; k < CTS_PKEY_COUNT; k++) {
		free(f->keys[k].pages);
		free(f->keys[k].claimed);
	}
	free(f->tracked);
	free(f->snap.tracked);
	free(f->ro_pages);
	free(f->snap.ro_pages);
	free(f->dirty);
	free(f->open);
	free(f->lazy);
	free(f);
}

bool cts_fault_on(const struct cts_tracer *tr)
{
	return tr->flt && tr->flt->on && !tr->exec_free;
}

/* ---- the process: injected calls, PKRU ------------------------------------ */

/* Where a call is injected: a run's thread, or the fork server. */
struct target {
	pid_t pid;
	const struct user_regs_struct *regs;
};

static int inject_at(struct cts_tracer *tr, struct target t, long nr, uint64_t a0, uint64_t a1,
		     uint64_t a2, uint64_t a3, int64_t *ret)
{
	const uint64_t args[6] = { a0, a1, a2, a3, 0, 0 };
	if (cts_inject_syscall(t.pid, t.regs, tr->stub_syscall, nr, args, ret) != 0)
		return -1;
	return *ret < 0 && *ret > -4096 ? (errno = (int)-*ret, -1) : 0;
}

static int thread_target(struct thread *th, struct target *t)
{
	if (cts_tr_flush_regs(th) != 0 || cts_tr_getregs(th) != 0)
		return -1;
	*t = (struct target){ th->tid, &th->regs };
	return 0;
}

static uint32_t pkru_of(const struct cts_fault *f, int num)
{
	if (!f->armed)
		return 0;
	uint32_t v = f->deny;
	for (int k = 1; k < CTS_PKEY_COUNT; k++)
		if (f->keys[k].state == K_LIVE && f->keys[k].owner == num)
			v = f->keys[k].write ? cts_pkru_allow(v, k) : cts_pkru_readonly(v, k);
	return f->ro ? cts_pkru_readonly(v, f->ro) : v;
}

/* th's PKRU as it must be now (force: write it even if it seems so: a
 * signal handler's return puts back the PKRU it interrupted). */
/* The PKRU th must run with now: every key open in a system call or a
 * plain sync call's body, else its grants. */
static uint32_t pkru_want(const struct cts_fault *f, const struct thread *th)
{
	if (th->lib_mode)
		return 0;
	if (th->pkru_open || th->pkru_call)
		return f->mprot && th->flt_ranged ? pkru_of(f, th->num) : 0;
	return pkru_of(f, th->num);
}

static void set_pkru(struct cts_tracer *tr, struct thread *th, bool force)
{
	uint32_t want = pkru_want(tr->flt, th);
	if (tr->flt->mprot) {
		/* written to memory when th next runs (cts_fault_resume) */
		th->pkru = want;
		th->pkru_set = true;
		return;
	}
	if (!force && th->pkru_set && th->pkru == want)
		return;
	if (cts_pkey_set(th->tid, want) == 0) {
		th->pkru = want;
		th->pkru_set = true;
	}
}

static int prot_of(const char *perms)
{
	return (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
	       (perms[2] == 'x' ? PROT_EXEC : 0);
}

/* ---- tracked memory ------------------------------------------------------- */

/* Append page p to a growing vector. */
static void push_page(uint64_t **v, size_t *n, size_t *cap, uint64_t p)
{
	if (*n == *cap) {
		size_t c = cts_grow_cap(*cap, *n + 1);
		*v = cts_xgrow(*v, *cap, c, sizeof(**v));
		*cap = c;
	}
	(*v)[(*n)++] = p;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_page(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort page numbers and drop repeats. */
static void sort_unique(uint64_t *v, size_t *n)
{
	if (!*n)
		return;
	qsort(v, *n, sizeof(*v), cmp_page);
	size_t m = 0;
	for (size_t i = 0; i < *n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	*n = m;
}

static void track(struct cts_fault *f, uint64_t lo, uint64_t hi, int prot)
{
	if (f->ntracked == f->tcap) {
		size_t c = cts_grow_cap(f->tcap, f->ntracked + 1);
		f->tracked = cts_xgrow(f->tracked, f->tcap, c, sizeof(*f->tracked));
		f->tcap = c;
	}
	f->tracked[f->ntracked++] = (struct range){ lo, hi, prot };
}

/* The tracked ranges with [lo, hi) given the program's protection prot, or
 * (prot -1) no longer tracked. */
static void resplit(struct cts_fault *f, uint64_t lo, uint64_t hi, int prot)
{
	size_t n = f->ntracked;
	struct range *old = cts_xmalloc((n ? n : 1) * sizeof(*old));
	if (n)
		memcpy(old, f->tracked, n * sizeof(*old));
	f->ntracked = 0;
	for (size_t i = 0; i < n; i++) {
		struct range r = old[i];
		uint64_t a = r.lo > lo ? r.lo : lo, b = r.hi < hi ? r.hi : hi;
		if (a >= b) {
			track(f, r.lo, r.hi, r.prot);
			continue;
		}
		if (r.lo < a)
			track(f, r.lo, a, r.prot);
		if (prot >= 0)
			track(f, a, b, prot);
		if (r.hi > b)
			track(f, b, r.hi, r.prot);
	}
	free(old);
}

/* [lo, hi) is no longer what it was: not tracked, no page in it granted. */
static void untrack(struct cts_fault *f, uint64_t lo, uint64_t hi)
{
	resplit(f, lo, hi, -1);
	if ((hi - lo) / PAGE > WALK_PAGES) {
		size_t pos = 0, k = 0, cap = 0;
		const void *key;
		uint64_t *gone = NULL;
		while (cts_htab_next(f->pages, &pos, &key, NULL)) {
			uint64_t p;
			memcpy(&p, key, sizeof(p));
			if (p * PAGE >= lo && p * PAGE < hi)
				push_page(&gone, &k, &cap, p);
		}
		for (size_t i = 0; i < k; i++)
			cts_htab_del(f->pages, &gone[i]);
		free(gone);
	} else {
		for (uint64_t p = lo / PAGE; p < (hi + PAGE - 1) / PAGE; p++)
			cts_htab_del(f->pages, &p);
	}
}

bool cts_fault_tracked(const struct cts_tracer *tr, uint64_t addr)
{
	const struct cts_fault *f = tr->flt;
	if (!cts_fault_on(tr))
		return false;
	for (size_t i = 0; i < f->ntracked; i++)
		if (addr >= f->tracked[i].lo && addr < f->tracked[i].hi)
			return true;
	return false;
}

bool cts_fault_allows(const struct cts_tracer *tr, const struct thread *th, uint64_t addr,
		      uint64_t len, bool write)
{
	struct cts_fault *f = tr->flt;
	if (!cts_fault_on(tr) || !f->armed)
		return false;
	/* the PKRU the thread runs with (what the CPU checks) */
	uint32_t pkru = th->pkru_set ? th->pkru : pkru_want(f, th);
	for (uint64_t p = addr / PAGE; p <= (addr + (len ? len : 1) - 1) / PAGE; p++) {
		const struct pk *pk = cts_htab_get(f->pages, &p); /* only on tracked pages */
		if (!pk)
			return false;
		uint32_t bits = (pkru >> (2 * pk->key)) & 3; /* AD, WD */
		if ((bits & 1) || (write && (bits & 2)))
			return false;
	}
	return true;
}

static void open_pages(struct cts_fault *f, struct thread *th, uint64_t lo, uint64_t len);
static void close_pages(struct cts_fault *f, struct thread *th);

/* ---- the mprotect mechanism ------------------------------------------------ */

/* The protection a page of key (0: untracked) with the program's prot has
 * under pkru: what the CPU would let through with keys. */
static int phys_prot(uint32_t pkru, int key, int prot)
{
	uint32_t bits = key ? (pkru >> (2 * key)) & 3 : 0;
	return bits & 1 ? PROT_NONE : bits & 2 ? prot & ~PROT_WRITE : prot;
}

/* The tracked range holding addr, or NULL. */
static const struct range *range_at(const struct cts_fault *f, uint64_t addr)
{
	for (size_t i = 0; i < f->ntracked; i++)
		if (addr >= f->tracked[i].lo && addr < f->tracked[i].hi)
			return &f->tracked[i];
	return NULL;
}

/* The program's protection of tracked addr, or -1 (not tracked). */
static int range_prot(const struct cts_fault *f, uint64_t addr)
{
	const struct range *r = range_at(f, addr);
	return r ? r->prot : -1;
}

static int key_at(const struct cts_fault *f, uint64_t page)
{
	const struct pk *pk = cts_htab_get(f->pages, &page);
	return pk ? pk->key : f->kx;
}

/* Give [lo, lo+len) (the program's prot) key: pkey_mprotect with keys; with
 * mprotect, the protection the key has now (none to set while every key is
 * allowed: a mapping's pages have the program's). */
static int set_key(struct cts_tracer *tr, struct target t, uint64_t lo, uint64_t len, int prot,
		   int key)
{
	struct cts_fault *f = tr->flt;
	int64_t ret;
	if (!f->mprot)
		return inject_at(tr, t, SYS_pkey_mprotect, lo, len, (uint64_t)prot, (uint64_t)key,
				 &ret);
	if (f->applied_ok && f->applied == 0 && key)
		return 0;
	f->st.protects++;
	return inject_at(tr, t, SYS_mprotect, lo, len, (uint64_t)phys_prot(f->applied, key, prot),
			 0, &ret);
}

struct seg {
	uint64_t lo, hi;
	int prot;
};

static void push_seg(struct seg **v, size_t *n, size_t *cap, uint64_t lo, uint64_t hi, int prot)
{
	if (lo >= hi)
		return;
	if (*n == *cap) {
		size_t c = cts_grow_cap(*cap, *n + 1);
		*v = cts_xgrow(*v, *cap, c, sizeof(**v));
		*cap = c;
	}
	(*v)[(*n)++] = (struct seg){ lo, hi, prot };
}

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool is_open(const struct cts_fault *f, uint64_t page)
{
	return f->nopen && bsearch(&page, f->open, f->nopen, sizeof(*f->open), cmp_page);
}

/* Pages whose key changed: set again when a thread next runs. */
static void mark_dirty(struct cts_fault *f, uint64_t page)
{
	push_page(&f->dirty, &f->ndirty, &f->dcap, page);
}

static bool is_dirty(const struct cts_fault *f, uint64_t page)
{
	return f->ndirty && bsearch(&page, f->dirty, f->ndirty, sizeof(*f->dirty), cmp_page);
}

static bool is_lazy(const struct cts_fault *f, uint64_t page)
{
	return f->nlazy && bsearch(&page, f->lazy, f->nlazy, sizeof(*f->lazy), cmp_page);
}

/* The protection tracked page `page` (the program's prot) has now. */
static int phys_now(const struct cts_fault *f, uint64_t page, int prot)
{
	if (is_open(f, page))
		return prot;
	return phys_prot(is_lazy(f, page) ? f->lazy_want : f->applied, key_at(f, page), prot);
}

/* The switch is lazy where it would open (issue 26 item 5's bound): the
 * PKRU the pages follow keeps, per key of a thread, the stricter of the
 * applied rights and the wanted ones (the AD and WD bits or'ed), so a
 * switch only closes; a page the running thread may use opens when it
 * faults there (lazy_open), with the pages of its key around it, and
 * closes at the next switch. A switch then costs what the last thread
 * touched, not what the two threads own. The deny key (pages nobody holds)
 * and key 0 follow want. */
static uint32_t lazy_pkru(const struct cts_fault *f, uint32_t applied, uint32_t want)
{
	uint32_t keep = 3u | 3u << (2 * f->kx);
	return ((applied | want) & ~keep) | (want & keep);
}

/* What must change for the pages to follow eff, the thread running having
 * rights want: every page of a key whose rights differ from the applied
 * PKRU's (all of them when !applied_ok), the lazily opened pages unless
 * they are the same thread's (keep), the pages whose key changed (at want:
 * lazily opened too), the open ones; sorted, merged runs. The pages opened
 * at want are left in *nl (sorted). */
static size_t plan(struct cts_fault *f, uint32_t eff, uint32_t want, bool keep, uint64_t **nl,
		   size_t *nnl, struct seg **out)
{
	bool changed[CTS_PKEY_COUNT] = { false };
	for (int k = 1; k < CTS_PKEY_COUNT; k++)
		changed[k] = !f->applied_ok || ((f->applied >> (2 * k)) & 3) != ((eff >> (2 * k)) & 3);
	size_t lcap = 0;
	*nl = NULL;
	*nnl = 0;
	/* a page is set once: the dirty ones at want, before any key's */
	sort_unique(f->dirty, &f->ndirty);
	struct seg *v = NULL;
	size_t n = 0, cap = 0;
	if (changed[f->kx]) {
		/* every tracked page but those of another key */
		size_t np = 0, pcap = 0, pos = 0;
		uint64_t *pp = NULL;
		const void *key;
		while (cts_htab_next(f->pages, &pos, &key, NULL)) {
			uint64_t p;
			memcpy(&p, key, sizeof(p));
			push_page(&pp, &np, &pcap, p);
		}
		for (size_t i = 0; i < f->nopen; i++)
			push_page(&pp, &np, &pcap, f->open[i]);
		if (np)
			qsort(pp, np, sizeof(*pp), cmp_page);
		for (size_t i = 0; i < f->ntracked; i++) {
			const struct range *r = &f->tracked[i];
			int prot = phys_prot(eff, f->kx, r->prot);
			uint64_t at = r->lo;
			for (size_t j = 0; j < np; j++) {
				uint64_t a = pp[j] * PAGE;
				if (a < r->lo || a >= r->hi || a < at)
					continue; /* (an open page with a key: twice) */
				push_seg(&v, &n, &cap, at, a, prot);
				at = a + PAGE;
			}
			push_seg(&v, &n, &cap, at, r->hi, prot);
		}
		free(pp);
	}
	for (int k = 1; k < CTS_PKEY_COUNT; k++) {
		const struct key *key = &f->keys[k];
		if (k == f->kx || !changed[k])
			continue;
		for (size_t i = 0; i < key->npages; i++) {
			const struct pk *pk = cts_htab_get(f->pages, &key->pages[i]);
			int prot = range_prot(f, key->pages[i] * PAGE);
			if (pk && pk->key == k && prot >= 0 && !is_open(f, key->pages[i]) &&
			    !is_dirty(f, key->pages[i]))
				push_seg(&v, &n, &cap, key->pages[i] * PAGE, (key->pages[i] + 1) * PAGE,
					 phys_prot(eff, k, prot));
		}
	}
	/* The same thread going on keeps its lazily opened pages as they are
	 * (its rights, so eff's, did not change: apply merges the lists);
	 * another one's close. */
	for (size_t i = 0; !keep && i < f->nlazy; i++) {
		uint64_t p = f->lazy[i];
		int prot = range_prot(f, p * PAGE);
		if (prot >= 0 && !is_open(f, p) && !is_dirty(f, p))
			push_seg(&v, &n, &cap, p * PAGE, (p + 1) * PAGE,
				 phys_prot(eff, key_at(f, p), prot));
	}
	for (size_t i = 0; i < f->ndirty; i++) {
		uint64_t p = f->dirty[i];
		int prot = range_prot(f, p * PAGE);
		if (prot < 0 || is_open(f, p))
			continue;
		/* a page just granted to the thread that runs: open now */
		int key = key_at(f, p), at = phys_prot(want, key, prot);
		if (at != phys_prot(eff, key, prot))
			push_page(nl, nnl, &lcap, p); /* in dirty's order: sorted, unique */
		push_seg(&v, &n, &cap, p * PAGE, (p + 1) * PAGE, at);
	}
	for (size_t i = 0; i < f->nopen; i++) {
		int prot = range_prot(f, f->open[i] * PAGE);
		if (prot >= 0)
			push_seg(&v, &n, &cap, f->open[i] * PAGE, (f->open[i] + 1) * PAGE, prot);
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_seg);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		struct seg c = v[i];
		if (m && c.lo < v[m - 1].hi)
			c.lo = v[m - 1].hi; /* the same page twice (a dirty one of a changed key) */
		if (c.lo >= c.hi)
			continue;
		if (m && v[m - 1].hi == c.lo && v[m - 1].prot == c.prot)
			v[m - 1].hi = c.hi;
		else
			v[m++] = c;
	}
	*out = v;
	return m;
}

static bool safe_stop(int kind)
{
	return kind == CTS_WEV_BREAKPOINT || kind == CTS_WEV_SINGLESTEP ||
	       kind == CTS_WEV_WATCHPOINT || kind == CTS_WEV_SIGNAL || kind == CTS_WEV_SYSCALL;
}

static int run_segs(struct cts_tracer *tr, struct target t, const struct seg *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t ret;
		tr->flt->st.protects++;
		if (inject_at(tr, t, SYS_mprotect, v[i].lo, v[i].hi - v[i].lo, (uint64_t)v[i].prot, 0,
			      &ret) != 0 && errno != ENOMEM)
			return -1;
	}
	return 0;
}

/* The traced text's pages, executable (the program's protection) or not
 * (nx: library code's own mode), appended to the n segments of *v. */
static uint64_t page_up(uint64_t a);

static size_t text_segs(struct cts_tracer *tr, bool nx, struct seg **v, size_t n)
{
	struct cts_fault *f = tr->flt;
	size_t cap = n;
	if (!f->ntext) {
		uint64_t lo[CTS_ACCESS_RANGES], hi[CTS_ACCESS_RANGES];
		size_t k = cts_access_traced_ranges(tr, lo, hi, CTS_ACCESS_RANGES);
		for (size_t i = 0; i < k && i < CTS_ACCESS_RANGES; i++) {
			int prot = cts_access_prot(tr, lo[i]);
			if (prot < 0)
				continue;
			f->text_lo[f->ntext] = lo[i] / PAGE * PAGE;
			f->text_hi[f->ntext] = page_up(hi[i]);
			f->text_prot[f->ntext++] = prot;
		}
	}
	for (size_t i = 0; i < f->ntext; i++)
		push_seg(v, &n, &cap, f->text_lo[i], f->text_hi[i],
			 nx ? f->text_prot[i] & ~PROT_EXEC : f->text_prot[i]);
	return n;
}

/* The pages' protections follow want, injected in th or, where th's stop
 * cannot take a call, in another held thread, or around th's call. */
static int apply(struct cts_tracer *tr, struct thread *th, uint32_t eff, uint32_t want, bool keep,
		 int *sig)
{
	struct cts_fault *f = tr->flt;
	struct seg *v = NULL;
	uint64_t *nl;
	size_t nnl;
	size_t n = plan(f, eff, want, keep, &nl, &nnl, &v);
	bool nx = th->lib_mode;
	if (f->text_nx != nx || f->text_stale) {
		n = text_segs(tr, nx, &v, n);
		cts_debug_msg("thread %d runs: the traced text %sexecutable", th->num, nx ? "not " : "");
	}
	int rc = 0;
	struct target t;
	struct thread *o = NULL;
	/* A call injected at a signal-delivery stop would drop the signal. */
	bool delivers = sig && *sig && th->last_stop == CTS_WEV_SIGNAL;
	bool here = safe_stop(th->last_stop) && !delivers;
	if (n && !here)
		for (int i = 0; i < tr->nlive && !o; i++)
			if (tr->live[i] != th && tr->live[i]->state == TH_HELD &&
			    safe_stop(tr->live[i]->last_stop))
				o = tr->live[i];
	if (!n) {
	} else if (here || o) {
		rc = thread_target(o ? o : th, &t) != 0 ? -1 : run_segs(tr, t, v, n);
	} else if (delivers) {
		struct cts_sigstate ss;
		uint64_t bit = 1ull << (*sig - 1);
		bool caught = cts_proc_sigstate(th->tid, &ss) == 0 && (ss.cgt & bit);
		bool ignored = !caught && ((ss.ign & bit) || *sig == SIGCHLD || *sig == SIGURG ||
					   *sig == SIGWINCH);
		if (!caught && !ignored) {
			free(v);
			free(nl);
			return 0; /* it ends the process, or stops it: no code of its runs */
		}
		/* caught: delivered by a single step, which stops at the handler's
		 * first instruction; ignored: dropped (the same to the program) */
		if (caught && cts_step_into_handler(th->tid, *sig) != 0) {
			rc = -1;
		} else {
			*sig = 0;
			th->last_stop = CTS_WEV_SINGLESTEP;
			th->regs_valid = false;
			rc = thread_target(th, &t) != 0 ? -1 : run_segs(tr, t, v, n);
		}
	} else if (th->last_stop == CTS_WEV_SECCOMP) {
		struct user_regs_struct at;
		rc = cts_tr_flush_regs(th) != 0 || cts_tr_getregs(th) != 0 ||
		     cts_syscall_leave_entry(th->tid, &th->regs, &at) != 0 ? -1 :
		     run_segs(tr, (struct target){ th->tid, &at }, v, n);
		if (cts_syscall_reenter(th->tid, &th->regs) != 0)
			rc = -1;
	} else if (th->last_stop == CTS_WEV_CLONE || th->last_stop == CTS_WEV_FORK) {
		/* inside the call: at its exit stop, before any user code */
		th->flt_exit_apply = true;
		free(v);
		free(nl);
		return 0;
	} else {
		cts_tr_set_error(tr, "thread %d: cannot switch page protections at its stop (%d)",
				 th->num, th->last_stop);
		rc = -1;
	}
	free(v);
	if (rc != 0) {
		free(nl);
		if (errno != ESRCH)
			return -1;
		f->applied_ok = false; /* a thread gone (the process ends): all again, if ever */
		return 0;
	}
	f->applied = eff;
	f->applied_ok = true;
	f->text_nx = nx;
	f->text_stale = false;
	f->ndirty = 0;
	if (keep && f->nlazy) {
		/* two sorted lists into one */
		uint64_t *m = cts_xmalloc((f->nlazy + nnl) * sizeof(*m));
		size_t i = 0, j = 0, k = 0;
		while (i < f->nlazy || j < nnl) {
			uint64_t a = i < f->nlazy ? f->lazy[i] : UINT64_MAX;
			uint64_t b = j < nnl ? nl[j] : UINT64_MAX;
			m[k++] = a < b ? a : b;
			i += a <= b;
			j += b <= a;
		}
		free(nl);
		nl = m;
		nnl = k;
	}
	free(f->lazy);
	f->lazy = nl;
	f->nlazy = nnl;
	f->lazy_want = want;
	return 0;
}

int cts_fault_resume(struct cts_tracer *tr, struct thread *th, int *sig)
{
	struct cts_fault *f = tr ? tr->flt : NULL; /* (no tracer: test_wait) */
	if (!f || !f->mprot || !cts_fault_on(tr))
		return 0;
	/* no more of its code (or of anyone's): the next thread's resume
	 * applies, if any */
	if (th->last_stop == CTS_WEV_EXIT || tr->proc_exiting)
		return 0;
	uint32_t want = pkru_want(f, th);
	th->pkru = want;
	th->pkru_set = true;
	/* Opened now, not lazily: everything after an unknown change, a body
	 * or system call run with every page open (the kernel's accesses do
	 * not fault: they fail), a signal's delivery (its frame); else
	 * lazy_pkru. Thread stacks and TCBs, which the kernel writes at any
	 * return to user space, are untracked (untrack_thread_memory). */
	bool eager = !f->applied_ok || f->lazy_off || th->lib_mode ||
		     ((th->pkru_open || th->pkru_call) && !th->flt_ranged) || (sig && *sig);
	uint32_t eff = eager ? want : lazy_pkru(f, f->applied, want);
	bool keep = !eager && f->lazy_want == want;
	if (f->applied_ok && f->applied == eff && !f->ndirty && (!f->nlazy || keep) &&
	    f->text_nx == th->lib_mode && !f->text_stale)
		return 0;
	return apply(tr, th, eff, want, keep, sig);
}

/* The mprotect mechanism: a fault of th's at addr that th's rights let
 * through (lazy_pkru kept the page closed)? Then the pages of its key
 * around it, at most LAZY_SPAN, open when th resumes, and close at the
 * next switch. */
static bool lazy_open(struct cts_fault *f, struct thread *th, uint64_t addr)
{
	const struct range *r = range_at(f, addr);
	if (!r)
		return false;
	uint64_t page = addr / PAGE, first = r->lo / PAGE, end = (r->hi - 1) / PAGE + 1;
	int key = key_at(f, page), may = phys_prot(pkru_want(f, th), key, r->prot);
	if ((may & ~phys_now(f, page, r->prot)) == 0)
		return false; /* not th's to use this way: a real fault, or a key fault */
	uint64_t lo = page, hi = page + 1;
	while (hi - page < LAZY_SPAN && hi < end && key_at(f, hi) == key && !is_open(f, hi))
		hi++;
	while (page - lo < LAZY_SPAN / 4 && lo > first && key_at(f, lo - 1) == key &&
	       !is_open(f, lo - 1))
		lo--;
	for (uint64_t p = lo; p < hi; p++)
		mark_dirty(f, p); /* opened at want when th resumes (plan) */
	return true;
}

bool cts_fault_taken(struct cts_tracer *tr, struct thread *th, uint64_t addr)
{
	struct cts_fault *f = tr->flt;
	if (f->mprot && lazy_open(f, th, addr)) {
		f->st.lazy++;
		return true;
	}
	f->st.faults++;
	return false;
}


struct hole_ctx {
	struct cts_fault *f;
	uint64_t lowest;
};

static void add_hole(uint64_t vaddr, uint64_t size, void *arg)
{
	struct hole_ctx *c = arg;
	struct cts_fault *f = c->f;
	if (f->nholes < (int)(sizeof(f->holes) / sizeof(f->holes[0])) && vaddr >= c->lowest)
		f->holes[f->nholes++] = (struct range){ vaddr - c->lowest, vaddr - c->lowest + size, 0 };
}

/* Tag [lo, hi) with the deny key and track it. */
static int tag_at(struct cts_tracer *tr, struct target t, uint64_t lo, uint64_t hi, int prot)
{
	struct cts_fault *f = tr->flt;
	untrack(f, lo, hi);
	if (set_key(tr, t, lo, hi - lo, prot, f->kx) != 0)
		return -1;
	f->st.retags++;
	track(f, lo, hi, prot);
	return 0;
}

static int inject(struct cts_tracer *tr, struct thread *th, long nr, uint64_t a0, uint64_t a1,
		  uint64_t a2, uint64_t a3, int64_t *ret)
{
	struct target t;
	return thread_target(th, &t) != 0 ? -1 : inject_at(tr, t, nr, a0, a1, a2, a3, ret);
}

static int tag_except(struct cts_tracer *tr, struct target t, uint64_t lo, uint64_t hi,
		      int prot);

static int tag(struct cts_tracer *tr, struct thread *th, uint64_t lo, uint64_t hi, int prot)
{
	struct target t;
	return thread_target(th, &t) != 0 ? -1 : tag_except(tr, t, lo, hi, prot);
}

/* ---- revoking ------------------------------------------------------------------- */

/* Revoke th's grants: what it did on them came before its event `epoch`. */
static void revoke_grants(struct cts_tracer *tr, struct thread *th)
{
	struct cts_fault *f = tr->flt;
	bool had = false;
	for (int k = 1; k < CTS_PKEY_COUNT; k++) {
		struct key *key = &f->keys[k];
		if (key->state == K_LIVE && key->owner == th->num) {
			key->state = K_STALE;
			key->epoch = cts_own_epoch(f->own, th->num);
			had = true;
		}
	}
	f->st.revokes += had;
	set_pkru(tr, th, had);
}

/* May th's event be a release (an event another thread's acquire can
 * follow)? An access's epoch only matters up to the next one of its thread
 * (docs/design.md), so grants are revoked there; at any other event they
 * stay, until another thread asks about their pages. */
static bool releases(cts_op op)
{
	switch (op) {
	case CTS_OP_START:
	case CTS_OP_LOCK:
	case CTS_OP_TRYLOCK:
	case CTS_OP_RDLOCK:
	case CTS_OP_WRLOCK:
	case CTS_OP_TRYRDLOCK:
	case CTS_OP_TRYWRLOCK:
	case CTS_OP_COND_REACQUIRE:
	case CTS_OP_SEM_WAIT:
	case CTS_OP_SEM_TRYWAIT:
	case CTS_OP_JOIN:
	case CTS_OP_FUTEX_WAIT:
	case CTS_OP_READ:
	case CTS_OP_LIB_READ:
	case CTS_OP_YIELD:
	case CTS_OP_SLEEP:
	case CTS_OP_ALLOC:
		return false;
	default:
		return true;
	}
}

/* ---- claims: what a grantee may have done ------------------------------------ */

static void claim_page(struct cts_fault *f, uint64_t page, struct pk *pk)
{
	struct key *k = &f->keys[pk->key];
	if (pk->claimed || k->state != K_STALE)
		return;
	cts_own_claim_at(f->own, k->owner, page * PAGE, PAGE, k->write, k->epoch);
	pk->claimed = 1;
	push_page(&k->claimed, &k->nclaimed, &k->ccap, page);
}

/* A page of another thread's live key (it is held at an event that
 * releases nothing): its grants are revoked now, at its current epoch. */
static void revoke_other(struct cts_fault *f, int tid, const struct pk *pk)
{
	const struct key *k = &f->keys[pk->key];
	struct thread *owner;
	if (k->state == K_LIVE && k->owner != tid && (owner = cts_tr_by_num(f->tr, k->owner)) != NULL)
		revoke_grants(f->tr, owner);
}

static void claim_hook(void *arg, int tid, uint64_t addr, uint64_t len)
{
	struct cts_fault *f = arg;
	if (!f->on || !cts_htab_count(f->pages))
		return;
	uint64_t first = addr / PAGE, last = (addr + (len ? len - 1 : 0)) / PAGE;
	if (last < first)
		last = UINT64_MAX / PAGE;
	if (last - first > WALK_PAGES) {
		size_t pos = 0;
		const void *key;
		void *val;
		while (cts_htab_next(f->pages, &pos, &key, &val)) {
			uint64_t p;
			memcpy(&p, key, sizeof(p));
			if (p >= first && p <= last) {
				revoke_other(f, tid, val);
				claim_page(f, p, val);
			}
		}
		return;
	}
	for (uint64_t p = first;; p++) {
		struct pk *pk = cts_htab_get(f->pages, &p);
		if (pk) {
			revoke_other(f, tid, pk);
			claim_page(f, p, pk);
		}
		if (p == last)
			break;
	}
}

/* ---- keys ---------------------------------------------------------------------- */

/* Every revoked key's pages back to the deny key (claimed first), so the
 * keys can be granted again; injected in th. */
static int sweep(struct cts_tracer *tr, struct thread *th)
{
	struct cts_fault *f = tr->flt;
	size_t pos = 0, n = 0, cap = 0;
	const void *key;
	void *val;
	uint64_t *pages = NULL;
	while (cts_htab_next(f->pages, &pos, &key, &val)) {
		struct pk *pk = val;
		if (f->keys[pk->key].state != K_STALE)
			continue;
		uint64_t p;
		memcpy(&p, key, sizeof(p));
		claim_page(f, p, pk);
		push_page(&pages, &n, &cap, p);
	}
	/* sorted, then one call per run of pages in one mapping */
	qsort(pages, n, sizeof(*pages), cmp_page);
	int rc = 0;
	for (size_t i = 0; i < n;) {
		int prot = cts_access_prot(tr, pages[i] * PAGE);
		uint64_t end = cts_access_mapping_end(tr, pages[i] * PAGE);
		size_t j = i + 1;
		while (j < n && pages[j] == pages[j - 1] + 1 && pages[j] * PAGE < end)
			j++;
		int64_t ret;
		if (f->mprot) {
			for (size_t m = i; m < j; m++)
				mark_dirty(f, pages[m]); /* the deny key's when a thread next runs */
		} else if (prot >= 0 && inject(tr, th, SYS_pkey_mprotect, pages[i] * PAGE,
					       (j - i) * PAGE, (uint64_t)prot, (uint64_t)f->kx,
					       &ret) != 0 && errno != ENOMEM) {
			rc = -1;
		}
		f->st.retags++;
		for (size_t m = i; m < j; m++)
			cts_htab_del(f->pages, &pages[m]);
		i = j;
	}
	free(pages);
	for (int k = 1; k < CTS_PKEY_COUNT; k++)
		if (f->keys[k].state == K_STALE) {
			f->keys[k].state = K_FREE;
			f->keys[k].npages = f->keys[k].nclaimed = 0;
		}
	f->st.sweeps++;
	return rc;
}

static int free_key(struct cts_tracer *tr, struct thread *th)
{
	struct cts_fault *f = tr->flt;
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 1; k < CTS_PKEY_COUNT; k++)
			if (f->keys[k].state == K_FREE)
				return k;
		if (pass == 0 && sweep(tr, th) != 0)
			return -1;
	}
	return -1;
}

/* ---- the interface ------------------------------------------------------------ */

/* An anonymous mapping right after a library's file mapping is its .bss
 * (libc's malloc state, ld.so's): not the program's data. */
static uint64_t page_up(uint64_t a)
{
	return (a + PAGE - 1) & ~(PAGE - 1);
}

static bool tracked_mapping(const struct cts_mapping *m, const struct cts_mapping *prev,
			    const char *exe, uint64_t fs_base, uint64_t sp)
{
	if (m->perms[1] != 'w' || m->perms[3] != 'p')
		return false;
	if ((fs_base >= m->lo && fs_base < m->hi) || (sp >= m->lo && sp < m->hi))
		return false;
	if (strcmp(m->path, "[heap]") == 0 || strcmp(m->path, exe) == 0)
		return true;
	/* Anonymous: the program's .bss past its file, yes; a library's .bss
	 * or the dynamic linker's link maps (there before main: lazy binding
	 * would fault on them at every first call), no. */
	return !m->path[0] && prev && prev->hi == m->lo && strcmp(prev->path, exe) == 0;
}

/* Tag [lo, hi) but the pages holding the GOT (lazy binding's PLT stubs
 * read it at every call, a fault each on a page of shared globals) and the
 * pages learned as decided per access for a sleeping system call's buffer
 * (own.h's io pages, the mprotect mechanism): the kernel writes those while
 * others run, so they stay open, on access breakpoints. Other pages decided
 * per access keep the deny key: every thread's access there is a fault,
 * decided on its lines (an access breakpoint retired for the run, access.c,
 * would miss it on key 0). */
static int tag_except(struct cts_tracer *tr, struct target t, uint64_t lo, uint64_t hi, int prot)
{
	struct cts_fault *f = tr->flt;
	size_t np = cts_own_io_pages(f->own, NULL, 0), n = 0;
	struct range *ex = cts_xcalloc((size_t)f->nholes + np + 1, sizeof(*ex));
	for (int i = 0; i < f->nholes; i++)
		ex[n++] = (struct range){ (f->exe_base + f->holes[i].lo) & ~(PAGE - 1),
					  page_up(f->exe_base + f->holes[i].hi), 0 };
	if (np) {
		uint64_t *pa = cts_xcalloc(np, sizeof(*pa));
		cts_own_io_pages(f->own, pa, np);
		for (size_t i = 0; i < np; i++)
			ex[n++] = (struct range){ pa[i] * PAGE, (pa[i] + 1) * PAGE, 0 };
		free(pa);
	}
	qsort(ex, n, sizeof(*ex), cmp_range);
	uint64_t at = lo;
	int rc = 0;
	for (size_t i = 0; i <= n && at < hi && rc == 0; i++) {
		uint64_t end = i < n && ex[i].lo < hi ? ex[i].lo : hi;
		if (i < n && ex[i].hi <= at)
			continue;
		if (end > at)
			rc = tag_at(tr, t, at, end, prot);
		if (i < n)
			at = ex[i].hi > at ? ex[i].hi : at;
	}
	free(ex);
	return rc;
}

/* io pages (tag_except) learned after the tags were set (the fork
 * server's): back to key 0 and access breakpoints. */
static void untag_io(struct cts_tracer *tr, struct thread *th)
{
	struct cts_fault *f = tr->flt;
	size_t np = cts_own_io_pages(f->own, NULL, 0);
	if (!np)
		return;
	uint64_t *pa = cts_xcalloc(np, sizeof(*pa));
	cts_own_io_pages(f->own, pa, np);
	struct target t;
	for (size_t i = 0; i < np; i++) {
		int prot = range_prot(f, pa[i] * PAGE);
		if (prot < 0 || thread_target(th, &t) != 0)
			continue;
		if (set_key(tr, t, pa[i] * PAGE, PAGE, prot, 0) == 0)
			untrack(f, pa[i] * PAGE, (pa[i] + 1) * PAGE);
	}
	free(pa);
}

/* ---- the read key ------------------------------------------------------------- */

/* May page carry the read key? Not with a learned line (its reads must be
 * seen) or decided per access (a write there voided a run). */
static bool ro_may(const struct cts_fault *f, uint64_t page)
{
	return !cts_own_learned_in(f->own, page * PAGE, PAGE) &&
	       !cts_own_is_per_access(f->own, page);
}

static void ro_add(struct cts_fault *f, uint64_t page)
{
	struct pk *pk = cts_htab_put(f->pages, &page, NULL);
	pk->key = (uint8_t)f->ro;
	pk->claimed = 0;
	push_page(&f->ro_pages, &f->nro, &f->rocap, page);
	/* the mprotect mechanism sets a key's pages when its rights change */
	struct key *k = &f->keys[f->ro];
	push_page(&k->pages, &k->npages, &k->cap, page);
}

/* The process t (at main, keys allocated, the rest tagged): a free key
 * becomes the read key of the writable pages holding the GOT, if a free
 * one is left for grants. (The mprotect mechanism: those pages read-only
 * while two threads live, as the key's rights say.) */
static void tag_ro(struct cts_tracer *tr, struct target t, const struct cts_mapping *maps,
		   size_t n, const char *exe)
{
	struct cts_fault *f = tr->flt;
	int k = 0, nfree = 0;
	for (int i = 1; i < CTS_PKEY_COUNT; i++)
		if (f->keys[i].state == K_FREE) {
			k = i;
			nfree++;
		}
	if (nfree < 2 || !f->nholes || getenv("CTS_NO_READ_KEY"))
		return;
	f->ro = k;
	for (int h = 0; h < f->nholes; h++) {
		uint64_t lo = (f->exe_base + f->holes[h].lo) / PAGE;
		uint64_t hi = page_up(f->exe_base + f->holes[h].hi) / PAGE;
		for (uint64_t p = lo; p < hi; p++) {
			const struct cts_mapping *m = NULL;
			for (size_t i = 0; i < n && !m; i++)
				if (p * PAGE >= maps[i].lo && p * PAGE < maps[i].hi)
					m = &maps[i];
			if (!m || m->perms[1] != 'w' || m->perms[3] != 'p' || strcmp(m->path, exe) != 0 ||
			    cts_htab_get(f->pages, &p) || !ro_may(f, p))
				continue;
			int prot = prot_of(m->perms);
			if (set_key(tr, t, p * PAGE, PAGE, prot, k) != 0)
				continue; /* stays on key 0 */
			track(f, p * PAGE, (p + 1) * PAGE, prot);
			ro_add(f, p);
		}
	}
	if (!f->nro) {
		f->ro = 0;
		return;
	}
	sort_unique(f->ro_pages, &f->nro);
	f->keys[k].state = K_RO;
	f->st.keys--;
}

/* A run forked from the server: the read key's pages, but those learned
 * since the server was given them back to key 0 and access breakpoints. */
static void ro_restore(struct cts_tracer *tr, struct thread *th)
{
	struct cts_fault *f = tr->flt;
	const struct fault_snap *sn = &f->snap;
	struct target t;
	f->ro = sn->ro;
	for (size_t i = 0; f->ro && i < sn->nro; i++) {
		uint64_t p = sn->ro_pages[i];
		int prot = range_prot(f, p * PAGE);
		if (prot < 0)
			continue;
		if (ro_may(f, p))
			ro_add(f, p);
		else if (thread_target(th, &t) == 0 && set_key(tr, t, p * PAGE, PAGE, prot, 0) == 0)
			untrack(f, p * PAGE, (p + 1) * PAGE);
		else
			f->on = false; /* its reads would go unseen: no fault mode this run */
	}
}

bool cts_fault_ro_write(struct cts_tracer *tr, uint64_t addr, uint64_t len)
{
	struct cts_fault *f = tr->flt;
	if (!cts_fault_on(tr) || !f->armed || !f->ro)
		return false;
	/* The GOT's own slots: the dynamic linker's lazy binding, not the
	 * program's data. */
	for (int i = 0; i < f->nholes; i++)
		if (addr >= f->exe_base + f->holes[i].lo &&
		    addr + (len ? len : 1) <= f->exe_base + f->holes[i].hi)
			return false;
	bool hit = false;
	for (uint64_t p = addr / PAGE; p <= (addr + (len ? len : 1) - 1) / PAGE; p++) {
		const struct pk *pk = cts_htab_get(f->pages, &p);
		if (pk && pk->key == f->ro) {
			cts_own_pend_per_access(f->own, p);
			hit = true;
		}
	}
	if (hit)
		f->st.ro_writes++;
	return hit;
}

/* Forget the last run: no key, no page tagged, nothing tracked. */
static void reset(struct cts_fault *f)
{
	f->on = false;
	f->armed = false;
	cts_htab_clear(f->pages);
	f->ntracked = 0;
	f->brk_end = 0;
	f->applied = 0; /* a new process: its pages have the program's protections */
	f->applied_ok = true;
	f->ndirty = 0;
	f->nlazy = 0;
	f->ro = 0;
	f->nro = 0;
	f->text_nx = false;
	f->text_stale = false;
	f->ntext = 0;
	for (int k = 0; k < CTS_PKEY_COUNT; k++) {
		free(f->keys[k].pages);
		free(f->keys[k].claimed);
		memset(&f->keys[k], 0, sizeof(f->keys[k]));
	}
}

/* The keys and the deny tag on every tracked mapping of the process t,
 * stopped at main with regs: injected pkey_alloc and pkey_mprotect calls.
 * Sets f->on, or f->broken when the process cannot have them. */
static void prepare(struct cts_tracer *tr, struct target t)
{
	struct cts_fault *f = tr->flt;
	f->tr = tr;
	cts_own_set_hook(f->own, claim_hook, f);
	f->deny = 0;
	f->kx = 0;
	/* mprotect: the tracer's own keys, numbered as the kernel would */
	for (int i = 1; f->mprot && i < CTS_PKEY_COUNT; i++) {
		f->keys[i].state = f->kx ? K_FREE : K_DENY;
		if (!f->kx)
			f->kx = i;
		f->deny = cts_pkru_deny(f->deny, i);
	}
	for (int i = 1; !f->mprot && i < CTS_PKEY_COUNT; i++) {
		int64_t k;
		if (inject_at(tr, t, SYS_pkey_alloc, 0, 0, 0, 0, &k) != 0 || k <= 0 ||
		    k >= CTS_PKEY_COUNT)
			break;
		f->keys[k].state = f->kx ? K_FREE : K_DENY;
		if (!f->kx)
			f->kx = (int)k;
		f->deny = cts_pkru_deny(f->deny, (int)k);
	}
	int nkeys = 0;
	for (int k = 1; k < CTS_PKEY_COUNT; k++)
		nkeys += f->keys[k].state == K_FREE;
	if (!f->kx || nkeys < 1) {
		cts_debug_msg("fault mode: too few protection keys in the process (%d)", nkeys);
		f->broken = true;
		return;
	}
	f->st.keys = nkeys;
	struct cts_mapping *maps = NULL;
	size_t n = 0;
	char exe[256] = "";
	if (cts_maps_read(t.pid, &maps, &n) != 0) {
		f->broken = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (tr->exe_base >= maps[i].lo && tr->exe_base < maps[i].hi)
			snprintf(exe, sizeof(exe), "%s", maps[i].path);
	f->exe_base = tr->exe_base;
	if (!f->holes_read && exe[0]) {
		static const char *const got[] = { ".got", ".got.plt", NULL };
		struct hole_ctx c = { .f = f };
		f->holes_read = true;
		cts_elf_sections(exe, got, &c.lowest, add_hole, &c);
	}
	f->on = true;
	for (size_t i = 0; i < n && f->on; i++) {
		const struct cts_mapping *m = &maps[i];
		if (!tracked_mapping(m, i ? &maps[i - 1] : NULL, exe, t.regs->fs_base, t.regs->rsp))
			continue;
		if (strcmp(m->path, "[heap]") == 0)
			f->brk_end = m->hi;
		if (tag_except(tr, t, m->lo, m->hi, prot_of(m->perms)) != 0) {
			cts_debug_msg("fault mode: cannot tag 0x%" PRIx64 "-0x%" PRIx64 ": %s", m->lo,
				      m->hi, strerror(errno));
			f->on = false;
			f->broken = true;
		}
	}
	if (f->on && exe[0])
		tag_ro(tr, t, maps, n, exe);
	free(maps);
}

void cts_fault_server_setup(struct cts_tracer *tr)
{
	struct cts_fault *f = tr->flt;
	if (!f || f->broken || !tr->stub_syscall || tr->server <= 0)
		return;
	reset(f);
	prepare(tr, (struct target){ tr->server, &tr->server_regs });
	if (!f->on)
		return;
	/* Every run forked from it starts with these keys and tags. */
	struct fault_snap *sn = &f->snap;
	sn->server = tr->server;
	for (int k = 0; k < CTS_PKEY_COUNT; k++)
		sn->state[k] = f->keys[k].state;
	sn->kx = f->kx;
	sn->deny = f->deny;
	sn->brk_end = f->brk_end;
	free(sn->tracked);
	sn->ntracked = f->ntracked;
	sn->tracked = cts_xmalloc((f->ntracked ? f->ntracked : 1) * sizeof(*sn->tracked));
	if (f->ntracked)
		memcpy(sn->tracked, f->tracked, f->ntracked * sizeof(*sn->tracked));
	sn->ro = f->ro;
	free(sn->ro_pages);
	sn->nro = f->nro;
	sn->ro_pages = cts_xmalloc((f->nro ? f->nro : 1) * sizeof(*sn->ro_pages));
	if (f->nro)
		memcpy(sn->ro_pages, f->ro_pages, f->nro * sizeof(*sn->ro_pages));
	f->on = false;
}

int cts_fault_setup(struct cts_tracer *tr, struct thread *th)
{
	struct cts_fault *f = tr->flt;
	if (!f)
		return 0;
	reset(f);
	if (f->broken || !tr->stub_syscall)
		return 0;
	const struct fault_snap *sn = &f->snap;
	if (tr->server > 0 && sn->server == tr->server) {
		for (int k = 0; k < CTS_PKEY_COUNT; k++)
			f->keys[k].state = sn->state[k];
		f->kx = sn->kx;
		f->deny = sn->deny;
		f->brk_end = sn->brk_end;
		for (size_t i = 0; i < sn->ntracked; i++)
			track(f, sn->tracked[i].lo, sn->tracked[i].hi, sn->tracked[i].prot);
		f->on = true;
		ro_restore(tr, th);
	} else {
		struct target t;
		if (thread_target(th, &t) != 0)
			return 0;
		prepare(tr, t);
	}
	if (f->on) {
		untag_io(tr, th);
		set_pkru(tr, th, true);
	}
	return 0;
}

void cts_fault_gate(struct cts_tracer *tr, bool armed)
{
	struct cts_fault *f = tr->flt;
	if (!cts_fault_on(tr) || f->armed == armed)
		return;
	f->armed = armed;
	/* Disarmed, nothing is denied, and system calls pass unopened
	 * (cts_fault_sys_enter): the mprotect mechanism's pages must really
	 * be open then, not left to open lazily at a fault the kernel's own
	 * accesses never make (a write(2) of a buffer on the last worker's
	 * pages failed with EFAULT: write_after_join_ok, plzip). */
	if (!armed && f->mprot)
		f->applied_ok = false;
	for (int i = 0; !armed && i < tr->nlive; i++)
		tr->live[i]->lib_mode = false; /* nothing is denied: the text runs again */
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *t = tr->live[i];
		if (t->state != TH_DEAD && t->state != TH_NEW && t->state != TH_RUNNING)
			set_pkru(tr, t, true);
	}
	if (tr->running && tr->running->state == TH_RUNNING)
		set_pkru(tr, tr->running, true); /* stopped at the clone event */
}

/* A thread whose stack or TCB is on tracked pages (pthread_attr_setstack
 * on allocated memory): the kernel writes them under the thread's PKRU (its
 * rseq area at every return to user space, its tid at exit), and a denied
 * write kills it. Their mapping leaves fault mode (key 0, untracked). */
static void untrack_thread_memory(struct cts_tracer *tr, struct thread *th)
{
	const uint64_t at[2] = { th->regs.rsp, th->regs.fs_base };
	for (int i = 0; i < 2; i++) {
		uint64_t lo, hi;
		struct target t;
		if (!at[i] || !cts_fault_tracked(tr, at[i]) || !cts_access_mapping(tr, at[i], &lo, &hi))
			continue;
		int prot = cts_access_prot(tr, at[i]);
		if (thread_target(th, &t) == 0 && set_key(tr, t, lo, hi - lo, prot, 0) == 0)
			untrack(tr->flt, lo, hi);
		else
			cts_debug_msg("fault mode: cannot untag thread %d's stack: %s", th->num,
				      strerror(errno));
	}
}

void cts_fault_thread_start(struct cts_tracer *tr, struct thread *th)
{
	if (!cts_fault_on(tr))
		return;
	if (th->regs_valid)
		untrack_thread_memory(tr, th);
	set_pkru(tr, th, true);
}

void cts_fault_foreign(struct cts_tracer *tr, pid_t tid)
{
	struct cts_fault *f = tr->flt;
	if (!cts_fault_on(tr))
		return;
	if (!f->mprot) {
		cts_pkey_set(tid, 0); /* it runs free: nothing of ours may stop it */
		return;
	}
	/* A fork's copy of the pages has our protections: the program's back
	 * (a vfork child's are ours too: set again at the next switch). Not
	 * a thread of a program a child exec'd: its memory is its own, and
	 * our stub is not there. */
	struct user_regs_struct r;
	uint8_t insn[2];
	if (cts_proc_status_field(tid, "Tgid", NULL, 0) == tid &&
	    cts_mem_read(tid, tr->stub_syscall, insn, 2) == 0 && insn[0] == 0x0f && insn[1] == 0x05 &&
	    ptrace(PTRACE_GETREGS, tid, 0, &r) == 0) {
		/* the traced text executable again too (a vfork child shares
		 * it with us: set as the next thread to run needs it) */
		struct seg *v = NULL;
		size_t n = f->ntext ? text_segs(tr, false, &v, 0) : 0, cap = n;
		for (size_t i = 0; i < f->ntracked; i++)
			push_seg(&v, &n, &cap, f->tracked[i].lo, f->tracked[i].hi, f->tracked[i].prot);
		for (size_t i = 0; i < n; i++) {
			int64_t ret;
			f->st.protects++;
			inject_at(tr, (struct target){ tid, &r }, SYS_mprotect, v[i].lo, v[i].hi - v[i].lo,
				  (uint64_t)v[i].prot, 0, &ret);
		}
		free(v);
	}
	f->applied_ok = false;
	f->text_stale = f->ntext > 0;
}

void cts_fault_release(struct cts_tracer *tr, struct thread *th)
{
	if (!cts_fault_on(tr))
		return;
	if (!tr->flt->mprot) {
		cts_pkey_set(th->tid, 0);
		return;
	}
	th->pkru_open = true; /* every page as the program made it, for good */
	th->lib_mode = false;
	th->pkru = 0;
	apply(tr, th, 0, 0, false, NULL);
}

void cts_fault_held(struct cts_tracer *tr, struct thread *th)
{
	if (th->pkru_call)
		cts_fault_call(tr, th, false, 0, 0);
	if (cts_fault_on(tr) && releases(th->pending.op))
		revoke_grants(tr, th);
}

void cts_fault_call(struct cts_tracer *tr, struct thread *th, bool open, uint64_t lo,
		    uint64_t len)
{
	if (open == th->pkru_call || (open && !cts_fault_on(tr)))
		return;
	th->pkru_call = open;
	if (open && tr->flt->mprot && (!th->pkru_open || th->flt_ranged))
		open_pages(tr->flt, th, lo, len ? len : 1);
	if (!open && !th->pkru_open)
		close_pages(tr->flt, th);
	if (cts_fault_on(tr))
		set_pkru(tr, th, !open);
}

bool cts_fault_ours(const struct cts_tracer *tr, const siginfo_t *si)
{
	const struct cts_fault *f = tr->flt;
	if (cts_fault_on(tr) && f->mprot && si->si_signo == SIGSEGV && si->si_code == SEGV_ACCERR) {
		/* ours where the page's protection is not the program's */
		uint64_t a = (uint64_t)si->si_addr;
		if (f->text_nx && cts_access_traced_pc(tr, a))
			return true; /* library code's own mode ends (cts_fault_lib_exit) */
		int prot = range_prot(f, a);
		return prot >= 0 && phys_now(f, a / PAGE, prot) != prot;
	}
	if (!cts_fault_on(tr) || si->si_signo != SIGSEGV || si->si_code != CTS_SEGV_PKUERR)
		return false;
	uint32_t pkey = si->si_pkey;
	return pkey < CTS_PKEY_COUNT && f->keys[pkey].state != K_NONE &&
	       f->keys[pkey].state != K_FREE;
}

/* May th run natively on page p (to write, or read)? Its lines must be th's
 * or untouched (to read: or only read so far). For a read, a page whose
 * every line could be handed to th by happens-before is handed over whole:
 * th is taken to read all of it now, which may show more conflicts later,
 * never fewer. */
static bool page_ok(struct cts_fault *f, struct thread *th, uint64_t p, bool write, bool handoff)
{
	uint64_t a = p * PAGE;
	claim_hook(f, th->num, a, PAGE);
	if (cts_own_grantable(f->own, th->num, a, PAGE, write))
		return true;
	if (!handoff || cts_own_check(f->own, th->num, a, PAGE, write) != CTS_PAGE_NATIVE)
		return false;
	cts_own_access(f->own, th->num, a, PAGE, write);
	return cts_own_grantable(f->own, th->num, a, PAGE, write);
}

/* th faulted on a page of its own revoked key k: when every page still
 * carrying k may be th's again, k is live again, which costs a PKRU write
 * instead of a call per page. Only the pages claimed since the revocation
 * can have lines of another thread's: any other access to a page of a
 * stale key faults, and is asked about after its claim (claim_hook). The
 * others are left unclaimed: a later claim takes them at a later epoch,
 * which can only find more conflicts, and a claim now would be taken back
 * by the next one before anyone asks (revoke_other claims a live key's
 * pages at its owner's current epoch). So a revival costs the pages others
 * touched, not every page the key was granted (a thread's 32 MiB block
 * under a lock it takes 200 times: 8,192 page claims a lock). */
static bool revive(struct cts_tracer *tr, struct thread *th, int k)
{
	struct cts_fault *f = tr->flt;
	struct key *key = &f->keys[k];
	for (size_t i = 0; i < key->nclaimed; i++) {
		struct pk *pk = cts_htab_get(f->pages, &key->claimed[i]);
		if (pk && pk->key == k &&
		    !cts_own_grantable(f->own, th->num, key->claimed[i] * PAGE, PAGE, key->write))
			return false;
	}
	for (size_t i = 0; i < key->nclaimed; i++) {
		struct pk *pk = cts_htab_get(f->pages, &key->claimed[i]);
		if (pk && pk->key == k)
			pk->claimed = 0;
	}
	key->nclaimed = 0;
	key->state = K_LIVE;
	f->st.revivals++;
	set_pkru(tr, th, false);
	return true;
}

bool cts_fault_lib_enter(struct cts_tracer *tr, struct thread *th)
{
	static int off = -1;
	if (off < 0)
		off = getenv("CTS_NO_LIB_MODE") != NULL;
	struct cts_fault *f = tr->flt;
	if (off || !cts_fault_on(tr) || !f->mprot || !f->armed || th->lib_mode ||
	    !cts_access_traced_ranges(tr, NULL, NULL, 0))
		return false;
	th->lib_mode = true;
	f->st.lib_modes++;
	cts_debug_msg("thread %d: library code in its own mode", th->num);
	return true;
}

bool cts_fault_lib_exit(struct cts_tracer *tr, struct thread *th, uint64_t addr)
{
	if (!th->lib_mode || !cts_access_traced_pc(tr, addr))
		return false;
	th->lib_mode = false;
	th->lib_faults = 0;
	cts_debug_msg("thread %d: back in traced code at 0x%" PRIx64, th->num, addr);
	return true;
}

bool cts_fault_grant(struct cts_tracer *tr, struct thread *th, uint64_t addr, bool write, int prot)
{
	struct cts_fault *f = tr->flt;
	if (!cts_fault_on(tr) || prot < 0)
		return false;
	if (!f->armed) {
		/* One thread: nothing is denied (a signal handler starts with
		 * the kernel's PKRU): let it run on. */
		set_pkru(tr, th, true);
		return true;
	}
	uint64_t page = addr / PAGE;
	struct pk *pk = cts_htab_get(f->pages, &page);
	if (pk && f->ro && pk->key == f->ro)
		return false; /* read by all, written by none unseen */
	if (!pk && cts_own_is_per_access(f->own, page))
		return false; /* every access a fault, decided on its lines */
	if (pk) {
		claim_page(f, page, pk);
		const struct key *k = &f->keys[pk->key];
		if (k->state == K_LIVE && k->owner == th->num && (k->write || !write)) {
			set_pkru(tr, th, true); /* a handler's return put an old PKRU back */
			return true;
		}
		if (k->state == K_STALE && k->owner == th->num && (k->write || !write) &&
		    revive(tr, th, pk->key))
			return true;
	}
	if (!page_ok(f, th, page, write, true))
		return false;
	int k = -1;
	for (int i = 1; i < CTS_PKEY_COUNT; i++)
		if (f->keys[i].state == K_LIVE && f->keys[i].owner == th->num &&
		    f->keys[i].write == write)
			k = i;
	if (k < 0) {
		k = free_key(tr, th);
		if (k < 0)
			return false;
		struct key *nk = &f->keys[k];
		nk->state = K_LIVE;
		nk->owner = th->num;
		nk->write = write;
		nk->epoch = 0;
		nk->npages = nk->nclaimed = 0;
	}
	/* A read takes the pages after it too while every line of them was
	 * handed over already (a scan of data another thread published): one
	 * call for all. A write takes them while every line is th's already
	 * (a block th allocated: cts_own_allocated), never by a hand-off.
	 * Never a page with a line nobody touched yet: threads filling the
	 * slices of a fresh block would each claim the other's first pages,
	 * and conflict there. */
	uint64_t end = cts_access_mapping_end(tr, addr) / PAGE, n = 1;
	while (n < RUN_AHEAD && page + n < end) {
		const struct pk *q = cts_htab_get(f->pages, &(uint64_t){ page + n });
		if ((q && (f->keys[q->key].state == K_LIVE || f->keys[q->key].state == K_RO)) ||
		    !cts_fault_tracked(tr, (page + n) * PAGE) ||
		    cts_own_is_per_access(f->own, page + n))
			break; /* an untracked page keeps key 0, the GOT's its read key */
		claim_hook(f, th->num, (page + n) * PAGE, PAGE);
		if (!cts_own_all_touched(f->own, (page + n) * PAGE, PAGE) ||
		    !page_ok(f, th, page + n, write, !write))
			break;
		n++;
	}
	int64_t ret;
	if (!f->mprot && inject(tr, th, SYS_pkey_mprotect, page * PAGE, n * PAGE, (uint64_t)prot,
				(uint64_t)k, &ret) != 0)
		return false;
	struct key *key = &f->keys[k];
	for (uint64_t i = 0; i < n; i++) {
		if (f->mprot)
			mark_dirty(f, page + i); /* opened when th runs again */
		pk = cts_htab_put(f->pages, &(uint64_t){ page + i }, NULL);
		pk->key = (uint8_t)k;
		pk->claimed = 0;
		push_page(&key->pages, &key->npages, &key->cap, page + i);
	}
	f->st.grants++;
	set_pkru(tr, th, false);
	return true;
}

int cts_fault_open(struct cts_tracer *tr, struct thread *th)
{
	if (!cts_fault_on(tr) || (th->pkru_open && !th->flt_ranged))
		return 0;
	if (!th->pkru_open)
		tr->flt->st.opens++;
	th->pkru_open = true;
	close_pages(tr->flt, th); /* every page open now */
	set_pkru(tr, th, false);
	return 0;
}

/* The mprotect mechanism opens the tracked pages of [lo, lo+len) only,
 * where keys open every key: one switch is two mprotect calls, not one
 * per run of the protected memory. */
static void open_pages(struct cts_fault *f, struct thread *th, uint64_t lo, uint64_t len)
{
	uint64_t hi = len > UINT64_MAX - lo ? UINT64_MAX : lo + len;
	for (size_t i = 0; i < f->ntracked; i++) {
		uint64_t a = f->tracked[i].lo > lo ? f->tracked[i].lo : lo;
		uint64_t b = f->tracked[i].hi < hi ? f->tracked[i].hi : hi;
		for (uint64_t p = a / PAGE; a < b && p <= (b - 1) / PAGE; p++) {
			mark_dirty(f, p); /* set when th runs */
			push_page(&f->open, &f->nopen, &f->ocap, p);
		}
	}
	sort_unique(f->open, &f->nopen);
	th->flt_ranged = true;
}

int cts_fault_open_at(struct cts_tracer *tr, struct thread *th, uint64_t lo, uint64_t len)
{
	struct cts_fault *f = tr->flt;
	if (!cts_fault_on(tr) || !f->mprot || (th->pkru_open && !th->flt_ranged))
		return cts_fault_open(tr, th);
	if (!th->pkru_open)
		f->st.opens++;
	th->pkru_open = true;
	open_pages(f, th, lo, len ? len : 1);
	set_pkru(tr, th, false);
	return 0;
}

/* th's open pages are closed again when a thread next runs. */
static void close_pages(struct cts_fault *f, struct thread *th)
{
	if (!th->flt_ranged)
		return;
	th->flt_ranged = false;
	for (size_t i = 0; i < f->nopen; i++)
		mark_dirty(f, f->open[i]);
	f->nopen = 0;
}

int cts_fault_close(struct cts_tracer *tr, struct thread *th)
{
	if (!th->pkru_open)
		return 0;
	th->pkru_open = false;
	if (!th->pkru_call)
		close_pages(tr->flt, th);
	if (cts_fault_on(tr))
		set_pkru(tr, th, true);
	return 0;
}

/* Anonymous, private, not a thread's stack: the heap's arenas, big blocks. */
static bool tags_new_mapping(uint64_t flags, uint64_t prot)
{
	return (flags & MAP_ANONYMOUS) && (flags & MAP_PRIVATE) && !(flags & MAP_STACK) &&
	       ((prot & PROT_WRITE) || prot == PROT_NONE);
}

/* Calls whose pointers are all direct (nothing the kernel reads holds a
 * pointer it follows) and bounded: when none reaches a tracked page, the
 * call runs with the thread's own PKRU and no exit stop (a thread's own
 * start-up and signal masks: its stack and TLS, never tracked). */
enum { P_FIX, P_LEN, P_STR };
struct ptr_arg {
	int8_t arg;             /* -1: no more */
	uint8_t kind;
	uint16_t n;             /* P_FIX: bytes; P_LEN: the argument holding them */
};
struct direct_call {
	int nr;
	struct ptr_arg p[2];
};

#define NO { -1, 0, 0 }
static const struct direct_call direct_calls[] = {
	{ SYS_rt_sigprocmask, { { 1, P_LEN, 3 }, { 2, P_LEN, 3 } } },
	{ SYS_rt_sigaction, { { 1, P_FIX, 32 }, { 2, P_FIX, 32 } } },
	{ SYS_sigaltstack, { { 0, P_FIX, 24 }, { 1, P_FIX, 24 } } },
	{ SYS_rseq, { { 0, P_LEN, 1 }, NO } },
	{ SYS_set_robust_list, { { 0, P_LEN, 1 }, NO } },
	{ SYS_set_tid_address, { { 0, P_FIX, 4 }, NO } },
	{ SYS_openat, { { 1, P_STR, 0 }, NO } },
	{ SYS_open, { { 0, P_STR, 0 }, NO } },
	{ SYS_newfstatat, { { 1, P_STR, 0 }, { 2, P_FIX, 144 } } },
	{ SYS_fstat, { { 1, P_FIX, 144 }, NO } },
	{ SYS_stat, { { 0, P_STR, 0 }, { 1, P_FIX, 144 } } },
	{ SYS_lstat, { { 0, P_STR, 0 }, { 1, P_FIX, 144 } } },
	{ SYS_access, { { 0, P_STR, 0 }, NO } },
	{ SYS_faccessat, { { 1, P_STR, 0 }, NO } },
	{ SYS_faccessat2, { { 1, P_STR, 0 }, NO } },
	{ SYS_readlink, { { 0, P_STR, 0 }, { 1, P_LEN, 2 } } },
	{ SYS_getcwd, { { 0, P_LEN, 1 }, NO } },
	{ SYS_uname, { { 0, P_FIX, 390 }, NO } },
	{ SYS_prlimit64, { { 2, P_FIX, 16 }, { 3, P_FIX, 16 } } },
	{ SYS_getrlimit, { { 1, P_FIX, 16 }, NO } },
	{ SYS_getrusage, { { 1, P_FIX, 144 }, NO } },
	{ SYS_sysinfo, { { 0, P_FIX, 112 }, NO } },
	{ SYS_clock_gettime, { { 1, P_FIX, 16 }, NO } },
	{ SYS_clock_getres, { { 1, P_FIX, 16 }, NO } },
	{ SYS_gettimeofday, { { 0, P_FIX, 16 }, { 1, P_FIX, 8 } } },
	{ SYS_getdents64, { { 1, P_LEN, 2 }, NO } },
	{ SYS_pread64, { { 1, P_LEN, 2 }, NO } },
	{ SYS_pwrite64, { { 1, P_LEN, 2 }, NO } },
	{ SYS_getcpu, { { 0, P_FIX, 4 }, { 1, P_FIX, 4 } } },
};
#undef NO

static bool reaches_tracked(const struct cts_fault *f, uint64_t lo, uint64_t len)
{
	if (!lo)
		return false; /* NULL: nothing read or written */
	uint64_t hi = len > UINT64_MAX - lo ? UINT64_MAX : lo + len;
	for (size_t i = 0; i < f->ntracked; i++)
		if (lo < f->tracked[i].hi && hi > f->tracked[i].lo)
			return true;
	return false;
}

bool cts_fault_reaches(const struct cts_tracer *tr, uint64_t addr, uint64_t len)
{
	return cts_fault_on(tr) && reaches_tracked(tr->flt, addr, len ? len : 1);
}

/* A direct call's buffers that reach tracked pages: how many (opened with
 * open, fault.h's open_at), or -1 if nr is not one of direct_calls. */
static int direct_walk(struct cts_tracer *tr, struct thread *th, long nr, bool open)
{
	const struct user_regs_struct *r = &th->regs;
	const uint64_t a[6] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };
	for (size_t i = 0; i < LEN(direct_calls); i++) {
		if (direct_calls[i].nr != nr)
			continue;
		int n = 0;
		for (int j = 0; j < 2; j++) {
			const struct ptr_arg *p = &direct_calls[i].p[j];
			uint64_t len = p->kind == P_FIX ? p->n : p->kind == P_LEN ? a[p->n] : 4096;
			if (p->arg < 0 || !reaches_tracked(tr->flt, a[p->arg], len))
				continue;
			n++;
			if (open)
				cts_fault_open_at(tr, th, a[p->arg], len);
		}
		return n;
	}
	return -1;
}

/* ---- calls that sleep outside the schedule (syscall.c) ------------------------ */

/* Their buffers: P_FIX bytes, P_LEN bytes in an argument (times unit),
 * P_IOV an iovec array (count in an argument), P_MSG a msghdr, P_MMSG an
 * mmsghdr array (count in an argument), P_SEL an fd_set of nfds (a0) bits. */
enum { B_FIX, B_LEN, B_IOV, B_MSG, B_MMSG, B_SEL, B_LENP };
struct buf_arg {
	int8_t arg;             /* -1: no more */
	uint8_t kind;
	uint16_t n;             /* B_FIX: bytes; B_LEN/B_IOV/B_MMSG: the argument */
	uint16_t unit;          /* B_LEN: bytes per count (0: 1); B_LENP: plus this */
};
struct io_call {
	int nr;
	struct buf_arg b[4];
};

#define END { -1, 0, 0, 0 }
static const struct io_call io_calls[] = {
	{ SYS_read, { { 1, B_LEN, 2, 0 }, END } },
	{ SYS_write, { { 1, B_LEN, 2, 0 }, END } },
	{ SYS_readv, { { 1, B_IOV, 2, 0 }, END } },
	{ SYS_writev, { { 1, B_IOV, 2, 0 }, END } },
	{ SYS_recvfrom, { { 1, B_LEN, 2, 0 }, { 4, B_FIX, 128, 0 }, { 5, B_FIX, 4, 0 }, END } },
	{ SYS_sendto, { { 1, B_LEN, 2, 0 }, { 4, B_LEN, 5, 0 }, END } },
	{ SYS_recvmsg, { { 1, B_MSG, 0, 0 }, END } },
	{ SYS_sendmsg, { { 1, B_MSG, 0, 0 }, END } },
	{ SYS_recvmmsg, { { 1, B_MMSG, 2, 0 }, { 4, B_FIX, 16, 0 }, END } },
	{ SYS_sendmmsg, { { 1, B_MMSG, 2, 0 }, END } },
	{ SYS_accept, { { 1, B_FIX, 128, 0 }, { 2, B_FIX, 4, 0 }, END } },
	{ SYS_accept4, { { 1, B_FIX, 128, 0 }, { 2, B_FIX, 4, 0 }, END } },
	{ SYS_connect, { { 1, B_LEN, 2, 0 }, END } },
	{ SYS_poll, { { 0, B_LEN, 1, 8 }, END } },
	{ SYS_ppoll, { { 0, B_LEN, 1, 8 }, { 2, B_FIX, 16, 0 }, { 3, B_FIX, 8, 0 }, END } },
	{ SYS_select, { { 1, B_SEL, 0, 0 }, { 2, B_SEL, 0, 0 }, { 3, B_SEL, 0, 0 }, { 4, B_FIX, 16, 0 } } },
	{ SYS_pselect6, { { 1, B_SEL, 0, 0 }, { 2, B_SEL, 0, 0 }, { 3, B_SEL, 0, 0 }, { 4, B_FIX, 16, 0 } } },
	{ SYS_epoll_wait, { { 1, B_LEN, 2, 12 }, END } },
	{ SYS_epoll_pwait, { { 1, B_LEN, 2, 12 }, { 4, B_FIX, 8, 0 }, END } },
	{ SYS_epoll_pwait2, { { 1, B_LEN, 2, 12 }, { 3, B_FIX, 16, 0 }, { 4, B_FIX, 8, 0 }, END } },
	{ SYS_wait4, { { 1, B_FIX, 4, 0 }, { 3, B_FIX, 144, 0 }, END } },
	{ SYS_waitid, { { 2, B_FIX, 128, 0 }, { 4, B_FIX, 144, 0 }, END } },
	{ SYS_splice, { { 1, B_FIX, 8, 0 }, { 3, B_FIX, 8, 0 }, END } },
	{ SYS_sendfile, { { 2, B_FIX, 8, 0 }, END } },
	{ SYS_msgrcv, { { 1, B_LENP, 2, 8 }, END } },
	{ SYS_msgsnd, { { 1, B_LENP, 2, 8 }, END } },
	{ SYS_semop, { { 1, B_LEN, 2, 6 }, END } },
	{ SYS_semtimedop, { { 1, B_LEN, 2, 6 }, { 3, B_FIX, 16, 0 }, END } },
	{ SYS_mq_timedreceive, { { 1, B_LEN, 2, 0 }, { 3, B_FIX, 4, 0 }, { 4, B_FIX, 16, 0 }, END } },
	{ SYS_mq_timedsend, { { 1, B_LEN, 2, 0 }, { 4, B_FIX, 16, 0 }, END } },
	{ SYS_fcntl, { { 2, B_FIX, 32, 0 }, END } },
	{ SYS_rt_sigtimedwait, { { 0, B_FIX, 8, 0 }, { 1, B_FIX, 128, 0 }, { 2, B_FIX, 16, 0 }, END } },
	{ SYS_rt_sigsuspend, { { 0, B_FIX, 8, 0 }, END } },
};
#undef END

/* The buffers of a call of io_calls: pended as decided per access (the
 * call may sleep), or opened (fault.h's open_at). */
struct io_walk {
	struct cts_tracer *tr;
	struct thread *th;
	bool open;
};

static bool walk_range(const struct io_walk *w, uint64_t lo, uint64_t len)
{
	struct cts_fault *f = w->tr->flt;
	if (!lo || !len || !reaches_tracked(f, lo, len))
		return false;
	if (w->open) {
		cts_fault_open_at(w->tr, w->th, lo, len);
		return true;
	}
	uint64_t hi = len > UINT64_MAX - lo ? UINT64_MAX : lo + len;
	for (size_t i = 0; i < f->ntracked; i++) {
		uint64_t a = f->tracked[i].lo > lo ? f->tracked[i].lo : lo;
		uint64_t b = f->tracked[i].hi < hi ? f->tracked[i].hi : hi;
		for (uint64_t p = a / PAGE; a < b && p <= (b - 1) / PAGE; p++)
			cts_own_pend_io(f->own, p);
	}
	return true;
}

/* An iovec array of n: the array and each buffer. */
static bool walk_iov(const struct io_walk *w, uint64_t iov, uint64_t n)
{
	bool any = walk_range(w, iov, n * 16);
	for (uint64_t i = 0; i < n && i < 1024; i++) {
		uint64_t v[2];
		if (cts_mem_read(w->th->tid, iov + 16 * i, v, sizeof(v)) == 0)
			any |= walk_range(w, v[0], v[1]);
	}
	return any;
}

static bool walk_msg(const struct io_walk *w, uint64_t msg)
{
	uint64_t h[6]; /* name, namelen, iov, iovlen, control, controllen */
	bool any = walk_range(w, msg, 56);
	if (cts_mem_read(w->th->tid, msg, h, sizeof(h)) != 0)
		return any;
	any |= walk_range(w, h[0], h[1] & 0xffffffff);
	any |= walk_iov(w, h[2], h[3]);
	return any | walk_range(w, h[4], h[5]);
}

/* Is nr one of io_calls? any: one of its buffers reaches tracked pages. */
static bool io_walk(const struct io_walk *w, long nr, const uint64_t a[6], bool *any)
{
	*any = false;
	for (size_t i = 0; i < LEN(io_calls); i++) {
		if (io_calls[i].nr != nr)
			continue;
		for (int j = 0; j < 4 && io_calls[i].b[j].arg >= 0; j++) {
			const struct buf_arg *b = &io_calls[i].b[j];
			uint64_t p = a[b->arg], unit = b->unit ? b->unit : 1;
			switch (b->kind) {
			case B_FIX: *any |= walk_range(w, p, b->n); break;
			case B_LEN: *any |= walk_range(w, p, a[b->n] * unit); break;
			case B_LENP: *any |= walk_range(w, p, a[b->n] + b->unit); break;
			case B_SEL: *any |= walk_range(w, p, (a[0] + 63) / 64 * 8); break;
			case B_IOV: *any |= walk_iov(w, p, a[b->n]); break;
			case B_MSG: *any |= walk_msg(w, p); break;
			case B_MMSG:
				for (uint64_t m = 0; m < a[b->n] && m < 1024; m++)
					*any |= walk_msg(w, p + 64 * m);
				*any |= walk_range(w, p, a[b->n] * 64);
				break;
			}
		}
		return true;
	}
	return false;
}

bool cts_fault_io_learn(struct cts_tracer *tr, const struct thread *th)
{
	struct cts_fault *f = tr->flt;
	bool any;
	if (!cts_fault_on(tr) || !f->mprot)
		return false;
	const struct io_walk w = { tr, (struct thread *)th, false };
	return io_walk(&w, th->sys_nr, th->sys_arg, &any) && any;
}


bool cts_fault_sys_enter(struct cts_tracer *tr, struct thread *th, long nr)
{
	if (!cts_fault_on(tr))
		return false;
	const struct user_regs_struct *r = &th->regs;
	bool open = true;
	switch (nr) {
	case SYS_exit:
	case SYS_exit_group:
	case SYS_rt_sigreturn:
	case SYS_sched_yield:
		return false;
	case SYS_mprotect:
	case SYS_pkey_mprotect:
		/* No memory read; the maps are read again at a later stop,
		 * after the call (one thread runs at a time). With the
		 * mprotect mechanism the new protection is the program's: ours
		 * go back on at its exit. */
		cts_access_maps_changed(tr);
		if (!tr->flt->mprot)
			return false;
		open = false;
		break;
	case SYS_mmap:
		/* Only a mapping to tag, or one over tracked pages, needs the
		 * result: the rest (stacks, files) just changes the maps. */
		if (!(r->r10 & MAP_FIXED) && !(r->r10 & MAP_FIXED_NOREPLACE) &&
		    !tags_new_mapping(r->r10, r->rdx)) {
			cts_access_maps_changed(tr);
			return false;
		}
		open = false;
		break;
	case SYS_munmap:
	case SYS_mremap:
	case SYS_brk:
		open = false;
		break; /* new memory is tracked however many threads live */
	default:
		if (!tr->flt->armed)
			return false; /* nothing is denied */
		int direct = direct_walk(tr, th, nr, false);
		if (direct == 0)
			return false;
		if (direct > 0 && tr->flt->mprot) {
			direct_walk(tr, th, nr, true); /* its buffers only */
			open = false;
		}
		if (tr->flt->mprot && open) {
			/* an io call opens its buffers only, or nothing: no stop */
			const uint64_t a[6] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };
			const struct io_walk w = { tr, th, true };
			bool any;
			if (io_walk(&w, nr, a, &any)) {
				if (!any)
					return false;
				open = false;
			}
		}
		break;
	}
	th->flt_nr = nr;
	th->flt_arg[0] = r->rdi;
	th->flt_arg[1] = r->rsi;
	th->flt_arg[2] = r->rdx;
	th->flt_arg[3] = r->r10;
	th->flt_sys = true;
	tr->flt->st.syscalls++;
	if (open)
		cts_fault_open(tr, th);
	return true;
}

void cts_fault_sys_exit(struct cts_tracer *tr, struct thread *th)
{
	struct cts_fault *f = tr->flt;
	th->flt_sys = false;
	cts_fault_close(tr, th);
	if (!cts_fault_on(tr) || cts_tr_getregs(th) != 0)
		return;
	int64_t res = (int64_t)th->regs.rax;
	const uint64_t *a = th->flt_arg;
	switch (th->flt_nr) {
	case SYS_mmap:
		if (res < 0 && res > -4096)
			return;
		cts_access_maps_changed(tr);
		untrack(f, (uint64_t)res, (uint64_t)res + page_up(a[1]));
		if (tags_new_mapping(a[3], a[2]))
			tag(tr, th, (uint64_t)res, (uint64_t)res + page_up(a[1]), (int)a[2]);
		return;
	case SYS_munmap:
		cts_access_maps_changed(tr);
		if (res == 0)
			untrack(f, a[0], a[0] + page_up(a[1]));
		return;
	case SYS_mremap: {
		if (res < 0 && res > -4096)
			return;
		bool was = cts_fault_tracked(tr, a[0]);
		cts_access_maps_changed(tr);
		untrack(f, a[0], a[0] + page_up(a[1]));
		untrack(f, (uint64_t)res, (uint64_t)res + page_up(a[2]));
		int prot = cts_access_prot(tr, (uint64_t)res);
		if (was && prot >= 0)
			tag(tr, th, (uint64_t)res, (uint64_t)res + page_up(a[2]), prot);
		return;
	}
	case SYS_brk: {
		uint64_t end = (uint64_t)res;
		cts_access_maps_changed(tr);
		if (!f->brk_end)
			f->brk_end = end; /* brk(0): where the heap will start */
		else if (f->brk_end && page_up(end) > page_up(f->brk_end))
			tag(tr, th, page_up(f->brk_end), page_up(end), PROT_READ | PROT_WRITE);
		else if (f->brk_end && page_up(end) < page_up(f->brk_end))
			untrack(f, page_up(end), page_up(f->brk_end));
		f->brk_end = end;
		return;
	}
	case SYS_mprotect:
	case SYS_pkey_mprotect:
		cts_access_maps_changed(tr);
		if (f->mprot && res == 0) {
			resplit(f, a[0], a[0] + page_up(a[1]), (int)a[2]);
			f->applied_ok = false;
		}
		return;
	default:
		return;
	}
}

static void set_perms(char *perms, int prot)
{
	perms[0] = prot & PROT_READ ? 'r' : '-';
	perms[1] = prot & PROT_WRITE ? 'w' : '-';
	perms[2] = prot & PROT_EXEC ? 'x' : '-';
}

void cts_fault_fix_maps(const struct cts_tracer *tr, struct cts_mapping **maps, size_t *n)
{
	const struct cts_fault *f = tr->flt;
	if (!cts_fault_on(tr) || !f->mprot || (!f->ntracked && !f->text_nx))
		return;
	struct range *r = cts_xmalloc((f->ntracked + 1) * sizeof(*r));
	memcpy(r, f->tracked, f->ntracked * sizeof(*r));
	qsort(r, f->ntracked, sizeof(*r), cmp_range);
	struct cts_mapping *out = NULL;
	size_t m = 0, cap = 0;
	for (size_t i = 0; i < *n; i++) {
		const struct cts_mapping *in = &(*maps)[i];
		uint64_t at = in->lo;
		while (at < in->hi) {
			/* the piece from at: up to the next change of trackedness */
			uint64_t end = in->hi;
			int prot = -1;
			for (size_t j = 0; j < f->ntracked; j++) {
				if (r[j].hi <= at)
					continue;
				if (r[j].lo <= at) {
					prot = r[j].prot;
					end = r[j].hi < end ? r[j].hi : end;
				} else if (r[j].lo < end) {
					end = r[j].lo;
				}
				break;
			}
			if (m == cap) {
				size_t c = cts_grow_cap(cap, m + 1);
				out = cts_xgrow(out, cap, c, sizeof(*out));
				cap = c;
			}
			out[m] = *in;
			out[m].lo = at;
			out[m].hi = end;
			if (in->path[0] && in->path[0] != '[')
				out[m].off = in->off + (at - in->lo);
			if (prot >= 0)
				set_perms(out[m].perms, prot);
			for (size_t t = 0; f->text_nx && t < f->ntext; t++)
				if (at >= f->text_lo[t] && end <= f->text_hi[t])
					set_perms(out[m].perms, f->text_prot[t]);
			m++;
			at = end;
		}
	}
	free(r);
	free(*maps);
	*maps = out;
	*n = m;
}

void cts_fault_get_stats(const struct cts_tracer *tr, struct cts_fault_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (tr->flt) {
		*s = tr->flt->st;
		s->mprot = tr->flt->mprot;
		s->ro_pages = tr->flt->nro;
	}
}

