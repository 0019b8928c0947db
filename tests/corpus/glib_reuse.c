/* glib_reuse.c — a block freed by one thread and handed out again to
 * another, both through GLib's allocator (issue 31 item 4): the worker
 * updates its object under the object's GMutex, frees it with g_free and
 * stays alive; main, after scheduling points that order nothing
 * (sched_yield), g_malloc0s an object of the same size (past glibc's
 * tcache, so the worker's block comes back from main's arena) and
 * updates it under its own GMutex. The two lives are ordered only by
 * malloc's own lock. Both also count in `total` under a global GMutex.
 * Prints "total 2" and exits 0. Correct: no race report.
 * Built with -DREUSE_NO_LOCK main counts without the global lock: that
 * race on `total` must be found (glib_reuse_race). */
#include <glib.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 2000   /* past glibc's tcache (1032 bytes) */

struct obj {
	GMutex *lock;
	int y_pos;
	char pad[SIZE];
};

static struct obj *p;
static GMutex total_lock;
static int total;

static gpointer worker(gpointer arg)
{
	(void)arg;
	g_mutex_lock(p->lock);
	p->y_pos += 1;
	g_mutex_unlock(p->lock);
	g_mutex_lock(&total_lock);
	total++;
	g_mutex_unlock(&total_lock);
	GMutex *l = p->lock;
	g_free(p);   /* the last user frees it, as g_object_unref does */
	g_mutex_clear(l);
	g_free(l);
	for (int i = 0; i < 64; i++)
		sched_yield();   /* alive on, ordering nothing */
	return NULL;
}

int main(void)
{
	p = g_malloc0(sizeof(*p));
	p->lock = g_new(GMutex, 1);
	g_mutex_init(p->lock);
	GThread *t = g_thread_new("worker", worker, NULL);
	for (int i = 0; i < 16; i++)
		sched_yield();
	struct obj *q = g_malloc0(sizeof(*q));   /* often the worker's block again */
	q->lock = g_new(GMutex, 1);
	g_mutex_init(q->lock);
	g_mutex_lock(q->lock);
	q->y_pos += 1;
	g_mutex_unlock(q->lock);
#ifndef REUSE_NO_LOCK
	g_mutex_lock(&total_lock);
#endif
	total++;   /* the bug with REUSE_NO_LOCK: no lock */
#ifndef REUSE_NO_LOCK
	g_mutex_unlock(&total_lock);
#endif
	g_thread_join(t);
	printf("total %d\n", total);
	if (total != 2 || q->y_pos != 1)
		abort();
	g_mutex_clear(q->lock);
	g_free(q->lock);
	g_free(q);
	return 0;
}
