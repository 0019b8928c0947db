#include <errno.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include "tracer/access.h"

/* Placeholder until issue 3 lands: sync mode only. */
int cts_access_init(struct cts_tracer *tr, char *err, size_t errlen)
{
	if (tr->cfg.mode != CTS_MODE_SYNC) {
		snprintf(err, errlen, "--mode break/step: not available yet");
		return -1;
	}
	return 0;
}

void cts_access_fini(struct cts_tracer *tr) { (void)tr; }
int cts_access_setup(struct cts_tracer *tr) { (void)tr; return 0; }
int cts_access_hit(struct cts_tracer *tr, struct thread *th, struct bp *b) { (void)tr; (void)th; (void)b; return -1; }
int cts_access_execute(struct cts_tracer *tr, struct thread *th, struct cts_event *done) { (void)tr; (void)th; (void)done; return -1; }
int cts_access_after_step(struct cts_tracer *tr, struct thread *th) { (void)tr; (void)th; return -1; }
int cts_access_single_step(struct cts_tracer *tr, struct thread *th) { (void)tr; return ptrace(PTRACE_CONT, th->tid, 0, 0); }
int cts_access_watch_setup(struct cts_tracer *tr, struct thread *main_th) { (void)tr; (void)main_th; return 0; }
void cts_access_watch_thread(struct cts_tracer *tr, struct thread *th) { (void)tr; (void)th; }
int cts_access_watch_hit(struct cts_tracer *tr, struct thread *th) { (void)tr; return ptrace(PTRACE_CONT, th->tid, 0, 0); }
