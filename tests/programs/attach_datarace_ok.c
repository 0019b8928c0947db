/* attach_datarace_ok.c — twin of attach_datarace.c, the same traffic with
 * every shared access synchronized: hits is bumped inside the raw futex
 * lock's critical section (a lock cts sees only as atomics and futex
 * system calls), so `cts-trace -p PID --races` must report nothing. Runs
 * until its standard input ends, then prints whether the counters add up
 * (they do). */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long locked, futexed, rounds_a, rounds_b;
static long atomics;
static long hits;
static int fword; /* 0 free, 1 held, 2 held with waiters */
static int stop;

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

static void work(void)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < 200000; i++)
		s += i;
}

static void traffic(long bump)
{
	pthread_mutex_lock(&m);
	locked++;
	pthread_mutex_unlock(&m);
	flock_();
	futexed++;
	hits += bump;
	funlock_();
	__atomic_fetch_add(&atomics, 1, __ATOMIC_RELAXED);
}

static void *worker_a(void *arg)
{
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		traffic(1);
		rounds_a++;
		work();
	}
	return arg;
}

static void *worker_b(void *arg)
{
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		traffic(2);
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
	printf("locked %s, futexed %s, atomics %s, hits %s\n", locked == n ? "ok" : "BAD",
	       futexed == n ? "ok" : "BAD", atomics == n ? "ok" : "BAD",
	       hits == rounds_a + 2 * rounds_b ? "ok" : "BAD");
	return 0;
}
