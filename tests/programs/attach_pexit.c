/* attach_pexit.c — main leaves by pthread_exit (the process's leader is a
 * zombie from then on) while two workers lock and unlock a mutex until
 * standard input ends, then print "done". For `cts-trace -p`: a process
 * whose leader is gone is still attached to, controlled and released.
 * No bug: a correct program. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static long count;

static void *worker(void *arg)
{
	while (!stop) {
		pthread_mutex_lock(&m);
		count++;
		pthread_mutex_unlock(&m);
		usleep(1000); /* pacing on a shared machine; no schedule depends on it */
	}
	return arg;
}

static void *reader(void *arg)
{
	char buf[64];
	while (read(0, buf, sizeof(buf)) > 0)
		;
	stop = 1;
	return arg;
}

int main(void)
{
	pthread_t t[3];
	pthread_create(&t[0], NULL, worker, NULL);
	pthread_create(&t[1], NULL, worker, NULL);
	pthread_create(&t[2], NULL, reader, NULL);
	pthread_detach(t[2]);
	for (int i = 0; i < 2; i++)
		pthread_detach(t[i]);
	/* the workers end when stdin does; the last thread to exit ends the process */
	pthread_exit(NULL);
}
