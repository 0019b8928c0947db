/* dr_store N: the traced side of the watchpoint trap benchmark (catch.sh,
 * part "attach"). Prints "ready ADDR" with the address of var, waits for a
 * byte on standard input (the tracer is attached and armed by then), stores
 * var WARM times untimed (a tracer's first hits fill its caches), then N
 * times, one store per iteration, and prints "N stores in T s" (and the
 * total), timed by its own clock: the cost of N traps, whoever the tracer
 * is. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define WARM 1000

static volatile long var;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	char c;

	printf("ready %p\n", (void *)&var);
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	for (long i = 0; i < WARM; i++)
		var = i;
	double t0 = now();
	for (long i = 0; i < n; i++)
		var = i;
	double t = now() - t0;
	printf("%ld stores in %.6f s (%ld in all)\n", n, t, n + WARM);
	return 0;
}
