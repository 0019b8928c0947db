/* A program that turns on its tracer (issue 17): it reads TracerPid and tries
 * to stop, signal, ptrace, open and write the memory of that process. Under
 * cts-trace every attempt must be refused; before the fix SIGSTOP or
 * PTRACE_ATTACH left tracer and program waiting for each other forever.
 * Signals are 0 where a refusal that failed would hit more than the tracer.
 * Run natively (no tracer) it does nothing and exits 0. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static pid_t tracer_pid(void)
{
	char line[256];
	int pid = 0;
	FILE *f = fopen("/proc/self/status", "r");
	assert(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

#define REFUSED(call) do { errno = 0; long r_ = (long)(call); assert(r_ == -1 && errno == EPERM); } while (0)

static void *attack(void *arg)
{
	pid_t tp = *(pid_t *)arg;
	char byte = 0;
	struct iovec local = { &byte, 1 }, remote = { (void *)0x400000, 1 };

	REFUSED(kill(tp, SIGSTOP));
	REFUSED(kill(tp, SIGTERM));
	REFUSED(kill(-1, 0));
	REFUSED(kill(-getpgid(tp), 0));
	REFUSED(syscall(SYS_tgkill, tp, tp, SIGSTOP));
	REFUSED(syscall(SYS_tkill, tp, SIGSTOP));
	REFUSED(ptrace(PTRACE_ATTACH, tp, 0, 0));
	REFUSED(ptrace(PTRACE_SEIZE, tp, 0, 0));
	REFUSED(process_vm_writev(tp, &local, 1, &remote, 1, 0));
	REFUSED(syscall(SYS_pidfd_open, tp, 0));
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tp);
	assert(open(path, O_RDWR) == -1);
	/* Its own process stays reachable. */
	assert(kill(getpid(), 0) == 0);
	return NULL;
}

int main(void)
{
	pid_t tp = tracer_pid();
	if (tp == 0)
		return 0;
	pthread_t t;
	pthread_create(&t, NULL, attack, &tp);
	pthread_join(t, NULL);
	return 0;
}
