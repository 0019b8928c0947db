/* attach_work.c — a long-running process for `cts-trace -p` attach/detach
 * cycles: a producer hands numbers 1..ROUND to a consumer through a
 * mutex-and-condition-variable queue, the consumer hands each round's sum
 * to a checker through a raw futex mailbox, round after round, until
 * standard input ends; then every thread finishes and main prints what the
 * checker saw. The output is the same on every schedule ("bad 0") unless
 * an attach lost a wakeup, corrupted a register or a byte of text: then a
 * sum is wrong, a thread dies or the process hangs. It also counts the
 * SIGRTMIN+1 signals it gets (a test sends some while it is attached to:
 * none may be lost or added).
 * No bug: a correct program for attach tests. */
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUND 64
#define QCAP 8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int q[QCAP], qhead, qlen;
static volatile int stop;
static volatile uint32_t box;       /* 0 empty, else a round's sum + 1 (1: the end) */
static unsigned long rounds, bad;
static uint32_t last;
static volatile sig_atomic_t nsig;  /* SIGRTMIN+1 deliveries: queued, so each counts */

static void on_sig(int sig)
{
	(void)sig;
	nsig++;
}

static void futex(volatile uint32_t *w, int op, uint32_t v)
{
	syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

static void put(int v)
{
	pthread_mutex_lock(&m);
	while (qlen == QCAP)
		pthread_cond_wait(&not_full, &m);
	q[(qhead + qlen++) % QCAP] = v;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&m);
}

static int get(void)
{
	pthread_mutex_lock(&m);
	while (qlen == 0)
		pthread_cond_wait(&not_empty, &m);
	int v = q[qhead];
	qhead = (qhead + 1) % QCAP;
	qlen--;
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&m);
	return v;
}

static void *producer(void *arg)
{
	struct timespec pace = { 0, 500000 }; /* half a core at most on a shared machine */
	while (!stop) {
		for (int i = 1; i <= ROUND; i++)
			put(i);
		nanosleep(&pace, NULL);
	}
	put(0); /* the end */
	return arg;
}

static void mail(uint32_t v)
{
	while (box != 0)
		futex(&box, FUTEX_WAIT_PRIVATE, box);
	box = v;
	futex(&box, FUTEX_WAKE_PRIVATE, 1);
}

static void *consumer(void *arg)
{
	for (;;) {
		uint32_t sum = 0;
		for (int i = 0; i < ROUND; i++) {
			int v = get();
			if (v == 0) {
				mail(1);
				return arg;
			}
			sum += (uint32_t)v;
		}
		mail(sum + 1);
	}
}

static void *checker(void *arg)
{
	for (;;) {
		uint32_t v;
		while ((v = box) == 0)
			futex(&box, FUTEX_WAIT_PRIVATE, 0);
		box = 0;
		futex(&box, FUTEX_WAKE_PRIVATE, 1);
		if (v == 1)
			return arg;
		rounds++;
		last = v - 1;
		if (last != ROUND * (ROUND + 1) / 2)
			bad++;
	}
}

int main(void)
{
	pthread_t t[3];
	char buf[64];
	struct sigaction sa = { .sa_handler = on_sig, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	pthread_create(&t[0], NULL, producer, NULL);
	pthread_create(&t[1], NULL, consumer, NULL);
	pthread_create(&t[2], NULL, checker, NULL);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("bad %lu, last sum %u, some rounds %s, signals %d\n", bad, last,
	       rounds > 0 ? "yes" : "no", (int)nsig);
	return 0;
}
