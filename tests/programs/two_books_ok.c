/* two_books_ok.c — twin of two_books.c with the fix: t2 books its unit
 * under b, the lock t1 books its second unit under. t1 books one unit under
 * lock a and one under lock b, one lock at a time; the two books share one
 * cache line. Under a, t1 also glances at the other book (a load of
 * under_b it does not use: a benign race with t2's write, reported, exit
 * status 0).
 * Expected: clean on every schedule.  Minimal mode: break.
 * In break mode the line turns shared only in runs where t2's unit comes
 * between t1's two (t2's write is then unordered with t1's glance; the
 * books themselves are different bytes, which never conflict): the
 * first runs of a search hand the line over by happens-before (through b),
 * so it is learned mid-search and the search begins again on it. Every way
 * of splitting the search must end on the same learned set and make the
 * same runs (tests/e2e/split_own.t). */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static struct {
	long under_a;
	long under_b;
} book __attribute__((aligned(64)));

static void *t1(void *arg)
{
	pthread_mutex_lock(&a);
	book.under_a++;
	(void)*(volatile long *)&book.under_b; /* the glance */
	pthread_mutex_unlock(&a);
	pthread_mutex_lock(&b);
	book.under_b++;
	pthread_mutex_unlock(&b);
	return arg;
}

static void *t2(void *arg)
{
	pthread_mutex_lock(&b);	/* FIX: the lock of the book it writes */
	book.under_b++;
	pthread_mutex_unlock(&b);
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
