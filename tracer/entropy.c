/* getrandom(2) from a generator restarted at every run, the way rr makes
 * nondeterministic system calls replayable: every run (and every replay)
 * sees the same bytes in the same order, so a program whose behaviour
 * depends on them (Python's randomized hash seed, and with it the order of
 * its dict and set iteration) makes the same operations under the same
 * schedule. The call is skipped at its seccomp stop and the buffer filled
 * here. Reads of /dev/urandom are not intercepted: they are plain reads of
 * a character device. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "strategies/strategy.h"
#include "tracer/proc.h"
#include "tracer/run_int.h"

int cts_tr_on_getrandom(struct cts_tracer *tr, struct thread *th)
{
	uint64_t buf = th->regs.rdi;
	size_t len = (size_t)th->regs.rsi;
	if (len > 1 << 20)
		len = 1 << 20; /* a short read, as the kernel may give */
	uint8_t *bytes = cts_xmalloc(len ? len : 1);
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = cts_splitmix64(&tr->entropy);
		memcpy(bytes + i, &v, len - i < 8 ? len - i : 8);
	}
	long ret = (long)len;
	if (len && cts_mem_write_data(th->tid, buf, bytes, len) != 0)
		ret = -EFAULT;
	free(bytes);
	cts_tr_skip_syscall(th, ret);
	return cts_tr_resume(tr, th, 0);
}
