/* attach_datarace.c — a data race for `cts-trace -p PID --races` to find
 * in a running process.
 * Two workers exchange correct traffic round after round (a counter under
 * a pthread mutex, one under a raw futex lock, an atomic counter) and each
 * also bumps `hits` with no lock at all: worker_a at one line, worker_b at
 * another (an unsynchronized read-modify-write pair between threads).
 * worker_a also hands malloc'd nodes to worker_b, which frees them.
 * Runs until its standard input ends, then prints whether the locked
 * counters add up (they always do: the race only loses updates of hits).
 * Twin attach_datarace_ok.c: hits is bumped inside the raw futex lock. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long locked, futexed, rounds_a, rounds_b;
static long atomics;
static long hits; /* BUG: bumped by both workers without a lock */
static int fword; /* 0 free, 1 held, 2 held with waiters */
static int stop;
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

static void traffic(void)
{
	pthread_mutex_lock(&m);
	locked++;
	pthread_mutex_unlock(&m);
	flock_();
	futexed++;
	funlock_();
	__atomic_fetch_add(&atomics, 1, __ATOMIC_RELAXED);
}

static void *worker_a(void *arg)
{
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		traffic();
		hits++; /* BUG: no lock */
		produce(rounds_a);
		rounds_a++;
		work();
	}
	return arg;
}

static void *worker_b(void *arg)
{
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		traffic();
		hits += 2; /* BUG: no lock */
		consume();
		rounds_b++;
		work();
	}
	return arg;
}

int main(void)
{
	pthread_t a, b;
	char buf[64];
	pthread_create(&a, NULL, worker_a, NULL);
	pthread_create(&b, NULL, worker_b, NULL);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	long n = rounds_a + rounds_b;
	printf("locked %s, futexed %s, atomics %s\n", locked == n ? "ok" : "BAD",
	       futexed == n ? "ok" : "BAD", atomics == n ? "ok" : "BAD");
	return 0;
}
