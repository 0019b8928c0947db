/* A program that turns on the other processes of a --jobs search (issue 27
 * item 9): its tracer's parent (the coordinator), the coordinator's other
 * children (the sibling workers) and their process group, by kill, tgkill,
 * sigqueue and pidfd_send_signal (a pidfd and a /proc/PID directory). Every
 * attempt must be refused with EPERM; before the fix SIGSTOP hung the search
 * and SIGKILL ended it without a summary. A signal to its own child still
 * works. It acts only when its tracer's parent is a cts-trace too (--jobs):
 * natively or under a lone tracer it only checks its own child. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_field(pid_t pid, const char *key, char *text, size_t len)
{
	char path[64], line[256];
	int v = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ':') {
			const char *p = line + strlen(key) + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			v = atoi(p);
			if (text)
				snprintf(text, len, "%.*s", (int)strcspn(p, "\n"), p);
			break;
		}
	fclose(f);
	return v;
}

/* The call failed with EPERM: refused. */
static void refused(long r, const char *what)
{
	if (r != -1 || errno != EPERM) {
		fprintf(stderr, "hostile_jobs: %s: %ld (%s)\n", what, r, strerror(errno));
		assert(!"a signal reached cts-trace");
	}
}

static void attack(pid_t p, const char *who)
{
	char what[96];
	snprintf(what, sizeof(what), "SIGSTOP to %s", who);
	refused(kill(p, SIGSTOP), what);
	snprintf(what, sizeof(what), "SIGKILL to %s", who);
	refused(kill(p, SIGKILL), what);
	snprintf(what, sizeof(what), "tgkill SIGKILL to %s", who);
	refused(syscall(SYS_tgkill, p, p, SIGKILL), what);
	snprintf(what, sizeof(what), "sigqueue SIGKILL to %s", who);
	refused(sigqueue(p, SIGKILL, (union sigval){ 0 }), what);
	long fd = syscall(SYS_pidfd_open, p, 0);
	if (fd >= 0) {
		snprintf(what, sizeof(what), "pidfd_send_signal SIGKILL to %s", who);
		refused(syscall(SYS_pidfd_send_signal, (int)fd, SIGKILL, NULL, 0), what);
		close((int)fd);
	}
	char dir[32];
	snprintf(dir, sizeof(dir), "/proc/%d", (int)p);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY)) >= 0) {
		snprintf(what, sizeof(what), "SIGKILL through %s", dir);
		refused(syscall(SYS_pidfd_send_signal, (int)fd, SIGKILL, NULL, 0), what);
		close((int)fd);
	}
}

static void *worker(void *arg)
{
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);

	/* Its own child: signalled as natively. */
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	int st;
	assert(child > 0 && kill(child, SIGKILL) == 0);
	assert(waitpid(child, &st, 0) == child && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert(kill(0, 0) == 0); /* its own process group */

	char me[64], parent_name[64];
	pid_t tracer = status_field(getpid(), "TracerPid", NULL, 0);
	pid_t coord = tracer > 0 ? status_field(tracer, "PPid", NULL, 0) : -1;
	if (tracer <= 0 || coord <= 1 || status_field(tracer, "Name", me, sizeof(me)) < -1 ||
	    status_field(coord, "Name", parent_name, sizeof(parent_name)) < -1 ||
	    strcmp(me, parent_name) != 0)
		return 0; /* not a --jobs worker's program */
	attack(coord, "the coordinator");
	refused(kill(-getpgid(coord), SIGKILL), "SIGKILL to the coordinator's process group");
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)coord, (int)coord);
	FILE *f = fopen(path, "r");
	int s;
	while (f && fscanf(f, "%d", &s) == 1)
		if (s != tracer)
			attack(s, "a sibling worker");
	if (f)
		fclose(f);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
