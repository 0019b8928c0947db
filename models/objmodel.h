/* Model of the program's synchronization objects: who owns which mutex, who
 * waits where. It answers "is this pending operation enabled?" so the
 * scheduler never lets a thread block in the kernel on an unavailable object,
 * and it names the blocker when a run deadlocks. Shared by the live ptrace
 * backend and the simulated one. */
#ifndef CTS_OBJMODEL_H
#define CTS_OBJMODEL_H

#include "models/event.h"

struct cts_objmodel;

enum cts_mutex_kind {
	CTS_MUTEX_NORMAL = 0,
	CTS_MUTEX_RECURSIVE = 1,
	CTS_MUTEX_ERRORCHECK = 2,
};

/* futex_driven: the backend learns cond-wait wakeups from real futex wakes
 * (cts_objmodel_cond_woken) and barrier blocking from futex waits; signal,
 * broadcast and barrier arrival then do not move waiters themselves. */
struct cts_objmodel *cts_objmodel_new(bool futex_driven);
void cts_objmodel_free(struct cts_objmodel *m);
/* Forget all objects and threads: a new run starts. */
void cts_objmodel_reset(struct cts_objmodel *m);

/* Facts the live backend reads from target memory the first time it sees an object. */
void cts_objmodel_set_mutex_kind(struct cts_objmodel *m, uint64_t mutex, enum cts_mutex_kind kind);
bool cts_objmodel_knows(const struct cts_objmodel *m, uint64_t obj);
void cts_objmodel_set_sem(struct cts_objmodel *m, uint64_t sem, int64_t value);
void cts_objmodel_set_barrier(struct cts_objmodel *m, uint64_t barrier, unsigned count);

/* Can thread pending->tid perform its pending operation now without blocking? */
bool cts_objmodel_enabled(const struct cts_objmodel *m, const struct cts_event *pending);
/* Would the operation succeed if executed now (try-ops, timed ops)? */
bool cts_objmodel_available(const struct cts_objmodel *m, const struct cts_event *pending);

/* The operation was executed. Fills ev->result for try-ops and timed ops
 * (0 success, else an errno value). */
void cts_objmodel_apply(struct cts_objmodel *m, struct cts_event *ev);

/* A cond waiter was woken (live: by a futex wake on the condition). */
void cts_objmodel_cond_woken(struct cts_objmodel *m, int tid);
/* A cancel reached tid with its cancellation enabled (live: SIGCANCEL is
 * pending for it): its next cancellation point (join, cond wait, sem_wait,
 * sleep) does not block; the thread unwinds and exits instead. */
void cts_objmodel_cancel(struct cts_objmodel *m, int tid);
/* Thread is parked by a cond wait or barrier and not yet released. */
bool cts_objmodel_waiting(const struct cts_objmodel *m, int tid);
bool cts_objmodel_thread_exited(const struct cts_objmodel *m, int tid);

/* Why pending cannot run: writes a phrase ("mutex 0x404080 held by thread 1")
 * and returns the thread it waits for, or -1 when no single thread is to blame. */
int cts_objmodel_blocker(const struct cts_objmodel *m, const struct cts_event *pending,
			 char *buf, size_t len);
/* Where the holder of a mutex/write lock took it (call site pc), 0 if unknown. */
uint64_t cts_objmodel_acquired_at(const struct cts_objmodel *m, uint64_t obj);

#endif
