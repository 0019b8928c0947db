/* Attach mode, `cts-trace -p PID`: seize every thread of a running process,
 * diagnose what each is blocked on (a deadlock already in progress is a
 * bug), run it under the scheduler for a while through int3 breakpoints
 * only (no seccomp filter: one cannot be removed), then detach leaving the
 * process as it was (docs/design.md, "Attach mode"). */
#ifndef CTS_ATTACH_H
#define CTS_ATTACH_H

struct cts_cli;

/* The whole attach session for cli->attach_pid; returns the exit status
 * (0 no bug, 1 bug, 2 bad input or an option attach mode lacks, 3 internal
 * error, 130 interrupted). The process is detached on every path. */
int cts_attach_main(const struct cts_cli *cli);

#endif
