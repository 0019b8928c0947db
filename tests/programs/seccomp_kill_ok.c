/* seccomp_kill_ok.c — the twin of seccomp_kill.c: the program sandboxes
 * itself with a seccomp filter that leaves futex alone (it kills the
 * process at acct(2), which the program never calls, and hands getppid(2)
 * to a tracer: natively there is none, so getppid fails with ENOSYS, which
 * the program checks). Then two workers add to a counter under a mutex
 * while main joins them: clean on every schedule, exit status 0 (1 if
 * getppid did not fail with ENOSYS, as it did not under cts-trace before
 * issue 27 item 13: cts-trace's own tracer took the call). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
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

int main(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_acct, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	pthread_t t[2];

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("seccomp");
		return 2;
	}
	if (syscall(SYS_getppid) != -1 || errno != ENOSYS)
		return 1;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return count == 6 ? 0 : 1;
}
