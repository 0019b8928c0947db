/* Suspects of active testing (Joshi, Naik, Park, Sen, CAV 2009): what an
 * imprecise phase-1 analysis (or the user, with --break) names, for a
 * phase-2 scheduler to make happen for real. A "statement" is a pc (an
 * instruction for accesses, the call site for lock calls) and its calling
 * context: the return addresses of the --context K frames above it (all
 * zero: any context, as with --context 0); addresses are
 * the run-time ones, which repeat across runs because cts runs programs
 * without address-space randomization. The list is saved and loaded as
 * JSON (--suspects, --suspects-from; docs/report-format.md). */
#ifndef CTS_SUSPECTS_H
#define CTS_SUSPECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

enum cts_suspect_kind {
	CTS_SUSPECT_RACE = 0,   /* pc[0], pc[1]: two accesses, one a write, no common lock,
	                         * unordered by fork/join and signal-wait (hybrid detection) */
	CTS_SUSPECT_DEADLOCK,   /* ncomp components of a lock-order cycle (iGoodlock) */
	CTS_SUSPECT_ATOMICITY,  /* pc: [0] lock, [1] read of x, [2] re-lock, [3] write of x */
	CTS_SUSPECT_BREAK,      /* user breakpoints: pc[i] .. pc_end[i] are partners */
};

#define CTS_SUSPECT_MAX_PCS 8
#define CTS_SUSPECT_MAX_CYCLE 4 /* longest lock cycle searched */
#define CTS_SUSPECT_CTX 4       /* longest context kept (= CTS_CTX_MAX) */

/* A lock or thread as a later run will see it again: a heap lock by its
 * allocation site (the malloc call's pc) and offset in the block, a static
 * lock by its address; a thread by the pc of the pthread_create that made
 * it (0 for the main thread). */
struct cts_lock_abs {
	uint64_t site;
	uint64_t off;
	bool heap;
};

/* One thread of a deadlock cycle: holding `held`, it acquires `want` at pc
 * `at`; the next component holds `want`. */
struct cts_cycle_comp {
	uint64_t thread;          /* creation site */
	struct cts_lock_abs held, want;
	uint64_t at;
	uint64_t ctx[CTS_SUSPECT_CTX];  /* at's callers */
	/* Bit d (1 <= d < ncomp): this thread takes the held lock of component
	 * (i + d) % ncomp before it gets to its own acquisition (phase 1 saw
	 * it, or a phase-2 run thrashed on it), so pausing that component's
	 * thread while it holds its lock would block this one short of the
	 * cycle. Relative, so a rotated cycle keeps it; not part of equality. */
	uint8_t needs;
	/* times[d]: how many times it takes that lock before its acquisition
	 * (the most a run showed); 0: not known, until it gets there. */
	uint16_t times[CTS_SUSPECT_MAX_CYCLE];
};

struct cts_suspect {
	enum cts_suspect_kind kind;
	int npcs;
	uint64_t pc[CTS_SUSPECT_MAX_PCS];
	uint64_t pc_end[CTS_SUSPECT_MAX_PCS]; /* break ranges: [pc, pc_end); else pc + 1 */
	uint64_t ctx[CTS_SUSPECT_MAX_PCS][CTS_SUSPECT_CTX]; /* pc[i]'s callers, innermost first */
	char spec[256];                       /* break: the user's text */
	int ncomp;                            /* deadlock */
	struct cts_cycle_comp comp[CTS_SUSPECT_MAX_CYCLE];
	struct cts_lock_abs lock;             /* atomicity: the lock */
	/* phase 2 */
	uint64_t tries;                       /* runs that targeted it */
	uint64_t confirmed;                   /* runs in which it happened for real */
	uint64_t first_run;                   /* run of the first confirmation */
};

struct cts_suspects;

struct cts_suspects *cts_suspects_new(void);
void cts_suspects_free(struct cts_suspects *l);
int cts_suspects_count(const struct cts_suspects *l);
struct cts_suspect *cts_suspects_get(struct cts_suspects *l, int i);
const struct cts_suspect *cts_suspects_at(const struct cts_suspects *l, int i);
/* Append unless an equal suspect (same kind and statements) is listed;
 * returns its index either way (an equal cycle's needs are merged in). */
int cts_suspects_add(struct cts_suspects *l, const struct cts_suspect *s);
/* Does a statement's context (want, as a suspect lists it) admit the
 * context got of a thread that stands at its pc? All zero admits any. */
bool cts_suspect_ctx_match(const uint64_t *want, const uint64_t *got);
/* How many of the given kind (-1: all) were confirmed at least once. */
int cts_suspects_confirmed(const struct cts_suspects *l, int kind);

/* Unconfirmed suspects phase 2 never got to (a bug stopped the exploration). */
int cts_suspects_untried(const struct cts_suspects *l);

const char *cts_suspect_kind_name(enum cts_suspect_kind k);

/* pc -> "func (file:line)" for the JSON; may be NULL. */
typedef void (*cts_describe_fn)(void *ctx, uint64_t pc, char *buf, size_t len);

/* {"suspects": n, "confirmed": c, "unconfirmed": u, "untried": t, "list": [...]};
 * new reference. */
json_t *cts_suspects_json(const struct cts_suspects *l, cts_describe_fn describe, void *ctx);
/* Write the JSON to path (pretty). 0, or -1 with a reason in err. */
int cts_suspects_save(const struct cts_suspects *l, const char *path, cts_describe_fn describe,
		      void *ctx, char *err, size_t errlen);
/* Read a list written by cts_suspects_save (tries and confirmations start
 * at zero). NULL with a reason in err. */
struct cts_suspects *cts_suspects_load(const char *path, char *err, size_t errlen);

#endif
