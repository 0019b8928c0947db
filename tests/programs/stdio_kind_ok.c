/* stdio_kind_ok.c — twin of stdio_kind.c: both threads take a then b, so no
 * wait-for cycle can form.  The same steps that depend on stdout: before the
 * threads, main takes and releases a third mutex only
 * when stdout is seekable (/dev/null, a file; not a pipe or a terminal), as
 * Python's start-up seeks its streams only where it can: a replay whose stdout
 * is of another kind than its recorded run's takes other steps.  It prints
 * whether stdout was seekable.  Minimal mode: sync.
 * Expected: clean on every schedule, whatever stdout is. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t seen = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *t1(void *arg)
{
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

static void *t2(void *arg)
{
	pthread_mutex_lock(&a);	/* FIX: the same order as t1 */
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

int main(void)
{
	pthread_t x, y;
	int seekable = lseek(1, 0, SEEK_CUR) >= 0;

	if (seekable) {
		pthread_mutex_lock(&seen);
		pthread_mutex_unlock(&seen);
	}
	printf("stdout seekable: %s\n", seekable ? "yes" : "no");
	fflush(stdout);
	pthread_create(&x, NULL, t1, NULL);
	pthread_create(&y, NULL, t2, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	return shared == 2 ? 0 : 1;
}
