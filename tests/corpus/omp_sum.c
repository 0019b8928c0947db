/* omp_sum.c — an OpenMP program: a parallel for with a reduction, a
 * critical section and a barrier, 4 threads.  Phase 1 sums 0..999 with
 * `reduction(+:sum)` and records every thread once in a shared count inside
 * `omp critical`; after `omp barrier` each thread checks the count and one
 * thread checks the sum.  Prints "sum 499500 threads 4" and exits 0; any
 * other result aborts.  No bug: every schedule must come back clean, with no
 * race report (the reduction and the critical section are libgomp's own
 * synchronization). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000
#define THREADS 4

int main(void)
{
	static int a[N];
	long sum = 0;
	int arrived = 0, team = 0;

	for (int i = 0; i < N; i++)
		a[i] = i;
#pragma omp parallel num_threads(THREADS)
	{
#pragma omp for reduction(+ : sum)
		for (int i = 0; i < N; i++)
			sum += a[i];
#pragma omp critical
		{
			arrived++;
			team = omp_get_num_threads();
		}
#pragma omp barrier
		if (arrived != team)	/* every thread passed the critical section */
			abort();
	}
	printf("sum %ld threads %d\n", sum, arrived);
	if (sum != (long)N * (N - 1) / 2 || arrived != THREADS)
		abort();
	return 0;
}
