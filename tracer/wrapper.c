/* Wrapper scripts: `cts-trace -- ./prog.sh args` where prog.sh is a `#!`
 * script that ends in `exec ./prog "$@"`.
 *
 * The kernel runs the script's interpreter (a dynamic ELF itself) in the
 * traced process. It is not the program under test: it runs free, none of its
 * stops is an operation, until the process execs an image that is not a
 * shell or `env` (the script's own interpreter, /bin/sh, /bin/dash,
 * /bin/bash, /usr/bin/env: a chain of wrappers is followed). That image is the
 * program, traced from its first instruction as if cts-trace had exec'd it
 * (its libc entry points, its main); tr->image names it.
 *
 * Processes the script forks are not followed: they run free to their end
 * (their seccomp stops continued, their signals delivered). A script that
 * runs the program as a child instead of exec'ing it, or runs no program at
 * all, ends without an exec: that is an error (exit status 2, "nothing to
 * test"), never a verdict. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include "models/error.h"
#include "tracer/native.h"
#include "tracer/elf.h"
#include "tracer/run_int.h"
#include "tracer/wait.h"

/* Is path (an exe link's target) a shell or env, which only pass on? */
static bool passes_on(const struct cts_tracer *tr, const char *path)
{
	static const char *const shells[] = { "/bin/sh", "/bin/dash", "/bin/bash",
					       "/usr/bin/env" };
	char real[PATH_MAX];
	if (realpath(tr->interp, real) && strcmp(real, path) == 0)
		return true;
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (realpath(shells[i], real) && strcmp(real, path) == 0)
			return true;
	return false;
}

/* The process pid just exec'd: 1 if the new image is the program (tr->image
 * set), 0 to keep following, -1 if it cannot be traced. */
static int new_image(struct cts_tracer *tr, pid_t pid)
{
	char link[64], exe[PATH_MAX], err[512];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = 0;
	if (passes_on(tr, exe))
		return 0;
	struct cts_elf_info info;
	if (cts_elf_check(exe, &info, err, sizeof(err)) != CTS_ELF_OK) {
		cts_tr_set_error(tr, "%s exec'd %s, which cts-trace cannot trace: %s", tr->cfg.path,
				 exe, err);
		tr->st->bad_input = true;
		return -1;
	}
	if (strlen(exe) >= sizeof(tr->image)) {
		cts_tr_set_error(tr, "%s: path too long", exe);
		return -1;
	}
	snprintf(tr->image, sizeof(tr->image), "%s", exe);
	return 1;
}

int cts_tr_follow_wrapper(struct cts_tracer *tr, pid_t pid)
{
	int status, sig = 0;
	pid_t stopped = pid;

	for (;;) {
		ptrace(PTRACE_CONT, stopped, 0, (void *)(long)sig);
		if (cts_tr_interrupted())
			return -1;
		pid_t r = waitpid(-1, &status, __WALL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			cts_tr_set_error(tr, "lost %s while it ran its interpreter", tr->cfg.path);
			return -1;
		}
		struct cts_wait_event ev;
		cts_wait_decode(r, status, &ev);
		stopped = r;
		sig = 0;
		switch (ev.kind) {
		case CTS_WEV_EXEC:
			if (r != pid)
				break; /* a child of the script runs its own program: free */
			switch (new_image(tr, pid)) {
			case 1:
				return 0;
			case -1:
				return -1;
			default:
				break;
			}
			break;
		case CTS_WEV_EXITED:
		case CTS_WEV_KILLED:
			if (r != pid)
				continue; /* nothing to resume */
			tr->pid = 0;
			tr->pid_reaped = true;
			cts_tr_set_error(tr, "%s ended (%s %d) without exec'ing a program in its own "
					 "process: nothing to test (cts-trace follows a script's exec, "
					 "not the programs it runs as children)", tr->cfg.path,
					 ev.kind == CTS_WEV_EXITED ? "exit status" : "signal",
					 ev.kind == CTS_WEV_EXITED ? ev.code : ev.sig);
			tr->st->bad_input = true;
			return -1;
		case CTS_WEV_SIGNAL:
			/* A new child's first stop is a SIGSTOP we did not send. */
			sig = ev.sig == SIGSTOP && r != pid ? 0 : ev.sig;
			break;
		case CTS_WEV_GONE:
			continue;
		case CTS_WEV_SECCOMP:
			cts_view_free_call(tr->view, r);
			break;
		case CTS_WEV_CLONE:
		case CTS_WEV_FORK:
			cts_view_inherit(tr->view, r, (pid_t)ev.msg);
			break;
		default:
			break; /* exit events: just go on */
		}
	}
}
