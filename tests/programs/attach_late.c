/* attach_late.c — bugs that happen only after cts has attached: the process
 * waits for a line on standard input, then (argv[1]):
 *   deadlock: t1 locks a then b, t2 locks b then a, a barrier between the
 *             two takes (the deadlock forms under control, every thread asleep);
 *   crash:    a worker takes the lock, then stores through a null pointer;
 *   exec:     main execs /bin/true (the image cts attached to goes away).
 * Twin attach_late_ok.c: the same without the bugs (locks in one order, no
 * null store; exec is not a bug and is the same there). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;
static int *volatile nowhere;

static void *t1(void *arg)
{
	pthread_mutex_lock(&a);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&b);
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return arg;
}

static void *t2(void *arg)
{
	pthread_mutex_lock(&b);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&a); /* BUG: opposite order to t1 */
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return arg;
}

static void *crasher(void *arg)
{
	pthread_mutex_lock(&a);
	*nowhere = 1; /* BUG: a null store */
	pthread_mutex_unlock(&a);
	return arg;
}

int main(int argc, char **argv)
{
	char line[64];
	pthread_t x, y;
	const char *what = argc > 1 ? argv[1] : "deadlock";
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	if (strcmp(what, "exec") == 0) {
		execl("/bin/true", "true", (char *)NULL);
		return 1;
	}
	if (strcmp(what, "crash") == 0) {
		pthread_create(&x, NULL, crasher, NULL);
		pthread_join(x, NULL);
		return 0;
	}
	pthread_barrier_init(&both, NULL, 2);
	pthread_create(&x, NULL, t1, NULL);
	pthread_create(&y, NULL, t2, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	puts("done");
	return 0;
}
