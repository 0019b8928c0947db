/* seccomp_kill.c — the program sandboxes itself: a seccomp filter of its
 * own kills the process (SECCOMP_RET_KILL_PROCESS) at any futex call. Then
 * two workers add to a counter under a mutex while main joins them.
 * BUG (of its own making: the sandbox is too tight for its threads): a
 * thread that must wait, for the mutex or for a thread to exit, calls futex
 * natively, and its filter kills the process with SIGSYS.
 * Exposing schedule: main reaches pthread_join while its worker still runs,
 * or a worker reaches the lock while the other holds it.
 * Outcome: crash (SIGSYS; natively exit status 159 on about half the runs). cts-trace
 * holds such a thread at its pthread call instead of letting it wait in the
 * kernel, so it runs the program's filters on the futex call the thread
 * would make (tracer/pfilter.h, issue 27 item 13).
 * With argument "trap" the filter answers SECCOMP_RET_TRAP instead (no
 * SIGSYS handler: the same death); with "notif", SECCOMP_RET_USER_NOTIF
 * through seccomp(2) with a listener nobody reads (natively the wait then
 * hangs for good; cts-trace cannot apply it and says so, exit status 2).
 * Twin seccomp_kill_ok.c: a filter that leaves futex alone. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count;

static void *worker(void *arg)
{
	for (int i = 0; i < 3; i++) {
		pthread_mutex_lock(&m);
		count++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "kill";
	unsigned action = !strcmp(how, "trap") ? SECCOMP_RET_TRAP :
			  !strcmp(how, "notif") ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_KILL_PROCESS;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	pthread_t t[2];

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    (action == SECCOMP_RET_USER_NOTIF ?
	     syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) < 0 :
	     prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)) {
		perror("seccomp");
		return 2;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return count == 6 ? 0 : 1;
}
