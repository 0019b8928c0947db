/* Attach mode: the diagnosis of what each thread is blocked on (a deadlock
 * already in progress is a bug), from libc's blocking entry points on its
 * stack and the live memory; stacks for the reports. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <jansson.h>
#include "models/error.h"
#include "models/report.h"
#include "models/symbolize.h"
#include "tracer/elf.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/attach_int.h"

/* ---- diagnosis ---------------------------------------------------------------- */

enum wait_kind { W_NONE, W_MUTEX, W_RWLOCK, W_COND, W_JOIN, W_SEM, W_FUTEX, W_SYSCALL, W_STOPPED };

struct waitinfo {
	enum wait_kind kind;
	uint64_t obj;           /* the object (futex word for a raw futex) */
	int holder;             /* thread number it waits for, -1 none */
	pid_t holder_tid;       /* a tid that holds it but is no thread here */
	uint64_t at;            /* the first frame outside libc */
	long nr;
	uint32_t value;
};

static struct thread *by_tid_alive(struct att *a, pid_t tid)
{
	struct thread *t = tid > 0 ? cts_tr_by_tid(a->tr, tid) : NULL;
	return t && t->state != TH_DEAD ? t : NULL;
}

/* libc's blocking entry points by kind (libc as cts_tr_setup_libc found
 * it), and the program's code mappings: what a stack scan looks for. */
void cts_att_scan_setup(struct att *a)
{
	static const struct { const char *name; int kind; } names[] = {
		{ "pthread_mutex_lock", W_MUTEX }, { "pthread_mutex_timedlock", W_MUTEX },
		{ "pthread_mutex_clocklock", W_MUTEX }, { "__pthread_mutex_cond_lock", W_MUTEX },
		{ "pthread_rwlock_rdlock", W_RWLOCK }, { "pthread_rwlock_wrlock", W_RWLOCK },
		{ "pthread_rwlock_timedrdlock", W_RWLOCK }, { "pthread_rwlock_timedwrlock", W_RWLOCK },
		{ "pthread_rwlock_clockrdlock", W_RWLOCK }, { "pthread_rwlock_clockwrlock", W_RWLOCK },
		{ "pthread_cond_wait", W_COND }, { "pthread_cond_timedwait", W_COND },
		{ "pthread_cond_clockwait", W_COND }, { "pthread_join", W_JOIN },
		{ "pthread_timedjoin_np", W_JOIN }, { "pthread_clockjoin_np", W_JOIN },
		{ "__pthread_clockjoin_ex", W_JOIN }, { "sem_wait", W_SEM },
		{ "sem_timedwait", W_SEM }, { "sem_clockwait", W_SEM },
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	const char *nm[N];
	uint64_t val[N], size[N];
	struct cts_mapping *maps;
	size_t n;
	uint64_t base = a->tr->libc_base;

	if (cts_maps_read(a->tr->pid, &maps, &n) != 0)
		return;
	a->maps = cts_xcalloc(n + 1, sizeof(*a->maps));
	for (size_t i = 0; i < n; i++)
		if (maps[i].perms[2] == 'x' && maps[i].path[0] == '/' && !cts_tr_in_libc(a->tr, maps[i].lo))
			a->maps[a->nmaps++] = maps[i];
	free(maps);
	for (int i = 0; i < N; i++)
		nm[i] = names[i].name;
	if (!base || cts_elf_lookup(a->tr->libc_path, nm, N, val, size) <= 0)
		return;
	a->fns = cts_xcalloc(N, sizeof(*a->fns));
	for (int i = 0; i < N; i++)
		if (val[i] && size[i])
			a->fns[a->nfns++] = (struct fnrange){ base + val[i], base + val[i] + size[i],
							      names[i].kind };
}

bool cts_att_in_own_code(const struct att *a, uint64_t pc)
{
	for (size_t i = 0; i < a->nmaps; i++)
		if (pc >= a->maps[i].lo && pc < a->maps[i].hi)
			return true;
	return false;
}

/* The kind of blocking call th is in, from the return addresses on its
 * stack (the first of libc's blocking entry points found above rsp), and
 * *at the first return address into the program's own code after it (the
 * call site). W_NONE when none is found. */
static int stack_scan(struct att *a, struct thread *th, uint64_t *at)
{
	uint64_t words[512];
	uint64_t sp = th->regs.rsp;
	size_t got = 0;
	int kind = W_NONE;
	/* page by page: the stack's end stops the read */
	while (got < 512) {
		size_t want = (4096 - ((sp + got * 8) & 4095)) / 8;
		if (want > 512 - got)
			want = 512 - got;
		if (!want || cts_mem_read(th->tid, sp + got * 8, words + got, want * 8) != 0)
			break;
		got += want;
	}
	*at = 0;
	size_t from = 0;
	for (size_t i = 0; i < got && kind == W_NONE; i++)
		for (int k = 0; k < a->nfns; k++)
			if (words[i] > a->fns[k].lo && words[i] <= a->fns[k].hi) {
				kind = a->fns[k].kind;
				from = i + 1;
			}
	for (size_t i = from; i < got && !*at; i++)
		if (cts_att_in_own_code(a, words[i]))
			*at = words[i] - 1;
	if (!*at && !cts_tr_in_libc(a->tr, th->regs.rip))
		*at = th->regs.rip;
	return kind;
}

/* What th (stopped, registers read) is blocked on. */
static void what_blocks(struct att *a, struct thread *th, struct waitinfo *w)
{
	memset(w, 0, sizeof(*w));
	w->holder = -1;
	w->nr = -1;
	if (X(a, th)->jstop) {
		w->kind = W_STOPPED;
		return;
	}
	if (cts_tr_getregs(th) != 0 || (long)th->regs.orig_rax < 0)
		return;
	w->nr = (long)th->regs.orig_rax;
	int fn = stack_scan(a, th, &w->at);
	if (w->nr != SYS_futex) {
		w->kind = W_SYSCALL;
		return;
	}
	int op = (int)th->regs.rsi & FUTEX_CMD_MASK;
	if (op != FUTEX_WAIT && op != FUTEX_WAIT_BITSET && op != FUTEX_LOCK_PI &&
	    op != FUTEX_LOCK_PI2 && op != FUTEX_WAIT_REQUEUE_PI) {
		w->kind = W_NONE; /* a wake: on its way */
		return;
	}
	uint64_t f = th->regs.rdi;
	w->obj = f;
	cts_mem_read(th->tid, f, &w->value, 4);
	/* pthread_join waits on the joined thread's tid word (cleared and
	 * woken when it dies): a wait there is a join, whatever the stack says */
	for (int i = 0; i < a->tr->nlive && fn != W_MUTEX; i++) {
		struct thread *t = a->tr->live[i];
		if (t != th && t->state != TH_DEAD && t->handle && t->handle + GLIBC_TID_OFFSET == f &&
		    w->value == (uint32_t)t->tid)
			fn = W_JOIN;
	}
	if (fn == W_MUTEX) {
		uint32_t owner = 0;
		w->kind = W_MUTEX;
		if (cts_mem_read(th->tid, f + 8, &owner, 4) == 0 && owner) {
			struct thread *h = by_tid_alive(a, (pid_t)(owner & 0x3fffffff));
			if (h)
				w->holder = h->num;
			else
				w->holder_tid = (pid_t)(owner & 0x3fffffff);
		}
		return;
	}
	if (fn == W_RWLOCK) {
		/* the futex is __readers (0), __wrphase_futex (8) or __writers_futex (12);
		 * __cur_writer (24) names a writer that holds it */
		w->kind = W_RWLOCK;
		static const uint64_t offs[] = { 0, 8, 12 };
		for (size_t k = 0; k < 3; k++) {
			uint32_t wr = 0;
			if (cts_mem_read(th->tid, f - offs[k] + 24, &wr, 4) != 0 || !wr)
				continue;
			struct thread *h = by_tid_alive(a, (pid_t)wr);
			if (h && h != th) {
				w->obj = f - offs[k];
				w->holder = h->num;
				break;
			}
		}
		return;
	}
	if (fn == W_JOIN) {
		w->kind = W_JOIN;
		for (int i = 0; i < a->tr->nlive; i++) {
			struct thread *t = a->tr->live[i];
			if (t->state != TH_DEAD && t->handle && t->handle + GLIBC_TID_OFFSET == f) {
				w->holder = t->num;
				w->obj = t->handle;
			}
		}
		return;
	}
	if (fn == W_COND) {
		w->kind = W_COND;
		return;
	}
	if (fn == W_SEM) {
		w->kind = W_SEM;
		return;
	}
	w->kind = W_FUTEX;
}

/* libdw is slow to load libc's debug info (a third of a second): only for
 * what is printed, never for the diagnosis itself. */
struct cts_sym *cts_att_sym(struct att *a)
{
	if (!a->sym) {
		a->sym = cts_sym_new(a->tr->pid); /* a live thread: the leader may be a zombie */
		a->tr->sym = a->sym; /* lent: access.c's and the report's names */
	}
	return a->sym;
}

void cts_att_describe_pc(struct att *a, uint64_t pc, char *buf, size_t len)
{
	if (cts_att_sym(a) && pc)
		cts_sym_format(a->sym, pc, buf, len);
	else
		snprintf(buf, len, "0x%" PRIx64, pc);
}

/* th's stack (stopped), into the bug's detail or, f given, onto f. */
void cts_att_stack_to(struct att *a, struct thread *th, const char *indent, FILE *f)
{
	uint64_t pcs[16];
	int n = cts_att_sym(a) ? cts_sym_stack(a->sym, th->tid, pcs, 16) : 0;
	for (int i = 0; i < n; i++) {
		char where[256];
		cts_sym_format_frame(a->sym, pcs[i], i > 0, where, sizeof(where));
		if (f)
			fprintf(f, "%s#%d %s\n", indent, i, where);
		else
			cts_att_detail(a, "%s#%d %s\n", indent, i, where);
	}
}

void cts_att_stack_lines(struct att *a, struct thread *th, const char *indent)
{
	cts_att_stack_to(a, th, indent, NULL);
}

/* "mutex 0x.. held by thread 2", the launched runs' phrases. */
static void what_phrase(const struct waitinfo *w, char *buf, size_t len)
{
	char who[64];
	if (w->holder >= 0)
		snprintf(who, sizeof(who), "thread %d", w->holder);
	else if (w->holder_tid)
		snprintf(who, sizeof(who), "tid %d, no thread of the process any more",
			 (int)w->holder_tid);
	else
		snprintf(who, sizeof(who), "nobody (being handed over)");
	switch (w->kind) {
	case W_MUTEX:
		snprintf(buf, len, "mutex 0x%" PRIx64 " held by %s", w->obj, who);
		break;
	case W_RWLOCK:
		if (w->holder >= 0)
			snprintf(buf, len, "rwlock 0x%" PRIx64 " write-held by %s", w->obj, who);
		else
			snprintf(buf, len, "rwlock (futex word 0x%" PRIx64 ")", w->obj);
		break;
	case W_JOIN:
		if (w->holder >= 0)
			snprintf(buf, len, "thread %d to exit", w->holder);
		else
			snprintf(buf, len, "a thread to exit (futex word 0x%" PRIx64 ")", w->obj);
		break;
	case W_COND:
		snprintf(buf, len, "a signal on a condition variable (futex word 0x%" PRIx64 ")",
			 w->obj);
		break;
	case W_SEM:
		snprintf(buf, len, "semaphore 0x%" PRIx64 " (value %u)", w->obj, w->value);
		break;
	case W_FUTEX:
		snprintf(buf, len, "futex 0x%" PRIx64 " (value %u)", w->obj, w->value);
		break;
	case W_SYSCALL:
		if (strcmp(cts_syscall_name(w->nr), "syscall") == 0)
			snprintf(buf, len, "system call %ld to return", w->nr);
		else
			snprintf(buf, len, "system call %s to return", cts_syscall_name(w->nr));
		break;
	case W_STOPPED:
		snprintf(buf, len, "SIGCONT (stopped by job control)");
		break;
	case W_NONE:
		buf[0] = 0;
		break;
	}
}

static const char *kind_op(enum wait_kind k)
{
	switch (k) {
	case W_MUTEX: return cts_op_name(CTS_OP_LOCK);
	case W_RWLOCK: return "rwlock";
	case W_JOIN: return cts_op_name(CTS_OP_JOIN);
	case W_COND: return cts_op_name(CTS_OP_COND_WAIT);
	case W_SEM: return cts_op_name(CTS_OP_SEM_WAIT);
	case W_FUTEX: return cts_op_name(CTS_OP_FUTEX_WAIT);
	default: return "a system call";
	}
}

/* The diagnosis at attach for --report: one object per thread. */
static void diag_json(struct att *a, const struct waitinfo *w)
{
	char what[256], where[256];
	for (int i = 0; i < a->tr->nlive; i++) {
		struct thread *th = a->tr->live[i];
		const struct waitinfo *wi = &w[th->num];
		if (th->state == TH_DEAD)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "thread", json_integer(th->num));
		json_object_set_new(o, "tid", json_integer(th->tid));
		json_object_set_new(o, "blocked", json_boolean(wi->kind != W_NONE));
		if (wi->kind != W_NONE) {
			what_phrase(wi, what, sizeof(what));
			cts_att_describe_pc(a, wi->at ? wi->at : th->regs.rip, where, sizeof(where));
			json_object_set_new(o, "in", cts_report_jstr(kind_op(wi->kind)));
			json_object_set_new(o, "location", cts_report_jstr(where));
			json_object_set_new(o, "waits_for", cts_report_jstr(what));
			json_object_set_new(o, "holder", wi->holder >= 0 ? json_integer(wi->holder) :
							 json_null());
		}
		json_array_append_new(a->diag, o);
	}
}

/* Every thread stopped: what each waits for, and a wait-for cycle among
 * lock waiters and joiners (a deadlock in progress: the bug). print: the
 * per-thread lines at -v or when there is a cycle. */
bool cts_att_diagnose(struct att *a, bool print)
{
	struct cts_tracer *tr = a->tr;
	int n = tr->nthreads;
	struct waitinfo *w = cts_xcalloc((size_t)n + 1, sizeof(*w));
	int *edge = cts_xcalloc((size_t)n + 1, sizeof(*edge));
	bool *seen = cts_xcalloc((size_t)n + 1, sizeof(*seen));
	bool cycle = false;

	for (int i = 0; i < n; i++)
		edge[i] = -1;
	for (int i = 0; i < tr->nlive; i++) {
		struct thread *th = tr->live[i];
		if (th->state == TH_DEAD)
			continue;
		what_blocks(a, th, &w[th->num]);
		bool edged = w[th->num].kind == W_MUTEX || w[th->num].kind == W_RWLOCK ||
			     w[th->num].kind == W_JOIN;
		if (edged)
			edge[th->num] = w[th->num].holder;
	}
	if (a->diag && !a->controlling && !json_array_size(a->diag))
		diag_json(a, w);
	int start = -1;
	for (int s = 0; s < n && start < 0; s++) {
		if (edge[s] < 0)
			continue;
		memset(seen, 0, (size_t)n * sizeof(*seen));
		int t = s;
		while (t >= 0 && !seen[t]) {
			seen[t] = true;
			t = edge[t];
		}
		if (t == s)
			start = s;
	}
	cycle = start >= 0;
	if (cycle || print) {
		char what[256], where[256];
		size_t moff = 0;
		int listed = 0;
		char *m = a->bug_head;
		if (cycle) {
			a->bug = true;
			a->bug_kind = "deadlock";
			moff = (size_t)snprintf(m, sizeof(a->bug_head), "%s", a->controlling ?
						"deadlock:" : "deadlock (already in progress when cts "
						"attached):");
		}
		for (int i = 0; i < tr->nlive; i++) {
			struct thread *th = tr->live[i];
			struct waitinfo *wi = &w[th->num];
			if (th->state == TH_DEAD || wi->kind == W_NONE)
				continue;
			what_phrase(wi, what, sizeof(what));
			cts_att_describe_pc(a, wi->at ? wi->at : th->regs.rip, where, sizeof(where));
			if (cycle)
				cts_att_detail(a, "  thread %d blocked in %s at %s: waits for %s\n", th->num,
				       kind_op(wi->kind), where, what);
			else
				cts_error_msg("  thread %d (tid %d) blocked in %s at %s: waits for %s",
					      th->num, (int)th->tid, kind_op(wi->kind), where, what);
			if (cycle && moff < sizeof(a->bug_head))
				moff += (size_t)snprintf(m + moff, sizeof(a->bug_head) - moff,
							 "%s thread %d waits for %s",
							 listed++ ? ";" : "", th->num, what);
		}
		if (cycle) {
			cts_att_detail(a, "  cycle: thread %d", start);
			for (int t = edge[start]; t != start; t = edge[t])
				cts_att_detail(a, " -> thread %d", t);
			cts_att_detail(a, " -> thread %d\n", start);
			int t = start;
			do {
				struct thread *h = cts_tr_by_num(tr, edge[t]);
				if (h) {
					cts_att_detail(a, "  thread %d's stack (it holds what thread %d waits for):\n",
					       h->num, t);
					cts_att_stack_lines(a, h, "    ");
				}
				t = edge[t];
			} while (t != start);
		}
	}
	free(w);
	free(edge);
	free(seen);
	return cycle;
}
