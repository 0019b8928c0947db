/* The schedule file: a run's scheduling decisions, saved for every bug and
 * replayed exactly with --replay. Format: docs/schedule-format.md. */
#ifndef CTS_SCHEDULE_H
#define CTS_SCHEDULE_H

#include <stddef.h>
#include <stdio.h>
#include "models/event.h"

#define CTS_SCHEDULE_VERSION 1
#define CTS_SCHEDULE_MAX_WATCH 4        /* the four debug registers */
#define CTS_SCHEDULE_MAX_TRACE_LIBS 16
/* cts_schedule_load reads at most this much (a 100,000-step run is ~3 MB). */
#define CTS_SCHEDULE_MAX_BYTES (256u << 20)

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
	/* Options that change how a run goes, so --replay runs as the exploration
	 * did. Absent from older files: NULL, 0 or -1 ("not recorded"). */
	char *races;          /* "off", "report", "fail", "catch" or "catch-fail" */
	char *catch_opts;     /* --races catch: "sites=N window=N seed=N", NULL */
	uint64_t max_steps;   /* step budget; 0 = not recorded */
	double timeout;       /* per-run seconds (0 = no limit); < 0 = not recorded */
	int fail_on_exit;     /* 0 or 1; -1 = not recorded */
	int isolate;          /* 1: the run was isolated (tracer/isolate.h), 0 not; -1 = not recorded */
	int nwatch;
	char **watch;         /* --watch specs, at most CTS_SCHEDULE_MAX_WATCH */
	int ntrace_libs;
	char **trace_libs;    /* --trace-lib names, at most CTS_SCHEDULE_MAX_TRACE_LIBS */
	char *instance;       /* --instance spec the run was restricted to (strategies/tiles.h), NULL */
	/* break/step mode with cold reads (tracer/cold.h): the lines read visibly
	 * from the start, "0x4040,0x4080" ("none": no line); NULL: an older
	 * file, or cold reads off: every shared read was visible */
	char *hot_lines;
	/* The run made a plain access a thread repeated while it alone could
	 * move no step (strategies/explorer.h quiet_repeats); false in older
	 * files, which replay with every such access a step. */
	bool quiet_repeats;
	/* How the program was started, so --replay starts it the same way (a
	 * symlink's name, argv[0] and the environment move main's stack). Absent
	 * from older files: NULL. */
	char *exec_path;      /* the path exec'd, as given or found on PATH (unresolved) */
	char *argv0;          /* the program's argv[0] */
	char *cwd;            /* the working directory */
	char *binary;         /* the program file: "size=N fnv1a=HEX" */
	char *env;            /* the environment: "count=N bytes=N fnv1a=HEX" */
	char *stdio;          /* what the program's stdout and stderr were, "null null"
	                       * (tracer/native.h cts_native_fd_kind) */
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
/* Append to the watch / trace-lib list; -1 when the list is full. */
int cts_schedule_add_watch(struct cts_schedule *s, const char *spec);
int cts_schedule_add_trace_lib(struct cts_schedule *s, const char *name);
/* Copy the run options (races ... trace_libs) of src into dst. */
void cts_schedule_copy_options(struct cts_schedule *dst, const struct cts_schedule *src);

/* 0 on success; -1 with a one-line reason ("FILE:LINE: ...") in err. */
int cts_schedule_parse(const char *text, const char *name, struct cts_schedule **out,
		       char *err, size_t errlen);
/* Reads regular files and pipes, at most CTS_SCHEDULE_MAX_BYTES; devices,
 * directories and binary data are refused before much is read. */
int cts_schedule_load(const char *path, struct cts_schedule **out, char *err, size_t errlen);
/* The file's text; 0, or -1 with errno (a write error of f). */
int cts_schedule_write(const struct cts_schedule *s, FILE *f);
/* Written atomically (temp file + rename), replacing path. 0 or -1 with errno. */
int cts_schedule_save(const struct cts_schedule *s, const char *path);
/* Saved as DIR/STEM-N.sched with the smallest N whose name is free, written
 * completely before the name appears and never over an existing file (two
 * cts-trace processes sharing DIR get distinct names). The name is put in
 * path. 0, or -1 with errno. */
int cts_schedule_save_new(const struct cts_schedule *s, const char *dir, const char *stem,
			  char *path, size_t pathlen);

#endif
