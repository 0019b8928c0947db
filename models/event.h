/* Visible operations of a program thread: the unit every other module talks in. */
#ifndef CTS_EVENT_H
#define CTS_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Threads are numbered 0,1,2... in creation order and never reused (a
 * schedule's identities); schedules never hold OS tids. Thread tables grow
 * on demand; a run may create at most --max-threads threads (default
 * CTS_THREADS_DEFAULT, at most CTS_THREADS_CEILING), counting every thread
 * ever created. */
#define CTS_THREADS_DEFAULT 65536
#define CTS_THREADS_CEILING (1 << 24)

typedef enum cts_op {
	CTS_OP_NONE = 0,
	CTS_OP_START,         /* a new thread's first step */
	CTS_OP_CREATE,        /* pthread_create; target = new thread once known */
	CTS_OP_JOIN,          /* pthread_join; obj = pthread_t, target = joined thread */
	CTS_OP_THREAD_EXIT,   /* thread is about to leave (pthread_exit or return) */
	CTS_OP_PROC_EXIT,     /* exit() / exit_group: the run ends */
	CTS_OP_LOCK,          /* mutex lock (also timedlock, spin lock) */
	CTS_OP_TRYLOCK,       /* mutex/spin trylock; result = 0 acquired, else busy */
	CTS_OP_UNLOCK,
	CTS_OP_RDLOCK,
	CTS_OP_WRLOCK,
	CTS_OP_TRYRDLOCK,
	CTS_OP_TRYWRLOCK,
	CTS_OP_RWUNLOCK,
	CTS_OP_COND_WAIT,     /* obj = cond, obj2 = mutex: release m, wait on c */
	CTS_OP_COND_REACQUIRE,/* woken cond waiter taking its mutex back (obj2) */
	CTS_OP_COND_SIGNAL,
	CTS_OP_COND_BROADCAST,
	CTS_OP_BARRIER_INIT,  /* value = count */
	CTS_OP_BARRIER_WAIT,
	CTS_OP_SEM_INIT,      /* value = initial count */
	CTS_OP_SEM_WAIT,      /* also timedwait */
	CTS_OP_SEM_TRYWAIT,
	CTS_OP_SEM_POST,
	CTS_OP_YIELD,
	CTS_OP_SLEEP,
	CTS_OP_FUTEX_WAIT,    /* custom futex: obj = uaddr, value = expected */
	CTS_OP_FUTEX_WAKE,    /* obj = uaddr, value = max woken; result = woken */
	CTS_OP_READ,          /* shared memory: obj = address, size, value */
	CTS_OP_WRITE,
	CTS_OP_RMW,           /* non-atomic read-modify-write */
	CTS_OP_ATOMIC,        /* locked RMW: synchronizes on obj */
	CTS_OP_RESUME,        /* thread parked inside a sync call (barrier) continues; obj = object */
	CTS_OP_CANCEL,        /* pthread_cancel; obj = pthread_t, target = cancelled thread */
	/* Blocking system calls (tracer/syscall.c, docs/design.md "Blocking system calls"). */
	CTS_OP_SIGNAL,        /* kill/tkill/tgkill/sigqueue: obj = signal, target = thread or -1 */
	CTS_OP_SIGWAIT,       /* sigwait/sigwaitinfo/sigtimedwait: value = the set waited for */
	CTS_OP_SIGSUSPEND,    /* sigsuspend/pause: value = the mask while waiting */
	CTS_OP_IO,            /* a call that may block on a pipe, socket, poll...: obj = fd or 0,
	                       * value = syscall number */
	CTS_OP_IO_RETURN,     /* back from such a call that blocked outside the schedule */
	/* Library calls (fn names the callee): a range [obj, obj + size) the
	 * callee reads or writes, as ThreadSanitizer's interceptors see them. */
	CTS_OP_LIB_READ,
	CTS_OP_LIB_WRITE,
	CTS_OP_FREE,          /* the heap block ends its life: conflicts like a write */
	CTS_OP_ALLOC,         /* the block starts its life (range known once executed) */
	CTS_OP__COUNT
} cts_op;

struct cts_event {
	int tid;          /* normalized thread number */
	cts_op op;
	uint64_t obj;     /* object or memory address */
	uint64_t obj2;    /* cond_wait's mutex */
	uint64_t pc;      /* call site (sync ops) or instruction address (accesses) */
	uint64_t value;   /* value read/written, counts, futex expected value */
	uint32_t size;    /* access size in bytes */
	int target;       /* thread named by create/join, -1 if none */
	int result;       /* outcome of try-ops (0 = success), futex wake count */
	bool timed;       /* timedlock/timedwait: may give up instead of blocking */
	const char *fn;   /* library call events: the callee's name (static string) */
};

const char *cts_op_name(cts_op op);
/* Inverse of cts_op_name; CTS_OP_NONE when unknown. */
cts_op cts_op_from_name(const char *name);

/* An instruction's access: READ, WRITE, RMW, ATOMIC. */
bool cts_op_is_access(cts_op op);
/* Touches the memory range [obj, obj + size): accesses and library calls. */
bool cts_op_is_range(cts_op op);
/* A library call's range: LIB_READ, LIB_WRITE, FREE, ALLOC. */
bool cts_op_is_libcall(cts_op op);
/* Writes its range: WRITE, RMW, ATOMIC, LIB_WRITE, FREE, ALLOC. */
bool cts_op_is_write(cts_op op);
/* Object operations that synchronize on ev->obj (locks, conds, sems, barriers, futexes). */
bool cts_op_is_sync(cts_op op);
/* Signals and blocking system calls: all of them meet in the kernel, so any
 * two are dependent and ordered (one object, not per fd or per signal). */
bool cts_op_is_kernel(cts_op op);
/* That one object, for indexes keyed by object (no real address). */
#define CTS_KERNEL_OBJ 0xfffffffffffffff0ull
/* Name of a system call an io op performs, and whether its first argument is an fd. */
const char *cts_syscall_name(long nr);
bool cts_syscall_has_fd(long nr);
bool cts_syscall_waits_signal(long nr);  /* sigtimedwait, sigsuspend, pause */

/* Dependence used by DPOR and friends: same thread, conflicting range
 * accesses (instructions or library calls) to overlapping bytes, operations on
 * the same sync object, create/join with the thread they name. */
bool cts_event_dependent(const struct cts_event *a, const struct cts_event *b);

/* Short human form: "lock 0x4040a0". Returns buf. */
char *cts_event_str(const struct cts_event *ev, char *buf, size_t len);

void cts_event_init(struct cts_event *ev, int tid, cts_op op);

#endif
