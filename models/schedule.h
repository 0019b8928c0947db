/* The schedule file: a run's scheduling decisions, saved for every bug and
 * replayed exactly with --replay. Format: docs/schedule-format.md. */
#ifndef CTS_SCHEDULE_H
#define CTS_SCHEDULE_H

#include <stddef.h>
#include "models/event.h"

#define CTS_SCHEDULE_VERSION 1

struct cts_sched_step {
	int tid;       /* thread chosen */
	cts_op op;     /* its pending operation, checked on replay */
	uint64_t obj;  /* the operation's object/address, checked on replay */
};

struct cts_schedule {
	char *program;     /* absolute path, may be NULL */
	int argc;
	char **argv;       /* program arguments after argv[0] */
	char *mode;        /* sync/break/step */
	char *strategy;    /* free text: how the run was found */
	char *bug;         /* one-line bug description, may be NULL */
	size_t n, cap;
	struct cts_sched_step *steps;
};

struct cts_schedule *cts_schedule_new(void);
void cts_schedule_free(struct cts_schedule *s);
void cts_schedule_clear_steps(struct cts_schedule *s);
void cts_schedule_add(struct cts_schedule *s, int tid, cts_op op, uint64_t obj);
/* Replace a string field (copies). */
void cts_schedule_set(char **field, const char *value);
void cts_schedule_set_args(struct cts_schedule *s, int argc, char *const *argv);

/* 0 on success; -1 with a one-line reason ("FILE:LINE: ...") in err. */
int cts_schedule_parse(const char *text, const char *name, struct cts_schedule **out,
		       char *err, size_t errlen);
int cts_schedule_load(const char *path, struct cts_schedule **out, char *err, size_t errlen);
/* Written atomically (temp file + rename). 0 or -1 with errno. */
int cts_schedule_save(const struct cts_schedule *s, const char *path);

#endif
