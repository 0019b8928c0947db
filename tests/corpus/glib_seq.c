/* glib_seq.c — libvips's sequential reader in miniature (issue 31 item 4):
 * 3 GLib worker threads take strips of a 24-row image from an allocator
 * (a GMutex), count themselves waiting with an atomic on the pool around
 * every lock (vips__worker_lock), and read their strip through the
 * sequential reader: under its heap-allocated GMutex, a strip below the
 * read position makes it read the rows in between first, the rows come
 * from a line cache with its own GMutex and GCond (a thread waits there
 * for a row another one is computing), and the read position moves on
 * (y_pos, the reported variable). main waits on a GMutex+GCond semaphore
 * for every strip, then joins. Prints "rows 24 sum 300" and exits 0.
 * Correct: every schedule must come back clean, with no race report.
 * Built with -DSEQ_NO_LOCK the reader takes no lock: y_pos and the cache
 * race (glib_seq_race). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 24
#define STRIP 4
#define WORKERS 3

enum { PEND, CALC, DATA };

static struct {
	GMutex lock;
	GCond done;
	int state[ROWS];
	int value[ROWS];
} cache;

struct seq {
	GMutex *lock;     /* on the heap, as vips_g_mutex_new makes it */
	int y_pos;
	int error;
};

static struct {
	GMutex allocate;
	int next;
	int n_waiting;    /* atomic, as VipsThreadpool's */
	GMutex tick_lock; /* a VipsSemaphore */
	GCond tick;
	int ticks;
	int sum[ROWS];
} pool;

static struct seq *seq;

static void worker_lock(GMutex *m)
{
	g_atomic_int_inc(&pool.n_waiting);
	g_mutex_lock(m);
	g_atomic_int_dec_and_test(&pool.n_waiting);
}

/* Row y from the line cache: computed once, by whoever asks first. */
static int cache_row(int y)
{
	worker_lock(&cache.lock);
	while (cache.state[y] == CALC)
		g_cond_wait(&cache.done, &cache.lock);
	if (cache.state[y] == PEND) {
		cache.state[y] = CALC;
		g_mutex_unlock(&cache.lock);
		int *tmp = g_new(int, 1);   /* a row buffer */
		*tmp = y + 1;
		int v = *tmp;
		g_free(tmp);
		g_mutex_lock(&cache.lock);
		cache.value[y] = v;
		cache.state[y] = DATA;
		g_cond_broadcast(&cache.done);
	}
	int v = cache.value[y];
	g_mutex_unlock(&cache.lock);
	return v;
}

/* vips_sequential_generate: rows [top, top + STRIP). */
static int seq_generate(int top)
{
	int s = 0;
#ifndef SEQ_NO_LOCK
	worker_lock(seq->lock);
#endif
	if (seq->error) {
#ifndef SEQ_NO_LOCK
		g_mutex_unlock(seq->lock);
#endif
		return -1;
	}
	for (int y = seq->y_pos; y < top; y++)   /* skip ahead: read what lies between */
		cache_row(y);
	if (top > seq->y_pos)
		seq->y_pos = top;
	for (int y = top; y < top + STRIP; y++)
		s += cache_row(y);
	seq->y_pos = MAX(seq->y_pos, top + STRIP);
#ifndef SEQ_NO_LOCK
	g_mutex_unlock(seq->lock);
#endif
	return s;
}

static gpointer worker(gpointer arg)
{
	(void)arg;
	for (;;) {
		worker_lock(&pool.allocate);
		int top = pool.next;
		pool.next += STRIP;
		g_mutex_unlock(&pool.allocate);
		if (top >= ROWS)
			return NULL;
		int s = seq_generate(top);
		g_mutex_lock(&pool.tick_lock);
		pool.sum[top] = s;
		pool.ticks++;
		g_cond_signal(&pool.tick);
		g_mutex_unlock(&pool.tick_lock);
	}
}

int main(void)
{
	GThread *t[WORKERS];

	seq = g_new0(struct seq, 1);
	seq->lock = g_new(GMutex, 1);
	g_mutex_init(seq->lock);
	for (int i = 0; i < WORKERS; i++)
		t[i] = g_thread_new("worker", worker, NULL);
	g_mutex_lock(&pool.tick_lock);
	while (pool.ticks < ROWS / STRIP)
		g_cond_wait(&pool.tick, &pool.tick_lock);
	g_mutex_unlock(&pool.tick_lock);
	for (int i = 0; i < WORKERS; i++)
		g_thread_join(t[i]);
	int sum = 0;
	for (int y = 0; y < ROWS; y += STRIP)
		sum += pool.sum[y];
	printf("rows %d sum %d\n", seq->y_pos, sum);
	if (seq->y_pos != ROWS || sum != ROWS * (ROWS + 1) / 2)
		abort();
	g_mutex_clear(seq->lock);
	g_free(seq->lock);
	g_free(seq);
	return 0;
}
