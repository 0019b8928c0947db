/* watch.c — accesses to one global at known source lines (no assert bug).
 * main writes `watched` before creating the threads, thread A reads it,
 * thread B writes it, main reads it after joining.  Each access is alone on
 * its line, and each such line ends in a WATCH-LINE tag naming it
 * (main-write, a-read, b-write, main-read), so a test can find the line
 * numbers with grep -n on the tag.  A and B race (A may see 1 or 2); the race
 * is intended, for the race detector and for watchpoints.  Mode: break. */
#include <assert.h>
#include <pthread.h>

static volatile int watched;

static void *a(void *arg)
{
	long v = watched; /* WATCH-LINE: a-read */
	(void)arg;
	return (void *)v;
}

static void *b(void *arg)
{
	watched = 2; /* WATCH-LINE: b-write */
	return arg;
}

int main(void)
{
	pthread_t x, y;
	void *seen;
	int last;

	watched = 1; /* WATCH-LINE: main-write */
	pthread_create(&x, NULL, a, NULL);
	pthread_create(&y, NULL, b, NULL);
	pthread_join(x, &seen);
	pthread_join(y, NULL);
	last = watched; /* WATCH-LINE: main-read */
	assert(last == 2);
	assert(seen == (void *)1 || seen == (void *)2);
	return 0;
}
