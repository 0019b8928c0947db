/* attach_traffic.h — the correct traffic attach_datarace.c and its twin
 * attach_datarace_ok.c share: a pthread mutex, a raw futex lock (atomics and
 * futex calls only), and nodes one worker mallocs and hands to the other,
 * who frees them (glibc hands the blocks out again at the same addresses).
 * Included by both; not a program of its own. */
#ifndef ATTACH_TRAFFIC_H
#define ATTACH_TRAFFIC_H
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long locked, futexed, rounds_a, rounds_b;
static long atomics;
static int fword; /* 0 free, 1 held, 2 held with waiters */
/* nodes worker_a allocates and worker_b frees: glibc hands the freed
 * blocks out again, so the same addresses carry new data */
struct node {
	long v;
	struct node *next;
};
static struct node *list; /* under m */
static int nlist;

static void flock_(void)
{
	int c = 0;
	if (__atomic_compare_exchange_n(&fword, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&fword, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = __atomic_exchange_n(&fword, 2, __ATOMIC_ACQUIRE);
	}
}

static void funlock_(void)
{
	if (__atomic_fetch_sub(&fword, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(&fword, 0, __ATOMIC_RELEASE);
		syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

static void produce(long v)
{
	struct node *n = malloc(sizeof(*n));
	if (!n)
		return;
	n->v = v;
	n->v += 1;
	pthread_mutex_lock(&m);
	if (nlist < 64) {
		n->next = list;
		list = n;
		nlist++;
		n = NULL;
	}
	pthread_mutex_unlock(&m);
	free(n);
}

static void consume(void)
{
	pthread_mutex_lock(&m);
	struct node *n = list;
	if (n) {
		list = n->next;
		nlist--;
	}
	pthread_mutex_unlock(&m);
	if (n) {
		n->v++;
		free(n);
	}
}

static void work(void)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < 200000; i++)
		s += i;
}

static int stop;

/* A worker thread: round after round until main says stop. */
static void *loop(void (*round)(void))
{
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		round();
		work();
	}
	return NULL;
}

static void (*round_a)(void), (*round_b)(void);
static void *thread_a(void *arg)
{
	(void)arg;
	return loop(round_a);
}
static void *thread_b(void *arg)
{
	(void)arg;
	return loop(round_b);
}

/* Run a and b, each in a thread, round after round until standard input
 * ends, then stop and join them; print the shared counters' verdict
 * followed by extra (", hits ok"). */
static void run_until_eof(void (*a)(void), void (*b)(void), const char *(*extra)(void))
{
	pthread_t ta, tb;
	char buf[64];
	round_a = a;
	round_b = b;
	pthread_create(&ta, NULL, thread_a, NULL);
	pthread_create(&tb, NULL, thread_b, NULL);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	long n = rounds_a + rounds_b;
	printf("locked %s, futexed %s, atomics %s%s\n", locked == n ? "ok" : "BAD",
	       futexed == n ? "ok" : "BAD", atomics == n ? "ok" : "BAD", extra ? extra() : "");
}

#endif
