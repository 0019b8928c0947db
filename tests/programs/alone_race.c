/* alone_race.c — two workers take turns at one mutex, and each turn
 * updates a shared record's two fields ROUNDS times in a loop; main reads
 * one field without the lock while they work (a progress peek: a data race
 * that is reported, benign, and makes the record's line shared, so every
 * later access to it is an event). While one worker holds the mutex the
 * other waits for it and main waits in pthread_join: the holder alone can
 * move, and its loop repeats the same accesses (break mode: repeats made
 * alone are no steps, docs/design.md). Bug: worker 1's last turn adds to
 * `hi` after it let the mutex go (a load and a store), so an update of
 * worker 0 can be lost; main's check of the total then fails. Arguments:
 * TURNS ROUNDS (default 4 200).
 * Expected: assertion failure (break mode). Twin: alone_race_ok. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef LATE_ADD
#define LATE_ADD 1
#endif
static int TURNS = 4, ROUNDS = 200; /* argv[1], argv[2] */

static struct {
	volatile long lo, hi;
} rec;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int t = 0; t < TURNS; t++) {
		pthread_mutex_lock(&m);
		for (int r = 0; r < ROUNDS; r++) {
			rec.lo = rec.lo + 1;
			rec.hi = rec.hi + 2;
		}
		if (id == 1 && t == TURNS - 1 && LATE_ADD) {
			pthread_mutex_unlock(&m);
			long v = rec.hi;
			rec.hi = v + 2;
			continue;
		}
		pthread_mutex_unlock(&m);
		if (id == 1 && t == TURNS - 1) {
			pthread_mutex_lock(&m);
			rec.hi = rec.hi + 2;
			pthread_mutex_unlock(&m);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	if (argc > 2) {
		TURNS = atoi(argv[1]);
		ROUNDS = atoi(argv[2]);
	}
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	long peek = rec.lo; /* unlocked: the benign race */
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("peeked %ld\n", peek >= 0 ? 1L : 0L);
	assert(rec.hi == 2L * (2 * TURNS * ROUNDS + 1));
	assert(rec.lo == 2L * TURNS * ROUNDS);
	return 0;
}
