/* Classic BPF as seccomp runs it: the program's own filters, copied from its
 * memory when it installs them (pfilter.h), evaluated on a system call cts
 * models instead of letting the program make it. A leaf helper: no ptrace. */
#ifndef CTS_BPF_H
#define CTS_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* The kernel's limit on one filter (BPF_MAXINSNS). */
#define CTS_BPF_MAXINSNS 4096

/* Would the kernel accept f as a seccomp filter (net/core/filter.c's
 * bpf_check_classic and kernel/seccomp.c's seccomp_check_filter: the
 * instructions seccomp allows, loads of aligned words of struct
 * seccomp_data, jumps forward and in range, no division by a zero
 * constant, scratch memory written before it is read, a return last)?
 * 0, or -1 with why in err. */
int cts_bpf_check(const struct sock_filter *f, size_t n, char *err, size_t errlen);

/* Run a filter cts_bpf_check accepted on d: the 32-bit value it returns
 * (an action in the high 16 bits, data in the low ones). As the kernel's
 * translation does, a division by a zero X register ends the program with
 * 0 (SECCOMP_RET_KILL_THREAD), and shifts by X take its low 5 bits. */
uint32_t cts_bpf_run(const struct sock_filter *f, size_t n, const struct seccomp_data *d);

/* The action of a return value as the kernel orders them: a more
 * restrictive action compares lower (SECCOMP_RET_KILL_PROCESS lowest). An
 * action the kernel does not know counts as SECCOMP_RET_KILL_PROCESS, as
 * it does since Linux 4.14. */
int32_t cts_bpf_action(uint32_t ret);

/* "KILL_PROCESS", "ERRNO", ... for messages. */
const char *cts_bpf_action_name(uint32_t ret);

#endif
