/* two_books.c — t1 books one unit under lock a and one under lock b, one
 * lock at a time; t2 books one unit in the b book but takes lock a for it
 * (the wrong lock), with a separate load and store. The two books share
 * one cache line.
 * Exposing schedule: t1 locks a, books under_a, unlocks a; t2 locks a and
 * loads under_b (0); t1 locks b, loads 0, stores 1; t2 stores 1: one unit
 * of the b book lost.
 * Expected: assert `book.under_b == 2` fails (SIGABRT).  Minimal mode: break.
 * As in two_books_ok, the line is learned shared mid-search
 * (tests/e2e/split_own.t). */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static struct {
	long under_a;
	volatile long under_b;
} book __attribute__((aligned(64)));

static void *t1(void *arg)
{
	pthread_mutex_lock(&a);
	book.under_a++;
	pthread_mutex_unlock(&a);
	pthread_mutex_lock(&b);
	book.under_b = book.under_b + 1;
	pthread_mutex_unlock(&b);
	return arg;
}

static void *t2(void *arg)
{
	pthread_mutex_lock(&a);	/* BUG: the b book under a */
	book.under_b = book.under_b + 1;
	pthread_mutex_unlock(&a);
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, t1, NULL);
	pthread_create(&y, NULL, t2, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(book.under_a == 1 && book.under_b == 2);
	return 0;
}
