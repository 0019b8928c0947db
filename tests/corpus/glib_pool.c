/* glib_pool.c — a GLib GThreadPool of 4 threads runs 64 tasks; each task
 * adds its number to a total and counts itself, both under a GMutex, and
 * records the largest task seen under the same mutex.  g_thread_pool_free
 * waits for every task.  Prints "total 2080 tasks 64" and exits 0; any other
 * result aborts.  No bug: every schedule must come back clean, with no race
 * report (GMutex is a futex-based lock). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 64

static GMutex lock;
static long total;
static int tasks, largest;

static void task(gpointer data, gpointer user_data)
{
	int n = GPOINTER_TO_INT(data);

	(void)user_data;
	g_mutex_lock(&lock);
	total += n;
	tasks++;
	if (n > largest)
		largest = n;
	g_mutex_unlock(&lock);
}

int main(void)
{
	GError *err = NULL;
	GThreadPool *pool = g_thread_pool_new(task, NULL, 4, TRUE, &err);

	if (!pool)
		return 2;
	for (int i = 1; i <= TASKS; i++)
		g_thread_pool_push(pool, GINT_TO_POINTER(i), NULL);
	g_thread_pool_free(pool, FALSE, TRUE);
	printf("total %ld tasks %d\n", total, tasks);
	if (total != TASKS * (TASKS + 1) / 2 || tasks != TASKS || largest != TASKS)
		abort();
	return 0;
}
