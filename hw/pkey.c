#include "hw/pkey.h"

#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define XSAVE_MAX 16384
#define XSTATE_BV 512          /* offset of the XSAVE header's component bitmap */
#define XFEATURE_PKRU 9

static int probed;             /* 0 not yet, 1 yes, -1 no */
static const char *probe_why;
static unsigned pkru_off;      /* PKRU's offset in the standard XSAVE layout */

static void probe(void)
{
	unsigned a, b, c, d;
	probed = -1;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(c & (1u << 3))) {
		probe_why = "the CPU has no protection keys (no pku)";
		return;
	}
	if (!(c & (1u << 4))) {
		probe_why = "the kernel did not enable protection keys (no ospke)";
		return;
	}
	if (!__get_cpuid_count(0xd, XFEATURE_PKRU, &a, &b, &c, &d) || a < 4 || b < XSTATE_BV + 64) {
		probe_why = "PKRU is not in the XSAVE area";
		return;
	}
	pkru_off = b;
	long k = syscall(SYS_pkey_alloc, 0, 0);
	if (k < 0) {
		probe_why = errno == ENOSPC ? "no protection key free" :
			    "pkey_alloc(2) failed (a kernel without protection keys)";
		return;
	}
	syscall(SYS_pkey_free, k);
	probed = 1;
}

bool cts_pkey_available(const char **why)
{
	/* As a machine without keys would (the suite's other mechanism). */
	if (getenv("CTS_NO_PKEYS")) {
		if (why)
			*why = "CTS_NO_PKEYS is set";
		return false;
	}
	if (!probed)
		probe();
	if (why)
		*why = probed > 0 ? NULL : probe_why;
	return probed > 0;
}

static _Alignas(64) unsigned char xsave[XSAVE_MAX];

/* The thread's XSAVE area in xsave; its size, or 0. */
static size_t read_xsave(pid_t tid)
{
	struct iovec iov = { xsave, sizeof(xsave) };
	if (!cts_pkey_available(NULL)) {
		errno = ENOTSUP;
		return 0;
	}
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) != 0)
		return 0;
	if (iov.iov_len < pkru_off + 4) {
		errno = ENOTSUP;
		return 0;
	}
	return iov.iov_len;
}

int cts_pkey_get(pid_t tid, uint32_t *pkru)
{
	uint64_t bv;
	if (!read_xsave(tid))
		return -1;
	memcpy(&bv, xsave + XSTATE_BV, sizeof(bv));
	/* A component in its initial state may be left out: PKRU's is 0. */
	if (bv & (UINT64_C(1) << XFEATURE_PKRU))
		memcpy(pkru, xsave + pkru_off, sizeof(*pkru));
	else
		*pkru = 0;
	return 0;
}

int cts_pkey_set(pid_t tid, uint32_t pkru)
{
	uint64_t bv;
	size_t n = read_xsave(tid);
	if (!n)
		return -1;
	memcpy(xsave + pkru_off, &pkru, sizeof(pkru));
	memcpy(&bv, xsave + XSTATE_BV, sizeof(bv));
	bv |= UINT64_C(1) << XFEATURE_PKRU;
	memcpy(xsave + XSTATE_BV, &bv, sizeof(bv));
	struct iovec iov = { xsave, n };
	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov) == 0 ? 0 : -1;
}
