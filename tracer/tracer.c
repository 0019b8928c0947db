/* Live backend: launches the program under ptrace and runs exactly one thread
 * at a time from one visible operation to the next.
 *
 * Visible operations are caught three ways: int3 on libc's pthread entry
 * points (and on the program's memory accesses in break mode), seccomp
 * SECCOMP_RET_TRACE stops for futex/clone/exit/yield/sleeps, and ptrace
 * events for thread creation and exit. No thread ever blocks in the kernel:
 * a futex wait that would block is held at its syscall-entry stop and its
 * wake is emulated here, so a run never depends on timing. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "models/symbolize.h"
#include "tracer/access.h"
#include "tracer/elf.h"
#include "tracer/proc.h"
#include "tracer/tracer.h"
#include "tracer/tracer_int.h"
#include "tracer/wait.h"

static volatile sig_atomic_t alarm_fired, user_interrupt;

void cts_tracer_interrupt(void)
{
	user_interrupt = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	alarm_fired = 1;
}

/* ---- libc entry points ------------------------------------------------ */

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

/* ---- helpers ------------------------------------------------------------ */

/* A thread running this long without a visible operation is probed for a
 * busy-wait loop (access.c learns its load as a breakpoint). */
#define SLICE_US 200000

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct thread *by_tid(struct cts_tracer *tr, pid_t tid)
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

static void set_error(struct cts_tracer *tr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_error(struct cts_tracer *tr, const char *fmt, ...)
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
static void publish(struct cts_tracer *tr, struct thread *th)
{
	struct cts_thread_view *v = &tr->st->t[th->num];
	v->alive = th->state != TH_DEAD;
	v->blocked = th->fblocked;
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
	th->pending.tid = th->num;
	publish(tr, th);
}

/* Let th run on (single-stepping in step mode) to its next stop. ESRCH is
 * not an error: the thread is gone and its exit comes through wait. */
int cts_tr_resume(struct cts_tracer *tr, struct thread *th, int sig)
{
	(void)tr;
	if (cts_tr_flush_regs(th) != 0)
		return -1;
	th->regs_valid = false;
	th->state = TH_RUNNING;
	if (ptrace(th->stepping ? PTRACE_SINGLESTEP : PTRACE_CONT, th->tid, 0,
		   (void *)(long)sig) != 0) {
		if (errno == ESRCH)
			return 0; /* gone: its exit status comes through wait */
		return -1;
	}
	return 0;
}

/* ---- breakpoints -------------------------------------------------------- */

static size_t bp_slot(uint64_t addr, size_t cap)
{
	return (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

struct bp *cts_tr_bp_find(struct cts_tracer *tr, uint64_t addr)
{
	if (!tr->bpcap)
		return NULL;
	for (size_t i = bp_slot(addr, tr->bpcap);; i = (i + 1) & (tr->bpcap - 1)) {
		if (tr->bps[i].addr == addr)
			return &tr->bps[i];
		if (!tr->bps[i].addr)
			return NULL;
	}
}

struct bp *cts_tr_bp_add(struct cts_tracer *tr, uint64_t addr, enum bp_kind kind, int fn)
{
	struct bp *b = cts_tr_bp_find(tr, addr);
	if (b)
		return b;
	if ((tr->nbps + 1) * 2 > tr->bpcap) {
		size_t oldcap = tr->bpcap;
		struct bp *old = tr->bps;
		tr->bpcap = oldcap ? oldcap * 2 : 1024;
		tr->bps = cts_xcalloc(tr->bpcap, sizeof(*tr->bps));
		for (size_t i = 0; i < oldcap; i++) {
			if (!old[i].addr)
				continue;
			size_t j = bp_slot(old[i].addr, tr->bpcap);
			while (tr->bps[j].addr)
				j = (j + 1) & (tr->bpcap - 1);
			tr->bps[j] = old[i];
		}
		free(old);
	}
	size_t i = bp_slot(addr, tr->bpcap);
	while (tr->bps[i].addr)
		i = (i + 1) & (tr->bpcap - 1);
	b = &tr->bps[i];
	memset(b, 0, sizeof(*b));
	b->addr = addr;
	b->kind = kind;
	b->fn = fn;
	b->active = true;
	tr->nbps++;
	tr->bps_dirty = true;
	return b;
}

/* Write int3 over the first byte (orig saved on first planting). */
static int bp_plant(struct cts_tracer *tr, struct bp *b)
{
	uint8_t byte;
	if (cts_mem_read(tr->pid, b->addr, &byte, 1) != 0)
		return -1;
	if (byte != 0xCC)
		b->orig = byte;
	uint8_t cc = 0xCC;
	return cts_mem_write(tr->pid, b->addr, &cc, 1);
}

static int bp_unplant(struct cts_tracer *tr, struct bp *b)
{
	return cts_mem_write(tr->pid, b->addr, &b->orig, 1);
}

/* Plant every active breakpoint in a freshly started process. Text pages
 * are private copies, so each run needs its own. */
static int bp_plant_all(struct cts_tracer *tr)
{
	for (size_t i = 0; i < tr->bpcap; i++) {
		struct bp *b = &tr->bps[i];
		if (!b->addr || !b->active)
			continue;
		if (bp_plant(tr, b) != 0)
			return -1;
	}
	return 0;
}

void cts_tr_bp_retire(struct cts_tracer *tr, struct bp *b)
{
	if (!b->active)
		return;
	b->active = false;
	tr->bps_dirty = true;
	bp_unplant(tr, b);
}

/* Children are copies of the fork server's text: breakpoints learned or
 * retired during runs must reach the server before the next fork. */
static void sync_server_bps(struct cts_tracer *tr)
{
	if (!tr->bps_dirty || tr->server <= 0)
		return;
	for (size_t i = 0; i < tr->bpcap; i++) {
		struct bp *b = &tr->bps[i];
		if (!b->addr || b->active == b->in_server)
			continue;
		uint8_t byte = b->active ? 0xCC : b->orig;
		if (cts_mem_write(tr->server, b->addr, &byte, 1) == 0)
			b->in_server = b->active;
	}
	tr->bps_dirty = false;
}

/* Execute the instruction displaced by breakpoint b (b NULL: the one at rip,
 * in step mode): perform it here when it is a plain move, else restore the
 * byte and single-step it (the SINGLESTEP handler puts int3 back). Every
 * other thread is stopped, so no hit is lost. after: access.c wants to see
 * the result (cts_access_after_step). */
int cts_tr_step_over(struct cts_tracer *tr, struct thread *th, struct bp *b, bool after)
{
	if (b && b->active) {
		int e = cts_access_emulate(tr, th, b);
		if (e < 0)
			return -1;
		if (e > 0) {
			th->stepping_bp = 0;
			if (after)
				return cts_access_after_step(tr, th);
			return cts_tr_resume(tr, th, 0);
		}
		if (bp_unplant(tr, b) != 0)
			return -1;
	}
	if (cts_tr_flush_regs(th) != 0)
		return -1;
	th->stepping_bp = b ? b->addr : 0;
	th->after_step = after;
	th->regs_valid = false;
	th->state = TH_RUNNING;
	if (ptrace(PTRACE_SINGLESTEP, th->tid, 0, 0) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

static int step_over(struct cts_tracer *tr, struct thread *th, uint64_t addr)
{
	return cts_tr_step_over(tr, th, cts_tr_bp_find(tr, addr), false);
}

/* ---- launching ------------------------------------------------------------ */

/* The filter is compiled once in the tracer and loaded in the child with a
 * bare prctl, because the child is a vfork child: it must not allocate. */
static int build_seccomp(struct cts_tracer *tr)
{
	static const int traced[] = {
		SCMP_SYS(futex), SCMP_SYS(clone), SCMP_SYS(clone3), SCMP_SYS(exit),
		SCMP_SYS(exit_group), SCMP_SYS(sched_yield), SCMP_SYS(nanosleep),
		SCMP_SYS(clock_nanosleep),
	};
	int rc = -1;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -1;
	for (size_t i = 0; i < sizeof(traced) / sizeof(traced[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), traced[i], 0) != 0)
			goto out;
	/* seccomp_export_bpf writes to an fd: a temporary file gives it one. */
	FILE *tmp = tmpfile();
	if (!tmp)
		goto out;
	if (seccomp_export_bpf(ctx, fileno(tmp)) == 0) {
		off_t n = lseek(fileno(tmp), 0, SEEK_END);
		if (n > 0 && n % (off_t)sizeof(struct sock_filter) == 0) {
			tr->bpf = cts_xmalloc((size_t)n);
			if (pread(fileno(tmp), tr->bpf, (size_t)n, 0) == n) {
				tr->bpf_prog.len = (unsigned short)(n / (off_t)sizeof(struct sock_filter));
				tr->bpf_prog.filter = tr->bpf;
				rc = 0;
			}
		}
	}
	fclose(tmp);
out:
	seccomp_release(ctx);
	return rc;
}

/* Runs in the vfork child: system calls only, then exec. */
static void child_exec(struct cts_tracer *tr, volatile int *child_errno)
{
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		if (!tr->cfg.show_output) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (fd > 2)
			close(fd);
	}
	/* Its own process group: a terminal's ^C or a supervisor's group-wide
	 * SIGTERM reaches cts-trace, which kills and reaps the program itself
	 * instead of reporting its death as a crash. */
	setpgid(0, 0);
	/* exec under TRACEME stops the child with SIGTRAP: the tracer then
	 * sets its options before the program runs a single instruction. */
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
		goto fail;
	if (personality(ADDR_NO_RANDOMIZE) == -1)
		goto fail;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &tr->bpf_prog) != 0)
		goto fail;
	execv(tr->cfg.path, tr->cfg.argv);
fail:
	*child_errno = errno;
	_exit(127);
}

static int wait_for(pid_t pid, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, __WALL);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

static void kill_and_reap(struct cts_tracer *tr)
{
	int status;
	if (tr->pid <= 0)
		return;
	if (tr->pid_reaped) { /* the leader's exit was seen: nothing is left */
		tr->pid = 0;
		return;
	}
	kill(tr->pid, SIGKILL);
	/* Reap every thread up to the leader (its status comes last); stops
	 * still reported while dying are continued. The fork server, stopped,
	 * reports nothing meanwhile. */
	for (;;) {
		/* The leader may have been reaped already (its status consumed
		 * elsewhere): never block on a process that is gone. */
		if (kill(tr->pid, 0) != 0 && errno == ESRCH)
			break;
		pid_t r = waitpid(-1, &status, __WALL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: all gone */
		}
		if (WIFSTOPPED(status)) {
			ptrace(PTRACE_CONT, r, 0, 0);
			continue;
		}
		if (r == tr->pid)
			break;
	}
	tr->pid = 0;
}

static bool in_ranges(const struct cts_tracer *tr, uint64_t pc)
{
	for (int i = 0; i < tr->nlibc_ranges; i++)
		if (pc >= tr->libc_lo[i] && pc < tr->libc_hi[i])
			return true;
	return false;
}

/* First run: find libc and ld.so, resolve the entry points, create breakpoints. */
static int setup_libc(struct cts_tracer *tr)
{
	struct cts_mapping *maps;
	size_t n;
	char libc_path[256] = "";
	uint64_t libc_base = 0;

	if (cts_maps_read(tr->pid, &maps, &n) != 0) {
		set_error(tr, "cannot read /proc/%d/maps", (int)tr->pid);
		return -1;
	}
	tr->nlibc_ranges = 0;
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(maps[i].path, '/');
		base = base ? base + 1 : maps[i].path;
		bool is_libc = strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0;
		bool is_ld = strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "ld-", 3) == 0;
		if (maps[i].off == 0 && !tr->exe_base && strcmp(maps[i].path, tr->cfg.path) == 0)
			tr->exe_base = maps[i].lo;
		if (is_libc && maps[i].off == 0 && !libc_base) {
			libc_base = maps[i].lo;
			snprintf(libc_path, sizeof(libc_path), "%s", maps[i].path);
		}
		if ((is_libc || is_ld) && maps[i].perms[2] == 'x' && tr->nlibc_ranges < 4) {
			tr->libc_lo[tr->nlibc_ranges] = maps[i].lo;
			tr->libc_hi[tr->nlibc_ranges] = maps[i].hi;
			tr->nlibc_ranges++;
		}
	}
	free(maps);
	if (!libc_base) {
		set_error(tr, "libc is not mapped in %s (statically linked or unusual loader?)",
			  tr->cfg.path);
		tr->st->bad_input = true;
		return -1;
	}
	if (tr->libc_base == libc_base && tr->nbps)
		return 0; /* same layout as the first run (ASLR is off) */
	if (tr->libc_base && tr->libc_base != libc_base) {
		set_error(tr, "libc moved between runs (0x%" PRIx64 " -> 0x%" PRIx64
			  "): address randomisation is not disabled", tr->libc_base, libc_base);
		return -1;
	}
	tr->libc_base = libc_base;
	const char *names[NSYNCFN];
	uint64_t values[NSYNCFN];
	for (int i = 0; i < NSYNCFN; i++)
		names[i] = syncfns[i].name;
	int found = cts_elf_lookup(libc_path, names, NSYNCFN, values, NULL);
	if (found <= 0 || !values[0]) {
		set_error(tr, "libc symbols not found in %s (pthread_create and friends): not glibc?",
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

static struct thread *new_thread(struct cts_tracer *tr, pid_t tid)
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

static int futex_wake(struct cts_tracer *tr, uint64_t uaddr, int n);

/* glibc 2.36's struct pthread keeps the thread's tid at this offset from the
 * thread pointer: CLONE_CHILD_CLEARTID clears it and futex-wakes it when the
 * thread dies (the wake pthread_join waits for). */
#define GLIBC_TID_OFFSET 0x2d0

static void mark_dead(struct cts_tracer *tr, struct thread *th)
{
	th->state = TH_DEAD;
	th->fblocked = false;
	publish(tr, th);
	/* The kernel's exit-time wake never passes through our futex model. */
	if (th->handle && th->tid != tr->pid)
		futex_wake(tr, th->handle + GLIBC_TID_OFFSET, INT32_MAX);
}

/* exec the program and run it to its ELF entry point (libc is mapped by
 * then): resolve libc's entry points, create and plant every breakpoint.
 * The process is left stopped there with *entry_regs its registers. */
static int launch(struct cts_tracer *tr, struct user_regs_struct *entry_regs)
{
	int status;
	volatile int child_errno = 0;

	/* vfork: the tracer's address space (libdw's debug info) is large, and
	 * copying its page tables made fork the most expensive part of a run. */
	pid_t pid = vfork();
	if (pid < 0) {
		set_error(tr, "vfork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		child_exec(tr, &child_errno);
	tr->pid = pid;
	if (child_errno) {
		wait_for(pid, &status);
		tr->pid = 0;
		set_error(tr, "cannot run %s: %s", tr->cfg.path, strerror(child_errno));
		tr->st->bad_input = true;
		return -1;
	}
	if (wait_for(pid, &status) != 0 || !WIFSTOPPED(status)) {
		tr->pid = 0;
		set_error(tr, "%s did not stop after exec", tr->cfg.path);
		return -1;
	}
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
		    PTRACE_O_TRACEEXIT | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP |
		    PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)opts) != 0) {
		set_error(tr, "PTRACE_SETOPTIONS: %s", strerror(errno));
		return -1;
	}

	/* Run to the program's entry point: by then libc is mapped. */
	uint64_t entry = cts_auxv_entry(pid);
	uint8_t orig, cc = 0xCC;
	if (!entry || cts_mem_read(pid, entry, &orig, 1) != 0 ||
	    cts_mem_write(pid, entry, &cc, 1) != 0) {
		set_error(tr, "cannot set a breakpoint at the entry point of %s", tr->cfg.path);
		return -1;
	}
	ptrace(PTRACE_CONT, pid, 0, 0);
	for (;;) {
		if (wait_for(pid, &status) != 0) {
			set_error(tr, "lost the child before its entry point");
			return -1;
		}
		struct cts_wait_event ev;
		cts_wait_decode(pid, status, &ev);
		if (ev.kind == CTS_WEV_BREAKPOINT)
			break;
		if (ev.kind == CTS_WEV_EXITED || ev.kind == CTS_WEV_KILLED) {
			set_error(tr, "%s died before reaching its entry point", tr->cfg.path);
			tr->st->bad_input = true;
			tr->pid = 0;
			return -1;
		}
		int sig = ev.kind == CTS_WEV_SIGNAL ? ev.sig : 0;
		ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
	}
	cts_mem_write(pid, entry, &orig, 1);
	if (ptrace(PTRACE_GETREGS, pid, 0, entry_regs) != 0) {
		set_error(tr, "PTRACE_GETREGS: %s", strerror(errno));
		return -1;
	}
	entry_regs->rip = entry;
	ptrace(PTRACE_SETREGS, pid, 0, entry_regs);
	if (setup_libc(tr) != 0)
		return -1;
	if (tr->cfg.symbolize && !tr->sym)
		tr->sym = cts_sym_new(pid);
	/* access.c looks at thread 0 (its stack, its watchpoints). */
	struct thread *t0 = new_thread(tr, pid);
	t0->regs = *entry_regs;
	t0->regs_valid = true;
	if (cts_access_setup(tr) != 0)
		return -1;
	tr->nthreads = 0;
	if (bp_plant_all(tr) != 0) {
		set_error(tr, "cannot plant breakpoints: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Run the single-threaded start-up (constructors, libc init) invisibly up to
 * main, so a run's schedule starts at main whether it was forked from the
 * server or exec'd. 0 at main (regs filled), 1 if main cannot be used (no
 * symbol, or a thread was created before main), -1 on error. */
static int run_to_main(struct cts_tracer *tr, struct user_regs_struct *regs)
{
	pid_t pid = tr->pid;
	int status;

	if (!tr->main_addr)
		return 1;
	struct bp *mb = cts_tr_bp_find(tr, tr->main_addr);
	uint8_t orig = 0, cc = 0xCC;
	bool own = !mb || !mb->active;
	if (own && (cts_mem_read(pid, tr->main_addr, &orig, 1) != 0 ||
		    cts_mem_write(pid, tr->main_addr, &cc, 1) != 0))
		return 1;
	ptrace(PTRACE_CONT, pid, 0, 0);
	for (;;) {
		if (wait_for(pid, &status) != 0) {
			set_error(tr, "lost the program before main");
			return -1;
		}
		struct cts_wait_event ev;
		cts_wait_decode(pid, status, &ev);
		int sig = 0;
		switch (ev.kind) {
		case CTS_WEV_EXITED:
		case CTS_WEV_KILLED:
			tr->pid = 0;
			set_error(tr, "%s ended before main", tr->cfg.path);
			tr->st->bad_input = true;
			return -1;
		case CTS_WEV_CLONE:
			return 1; /* threads before main: schedule from the entry point */
		case CTS_WEV_BREAKPOINT:
			if (ptrace(PTRACE_GETREGS, pid, 0, regs) != 0)
				return -1;
			regs->rip--;
			ptrace(PTRACE_SETREGS, pid, 0, regs);
			if (regs->rip == tr->main_addr) {
				if (own)
					cts_mem_write(pid, tr->main_addr, &orig, 1);
				return 0;
			}
			/* One of ours in start-up code: step over it quietly. */
			struct bp *b = cts_tr_bp_find(tr, regs->rip);
			if (!b)
				return 1;
			bp_unplant(tr, b);
			ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
			if (wait_for(pid, &status) != 0)
				return -1;
			bp_plant(tr, b);
			break;
		case CTS_WEV_SIGNAL:
			sig = ev.sig;
			break;
		default:
			break;
		}
		ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
	}
}

/* Make the process stopped at main the fork server, if glibc looks as
 * expected. */
static bool become_server(struct cts_tracer *tr, const struct user_regs_struct *regs)
{
	uint32_t tid = 0;
	if (cts_mem_read(tr->pid, regs->fs_base + GLIBC_TID_OFFSET, &tid, 4) != 0 ||
	    tid != (uint32_t)tr->pid)
		return false;
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT |
		    PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK;
	if (ptrace(PTRACE_SETOPTIONS, tr->pid, 0, (void *)opts) != 0)
		return false;
	tr->server = tr->pid;
	tr->server_regs = *regs;
	tr->pid = 0;
	for (size_t i = 0; i < tr->bpcap; i++)
		tr->bps[i].in_server = tr->bps[i].addr && tr->bps[i].active;
	tr->bps_dirty = false;
	return true;
}

/* One run's process: the server runs an injected clone(2) the way glibc's
 * fork does, and the child, stopped at main, is the program (PTRACE-NOTES'
 * fork-server recipe). Breakpoints, the seccomp filter and ASLR-off come with
 * the copy. Returns the child's pid, or -1. */
static pid_t fork_from_server(struct cts_tracer *tr)
{
	static const uint8_t code[3] = { 0x0f, 0x05, 0xcc }; /* syscall; int3 */
	pid_t srv = tr->server, child = 0;
	struct user_regs_struct r = tr->server_regs;
	uint8_t saved[3];
	int status;
	bool child_stopped = false, server_back = false;

	if (cts_mem_read(srv, r.rip, saved, 3) != 0 || cts_mem_write(srv, r.rip, code, 3) != 0)
		return -1;
	r.rax = SYS_clone;
	r.rdi = CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_PARENT | SIGCHLD;
	r.rsi = 0;
	r.rdx = 0;
	r.r10 = tr->server_regs.fs_base + GLIBC_TID_OFFSET;
	r.r8 = 0;
	if (ptrace(PTRACE_SETREGS, srv, 0, &r) != 0 || ptrace(PTRACE_CONT, srv, 0, 0) != 0)
		goto fail;
	while (!server_back || !child_stopped) {
		pid_t w = waitpid(-1, &status, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		struct cts_wait_event ev;
		cts_wait_decode(w, status, &ev);
		if (w == srv) {
			if (ev.kind == CTS_WEV_FORK) {
				child = (pid_t)ev.msg;
			} else if (ev.kind == CTS_WEV_BREAKPOINT) {
				server_back = true;
				continue;
			} else if (ev.kind == CTS_WEV_EXITED || ev.kind == CTS_WEV_KILLED) {
				tr->server = 0;
				return -1;
			}
			ptrace(PTRACE_CONT, srv, 0, 0);
		} else if (ev.kind == CTS_WEV_SIGNAL || ev.kind == CTS_WEV_GROUP_STOP ||
			   ev.kind == CTS_WEV_STOP) {
			child = child ? child : w;
			child_stopped = true;
		} else if (ev.kind == CTS_WEV_EXITED || ev.kind == CTS_WEV_KILLED) {
			goto fail;
		}
	}
	cts_mem_write(srv, tr->server_regs.rip, saved, 3);
	ptrace(PTRACE_SETREGS, srv, 0, &tr->server_regs);
	/* The child is a copy made mid-injection: put main back in it too. */
	cts_mem_write(child, tr->server_regs.rip, saved, 3);
	ptrace(PTRACE_SETREGS, child, 0, &tr->server_regs);
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT |
		    PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK |
		    PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC; /* its forks: followed, run free */
	ptrace(PTRACE_SETOPTIONS, child, 0, (void *)opts);
	return child;
fail:
	cts_mem_write(srv, tr->server_regs.rip, saved, 3);
	ptrace(PTRACE_SETREGS, srv, 0, &tr->server_regs);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, __WALL);
	}
	return -1;
}

static void stop_server(struct cts_tracer *tr)
{
	int status;
	if (tr->server <= 0)
		return;
	kill(tr->server, SIGKILL);
	while (waitpid(tr->server, &status, __WALL) == tr->server && WIFSTOPPED(status))
		ptrace(PTRACE_CONT, tr->server, 0, 0);
	tr->server = 0;
}

static int tr_start(void *be, struct cts_run_state *st)
{
	struct cts_tracer *tr = be;
	struct user_regs_struct regs;

	tr->st = st;
	tr->nthreads = 0;
	tr->nearly = 0;
	tr->proc_exiting = false;
	tr->fseq = 0;
	alarm_fired = 0;
	st->status = CTS_RUN_ACTIVE;

	if (tr->server) {
		sync_server_bps(tr);
		pid_t child = fork_from_server(tr);
		if (child > 0) {
			tr->pid = child;
			regs = tr->server_regs;
			goto ready;
		}
		cts_debug_msg("fork server failed; exec'ing every run from now on");
		stop_server(tr);
		tr->no_server = true;
	}
	if (launch(tr, &regs) != 0)
		return -1;
	if (!tr->main_known) {
		const char *names[1] = { "main" };
		uint64_t v = 0;
		struct cts_elf_info info;
		char err[256];
		tr->main_known = true;
		if (cts_elf_lookup(tr->cfg.path, names, 1, &v, NULL) == 1 && v &&
		    cts_elf_check(tr->cfg.path, &info, err, sizeof(err)) == CTS_ELF_OK)
			tr->main_addr = v + (info.pie ? tr->exe_base : 0);
	}
	int r = tr->no_main ? 1 : run_to_main(tr, &regs);
	if (r < 0)
		return -1;
	if (r > 0 && !tr->no_main && tr->main_addr) {
		/* Threads before main: start over, scheduling from the entry point. */
		tr->no_main = true;
		kill_and_reap(tr);
		return tr_start(be, st);
	}
	if (r == 0 && !tr->no_server && !tr->server && become_server(tr, &regs)) {
		pid_t child = fork_from_server(tr);
		if (child <= 0) {
			stop_server(tr);
			tr->no_server = true;
			return tr_start(be, st);
		}
		tr->pid = child;
	}
ready:;
	struct thread *main_th = new_thread(tr, tr->pid);
	main_th->regs = regs;
	main_th->regs_valid = true;
	main_th->handle = regs.fs_base;
	main_th->pending.pc = regs.rip;
	if (tr->acc)
		cts_access_watch_thread(tr, main_th);
	cts_tr_hold(tr, main_th, AT_START);
	/* A periodic tick: the run's wall-clock limit, and the time slice after
	 * which a thread that reaches no visible operation is probed for a spin. */
	struct itimerval it = { { 0, SLICE_US }, { 0, SLICE_US } };
	setitimer(ITIMER_REAL, &it, NULL);
	tr->run_started = now_s();
	return 0;
}

/* ---- futexes ------------------------------------------------------------- */

static void skip_syscall(struct thread *th, long ret)
{
	th->regs.orig_rax = (unsigned long long)-1;
	th->regs.rax = (unsigned long long)ret;
	cts_tr_setregs(th);
}

/* Wake up to n threads parked on uaddr, oldest first. */
static int futex_wake(struct cts_tracer *tr, uint64_t uaddr, int n)
{
	int woken = 0;
	while (woken < n) {
		struct thread *best = NULL;
		for (int i = 0; i < tr->nthreads; i++) {
			struct thread *w = &tr->th[i];
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
		publish(tr, best);
		woken++;
	}
	return woken;
}

static int futex_requeue(struct cts_tracer *tr, uint64_t from, uint64_t to, int n)
{
	int moved = 0;
	for (int i = 0; i < tr->nthreads && moved < n; i++) {
		struct thread *w = &tr->th[i];
		if (w->state == TH_HELD && w->fblocked && w->fwait_addr == from) {
			w->fwait_addr = to;
			moved++;
		}
	}
	return moved;
}

static bool internal_addr(const struct thread *th, uint64_t a)
{
	if (!th->in_call)
		return false;
	for (int i = 0; i < 2; i++)
		if (a >= th->call_lo[i] && a < th->call_hi[i])
			return true;
	return false;
}

static void park(struct cts_tracer *tr, struct thread *th, uint64_t uaddr, bool timed)
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
	bool internal = internal_addr(th, uaddr);

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
			skip_syscall(th, -EAGAIN);
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
		park(tr, th, uaddr, timed);
		bool in_call = th->in_call;
		cts_tr_hold(tr, th, AT_SYSCALL);
		th->in_call = in_call; /* still inside the same call when it resumes */
		publish(tr, th);
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
		skip_syscall(th, futex_wake(tr, uaddr, (int)val));
		return cts_tr_resume(tr, th, 0);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE: {
		if (cmd == FUTEX_CMP_REQUEUE) {
			uint32_t cur;
			if (cts_mem_read(th->tid, uaddr, &cur, 4) == 0 && cur != (uint32_t)th->regs.r9) {
				skip_syscall(th, -EAGAIN);
				return cts_tr_resume(tr, th, 0);
			}
		}
		int woken = futex_wake(tr, uaddr, (int)val);
		int moved = futex_requeue(tr, uaddr, th->regs.r8, (int)th->regs.r10);
		skip_syscall(th, woken + moved);
		return cts_tr_resume(tr, th, 0);
	}
	case FUTEX_WAKE_OP:
		/* The kernel does the operation on uaddr2; waking is ours, and a
		 * spurious wake of uaddr2's waiters is allowed by futex semantics. */
		futex_wake(tr, uaddr, (int)val);
		futex_wake(tr, th->regs.r8, (int)th->regs.r10);
		return cts_tr_resume(tr, th, 0);
	default:
		return cts_tr_resume(tr, th, 0);
	}
}

static int on_seccomp(struct cts_tracer *tr, struct thread *th)
{
	if (cts_tr_getregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	long nr = (long)th->regs.orig_rax;
	cts_op op;

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
	default: /* clone, clone3: the clone event follows */
		return cts_tr_resume(tr, th, 0);
	}
	cts_event_init(&th->pending, th->num, op);
	th->pending.pc = th->regs.rip;
	cts_tr_hold(tr, th, AT_SYSCALL);
	return 0;
}

/* ---- breakpoints hit ------------------------------------------------------ */

/* glibc reuses a dead thread's descriptor (and so its pthread_t) for a new
 * thread: the newest thread with that handle is the one meant. */
static struct thread *handle_of(struct cts_tracer *tr, uint64_t handle)
{
	for (int i = tr->nthreads - 1; i >= 0; i--)
		if (tr->th[i].handle == handle)
			return &tr->th[i];
	return NULL;
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

static int on_sync_bp(struct cts_tracer *tr, struct thread *th, struct bp *b)
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
		return step_over(tr, th, b->addr);
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
	case CTS_OP_JOIN: {
		struct thread *t = handle_of(tr, th->regs.rdi);
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

static int on_breakpoint(struct cts_tracer *tr, struct thread *th, struct cts_wait_event *ev)
{
	(void)ev;
	tr->stats.bp_hits++;
	if (cts_tr_getregs(th) != 0)
		return errno == ESRCH ? 0 : -1;
	uint64_t addr = th->regs.rip - 1;
	struct bp *b = cts_tr_bp_find(tr, addr);
	if (!b || !b->active) {
		/* The program's own int3: deliver SIGTRAP as the kernel would. */
		return cts_tr_resume(tr, th, SIGTRAP);
	}
	th->regs.rip = addr;
	th->regs_dirty = true;
	switch (b->kind) {
	case BP_SYNC:
		return on_sync_bp(tr, th, b);
	case BP_ACCESS:
	case BP_RETURN:
		return cts_access_hit(tr, th, b);
	}
	return -1;
}

/* ---- the event pump ------------------------------------------------------- */

static bool fatal_signal(int sig)
{
	switch (sig) {
	case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGABRT: case SIGSYS:
	case SIGTRAP:
		return true;
	default:
		return false;
	}
}

static void on_crash(struct cts_tracer *tr, struct thread *th, const struct cts_wait_event *ev)
{
	cts_tr_getregs(th);
	tr->st->status = CTS_RUN_SIGNALED;
	tr->st->sig = ev->sig;
	tr->st->fault_tid = th->num;
	tr->st->fault_pc = th->regs.rip;
	tr->st->fault_addr = (uint64_t)ev->info.si_addr;
	tr->st->message[0] = 0;
	/* Unwinding needs a handle on this very process: one per crash is fine. */
	struct cts_sym *cs = tr->cfg.symbolize ? cts_sym_new(tr->pid) : NULL;
	if (cs) {
		uint64_t pcs[16];
		int n = cts_sym_stack(cs, th->tid, pcs, 16);
		size_t off = 0;
		for (int i = 0; i < n && off < sizeof(tr->st->message) - 1; i++) {
			char where[256];
			cts_sym_format_frame(cs, pcs[i], i > 0, where, sizeof(where));
			int w = snprintf(tr->st->message + off, sizeof(tr->st->message) - off,
					 "    #%d %s\n", i, where);
			if (w < 0)
				break;
			off += (size_t)w;
		}
		cts_sym_free(cs);
	}
	th->state = TH_HELD;
}

static int on_new_stop(struct cts_tracer *tr, struct thread *th)
{
	/* A new thread's first stop. Its pthread_t is its TLS pointer. */
	if (cts_tr_getregs(th) == 0) {
		th->handle = th->regs.fs_base;
		th->pending.pc = th->regs.rip;
	}
	if (tr->cfg.nwatch)
		cts_access_watch_thread(tr, th);
	cts_event_init(&th->pending, th->num, CTS_OP_START);
	cts_tr_hold(tr, th, AT_START);
	return 0;
}

/* Processes the program forks (system(), popen) are followed only so that
 * they run free: their inherited seccomp filter needs a tracer, or their
 * futex and exit calls would fail with ENOSYS. */
static bool is_foreign(const struct cts_tracer *tr, pid_t tid)
{
	for (int i = 0; i < tr->nforeign; i++)
		if (tr->foreign[i] == tid)
			return true;
	return false;
}

static void add_foreign(struct cts_tracer *tr, pid_t tid)
{
	if (tid > 0 && !is_foreign(tr, tid) && tr->nforeign < MAX_FOREIGN)
		tr->foreign[tr->nforeign++] = tid;
}

static void forget_foreign(struct cts_tracer *tr, pid_t tid)
{
	for (int i = 0; i < tr->nforeign; i++)
		if (tr->foreign[i] == tid)
			tr->foreign[i] = tr->foreign[--tr->nforeign];
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static int foreign_event(struct cts_tracer *tr, const struct cts_wait_event *ev)
{
	int sig = 0;
	add_foreign(tr, ev->tid);
	if (ev->kind == CTS_WEV_FORK)
		add_foreign(tr, (pid_t)ev->msg);
	if (ev->kind == CTS_WEV_SIGNAL && ev->sig != SIGSTOP)
		sig = ev->sig;
	if (ptrace(PTRACE_CONT, ev->tid, 0, (void *)(long)sig) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

static void kill_foreign(struct cts_tracer *tr)
{
	int status;
	for (int i = 0; i < tr->nforeign; i++) {
		pid_t p = tr->foreign[i];
		kill(p, SIGKILL);
		while (waitpid(p, &status, __WALL) == p && WIFSTOPPED(status))
			ptrace(PTRACE_CONT, p, 0, 0);
	}
	tr->nforeign = 0;
}

static int dispatch(struct cts_tracer *tr, struct cts_wait_event *ev)
{
	struct thread *th = by_tid(tr, ev->tid);

	if (!th) {
		if (ev->kind == CTS_WEV_EXITED || ev->kind == CTS_WEV_KILLED) {
			forget_foreign(tr, ev->tid);
			return 0;
		}
		if (is_foreign(tr, ev->tid) || tgid_of(ev->tid) != tr->pid)
			return foreign_event(tr, ev);
		/* A new thread reported before its clone event: remember it. */
		if (tr->nearly < CTS_MAX_THREADS)
			tr->early[tr->nearly++] = ev->tid;
		return 0;
	}
	th->regs_valid = false;
	switch (ev->kind) {
	case CTS_WEV_EXITED:
	case CTS_WEV_KILLED:
		if (th->tid == tr->pid) {
			/* The process is gone. */
			for (int i = 0; i < tr->nthreads; i++)
				if (tr->th[i].state != TH_DEAD)
					mark_dead(tr, &tr->th[i]);
			if (tr->st->status == CTS_RUN_ACTIVE && user_interrupt) {
				tr->st->status = CTS_RUN_INTERRUPTED;
				snprintf(tr->st->message, sizeof(tr->st->message), "interrupted");
			} else if (tr->st->status == CTS_RUN_ACTIVE) {
				if (ev->kind == CTS_WEV_EXITED) {
					tr->st->status = CTS_RUN_EXITED;
					tr->st->exit_code = ev->code;
				} else {
					tr->st->status = CTS_RUN_SIGNALED;
					tr->st->sig = ev->sig;
					tr->st->fault_tid = tr->running ? tr->running->num : 0;
				}
			}
			tr->pid_reaped = true;
			return 0;
		}
		mark_dead(tr, th);
		return 0;
	case CTS_WEV_GONE:
		return 0;
	case CTS_WEV_BREAKPOINT:
		return on_breakpoint(tr, th, ev);
	case CTS_WEV_SINGLESTEP:
		if (th->probing)
			return cts_access_probe_step(tr, th);
		if (th->stepping_bp) {
			struct bp *b = cts_tr_bp_find(tr, th->stepping_bp);
			th->stepping_bp = 0;
			if (b && b->active)
				bp_plant(tr, b);
		}
		if (th->after_step)
			return cts_access_after_step(tr, th);
		if (th->stepping)
			return cts_access_single_step(tr, th);
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_WATCHPOINT:
		return cts_access_watch_hit(tr, th);
	case CTS_WEV_SIGNAL:
		if (th->state == TH_NEW && ev->sig == SIGSTOP)
			return on_new_stop(tr, th);
		if (ev->sig == SIGSTOP && th->probe_requested) {
			th->probe_requested = false;
			return cts_access_probe_start(tr, th);
		}
		if (ev->sig == SIGSTOP)
			return cts_tr_resume(tr, th, 0);
		if (fatal_signal(ev->sig)) {
			on_crash(tr, th, ev);
			return 0;
		}
		return cts_tr_resume(tr, th, ev->sig);
	case CTS_WEV_GROUP_STOP:
		if (th->state == TH_NEW)
			return on_new_stop(tr, th);
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_SECCOMP:
		return on_seccomp(tr, th);
	case CTS_WEV_CLONE: {
		pid_t ntid = (pid_t)ev->msg;
		struct thread *nt = new_thread(tr, ntid);
		if (!nt) {
			set_error(tr, "more than %d threads", CTS_MAX_THREADS);
			return -1;
		}
		tr->last_created = nt->num;
		publish(tr, nt);
		for (int i = 0; i < tr->nearly; i++) {
			if (tr->early[i] == ntid) {
				tr->early[i] = tr->early[--tr->nearly];
				on_new_stop(tr, nt);
				break;
			}
		}
		return cts_tr_resume(tr, th, 0);
	}
	case CTS_WEV_EXIT:
		if (th->tid == tr->pid && !tr->proc_exiting) {
			bool others = false;
			for (int i = 0; i < tr->nthreads; i++)
				others |= &tr->th[i] != th && tr->th[i].state != TH_DEAD;
			if (others) {
				/* The main thread left with pthread_exit: a zombie until
				 * the others are done, but gone for scheduling. */
				cts_tr_resume(tr, th, 0);
				mark_dead(tr, th);
				return 0;
			}
			tr->proc_exiting = true; /* last thread: the process ends */
		}
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_FORK:
		add_foreign(tr, (pid_t)ev->msg);
		return cts_tr_resume(tr, th, 0);
	case CTS_WEV_SYSCALL:
	case CTS_WEV_STOP:
	case CTS_WEV_EXEC:
		return cts_tr_resume(tr, th, 0);
	}
	return 0;
}

/* Is anything still in flight? */
static bool busy(struct cts_tracer *tr)
{
	if (tr->pid_reaped)
		return false;
	if (tr->st->status != CTS_RUN_ACTIVE)
		return false;
	if (tr->proc_exiting)
		return true;
	for (int i = 0; i < tr->nthreads; i++)
		if (tr->th[i].state == TH_RUNNING || tr->th[i].state == TH_NEW)
			return true;
	return false;
}

/* The running thread has had its slice: ask it to stop for a spin probe. */
static void slice_expired(struct cts_tracer *tr, double t)
{
	struct thread *th = tr->running;
	if (!th || th->state != TH_RUNNING || th->probe_requested || th->probing)
		return;
	if (t - tr->step_started < SLICE_US * 1e-6)
		return;
	th->probe_requested = true;
	syscall(SYS_tgkill, tr->pid, th->tid, SIGSTOP);
}

static int pump(struct cts_tracer *tr)
{
	while (busy(tr)) {
		int status;
		/* A signal that came outside waitpid (a busy stream of stops
		 * leaves little time inside it) is seen here. */
		pid_t tid = user_interrupt || alarm_fired ? (errno = EINTR, -1) :
			    waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR) {
				if (user_interrupt) {
					tr->st->status = CTS_RUN_INTERRUPTED;
					snprintf(tr->st->message, sizeof(tr->st->message), "interrupted");
					return 0;
				}
				if (alarm_fired) {
					alarm_fired = 0;
					double t = now_s();
					if (tr->cfg.timeout <= 0 || t - tr->run_started < tr->cfg.timeout) {
						slice_expired(tr, t);
						continue;
					}
					tr->st->status = CTS_RUN_TIMEOUT;
					snprintf(tr->st->message, sizeof(tr->st->message),
						 "run timed out after %.1f s (a thread ran without reaching a "
						 "visible operation: busy loop or blocking call?)",
						 tr->cfg.timeout);
					return 0;
				}
				continue;
			}
			if (errno == ECHILD) {
				tr->pid_reaped = true;
				if (tr->st->status == CTS_RUN_ACTIVE)
					set_error(tr, "program vanished");
				return 0;
			}
			set_error(tr, "waitpid: %s", strerror(errno));
			return -1;
		}
		struct cts_wait_event ev;
		cts_wait_decode(tid, status, &ev);
		tr->stats.stops++;
		if (dispatch(tr, &ev) != 0) {
			if (tr->st->status == CTS_RUN_ACTIVE)
				set_error(tr, "tracing thread %d failed at %s event: %s", (int)tid,
					  cts_wev_name(ev.kind), strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* ---- executing one visible operation ---------------------------------------- */

static void enter_call(struct thread *th)
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

static int tr_step(void *be, struct cts_run_state *st, int tid, bool give_up,
		   struct cts_event *done)
{
	struct cts_tracer *tr = be;
	struct thread *th = &tr->th[tid];
	int rc = 0;

	tr->st = st;
	*done = th->pending;
	tr->running = th;
	tr->step_started = now_s();
	tr->last_created = -1;
	if (th->state != TH_HELD) {
		set_error(tr, "thread %d is not held (state %d)", tid, th->state);
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
		if (th->pending.op == CTS_OP_PROC_EXIT)
			th->stepping = false;
		if (cts_op_is_sync(th->pending.op) || th->pending.op == CTS_OP_JOIN)
			enter_call(th);
		rc = step_over(tr, th, th->bp_addr);
		break;
	case AT_STEP:
		rc = cts_access_execute(tr, th, done);
		break;
	case AT_SYSCALL:
		if (cts_tr_getregs(th) != 0) {
			rc = errno == ESRCH ? 0 : -1;
			break;
		}
		switch (th->pending.op) {
		case CTS_OP_THREAD_EXIT:
			rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_PROC_EXIT:
			tr->proc_exiting = true;
			rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_YIELD:
		case CTS_OP_SLEEP:
			skip_syscall(th, 0);
			rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_FUTEX_WAIT:
			if (th->fwoken) {
				th->fwoken = false;
				skip_syscall(th, 0);
			} else if (give_up) {
				done->result = ETIMEDOUT;
				skip_syscall(th, -ETIMEDOUT);
			} else {
				uint32_t cur;
				if (cts_mem_read(th->tid, th->pending.obj, &cur, 4) == 0 &&
				    cur == (uint32_t)th->pending.value) {
					/* Really waits: parked until a wake on this word. */
					park(tr, th, th->pending.obj, th->pending.timed);
					done->result = 1;
					publish(tr, th);
					return 0;
				}
				done->result = EAGAIN;
				skip_syscall(th, -EAGAIN);
			}
			rc = cts_tr_resume(tr, th, 0);
			break;
		case CTS_OP_FUTEX_WAKE:
			done->result = futex_wake(tr, th->pending.obj, (int)th->pending.value);
			skip_syscall(th, done->result);
			rc = cts_tr_resume(tr, th, 0);
			break;
		default: /* parked inside a pthread call, now woken or giving up */
			if (th->fblocked) {
				th->fblocked = false;
				done->result = ETIMEDOUT;
				skip_syscall(th, -ETIMEDOUT);
			} else {
				th->fwoken = false;
				skip_syscall(th, 0);
			}
			th->in_call = true;
			rc = cts_tr_resume(tr, th, 0);
			break;
		}
		break;
	}
	if (rc != 0) {
		set_error(tr, "cannot resume thread %d: %s", tid, strerror(errno));
		return -1;
	}
	if (pump(tr) != 0)
		return -1;
	/* A join reached before its target's first stop was seen (both happen
	 * in the same step, in either order) is resolved now that every new
	 * thread has been collected. */
	for (int i = 0; i < tr->nthreads; i++) {
		struct thread *j = &tr->th[i];
		if (j->state == TH_HELD && j->pending.op == CTS_OP_JOIN && j->pending.target < 0) {
			struct thread *t = handle_of(tr, j->pending.obj);
			j->pending.target = t ? t->num : -1;
			publish(tr, j);
		}
	}
	if (done->op == CTS_OP_CREATE)
		done->target = tr->last_created;
	if (cts_op_is_write(done->op) && th->acc_capture)
		done->value = th->acc_written;
	if (th->state == TH_DEAD && done->op != CTS_OP_THREAD_EXIT &&
	    st->status == CTS_RUN_ACTIVE && th->tid != tr->pid) {
		/* Died without passing its exit syscall (killed?): still an exit. */
		done->op = CTS_OP_THREAD_EXIT;
	}
	tr->running = NULL;
	return 0;
}

static void tr_stop(void *be, struct cts_run_state *st)
{
	struct cts_tracer *tr = be;
	(void)st;
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	kill_and_reap(tr);
	kill_foreign(tr);
	tr->pid_reaped = false;
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

static const struct cts_backend_ops tracer_ops = {
	.name = "ptrace",
	.start = tr_start,
	.step = tr_step,
	.stop = tr_stop,
	.describe_pc = tr_describe_pc,
	.describe_data = tr_describe_data,
};

struct cts_backend cts_tracer_backend(struct cts_tracer *t)
{
	return (struct cts_backend){ .ops = &tracer_ops, .be = t };
}

struct cts_tracer *cts_tracer_new(const struct cts_tracer_config *cfg, struct cts_objmodel *model,
				  char *err, size_t errlen)
{
	struct cts_tracer *tr = cts_xcalloc(1, sizeof(*tr));
	struct sigaction sa;

	tr->cfg = *cfg;
	tr->model = model;
	tr->no_server = cfg->no_fork_server;
	tr->no_emulate = getenv("CTS_NO_EMULATE") != NULL; /* to test the single-step path */
	/* Tracer and tracee on one CPU: cross-CPU stop round trips are 8-15x slower. */
	int cpu = sched_getcpu();
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: waitpid must return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	if (build_seccomp(tr) != 0) {
		snprintf(err, errlen, "cannot build the seccomp filter (libseccomp)");
		free(tr);
		return NULL;
	}
	if (cts_access_init(tr, err, errlen) != 0) {
		free(tr->bpf);
		free(tr);
		return NULL;
	}
	return tr;
}

void cts_tracer_free(struct cts_tracer *tr)
{
	if (!tr)
		return;
	kill_and_reap(tr);
	stop_server(tr);
	cts_access_fini(tr);
	if (tr->sym)
		cts_sym_free(tr->sym);
	free(tr->bps);
	free(tr->bpf);
	free(tr);
}

void cts_tracer_get_stats(const struct cts_tracer *t, struct cts_tracer_stats *out)
{
	*out = t->stats;
}
