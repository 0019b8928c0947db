/* gdb on a released program: gdb -p PID, the thread table and selection as
 * -ex commands, gcore for --core, the user's batch commands. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "models/error.h"
#include "tracer/gdb.h"
#include "tracer/proc.h"

int cts_gdb_find(char *path, size_t len)
{
	const char *env = getenv("CTS_GDB"), *p = getenv("PATH");
	if (env && *env) {
		snprintf(path, len, "%s", env);
		return access(path, X_OK) == 0 ? 0 : -1;
	}
	if (!p || !*p)
		p = "/usr/bin:/bin";
	while (*p) {
		size_t n = strcspn(p, ":");
		struct stat sb;
		snprintf(path, len, "%.*s%sgdb", (int)n, n ? p : ".", "/");
		if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	return -1;
}

int cts_gdb_yama(char *why, size_t len)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	if (!f)
		return 0;
	int scope = fgets(buf, sizeof(buf), f) ? atoi(buf) : 0;
	fclose(f);
	if (scope >= 3) {
		snprintf(why, len, "kernel.yama.ptrace_scope is %d: no process may attach to another, "
			 "gdb cannot take the program", scope);
		return 2;
	}
	if (scope >= 1 && geteuid() != 0) {
		snprintf(why, len, "kernel.yama.ptrace_scope is %d: gdb, which is not the program's "
			 "ancestor, may be refused the attach without CAP_SYS_PTRACE (run as root, or "
			 "sysctl kernel.yama.ptrace_scope=0)", scope);
		return 1;
	}
	return 0;
}

void cts_gdb_numbers(const struct cts_gdb_session *s, int *gdbnum)
{
	pid_t *task = NULL;
	size_t ntask = 0;
	cts_proc_tasks(s->pid, &task, &ntask);
	for (int n = 0; n < s->nthreads; n++) {
		gdbnum[n] = 0;
		if (!s->tids[n])
			continue;
		if (s->tids[n] == s->pid) {
			gdbnum[n] = 1;
			continue;
		}
		int k = 2;
		for (size_t i = 0; i < ntask; i++) {
			if (task[i] == s->pid)
				continue;
			if (task[i] == s->tids[n]) {
				gdbnum[n] = k;
				break;
			}
			k++;
		}
	}
	free(task);
}

struct args {
	char **v;
	size_t n, cap;
};

static void add(struct args *a, char *s)
{
	if (a->n + 2 > a->cap) {
		size_t cap = cts_grow_cap(a->cap, a->n + 2);
		a->v = cts_xgrow(a->v, a->cap, cap, sizeof(*a->v));
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

__attribute__((format(printf, 2, 3)))
static void add_ex(struct args *a, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = cts_xmalloc(n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, ap2);
	va_end(ap2);
	add(a, cts_xstrdup("-ex"));
	add(a, s);
}

/* gdb's echo takes C escapes: a backslash must be doubled. */
static char *echo_text(const char *s)
{
	char *out = cts_xmalloc(strlen(s) * 2 + 1), *o = out;
	for (; *s; s++) {
		if (*s == '\\')
			*o++ = '\\';
		*o++ = *s;
	}
	*o = 0;
	return out;
}

/* --gdb-batch: one -ex per command; ';' and newlines separate them, except
 * inside double quotes (printf "a;b"). */
static void add_batch(struct args *a, const char *cmds)
{
	const char *p = cmds;
	while (*p) {
		const char *start = p;
		bool quoted = false;
		for (; *p && (quoted || (*p != ';' && *p != '\n')); p++) {
			if (*p == '\\' && quoted && p[1])
				p++;
			else if (*p == '"')
				quoted = !quoted;
		}
		const char *end = p;
		while (start < end && (*start == ' ' || *start == '\t'))
			start++;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (end > start)
			add_ex(a, "%.*s", (int)(end - start), start);
		if (*p)
			p++;
	}
}

static void build(const struct cts_gdb_session *s, struct args *a)
{
	int *num = cts_xcalloc((size_t)s->nthreads + 1, sizeof(*num));
	cts_gdb_numbers(s, num);
	add(a, cts_xstrdup(s->gdb));
	add(a, cts_xstrdup("-q"));
	if (!s->interactive)  /* --gdb-batch, or --core alone: gcore and out */
		add(a, cts_xstrdup("-batch"));
	add(a, cts_xstrdup("-p"));
	char pid[24];
	snprintf(pid, sizeof(pid), "%d", (int)s->pid);
	add(a, cts_xstrdup(pid));
	if (s->note) {
		char *t = echo_text(s->note);
		add_ex(a, "echo %s\\n", t);
		free(t);
	}
	for (int n = 0; n < s->nthreads; n++) {
		if (!s->tids[n])
			continue;
		if (num[n])
			add_ex(a, "echo cts thread %d = gdb thread %d (LWP %d)%s\\n", n, num[n],
			       (int)s->tids[n], n == s->focus ? ", selected" : "");
		else
			add_ex(a, "echo cts thread %d = LWP %d (not in /proc/%d/task)\\n", n,
			       (int)s->tids[n], (int)s->pid);
	}
	if (s->focus >= 0 && s->focus < s->nthreads && num[s->focus])
		add_ex(a, "thread %d", num[s->focus]);
	if (s->core) {
		/* The signal as the thread's stop signal: the core names it, and
		 * the crashing thread is its first (what gdb -c shows). */
		if (s->core_sig)
			add_ex(a, "queue-signal %d", s->core_sig);
		add_ex(a, "gcore %s", s->core);
		if (s->core_sig)
			add_ex(a, "queue-signal 0");
	}
	if (s->batch)
		add_batch(a, s->batch);
	free(num);
}

int cts_gdb_run(const struct cts_gdb_session *s, int *status)
{
	struct args a = { 0 };
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int rc = 0;

	build(s, &a);
	if (cts_verbosity >= 3)
		for (size_t i = 0; i < a.n; i++)
			cts_debug_msg("gdb argv[%zu] %s", i, a.v[i]);
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid_t parent = getpid();
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigemptyset(&dfl.sa_mask);
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGQUIT, &dfl, NULL);
		/* cts-trace gone, gdb goes too (the program dies of its own
		 * PDEATHSIG): nothing is left traced. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		if (!s->interactive) {
			int fd = open("/dev/null", O_RDONLY);
			if (fd > 0) {
				dup2(fd, 0);
				close(fd);
			}
		}
		execv(a.v[0], a.v);
		fprintf(stderr, "cts-trace: cannot run %s: %s\n", a.v[0], strerror(errno));
		_exit(127);
	}
	if (child < 0) {
		rc = -1;
		goto out;
	}
	bool asked = false;
	for (;;) {
		int st;
		pid_t r = waitpid(child, &st, 0);
		if (r == child) {
			*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
				rc = -1, errno = ENOEXEC;
			break;
		}
		if (r < 0 && errno != EINTR) {
			rc = -1;
			break;
		}
		if (s->stop && *s->stop && !asked) {
			kill(child, SIGTERM); /* SIGTERM or SIGHUP to cts-trace ends the session */
			asked = true;
		}
	}
out:;
	int saved = errno;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	for (size_t i = 0; i < a.n; i++)
		free(a.v[i]);
	free(a.v);
	errno = saved;
	return rc;
}
