/* native_view_ok.c — the program sees the machine it would see natively
 * (issue 27 item 4). No bug. Without arguments it prints what it observes:
 * its CPU affinity, personality, blocked and ignored signals. With that line
 * as argv[1] (printed natively) it asserts it observes the same in main and
 * in a thread, then that a thread's own sched_setaffinity is seen by its
 * getaffinity and inherited by a thread it creates, not by main, and that
 * bad calls fail as the kernel fails them. Under cts-trace the process is
 * pinned to one CPU, launched with ADDR_NO_RANDOMIZE and a tracer with its
 * own SIGALRM handler: without tracer/native.c every assert here fails. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *expected;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int done;

static void observe(char *buf, size_t len)
{
	cpu_set_t s;
	uint64_t blocked = 0, ignored = 0;
	assert(sched_getaffinity(0, sizeof(s), &s) == 0);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &blocked, sizeof(blocked));
	for (int sig = 1; sig < 64; sig++) {
		struct sigaction sa;
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			ignored |= 1ull << (sig - 1);
	}
	snprintf(buf, len, "cpus=%lx n=%d persona=%#x blocked=%llx ignored=%llx",
		 ((unsigned long *)&s)[0], CPU_COUNT(&s), personality(0xffffffff),
		 (unsigned long long)blocked, (unsigned long long)ignored);
}

static void check_observed(void)
{
	char buf[256];
	observe(buf, sizeof(buf));
	if (strcmp(buf, expected) != 0)
		fprintf(stderr, "observed %s\nnatively %s\n", buf, expected);
	assert(strcmp(buf, expected) == 0);
}

static void *grandchild(void *arg)
{
	cpu_set_t s;
	assert(sched_getaffinity(0, sizeof(s), &s) == 0);
	assert(CPU_COUNT(&s) == 1 && CPU_ISSET(*(int *)arg, &s));
	return arg;
}

static void *child(void *arg)
{
	cpu_set_t all, one, s;
	int first = -1;
	pthread_t g;

	check_observed();
	assert(sched_getaffinity(0, sizeof(all), &all) == 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &all))
			first = c;
	/* Its own mask, as the kernel reports it: the size it copied. */
	long n = syscall(SYS_sched_getaffinity, 0, sizeof(s), &s);
	assert(n > 0 && n % 8 == 0 && n <= (long)sizeof(s));
	/* Bad calls fail as natively. */
	CPU_ZERO(&one);
	assert(sched_setaffinity(0, sizeof(one), &one) == -1 && errno == EINVAL);
	assert(syscall(SYS_sched_getaffinity, 0, 3, &s) == -1 && errno == EINVAL);
	assert(syscall(SYS_sched_getaffinity, 0, sizeof(s), (void *)8) == -1 && errno == EFAULT);
	assert(syscall(SYS_sched_setaffinity, 0, sizeof(s), (void *)8) == -1 && errno == EFAULT);
	/* Round trip: one CPU set, one CPU seen, inherited by its thread. */
	CPU_SET(first, &one);
	assert(sched_setaffinity(0, sizeof(one), &one) == 0);
	assert(sched_getaffinity(0, sizeof(s), &s) == 0 && CPU_EQUAL(&s, &one));
	assert(pthread_create(&g, NULL, grandchild, &first) == 0);
	assert(pthread_join(g, NULL) == 0);
	assert(sched_setaffinity(0, sizeof(all), &all) == 0);
	assert(sched_getaffinity(0, sizeof(s), &s) == 0 && CPU_EQUAL(&s, &all));
	pthread_mutex_lock(&m);
	done = 1;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(int argc, char **argv)
{
	char buf[256];
	pthread_t t;

	if (argc < 2) {
		observe(buf, sizeof(buf));
		printf("%s\n", buf);
		return 0;
	}
	expected = argv[1];
	check_observed();
	assert(pthread_create(&t, NULL, child, NULL) == 0);
	assert(pthread_join(t, NULL) == 0);
	assert(done);
	check_observed(); /* the thread's own mask was its own */
	return 0;
}
