/* x86-64 memory protection keys (PKU) of a traced thread: the mechanism that
 * makes break mode's page ownership free at a context switch (docs/design.md,
 * "Break mode on memory ownership"). A page carries one of 16 keys; each
 * thread's PKRU register says, per key, whether it may read (AD, access
 * disable) and write (WD, write disable) pages with that key. PKRU belongs to
 * the thread (it is XSAVE state component 9), so the tracer sets each
 * thread's rights once, with PTRACE_SETREGSET NT_X86_XSTATE, and a denied
 * access faults with SIGSEGV, si_code SEGV_PKUERR, si_pkey the key, which the
 * tracer sees as a signal-delivery stop before the program does. Accesses
 * through /proc/PID/mem (foreign) ignore PKRU; a system call made by the
 * thread itself does not (copy_from_user checks it: EFAULT).
 * All calls that take a tid need that thread ptrace-stopped by us; they
 * return -1 with errno set on failure. */
#ifndef CTS_PKEY_H
#define CTS_PKEY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CTS_PKEY_COUNT 16
/* si_code of a protection-key fault (SEGV_PKUERR in newer headers). */
#define CTS_SEGV_PKUERR 4

/* Probed once: the CPU has PKU, the kernel enabled it (OSPKE), pkey_alloc
 * works, and PKRU sits in the XSAVE layout ptrace gives. why gets the
 * reason when not (may be NULL). CTS_NO_PKEYS set: never (for testing the
 * machines without keys). */
bool cts_pkey_available(const char **why);

/* A thread's PKRU, read or written through its XSAVE area. */
int cts_pkey_get(pid_t tid, uint32_t *pkru);
int cts_pkey_set(pid_t tid, uint32_t pkru);

/* PKRU bits: key k's access-disable bit is 2k, its write-disable bit 2k+1. */
static inline uint32_t cts_pkru_deny(uint32_t pkru, int key)
{
	return pkru | (UINT32_C(1) << (2 * key));
}
static inline uint32_t cts_pkru_readonly(uint32_t pkru, int key)
{
	return (pkru & ~(UINT32_C(1) << (2 * key))) | (UINT32_C(1) << (2 * key + 1));
}
static inline uint32_t cts_pkru_allow(uint32_t pkru, int key)
{
	return pkru & ~(UINT32_C(3) << (2 * key));
}

#endif
