/* files_ok.c — a correct program that leaves files behind: it creates one in
 * its working directory, one in TMPDIR (or /tmp) and a named semaphore (in
 * /dev/shm), each with O_EXCL, and never removes them; two threads write to
 * the first under a mutex. Natively its second invocation fails. A thread's
 * first, plain read of a shared counter the other may write makes break
 * mode throw runs away and run them again (cold reads, tracer/cold.h): the
 * void run's files must not reach the run that replaces it either.
 * Expected: clean on every schedule of every run while runs are isolated
 * (each run starts from the real directories); with --no-isolate, the second
 * run's assert fails.  Minimal mode: sync. */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int fd;
static int count; /* relaxed atomics: plain moves on x86 */

static void *writer(void *arg)
{
	assert(__atomic_load_n(&count, __ATOMIC_RELAXED) < 2);
	pthread_mutex_lock(&m);
	__atomic_store_n(&count, count + 1, __ATOMIC_RELAXED);
	assert(write(fd, arg, strlen(arg)) == (ssize_t)strlen(arg));
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	char tmp[4096];
	const char *dir = getenv("TMPDIR");
	pthread_t x, y;

	fd = open("files_ok.out", O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert(fd >= 0);
	snprintf(tmp, sizeof(tmp), "%s/files_ok.tmp", dir && dir[0] == '/' ? dir : "/tmp");
	int t = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert(t >= 0);
	close(t);
	sem_t *s = sem_open("/files_ok.sem", O_CREAT | O_EXCL, 0600, 1);
	assert(s != SEM_FAILED);
	pthread_create(&x, NULL, writer, "one\n");
	pthread_create(&y, NULL, writer, "two\n");
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	return close(fd);
}
