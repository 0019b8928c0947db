#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/objmodel.h"

enum obj_kind { OBJ_ANY = 0, OBJ_MUTEX, OBJ_RWLOCK, OBJ_COND, OBJ_SEM, OBJ_BARRIER };

struct obj {
	uint64_t addr;            /* 0 = empty slot */
	enum obj_kind kind;
	/* mutex, and the writer of a rwlock */
	int owner;
	int depth;                /* recursion depth of owner */
	uint64_t acq_pc;
	enum cts_mutex_kind mkind;
	bool mkind_known;
	/* rwlock readers */
	int nreaders;
	uint8_t *rcount;          /* [rcap] read holds per thread, grown on read locks */
	uint32_t rcap;
	/* semaphore */
	int64_t value;
	bool value_known;
	/* barrier */
	unsigned count, arrived;
};

struct cts_objmodel {
	bool futex_driven;
	struct obj *objs;         /* open addressing, power-of-two capacity */
	size_t cap, used;
	/* Per thread number [tcap], grown by fit(); nth = 1 + highest seen. */
	size_t tcap;
	int nth;
	bool *exited;
	bool *waiting;
	bool *cancelled; /* acts on a cancel at its next cancellation point */
	uint64_t *wait_obj;
	uint64_t *wait_seq;
	uint64_t seq;
};

/* Room for thread tid in the per-thread tables. */
static void fit(struct cts_objmodel *m, int tid)
{
	if ((size_t)tid >= m->tcap) {
		size_t cap = cts_grow_cap(m->tcap, (size_t)tid + 1);
		m->exited = cts_xgrow(m->exited, m->tcap, cap, sizeof(*m->exited));
		m->waiting = cts_xgrow(m->waiting, m->tcap, cap, sizeof(*m->waiting));
		m->cancelled = cts_xgrow(m->cancelled, m->tcap, cap, sizeof(*m->cancelled));
		m->wait_obj = cts_xgrow(m->wait_obj, m->tcap, cap, sizeof(*m->wait_obj));
		m->wait_seq = cts_xgrow(m->wait_seq, m->tcap, cap, sizeof(*m->wait_seq));
		m->tcap = cap;
	}
	if (tid >= m->nth)
		m->nth = tid + 1;
}

static bool known_tid(const struct cts_objmodel *m, int tid)
{
	return tid >= 0 && (size_t)tid < m->tcap;
}

static size_t slot_of(uint64_t addr, size_t cap)
{
	uint64_t h = addr * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 32) & (cap - 1);
}

static const struct obj *find(const struct cts_objmodel *m, uint64_t addr)
{
	if (!addr)
		return NULL;
	for (size_t i = slot_of(addr, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->objs[i].addr == addr)
			return &m->objs[i];
		if (!m->objs[i].addr)
			return NULL;
	}
}

static void grow(struct cts_objmodel *m)
{
	struct obj *old = m->objs;
	size_t oldcap = m->cap;
	m->cap *= 2;
	m->objs = calloc(m->cap, sizeof(*m->objs));
	if (!m->objs)
		abort();
	for (size_t i = 0; i < oldcap; i++) {
		if (!old[i].addr)
			continue;
		size_t j = slot_of(old[i].addr, m->cap);
		while (m->objs[j].addr)
			j = (j + 1) & (m->cap - 1);
		m->objs[j] = old[i];
	}
	free(old);
}

static struct obj *get(struct cts_objmodel *m, uint64_t addr, enum obj_kind kind)
{
	struct obj *o = (struct obj *)find(m, addr);
	if (o) {
		if (o->kind == OBJ_ANY)
			o->kind = kind;
		return o;
	}
	if ((m->used + 1) * 2 > m->cap)
		grow(m);
	size_t i = slot_of(addr, m->cap);
	while (m->objs[i].addr)
		i = (i + 1) & (m->cap - 1);
	o = &m->objs[i];
	memset(o, 0, sizeof(*o));
	o->addr = addr;
	o->kind = kind;
	o->owner = -1;
	m->used++;
	return o;
}

struct cts_objmodel *cts_objmodel_new(bool futex_driven)
{
	struct cts_objmodel *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->futex_driven = futex_driven;
	m->cap = 64;
	m->objs = calloc(m->cap, sizeof(*m->objs));
	if (!m->objs) {
		free(m);
		return NULL;
	}
	return m;
}

static void clear_objs(struct cts_objmodel *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->objs[i].rcount);
	memset(m->objs, 0, m->cap * sizeof(*m->objs));
	m->used = 0;
}

void cts_objmodel_free(struct cts_objmodel *m)
{
	if (!m)
		return;
	clear_objs(m);
	free(m->objs);
	free(m->exited);
	free(m->waiting);
	free(m->cancelled);
	free(m->wait_obj);
	free(m->wait_seq);
	free(m);
}

void cts_objmodel_reset(struct cts_objmodel *m)
{
	clear_objs(m);
	if (m->tcap) {
		memset(m->exited, 0, m->tcap * sizeof(*m->exited));
		memset(m->waiting, 0, m->tcap * sizeof(*m->waiting));
		memset(m->cancelled, 0, m->tcap * sizeof(*m->cancelled));
		memset(m->wait_obj, 0, m->tcap * sizeof(*m->wait_obj));
	}
	m->nth = 0;
	m->seq = 0;
}

void cts_objmodel_set_mutex_kind(struct cts_objmodel *m, uint64_t mutex, enum cts_mutex_kind kind)
{
	struct obj *o = get(m, mutex, OBJ_MUTEX);
	o->mkind = kind;
	o->mkind_known = true;
}

bool cts_objmodel_knows(const struct cts_objmodel *m, uint64_t obj)
{
	const struct obj *o = find(m, obj);
	return o && (o->mkind_known || o->value_known || o->count);
}

void cts_objmodel_set_sem(struct cts_objmodel *m, uint64_t sem, int64_t value)
{
	struct obj *o = get(m, sem, OBJ_SEM);
	o->value = value;
	o->value_known = true;
}

void cts_objmodel_set_barrier(struct cts_objmodel *m, uint64_t barrier, unsigned count)
{
	struct obj *o = get(m, barrier, OBJ_BARRIER);
	o->count = count;
}

/* Can tid's lock/trylock proceed now? An owner relocking a recursive mutex
 * succeeds, and an error-checking lock() returns EDEADLK at once; glibc's
 * trylock by the owner of a non-recursive mutex fails with EBUSY. */
static bool mutex_free_for(const struct obj *o, int tid, cts_op op)
{
	if (!o || o->owner < 0)
		return true;
	if (o->owner != tid)
		return false;
	return o->mkind == CTS_MUTEX_RECURSIVE ||
	       (o->mkind == CTS_MUTEX_ERRORCHECK && op != CTS_OP_TRYLOCK);
}

/* The writer's own rdlock/wrlock return EDEADLK at once (enabled, no
 * acquisition); its try-ops fail with EBUSY. */
static bool rd_ok(const struct obj *o, int tid, cts_op op)
{
	if (!o || o->owner < 0)
		return true;
	return o->owner == tid && op == CTS_OP_RDLOCK;
}

static bool wr_ok(const struct obj *o, int tid, cts_op op)
{
	if (!o)
		return true;
	if (o->owner == tid)
		return op == CTS_OP_WRLOCK;
	return o->owner < 0 && o->nreaders == 0;
}

bool cts_objmodel_available(const struct cts_objmodel *m, const struct cts_event *p)
{
	const struct obj *o = find(m, p->obj);
	switch (p->op) {
	case CTS_OP_LOCK:
	case CTS_OP_TRYLOCK:
		return mutex_free_for(o, p->tid, p->op);
	case CTS_OP_COND_REACQUIRE:
		/* Live: a woken waiter first runs glibc's wake-up bookkeeping
		 * (a broadcaster may be waiting for it) and only then needs the
		 * mutex; value 1 marks a waiter parked on the mutex itself. */
		if (m->futex_driven && !p->value)
			return true;
		return mutex_free_for(find(m, p->obj2), p->tid, CTS_OP_LOCK);
	case CTS_OP_RDLOCK:
	case CTS_OP_TRYRDLOCK:
		return rd_ok(o, p->tid, p->op);
	case CTS_OP_WRLOCK:
	case CTS_OP_TRYWRLOCK:
		return wr_ok(o, p->tid, p->op);
	case CTS_OP_SEM_WAIT:
	case CTS_OP_SEM_TRYWAIT:
		return !o || !o->value_known || o->value > 0;
	case CTS_OP_JOIN:
		return p->target < 0 || (known_tid(m, p->target) && m->exited[p->target]);
	default:
		return true;
	}
}

/* The blocking calls that are cancellation points (pthreads(7)): a thread
 * with a cancel pending does not block there, it unwinds. A parked cond
 * waiter (cond_reacquire on the condition) is inside pthread_cond_wait. */
static bool cancellation_point(const struct cts_event *p)
{
	switch (p->op) {
	case CTS_OP_JOIN:
	case CTS_OP_COND_WAIT:
	case CTS_OP_SEM_WAIT:
	case CTS_OP_SLEEP:
	case CTS_OP_RESUME:
		return true;
	case CTS_OP_COND_REACQUIRE:
		return !p->value;
	default:
		return false;
	}
}

static bool cancels_at(const struct cts_objmodel *m, const struct cts_event *p)
{
	return known_tid(m, p->tid) && m->cancelled[p->tid] &&
	       cancellation_point(p);
}

bool cts_objmodel_enabled(const struct cts_objmodel *m, const struct cts_event *p)
{
	if (cancels_at(m, p)) {
		/* A cancelled cond waiter leaves the wait, but its cleanup
		 * re-takes the mutex: without futexes to show that (the
		 * simulated backend) it needs the mutex free. */
		if (p->op == CTS_OP_COND_REACQUIRE && !m->futex_driven)
			return mutex_free_for(find(m, p->obj2), p->tid, CTS_OP_LOCK);
		return true;
	}
	if (known_tid(m, p->tid) && m->waiting[p->tid])
		return false;
	switch (p->op) {
	case CTS_OP_TRYLOCK:
	case CTS_OP_TRYRDLOCK:
	case CTS_OP_TRYWRLOCK:
	case CTS_OP_SEM_TRYWAIT:
		return true;
	default:
		return cts_objmodel_available(m, p);
	}
}

static void mutex_take(struct obj *o, int tid, uint64_t pc)
{
	if (o->owner == tid) {
		o->depth++;
		return;
	}
	o->owner = tid;
	o->depth = 1;
	o->acq_pc = pc;
}

static int mutex_release(struct obj *o, int tid, bool all)
{
	if (o->owner != tid)
		return EPERM;
	if (all || --o->depth <= 0) {
		o->owner = -1;
		o->depth = 0;
		o->acq_pc = 0;
	}
	return 0;
}

static void wake_one(struct cts_objmodel *m, uint64_t obj)
{
	int best = -1;
	for (int t = 0; t < m->nth; t++)
		if (m->waiting[t] && m->wait_obj[t] == obj &&
		    (best < 0 || m->wait_seq[t] < m->wait_seq[best]))
			best = t;
	if (best >= 0)
		m->waiting[best] = false;
}

static void wake_all(struct cts_objmodel *m, uint64_t obj)
{
	for (int t = 0; t < m->nth; t++)
		if (m->waiting[t] && m->wait_obj[t] == obj)
			m->waiting[t] = false;
}

static void park(struct cts_objmodel *m, int tid, uint64_t obj)
{
	m->waiting[tid] = true;
	m->wait_obj[tid] = obj;
	m->wait_seq[tid] = ++m->seq;
}

void cts_objmodel_apply(struct cts_objmodel *m, struct cts_event *ev)
{
	int tid = ev->tid;
	struct obj *o;

	if (tid < 0)
		return;
	fit(m, tid);
	if (cancels_at(m, ev) && ev->op != CTS_OP_COND_REACQUIRE) {
		/* It unwinds instead: a cond wait's cleanup takes the mutex
		 * back, so it keeps it; a join or sem_wait takes nothing. */
		ev->result = ECANCELED;
		return;
	}
	switch (ev->op) {
	case CTS_OP_LOCK:
	case CTS_OP_TRYLOCK:
		o = get(m, ev->obj, OBJ_MUTEX);
		if (o->owner == tid && o->mkind == CTS_MUTEX_ERRORCHECK && ev->op == CTS_OP_LOCK) {
			ev->result = EDEADLK;
		} else if (mutex_free_for(o, tid, ev->op)) {
			mutex_take(o, tid, ev->pc);
			ev->result = 0;
		} else {
			ev->result = ev->op == CTS_OP_TRYLOCK ? EBUSY : ETIMEDOUT;
		}
		break;
	case CTS_OP_UNLOCK:
		o = get(m, ev->obj, OBJ_MUTEX);
		ev->result = mutex_release(o, tid, false);
		break;
	case CTS_OP_RDLOCK:
	case CTS_OP_TRYRDLOCK:
		o = get(m, ev->obj, OBJ_RWLOCK);
		if (o->owner == tid) {
			ev->result = ev->op == CTS_OP_RDLOCK ? EDEADLK : EBUSY;
		} else if (rd_ok(o, tid, ev->op)) {
			if ((uint32_t)tid >= o->rcap) {
				size_t cap = cts_grow_cap(o->rcap, (size_t)tid + 1);
				o->rcount = cts_xgrow(o->rcount, o->rcap, cap, 1);
				o->rcap = (uint32_t)cap;
			}
			o->rcount[tid]++;
			o->nreaders++;
			ev->result = 0;
		} else {
			ev->result = ev->op == CTS_OP_TRYRDLOCK ? EBUSY : ETIMEDOUT;
		}
		break;
	case CTS_OP_WRLOCK:
	case CTS_OP_TRYWRLOCK:
		o = get(m, ev->obj, OBJ_RWLOCK);
		if (o->owner == tid) {
			ev->result = ev->op == CTS_OP_WRLOCK ? EDEADLK : EBUSY;
		} else if (wr_ok(o, tid, ev->op)) {
			o->owner = tid;
			o->depth = 1;
			o->acq_pc = ev->pc;
			ev->result = 0;
		} else {
			ev->result = ev->op == CTS_OP_TRYWRLOCK ? EBUSY : ETIMEDOUT;
		}
		break;
	case CTS_OP_RWUNLOCK:
		o = get(m, ev->obj, OBJ_RWLOCK);
		if (o->owner == tid) {
			o->owner = -1;
			o->depth = 0;
			ev->result = 0;
		} else if ((uint32_t)tid < o->rcap && o->rcount[tid]) {
			o->rcount[tid]--;
			o->nreaders--;
			ev->result = 0;
		} else {
			ev->result = EPERM;
		}
		break;
	case CTS_OP_COND_WAIT:
		get(m, ev->obj, OBJ_COND);
		ev->result = mutex_release(get(m, ev->obj2, OBJ_MUTEX), tid, true);
		if (ev->result == 0) /* EPERM: glibc returns at once */
			park(m, tid, ev->obj);
		break;
	case CTS_OP_COND_REACQUIRE:
		o = get(m, ev->obj2, OBJ_MUTEX);
		m->waiting[tid] = false; /* woken, or a timed wait giving up */
		if (mutex_free_for(o, tid, CTS_OP_LOCK)) {
			mutex_take(o, tid, ev->pc);
			ev->result = 0;
		} else {
			ev->result = EBUSY;
		}
		break;
	case CTS_OP_COND_SIGNAL:
		get(m, ev->obj, OBJ_COND);
		if (!m->futex_driven)
			wake_one(m, ev->obj);
		break;
	case CTS_OP_COND_BROADCAST:
		get(m, ev->obj, OBJ_COND);
		if (!m->futex_driven)
			wake_all(m, ev->obj);
		break;
	case CTS_OP_SEM_INIT:
		cts_objmodel_set_sem(m, ev->obj, (int64_t)ev->value);
		break;
	case CTS_OP_SEM_WAIT:
	case CTS_OP_SEM_TRYWAIT:
		o = get(m, ev->obj, OBJ_SEM);
		if (!o->value_known || o->value > 0) {
			if (o->value_known)
				o->value--;
			ev->result = 0;
		} else {
			ev->result = ev->op == CTS_OP_SEM_TRYWAIT ? EAGAIN : ETIMEDOUT;
		}
		break;
	case CTS_OP_SEM_POST:
		o = get(m, ev->obj, OBJ_SEM);
		if (o->value_known)
			o->value++;
		break;
	case CTS_OP_BARRIER_INIT:
		o = get(m, ev->obj, OBJ_BARRIER);
		o->count = (unsigned)ev->value;
		o->arrived = 0;
		break;
	case CTS_OP_BARRIER_WAIT:
		o = get(m, ev->obj, OBJ_BARRIER);
		o->arrived++;
		ev->result = 0;
		if (o->count && o->arrived >= o->count) {
			o->arrived = 0;
			ev->result = -1; /* PTHREAD_BARRIER_SERIAL_THREAD */
			if (!m->futex_driven)
				wake_all(m, ev->obj);
		} else if (!m->futex_driven) {
			park(m, tid, ev->obj);
		}
		break;
	case CTS_OP_THREAD_EXIT:
		m->exited[tid] = true;
		m->cancelled[tid] = false;
		break;
	default:
		break;
	}
}

void cts_objmodel_cancel(struct cts_objmodel *m, int tid)
{
	if (tid >= 0) {
		fit(m, tid);
		m->cancelled[tid] = true;
	}
}

void cts_objmodel_cond_woken(struct cts_objmodel *m, int tid)
{
	if (known_tid(m, tid))
		m->waiting[tid] = false;
}

bool cts_objmodel_waiting(const struct cts_objmodel *m, int tid)
{
	return known_tid(m, tid) && m->waiting[tid];
}

bool cts_objmodel_thread_exited(const struct cts_objmodel *m, int tid)
{
	return known_tid(m, tid) && m->exited[tid];
}

uint64_t cts_objmodel_acquired_at(const struct cts_objmodel *m, uint64_t obj)
{
	const struct obj *o = find(m, obj);
	return o && o->owner >= 0 ? o->acq_pc : 0;
}

int cts_objmodel_blocker(const struct cts_objmodel *m, const struct cts_event *p, char *buf,
			 size_t len)
{
	const struct obj *o;
	int tid = p->tid;

	if (known_tid(m, tid) && m->waiting[tid]) {
		o = find(m, m->wait_obj[tid]);
		if (o && o->kind == OBJ_BARRIER)
			snprintf(buf, len, "barrier 0x%" PRIx64 " (%u of %u arrived)", o->addr,
				 o->arrived, o->count);
		else
			snprintf(buf, len, "condition 0x%" PRIx64 " (no signal pending)",
				 m->wait_obj[tid]);
		return -1;
	}
	switch (p->op) {
	case CTS_OP_LOCK:
	case CTS_OP_COND_REACQUIRE: {
		uint64_t mu = p->op == CTS_OP_LOCK ? p->obj : p->obj2;
		o = find(m, mu);
		if (o && o->owner >= 0) {
			snprintf(buf, len, "mutex 0x%" PRIx64 " held by thread %d", mu, o->owner);
			return o->owner;
		}
		snprintf(buf, len, "mutex 0x%" PRIx64, mu);
		return -1;
	}
	case CTS_OP_RDLOCK:
	case CTS_OP_WRLOCK:
		o = find(m, p->obj);
		if (o && o->owner >= 0) {
			snprintf(buf, len, "rwlock 0x%" PRIx64 " write-held by thread %d", p->obj,
				 o->owner);
			return o->owner;
		}
		if (o && o->nreaders > 0 && o->rcount) {
			for (int t = 0; t < (int)o->rcap; t++)
				if (o->rcount[t]) {
					snprintf(buf, len, "rwlock 0x%" PRIx64 " read-held by thread %d",
						 p->obj, t);
					return t;
				}
		}
		snprintf(buf, len, "rwlock 0x%" PRIx64, p->obj);
		return -1;
	case CTS_OP_SEM_WAIT:
		snprintf(buf, len, "semaphore 0x%" PRIx64 " (value 0)", p->obj);
		return -1;
	case CTS_OP_JOIN:
		snprintf(buf, len, "thread %d to exit", p->target);
		return p->target;
	default:
		snprintf(buf, len, "%s 0x%" PRIx64, cts_op_name(p->op), p->obj);
		return -1;
	}
}
