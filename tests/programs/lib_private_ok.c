/* lib_private_ok.c — two workers, each copying and comparing within its own
 * heap blocks through libc (memcpy, memcmp, strlen, strcoll, strcasecmp)
 * 2,000 times, then main
 * reads both results after the joins. No memory is shared while both run.
 * With ownership (break mode's default), a library call's ranges on lines
 * its thread owns are no scheduling point, as plain accesses there are not:
 * a run shows a handful of events, not 10,000 per worker. Their blocks share
 * a page, decided per access: the calls' bodies run with it open, not a
 * fault per access (strcoll's is strcmp's in the C locale).
 * Expected: clean on every schedule, race-free.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ROUNDS 2000

struct work {
	char a[256], b[256];
	unsigned long same;
};

static void *worker(void *arg)
{
	struct work *w = arg;
	memset(w->a, 'x', sizeof(w->a) - 1);
	w->a[sizeof(w->a) - 1] = 0;
	for (int i = 0; i < ROUNDS; i++) {
		memcpy(w->b, w->a, sizeof(w->b));
		w->same += memcmp(w->a, w->b, sizeof(w->a)) == 0 && strlen(w->b) == 255 &&
			   strcoll(w->a, w->b) == 0 && strcasecmp(w->a, w->b) == 0;
	}
	return NULL;
}

int main(void)
{
	struct work *w[2];
	pthread_t t[2];

	for (int i = 0; i < 2; i++) {
		w[i] = calloc(1, sizeof(*w[i]));
		assert(w[i]);
		pthread_create(&t[i], NULL, worker, w[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(w[0]->same == ROUNDS && w[1]->same == ROUNDS);
	free(w[0]);
	free(w[1]);
	return 0;
}
