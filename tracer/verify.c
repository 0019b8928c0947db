/* Saved schedules replayed by a fresh cts-trace (verify.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "models/error.h"
#include "strategies/explorer.h"
#include "tracer/verify.h"

extern char **environ;

/* Everything the child writes to fd, up to EOF (a report is small). */
static char *read_all(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = cts_xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			buf = cts_xgrow(buf, cap, cap * 2, 1), cap *= 2;
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	return buf;
}

/* What the replay's JSON report says: 1 the same bug, 0 something else. */
static int judge(const char *json, const struct cts_bug *bug, char *why, size_t len)
{
	json_error_t jerr;
	json_t *root = json_loads(json, 0, &jerr);
	json_t *bugs = root ? json_object_get(root, "bugs") : NULL;
	json_t *first = bugs ? json_array_get(bugs, 0) : NULL;
	int rc = 0;

	if (!root) {
		snprintf(why, len, "no report from the replay");
	} else if (!first) {
		snprintf(why, len, "the replay finished without a bug");
	} else {
		const char *kind = json_string_value(json_object_get(first, "kind"));
		const char *msg = json_string_value(json_object_get(first, "message"));
		if (kind && msg && strcmp(kind, cts_bug_kind_name(bug->kind)) == 0 &&
		    strcmp(msg, bug->message) == 0)
			rc = 1;
		else
			snprintf(why, len, "%s", msg ? msg : "a different bug");
	}
	json_decref(root);
	return rc;
}

int cts_verify_replay(const struct cts_explorer_config *cfg, const char *path,
		      const struct cts_bug *bug, char *why, size_t len)
{
	const char *argv[8];
	int argc = 0, fds[2];
	posix_spawn_file_actions_t fa;
	pid_t pid;

	argv[argc++] = cfg->self ? cfg->self : "cts-trace";
	if (bug->kind == CTS_BUG_CHECK && cfg->check) {
		argv[argc++] = "--check";
		argv[argc++] = cfg->check;
	}
	argv[argc++] = "--report";
	argv[argc++] = "/dev/fd/3";
	argv[argc++] = "--replay";
	argv[argc++] = path;
	argv[argc] = NULL;
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	/* Its output and messages are the program's and the replay's: not ours. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 3);
	/* The very binary running now, whatever its name on the PATH. */
	int err = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (err) {
		close(fds[0]);
		snprintf(why, len, "cannot run %s: %s", argv[0], strerror(err));
		return -1;
	}
	char *json = read_all(fds[0]);
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int rc;
	if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 130)) {
		snprintf(why, len, "the replay was interrupted");
		rc = -1;
	} else {
		rc = judge(json, bug, why, len);
	}
	free(json);
	return rc;
}
