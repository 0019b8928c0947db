/* Two workers each take a lock to bump a shared count, then sort their own
 * heap array with libc's qsort (library code, not traced) after the
 * unlock; qsort's merge buffer is fresh memory libc allocates for itself.
 * Correct: the arrays are private, the count is locked. In fault mode
 * qsort's accesses are the thread's own: their pages are granted once,
 * not each access faulted and performed as if still inside the unlock
 * (tests/e2e/lib_after_unlock.t). Both wait at a barrier before they
 * return: a thread that exits first gives its malloc arena to the other,
 * whose qsort would reuse memory the first wrote, which libc's own lock
 * orders and cts does not see. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 20000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t done;
static int count;

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg;
	int *v = malloc(N * sizeof(*v));
	if (!v)
		abort();
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (int)(seed >> 8);
	}
	pthread_mutex_lock(&m);
	count++;
	pthread_mutex_unlock(&m);
	qsort(v, N, sizeof(*v), cmp);
	for (int i = 1; i < N; i++)
		if (v[i - 1] > v[i])
			abort();
	free(v);
	pthread_barrier_wait(&done);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	pthread_barrier_init(&done, NULL, 2);
	for (size_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("count %d\n", count);
	return count == 2 ? 0 : 1;
}
