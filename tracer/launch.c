/* Starting a run by exec: the seccomp filter, the vfork child, running it to
 * its entry point (libc mapped, breakpoints planted) and on to main, and
 * killing and reaping a run's process. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "models/error.h"
#include "models/symbolize.h"
#include "tracer/access.h"
#include "tracer/lcret.h"
#include "tracer/catch.h"
#include "tracer/native.h"
#include "tracer/fault.h"
#include "tracer/isolate.h"
#include "tracer/pfilter.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"
#include "tracer/wait.h"

/* The fourth argument of the failed launch's own prctl(PR_SET_SECCOMP): the
 * rule that stops at the program's filters lets that one through, since
 * before PTRACE_O_TRACESECCOMP a stop would make it fail with ENOSYS. */
#define DIE_COOKIE 0x6374732d64696521ull

/* A program must not stop, signal, ptrace or write the memory of its tracer
 * (it would hang or end the exploration): the calls that can aim at a
 * process are refused with EPERM when they name the tracer, its process
 * group, or every process (kill(-1, ...)). pids compare on their low 32 bits:
 * a caller may pass a negative pid sign-extended or not. The tracer's pid is
 * known here, before any run, and a fork server's children inherit the filter. */
static int refuse_aimed_at_tracer(scmp_filter_ctx ctx)
{
	const uint32_t self = (uint32_t)getpid(), group = (uint32_t)-getpgrp();
	const uint32_t kill_targets[] = { self, (uint32_t)-(int32_t)self, group, (uint32_t)-1 };
	const struct { int nr; unsigned arg; } aimed[] = {
		{ SCMP_SYS(tkill), 0 }, { SCMP_SYS(tgkill), 0 }, { SCMP_SYS(rt_sigqueueinfo), 0 },
		{ SCMP_SYS(rt_tgsigqueueinfo), 0 }, { SCMP_SYS(ptrace), 1 },
		{ SCMP_SYS(process_vm_writev), 0 }, { SCMP_SYS(process_vm_readv), 0 },
		{ SCMP_SYS(pidfd_open), 0 },
	};
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);

	for (size_t i = 0; i < sizeof(kill_targets) / sizeof(kill_targets[0]); i++) {
		bool dup = false;
		for (size_t j = 0; j < i; j++)
			dup |= kill_targets[j] == kill_targets[i];
		if (!dup && seccomp_rule_add(ctx, eperm, SCMP_SYS(kill), 1,
					     SCMP_A0_32(SCMP_CMP_EQ, kill_targets[i])) != 0)
			return -1;
	}
	for (size_t i = 0; i < sizeof(aimed) / sizeof(aimed[0]); i++) {
		struct scmp_arg_cmp cmp = aimed[i].arg == 0 ? SCMP_A0_32(SCMP_CMP_EQ, self) :
							      SCMP_A1_32(SCMP_CMP_EQ, self);
		if (seccomp_rule_add(ctx, eperm, aimed[i].nr, 1, cmp) != 0)
			return -1;
	}
	return 0;
}

/* The filter is compiled once in the tracer and loaded in the child with a
 * bare prctl, because the child is a vfork child: it must not allocate. */
int cts_tr_build_seccomp(struct cts_tracer *tr)
{
	/* Not clone/clone3: the clone event (PTRACE_O_TRACECLONE) is where a
	 * new thread is seen; a stop at its entry only cost a round trip. */
	static const int traced[] = {
		SCMP_SYS(futex), SCMP_SYS(exit),
		SCMP_SYS(exit_group), SCMP_SYS(sched_yield), SCMP_SYS(nanosleep),
		SCMP_SYS(clock_nanosleep), SCMP_SYS(getrandom),
	};
	int rc = -1;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -1;
	for (size_t i = 0; i < sizeof(traced) / sizeof(traced[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), traced[i], 0) != 0)
			goto out;
	/* The program installing a filter of its own (pfilter.h); not the
	 * failed launch's, whose fourth argument says it is ours. */
	if (seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), SCMP_SYS(seccomp), 1,
			     SCMP_A0(SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), SCMP_SYS(prctl), 2,
			     SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP),
			     SCMP_A3(SCMP_CMP_NE, DIE_COOKIE)) != 0)
		goto out;
	if (refuse_aimed_at_tracer(ctx) != 0)
		goto out;
	/* Nor may it open /proc/<tracer>/mem: a non-dumpable process's files
	 * need CAP_SYS_PTRACE, which the program is run without (child_exec). */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Signals and calls that may sleep: syscall.c's own list. */
	if (cts_tr_sys_seccomp_rules(ctx) != 0 || cts_native_seccomp_rules(ctx) != 0)
		goto out;
	if (tr->fault_rules && cts_fault_seccomp_rules(ctx) != 0)
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

/* The vfork child's way out after a failed exec. Before the tracer sets
 * PTRACE_O_TRACESECCOMP, a call the filter traces (exit_group, and kill since
 * signals are operations) fails with ENOSYS instead of ending the child, and
 * the parent waits in vfork for ever. A second filter that kills the process
 * at its next call outranks every trace rule. */
static void die_untraced(void)
{
	static struct sock_filter die[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	static const struct sock_fprog die_prog = { 1, die };
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &die_prog, DIE_COOKIE, 0);
	kill(getpid(), SIGKILL); /* no filter loaded yet: not traced either */
	_exit(127);
}

/* Runs in the vfork child: system calls only, then exec. A failure is
 * reported in *child_errno (the parent's memory: it is suspended until the
 * child execs or dies). */
static void child_exec(struct cts_tracer *tr, pid_t parent, volatile int *child_errno)
{
	/* Until the tracer sets PTRACE_O_EXITKILL after the exec, nothing else
	 * ends the program with a tracer killed by SIGKILL: detached, it would
	 * run on untraced. A parent already gone: no program. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		die_untraced();
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
	if (tr->cfg.show_output && tr->cfg.stdout_fd > 0)
		dup2(tr->cfg.stdout_fd, 1);
	if (tr->cfg.show_output && tr->cfg.stderr_fd > 0)
		dup2(tr->cfg.stderr_fd, 2);
	/* Its own process group: a terminal's ^C or a supervisor's group-wide
	 * SIGTERM reaches cts-trace, which kills and reaps the program itself
	 * instead of reporting its death as a crash. */
	setpgid(0, 0);
	/* Run isolation: the namespace and the run's overlays. */
	if (tr->cfg.iso && cts_iso_child_enter(tr->cfg.iso) != 0)
		goto fail;
	/* Without CAP_SYS_PTRACE (a root program keeps the rest) it cannot
	 * open the non-dumpable tracer's /proc files. Not being root, it never
	 * had it: the drop fails harmlessly. */
	prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0);
	/* exec under TRACEME stops the child with SIGTRAP: the tracer then
	 * sets its options before the program runs a single instruction. */
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
		goto fail;
	/* The caller's signal mask and ignored signals, its personality
	 * with ADDR_NO_RANDOMIZE added (native.h). */
	if (cts_native_exec_prepare() != 0)
		goto fail;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &tr->bpf_prog) != 0)
		goto fail;
	execv(tr->cfg.exec_path ? tr->cfg.exec_path : tr->cfg.path, tr->cfg.argv);
fail:
	*child_errno = errno ? errno : ENOEXEC;
	die_untraced();
}

static int wait_for(pid_t pid, int *status)
{
	for (;;) {
		if (cts_tr_interrupted())
			return -1;
		pid_t r = waitpid(pid, status, __WALL);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* Continue the single-threaded start-up of pid until it stops at an int3,
 * clones, exits or is killed (ev says which); a signal on the way is
 * passed on, any other stop passed over. -1: lost it (or interrupted). */
static int cont_to_trap(struct cts_tracer *tr, pid_t pid, struct cts_wait_event *ev)
{
	int sig = 0, status;
	for (;;) {
		ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
		if (wait_for(pid, &status) != 0)
			return -1;
		cts_wait_decode(pid, status, ev);
		switch (ev->kind) {
		case CTS_WEV_BREAKPOINT:
		case CTS_WEV_CLONE:
		case CTS_WEV_EXITED:
		case CTS_WEV_KILLED:
			return 0;
		case CTS_WEV_SECCOMP: /* start-up code signals too: not us */
			if (cts_pf_startup_stop(tr, pid) < 0)
				return -1;
			cts_tr_sys_guard_free(tr, pid);
			sig = 0;
			break;
		default:
			sig = ev->kind == CTS_WEV_SIGNAL ? ev->sig : 0;
		}
	}
}

void cts_tr_kill_and_reap(struct cts_tracer *tr)
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
		cts_tr_forget_foreign(tr, r); /* its pid is free now */
	}
	tr->pid = 0;
}

/* First run (or an attach): find libc and ld.so, resolve the entry points,
 * create breakpoints. */
int cts_tr_setup_libc(struct cts_tracer *tr)
{
	struct cts_mapping *maps;
	size_t n;
	char libc_path[256] = "";
	uint64_t libc_base = 0;

	if (cts_maps_read(tr->pid, &maps, &n) != 0) {
		cts_tr_set_error(tr, "cannot read /proc/%d/maps", (int)tr->pid);
		return -1;
	}
	tr->nlibc_ranges = 0;
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(maps[i].path, '/');
		base = base ? base + 1 : maps[i].path;
		bool is_libc = strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0;
		bool is_ld = strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "ld-", 3) == 0;
		if (maps[i].off == 0 && !tr->exe_base && strcmp(maps[i].path, tr->image) == 0)
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
		cts_tr_set_error(tr, "libc is not mapped in %s (statically linked or unusual loader?)",
			  tr->cfg.path);
		tr->st->bad_input = true;
		return -1;
	}
	snprintf(tr->libc_path, sizeof(tr->libc_path), "%s", libc_path);
	if (tr->libc_base == libc_base && tr->nbps)
		return 0; /* same layout as the first run (ASLR is off) */
	if (tr->libc_base && tr->libc_base != libc_base) {
		/* ASLR is off, so the layout moves only if what the loader maps
		 * changed: /etc/ld.so.cache or a library rewritten by a package
		 * install during the exploration. Objects' addresses would differ
		 * from the earlier runs', so the runs cannot be compared. */
		cts_tr_set_error(tr, "the program's libraries moved between runs (libc 0x%" PRIx64
			  " -> 0x%" PRIx64 "): /etc/ld.so.cache or a library changed during the "
			  "exploration (a package install?); run again", tr->libc_base, libc_base);
		return -1;
	}
	tr->libc_base = libc_base;
	return cts_tr_sync_resolve(tr, libc_path, libc_base);
}

/* exec the program and run it to its ELF entry point (libc is mapped by
 * then): resolve libc's entry points, create and plant every breakpoint.
 * The process is left stopped there with *entry_regs its registers. */
int cts_tr_launch(struct cts_tracer *tr, struct user_regs_struct *entry_regs)
{
	int status;
	volatile int child_errno = 0;
	pid_t self = getpid();

	/* vfork: the tracer's address space (libdw's debug info) is large, and
	 * copying its page tables made fork the most expensive part of a run. */
	pid_t pid = vfork();
	if (pid < 0) {
		cts_tr_set_error(tr, "vfork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		child_exec(tr, self, &child_errno);
	tr->pid = pid;
	cts_view_forget(tr->view, pid); /* a new process: the native view */
	if (child_errno) {
		wait_for(pid, &status);
		tr->pid = 0;
		cts_tr_set_error(tr, "cannot run %s: %s", tr->cfg.path, strerror(child_errno));
		tr->st->bad_input = true;
		return -1;
	}
	if (wait_for(pid, &status) != 0 || !WIFSTOPPED(status)) {
		tr->pid = 0;
		cts_tr_set_error(tr, "%s did not stop after exec", tr->cfg.path);
		return -1;
	}
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
		    PTRACE_O_TRACEEXIT | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP |
		    PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)opts) != 0) {
		cts_tr_set_error(tr, "PTRACE_SETOPTIONS: %s", strerror(errno));
		return -1;
	}

	if (tr->script && cts_tr_follow_wrapper(tr, pid) != 0)
		return -1;
	/* Run to the program's entry point: by then libc is mapped. */
	uint64_t entry = cts_auxv_entry(pid);
	uint8_t orig, cc = 0xCC;
	if (!entry || cts_mem_read(pid, entry, &orig, 1) != 0 ||
	    cts_mem_write(pid, entry, &cc, 1) != 0) {
		cts_tr_set_error(tr, "cannot set a breakpoint at the entry point of %s", tr->cfg.path);
		return -1;
	}
	struct cts_wait_event ev;
	do {
		if (cont_to_trap(tr, pid, &ev) != 0) {
			cts_tr_set_error(tr, "lost the child before its entry point");
			return -1;
		}
	} while (ev.kind == CTS_WEV_CLONE);
	if (ev.kind != CTS_WEV_BREAKPOINT) {
		cts_tr_set_error(tr, "%s died before reaching its entry point", tr->cfg.path);
		tr->st->bad_input = true;
		tr->pid = 0;
		return -1;
	}
	cts_mem_write(pid, entry, &orig, 1);
	if (ptrace(PTRACE_GETREGS, pid, 0, entry_regs) != 0) {
		cts_tr_set_error(tr, "PTRACE_GETREGS: %s", strerror(errno));
		return -1;
	}
	entry_regs->rip = entry;
	ptrace(PTRACE_SETREGS, pid, 0, entry_regs);
	if (cts_tr_setup_libc(tr) != 0)
		return -1;
	if (tr->cfg.symbolize && !tr->sym)
		tr->sym = cts_sym_new(pid);
	/* access.c looks at thread 0 (its stack, its watchpoints). */
	struct thread *t0 = cts_tr_new_thread(tr, pid);
	t0->regs = *entry_regs;
	t0->regs_valid = true;
	if (cts_access_setup(tr) != 0 || cts_catch_setup(tr) != 0)
		return -1;
	cts_tr_free_threads(tr);
	if (cts_tr_stubs_setup(tr, entry_regs) != 0)
		return -1;
	cts_lcret_plant_sites(tr, pid);
	if (cts_tr_bp_plant_all(tr) != 0) {
		cts_tr_set_error(tr, "cannot plant breakpoints: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Run the single-threaded start-up (constructors, libc init) invisibly up to
 * main, so a run's schedule starts at main whether it was forked from the
 * server or exec'd. 0 at main (regs filled), 1 if main cannot be used (no
 * symbol, or a thread was created before main), -1 on error. */
int cts_tr_run_to_main(struct cts_tracer *tr, struct user_regs_struct *regs)
{
	pid_t pid = tr->pid;
	int status;

	if (!tr->main_addr)
		return 1;
	struct bp *mb = cts_tr_bp_find(tr, tr->main_addr);
	uint8_t orig = 0, cc = 0xCC;
	bool own = !mb || !cts_tr_bp_in_text(tr, mb, false);
	if (own && (cts_mem_read(pid, tr->main_addr, &orig, 1) != 0 ||
		    cts_mem_write(pid, tr->main_addr, &cc, 1) != 0))
		return 1;
	for (;;) {
		struct cts_wait_event ev;
		if (cont_to_trap(tr, pid, &ev) != 0) {
			cts_tr_set_error(tr, "lost the program before main");
			return -1;
		}
		if (ev.kind == CTS_WEV_CLONE)
			return 1; /* threads before main: schedule from the entry point */
		if (ev.kind != CTS_WEV_BREAKPOINT) {
			tr->pid = 0;
			cts_tr_set_error(tr, "%s ended before main", tr->cfg.path);
			tr->st->bad_input = true;
			return -1;
		}
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
		if (b->entry) { /* a stub's trap: on past it */
			regs->rip++;
			ptrace(PTRACE_SETREGS, pid, 0, regs);
			continue;
		}
		cts_tr_bp_unplant(tr, b);
		ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
		if (wait_for(pid, &status) != 0)
			return -1;
		cts_tr_bp_plant(tr, b);
	}
}
