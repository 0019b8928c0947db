/* seccomp_errno.c — the program sandboxes itself: a seccomp filter of its
 * own makes every futex call fail with EPERM (SECCOMP_RET_ERRNO). Then main
 * joins a worker that counts for a while.
 * BUG (of its own making): when main must wait in pthread_join, glibc's
 * futex wait fails with an error it does not expect, and glibc aborts the
 * process ("The futex facility returned an unexpected error code.").
 * Exposing schedule: main reaches pthread_join before the worker exits.
 * Outcome: crash (SIGABRT; natively on every run here). cts-trace holds main
 * at pthread_join instead of letting it wait in the kernel, so it runs the
 * program's filters on the futex call main would make and does what glibc
 * does with the error (tracer/pfilter.h, issue 27 item 13). A mutex's wait
 * would not abort: glibc's low-level lock ignores the error and tries again.
 * Twin: seccomp_kill_ok.c (a filter that leaves futex alone). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long work;

static void *worker(void *arg)
{
	for (int i = 0; i < 20000000; i++)
		work++;
	return arg;
}

int main(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	pthread_t t;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("seccomp");
		return 2;
	}
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
