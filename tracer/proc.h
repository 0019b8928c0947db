/* Target memory and /proc views of a traced process. */
#ifndef CTS_PROC_H
#define CTS_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 0 or -1 (errno). process_vm_readv, falling back to PTRACE_PEEKDATA. */
int cts_mem_read(pid_t tid, uint64_t addr, void *buf, size_t len);
/* Through PTRACE_POKEDATA, so it also writes read-only text. */
int cts_mem_write(pid_t tid, uint64_t addr, const void *buf, size_t len);
/* The same through /proc/tid/mem in one write: the thread need not be
 * stopped (a traced process's text, read-only pages included). */
int cts_mem_pwrite(pid_t tid, uint64_t addr, const void *buf, size_t len);
/* Writable data: process_vm_writev, falling back to PTRACE_POKEDATA. */
int cts_mem_write_data(pid_t tid, uint64_t addr, const void *buf, size_t len);
/* Run one system call in pid, stopped at regs, by writing syscall; int3 at
 * code (regs->rip when 0: its 3 bytes are put back after) and continuing to
 * the int3; seccomp stops on the way are passed over. The registers are put
 * back. 0 with the call's result in *ret, or -1 (lost the process). */
struct user_regs_struct;
int cts_inject_syscall(pid_t pid, const struct user_regs_struct *regs, uint64_t code, long nr,
		       const uint64_t args[6], int64_t *ret);
/* pid is at a seccomp stop (a call's entry), where an injected call would
 * run the stopped one with other arguments: run getpid in its place up to
 * its exit stop (*at gets the registers there, where cts_inject_syscall
 * works), then cts_syscall_reenter puts the stopped call back, at its
 * seccomp stop again with regs (one more pass through the filter). A
 * signal that came meanwhile is sent again; a call the tracer skips
 * (orig_rax -1) is not entered again: its registers are put back, for a
 * resume to user space. 0, or -1 (lost the thread). */
int cts_syscall_leave_entry(pid_t pid, const struct user_regs_struct *regs,
			    struct user_regs_struct *at);
int cts_syscall_reenter(pid_t pid, const struct user_regs_struct *regs);
/* pid is at the signal-delivery stop of sig, which has a handler: deliver
 * it with a single step, which stops before the handler's first
 * instruction (the kernel builds the frame first). 0, or -1. */
int cts_step_into_handler(pid_t pid, int sig);
/* NUL-terminated string, truncated to len-1. */
int cts_mem_read_str(pid_t tid, uint64_t addr, char *buf, size_t len);

struct cts_mapping {
	uint64_t lo, hi, off;
	char perms[5];
	char path[256];
};

/* Parse /proc/PID/maps into a malloc'd array. */
int cts_maps_read(pid_t pid, struct cts_mapping **out, size_t *n);
/* The same from an open /proc/PID/maps, read again from its start (pread):
 * one system call where the process has few mappings. */
int cts_maps_read_fd(int fd, struct cts_mapping **out, size_t *n);
/* The block of glibc's main heap ([heap], the brk area) that holds addr, by
 * walking its chunks from the start (at most 1<<20 of them): the block's
 * user address and usable size. 0, or -1 when addr is not in a chunk in use
 * there (another arena, an mmap'd block, the top chunk, not the heap). */
int cts_heap_block(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *size);
/* AT_ENTRY from /proc/PID/auxv, 0 on failure. */
uint64_t cts_auxv_entry(pid_t pid);

/* /proc/PID/comm without its newline, "" if it cannot be read. */
void cts_proc_comm(pid_t pid, char *buf, size_t len);

/* The thread ids in /proc/PID/task, or (cts_proc_pids) the process ids in
 * /proc, in directory order, into a malloc'd array (NULL when empty). 0, or
 * -1 if the directory cannot be opened. */
int cts_proc_tasks(pid_t pid, pid_t **out, size_t *n);
int cts_proc_pids(pid_t **out, size_t *n);

/* Scheduler state letter of a thread ('R' running, 'S' asleep, 'D' disk
 * wait, 't' traced stop, 'Z'...), 0 if it is gone. */
char cts_proc_state(pid_t tid);

/* The "Key:" line of /proc/PID/status (key without the colon) as a decimal
 * number, -1 if the file or the line is missing; text (if not NULL) gets
 * the value as written ("S (sleeping)"). */
long cts_proc_status_field(pid_t pid, const char *key, char *text, size_t len);
/* The process that fd of thread tid names, if it is a pidfd or a /proc/PID
 * directory (what pidfd_send_signal accepts); 0 otherwise. */
pid_t cts_proc_fd_pid(pid_t tid, int fd);

/* A thread's signal masks from /proc/TID/status; bit n-1 is signal n. */
/* A signal's bit in a mask (struct cts_sigstate, PTRACE_SETSIGMASK). */
#define SIGBIT(s) (1ull << ((s) - 1))

struct cts_sigstate {
	uint64_t pnd;   /* pending for the thread */
	uint64_t shd;   /* pending for the process */
	uint64_t blk;   /* blocked */
	uint64_t ign;   /* ignored */
	uint64_t cgt;   /* caught by a handler */
};
int cts_proc_sigstate(pid_t tid, struct cts_sigstate *ss);

#endif
