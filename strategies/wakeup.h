/* Wakeup trees (Abdulla, Aronis, Jonsson, Sagonas, "Optimal dynamic partial
 * order reduction", POPL 2014, Section 6; JACM 2017 "Source sets"): an
 * ordered tree of event sequences that optimal DPOR (systematic.h, odpor)
 * must still explore from a prefix of the current run. A node stands for
 * the sequence on its path from a root; the children of a node are tried
 * left to right, and the sequences a race analysis adds go in after the
 * ones already there.
 *
 * One pool holds the trees of every state of the search: a state's tree
 * is a node (the root of the first state, or the node its parent state
 * took), so taking a branch is following a child, and a branch explored to
 * the end is removed with its subtree. Independence of two events is
 * cts_event_dependent, the relation dpor uses. */
#ifndef CTS_WAKEUP_H
#define CTS_WAKEUP_H

#include <stddef.h>
#include <stdint.h>
#include "models/event.h"

struct cts_wut;

#define CTS_WUT_NONE (-1)

struct cts_wut *cts_wut_new(void);
void cts_wut_free(struct cts_wut *w);
/* Drop every node. */
void cts_wut_clear(struct cts_wut *w);

/* A new root (a node with no event and no parent). */
int32_t cts_wut_root(struct cts_wut *w);
/* The event a (non-root) node stands for; its thread is ev->tid. */
const struct cts_event *cts_wut_event(const struct cts_wut *w, int32_t node);
/* Leftmost child, the next sibling; CTS_WUT_NONE at the end. */
int32_t cts_wut_first(const struct cts_wut *w, int32_t node);
int32_t cts_wut_next(const struct cts_wut *w, int32_t node);
/* The child of node for thread tid, CTS_WUT_NONE if none. */
int32_t cts_wut_child(const struct cts_wut *w, int32_t node, int tid);
/* The event a node stands for, once known. */
void cts_wut_set_event(struct cts_wut *w, int32_t node, const struct cts_event *ev);
/* A new rightmost child of node for ev. */
int32_t cts_wut_add(struct cts_wut *w, int32_t node, const struct cts_event *ev);
/* Remove node and its subtree (from its parent's children). */
void cts_wut_remove(struct cts_wut *w, int32_t node);
/* Nodes in use (for the tests and the stats). */
size_t cts_wut_size(const struct cts_wut *w);

/* The paper's insert_[E](v, wut(E)) with node as wut(E): descend into the
 * leftmost child whose event is a weak initial of what is left of v (its
 * thread's first event in v has no dependent event before it there, or
 * the thread is not in v and its event is independent of all of v),
 * dropping that event from v; stop when the child reached is a leaf or v
 * would run out (an exploration already scheduled covers v); when no child
 * fits, add the rest of v as a new branch. v is rewritten. True if a
 * branch was added. */
bool cts_wut_insert(struct cts_wut *w, int32_t node, struct cts_event *v, size_t n);

/* Is none of the sleeping events (the threads explored from E already, and
 * their next events there) a weak initial of v after E? Only then can v
 * lead to an execution not explored yet (the paper's sleep(E') ∩
 * WI_[E'](v) = ∅). */
bool cts_wut_clears_sleep(const struct cts_event *sleep, size_t nsleep,
			  const struct cts_event *v, size_t n);

#endif
