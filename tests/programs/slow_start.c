/* A big-ish program that is slow to start: 1,000 small functions that touch
 * shared memory (a thousand access breakpoints to plant in break mode) and a
 * constructor that computes for ~10 s before main (cts-trace runs it
 * invisibly on the way to main). `slow_start [n]`: main then makes two
 * threads do n locked increments each (default 1000). Clean; used by the
 * interrupt-latency test, which sends SIGTERM during start-up and during
 * the exploration: cts-trace must exit with 130 within a bound. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static volatile int g[64];
static volatile uint64_t seed;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count, n = 1000;

#define F(i) __attribute__((noinline)) int f##i(int x) { g[(1##i) % 64] += x; return g[((1##i) * 7) % 64] ^ x; }
#define F10(i) F(i##0) F(i##1) F(i##2) F(i##3) F(i##4) F(i##5) F(i##6) F(i##7) F(i##8) F(i##9)
#define F100(i) F10(i##0) F10(i##1) F10(i##2) F10(i##3) F10(i##4) F10(i##5) F10(i##6) F10(i##7) F10(i##8) F10(i##9)
F100(1) F100(2) F100(3) F100(4) F100(5) F100(6) F100(7) F100(8) F100(9) F100(0)

/* About 10 s natively, in registers only: no stop on the way to main. */
__attribute__((constructor)) static void warm_up(void)
{
	uint64_t x = 1;
	for (long i = 0; i < 10000000000L; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	seed = x;
}

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		count++;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	if (argc > 1)
		n = atol(argv[1]);
	f100(1);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(count == 2 * n);
	return 0;
}
