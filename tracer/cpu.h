/* Which CPU a tracer runs on. A tracer and its tracee share one CPU (they
 * inherit the pin): a ptrace stop's round trip across CPUs is 8-15 times
 * slower. */
#ifndef CTS_CPU_H
#define CTS_CPU_H

/* Pins this process to the n-th CPU it may use (round robin): --jobs
 * worker n. */
void cts_cpu_pin_nth(unsigned n);

/* Pins this process, unless it may use one CPU only (a --jobs worker, or
 * taskset), to the allowed CPU the fewest other tracers (processes of this
 * program's name) are pinned to; of those, the one it runs on if it can. So
 * tracers started side by side (GNU parallel, --shard) spread over the CPUs
 * instead of all staying where they started. */
void cts_cpu_pin_least_used(void);

#endif
