/* Wakeup trees for optimal DPOR (wakeup.h). Insertion follows the
 * paper's insert_[E](v, wut) as Nidhugg implements it (TSOTraceBuilder's
 * race_detect_optimal): one pass over v per child decides whether the
 * child's event is a weak initial of v. */
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "strategies/wakeup.h"

struct wnode {
	struct cts_event ev;
	int32_t parent, first, last, next, prev;
	bool used;
};

struct cts_wut {
	struct wnode *n;
	size_t cap, used;
	int32_t free;     /* free list through next */
};

struct cts_wut *cts_wut_new(void)
{
	struct cts_wut *w = cts_xcalloc(1, sizeof(*w));
	w->free = CTS_WUT_NONE;
	return w;
}

void cts_wut_free(struct cts_wut *w)
{
	if (!w)
		return;
	free(w->n);
	free(w);
}

void cts_wut_clear(struct cts_wut *w)
{
	w->free = CTS_WUT_NONE;
	for (size_t i = w->cap; i-- > 0;) {
		w->n[i].used = false;
		w->n[i].next = w->free;
		w->free = (int32_t)i;
	}
	w->used = 0;
}

static int32_t node_new(struct cts_wut *w)
{
	if (w->free == CTS_WUT_NONE) {
		size_t cap = cts_grow_cap(w->cap, w->cap + 1);
		w->n = cts_xgrow(w->n, w->cap, cap, sizeof(*w->n));
		for (size_t i = cap; i-- > w->cap;) {
			w->n[i].next = w->free;
			w->free = (int32_t)i;
		}
		w->cap = cap;
	}
	int32_t i = w->free;
	struct wnode *x = &w->n[i];
	w->free = x->next;
	memset(x, 0, sizeof(*x));
	x->parent = x->first = x->last = x->next = x->prev = CTS_WUT_NONE;
	x->used = true;
	w->used++;
	return i;
}

int32_t cts_wut_root(struct cts_wut *w)
{
	int32_t r = node_new(w);
	cts_event_init(&w->n[r].ev, -1, CTS_OP_NONE);
	return r;
}

const struct cts_event *cts_wut_event(const struct cts_wut *w, int32_t node)
{
	return &w->n[node].ev;
}

void cts_wut_set_event(struct cts_wut *w, int32_t node, const struct cts_event *ev)
{
	w->n[node].ev = *ev;
}

int32_t cts_wut_first(const struct cts_wut *w, int32_t node)
{
	return w->n[node].first;
}

int32_t cts_wut_next(const struct cts_wut *w, int32_t node)
{
	return w->n[node].next;
}

int32_t cts_wut_child(const struct cts_wut *w, int32_t node, int tid)
{
	for (int32_t c = w->n[node].first; c != CTS_WUT_NONE; c = w->n[c].next)
		if (w->n[c].ev.tid == tid)
			return c;
	return CTS_WUT_NONE;
}

int32_t cts_wut_add(struct cts_wut *w, int32_t node, const struct cts_event *ev)
{
	int32_t c = node_new(w);   /* may move w->n */
	struct wnode *x = &w->n[c], *p = &w->n[node];
	x->ev = *ev;
	x->parent = node;
	x->prev = p->last;
	if (p->last != CTS_WUT_NONE)
		w->n[p->last].next = c;
	else
		p->first = c;
	p->last = c;
	return c;
}

static void free_subtree(struct cts_wut *w, int32_t node)
{
	for (int32_t c = w->n[node].first; c != CTS_WUT_NONE;) {
		int32_t nx = w->n[c].next;
		free_subtree(w, c);
		c = nx;
	}
	w->n[node].used = false;
	w->n[node].next = w->free;
	w->free = node;
	w->used--;
}

void cts_wut_remove(struct cts_wut *w, int32_t node)
{
	struct wnode *x = &w->n[node];
	if (x->parent != CTS_WUT_NONE) {
		struct wnode *p = &w->n[x->parent];
		if (x->prev != CTS_WUT_NONE)
			w->n[x->prev].next = x->next;
		else
			p->first = x->next;
		if (x->next != CTS_WUT_NONE)
			w->n[x->next].prev = x->prev;
		else
			p->last = x->prev;
	}
	free_subtree(w, node);
}

size_t cts_wut_size(const struct cts_wut *w)
{
	return w->used;
}

static bool same_event(const struct cts_event *a, const struct cts_event *b)
{
	return a->tid == b->tid && a->op == b->op && a->obj == b->obj && a->obj2 == b->obj2 &&
	       a->size == b->size && a->target == b->target;
}

/* Where child event c stands in v: the index of its thread's first event
 * if that is a weak initial, n if the thread is not in v and c commutes
 * with all of v, -1 if c is no weak initial of v. */
static ptrdiff_t weak_initial(const struct cts_event *c, const struct cts_event *v, size_t n)
{
	for (size_t m = 0; m < n; m++) {
		if (v[m].tid == c->tid) {
			/* The same thread at the same prefix runs the same event;
			 * if the program showed another one, judge v's own. */
			if (!same_event(c, &v[m]))
				for (size_t q = 0; q < m; q++)
					if (cts_event_dependent(&v[q], &v[m]))
						return -1;
			return (ptrdiff_t)m;
		}
		if (cts_event_dependent(&v[m], c))
			return -1;
	}
	return (ptrdiff_t)n;
}

bool cts_wut_insert(struct cts_wut *w, int32_t node, struct cts_event *v, size_t n)
{
	for (;;) {
		int32_t c;
		ptrdiff_t m = -1;
		for (c = w->n[node].first; c != CTS_WUT_NONE; c = w->n[c].next) {
			m = weak_initial(&w->n[c].ev, v, n);
			if (m >= 0)
				break;
		}
		if (c == CTS_WUT_NONE)
			break;
		if ((size_t)m == n || n == 1)
			return false;   /* c's explorations cover v */
		memmove(&v[m], &v[m + 1], (n - (size_t)m - 1) * sizeof(*v));
		n--;
		node = c;
		if (w->n[node].first == CTS_WUT_NONE)
			return false;   /* a leaf: an exploration from here is scheduled */
	}
	for (size_t m = 0; m < n; m++)
		node = cts_wut_add(w, node, &v[m]);
	return true;
}

bool cts_wut_clears_sleep(const struct cts_event *sleep, size_t nsleep,
			  const struct cts_event *v, size_t n)
{
	for (size_t s = 0; s < nsleep; s++) {
		size_t m;
		for (m = 0; m < n; m++) {
			if (v[m].tid == sleep[s].tid)
				return false;   /* reached still asleep: a weak initial */
			if (cts_event_dependent(&v[m], &sleep[s]))
				break;          /* woken */
		}
		if (m == n)
			return false;   /* commutes with all of v */
	}
	return true;
}
