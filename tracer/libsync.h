/* Atomic instructions inside untraced libraries as synchronization (break
 * and step mode), and the program's own, counted in sync mode. Internal to
 * the live backend. */
#ifndef CTS_LIBSYNC_H
#define CTS_LIBSYNC_H

#include <stddef.h>
#include "disasm/disasm.h"
#include "tracer/proc.h"
#include "tracer/tracer_int.h"

/* Create an access breakpoint on every atomic instruction (locked RMW, xchg
 * with memory) of each library mapped in maps that is neither libc, ld.so,
 * the program nor a --trace-lib library. Returns how many were created. */
int cts_libsync_scan(struct cts_tracer *tr, struct cts_disasm *dis,
		     const struct cts_mapping *maps, size_t n);

/* Sync mode: how many atomic instructions the program's own text and the
 * --trace-lib libraries hold (none is planted: sync mode does not see them). */
int cts_libsync_count_own(struct cts_tracer *tr, struct cts_disasm *dis,
			  const struct cts_mapping *maps, size_t n);

#endif
