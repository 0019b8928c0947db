/* spin_then_block_ok.c — an adaptive wait: the waiter busy-waits on a plain
 * flag for up to SPIN_MS milliseconds of wall time (argv[1], default 6),
 * then blocks on a condition variable until the setter raises the flag
 * under the mutex.  Afterwards both threads take a second mutex ROUNDS
 * times each, so a systematic search has many schedules, and every one
 * after the first replays a prefix in which the waiter spun.
 * Correct: every schedule exits 0.
 * The spin loop (x86-64 asm) keeps its registers and stack as they were at
 * every load of the flag: it reads the time stamp counter and clears what
 * rdtsc wrote before it loads again, so the time-slice spin probe learns
 * the load if it lands inside the spin.  Whether it does depends on the
 * time slice (CTS_SLICE_MS) and on timing: a run that replays its prefix
 * can learn it where the run that recorded the prefix did not
 * (systematic.t: such a run is void and the search begins again).
 * Minimal mode: sync. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 3

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int flag;
static int handed, total;
static uint64_t spin_ticks;

static uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Until the flag is up or the counter passes deadline: the flag's value. */
static int spin(uint64_t deadline)
{
	int seen;
	__asm__ volatile("1:\n\t"
			 "movl %[flag], %%ecx\n\t"
			 "testl %%ecx, %%ecx\n\t"
			 "jnz 2f\n\t"
			 "rdtsc\n\t"
			 "shlq $32, %%rdx\n\t"
			 "orq %%rdx, %%rax\n\t"
			 "cmpq %[deadline], %%rax\n\t"
			 "movl $0, %%eax\n\t" /* mov keeps the flags of cmp */
			 "movl $0, %%edx\n\t"
			 "jb 1b\n"
			 "2:\n\t"
			 "movl %%ecx, %[seen]"
			 : [seen] "=r"(seen)
			 : [flag] "m"(flag), [deadline] "r"(deadline)
			 : "rax", "rcx", "rdx", "cc", "memory");
	return seen;
}

static void rounds(void)
{
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&m2);
		total++;
		pthread_mutex_unlock(&m2);
	}
}

static void *waiter(void *arg)
{
	if (!spin(tsc() + spin_ticks)) {
		pthread_mutex_lock(&m);
		while (!handed)
			pthread_cond_wait(&cv, &m);
		pthread_mutex_unlock(&m);
	}
	rounds();
	return arg;
}

static void *setter(void *arg)
{
	pthread_mutex_lock(&m);
	handed = 1;
	flag = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	rounds();
	return arg;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 6;
	/* The counter's rate, over 2 ms of busy time. */
	double t0 = now_s(), t1;
	uint64_t c0 = tsc();
	while ((t1 = now_s()) - t0 < 0.002)
		;
	spin_ticks = (uint64_t)((double)(tsc() - c0) / (t1 - t0) * ms * 1e-3);

	pthread_t w, s;
	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&s, NULL, setter, NULL);
	pthread_join(w, NULL);
	pthread_join(s, NULL);
	if (total != 2 * ROUNDS)
		abort();
	printf("total %d\n", total);
	return 0;
}
