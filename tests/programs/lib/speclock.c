/* speclock.c — a lock that libc knows nothing about, in a shared library
 * built stripped (libspeclock.so: only sl_lock and sl_unlock keep a
 * symbol).  Drepper's futex mutex ("Futexes Are Tricky", mutex 3): 0 free, 1
 * locked, 2 locked with waiters.  The fast path is one `lock cmpxchg`; the
 * contended path, a static function only the unwind tables know once the
 * library is stripped, spins a little with `pause` and then sleeps in
 * FUTEX_WAIT; unlock is an `xchg` and a FUTEX_WAKE when someone waits.  For
 * tests/programs/lib_lock(_ok): cts must take these atomics for
 * synchronization without seeing the library's symbols. */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void sl_lock(int *l);
void sl_unlock(int *l);

static __attribute__((noinline)) void lock_slow(int *l)
{
	for (int i = 0; i < 16; i++) {
		int c = 0;
		if (__atomic_compare_exchange_n(l, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		__builtin_ia32_pause();
	}
	while (__atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, l, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void sl_lock(int *l)
{
	int c = 0;
	if (!__atomic_compare_exchange_n(l, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		lock_slow(l);
}

void sl_unlock(int *l)
{
	if (__atomic_exchange_n(l, 0, __ATOMIC_RELEASE) == 2)
		syscall(SYS_futex, l, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
