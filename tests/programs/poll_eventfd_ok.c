/* poll_eventfd_ok.c — twin of poll_eventfd.c with the fix: the eventfd is a
 * blocking semaphore, so a worker whose read(2) finds the count already taken
 * sleeps until the next event.  Two workers wait in poll(2) on the eventfd;
 * main produces 2 items (counted under the mutex) and signals one event per
 * item with eventfd_write, so on every schedule a worker blocks in poll or
 * read until main writes.
 * Expected: clean on every schedule, no race report.  Minimal mode: sync. */
#include <assert.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int efd;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int produced, consumed;

static void *worker(void *arg)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t v;
	ssize_t n;

	if (poll(&p, 1, -1) != 1)
		return NULL;
	n = read(efd, &v, sizeof v);	/* blocks while the count is 0 */
	assert(n == sizeof v);
	pthread_mutex_lock(&m);
	consumed++;
	assert(consumed <= produced);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	efd = eventfd(0, EFD_SEMAPHORE);	/* FIX: blocking reads */
	if (efd < 0)
		return 2;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&m);
		produced++;
		pthread_mutex_unlock(&m);
		eventfd_write(efd, 1);
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(consumed == 2);
	return 0;
}
