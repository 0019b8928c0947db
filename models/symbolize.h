/* Symbolization of a live traced process with libdwfl: pc -> function,
 * file:line, module; data address -> global symbol; symbol name -> address;
 * the k innermost frames of a stopped thread.
 *
 * One handle per process for its whole life: what a Dwfl loads (ELF symbol
 * indexes, DWARF; ~150 ms for libc with libc6-dbg) is what makes later
 * lookups cheap, so a Dwfl per stop would run at ~22 stops/s.  Modules are re-read only on cts_sym_refresh (call it after
 * new executable mappings: dlopen).  After an exec, make a new handle.
 * Every returned string is owned by the handle and stays valid until
 * cts_sym_free (strings are interned, so they survive refreshes). */
#ifndef CTS_SYMBOLIZE_H
#define CTS_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cts_sym;

struct cts_srcloc {
	const char *func;     /* ELF symbol containing pc, NULL if none */
	uint64_t func_off;    /* pc - symbol start */
	const char *file;     /* source file as recorded in DWARF (often absolute), NULL if no line info */
	int line;             /* 0 if no line info */
	const char *comp_dir; /* its compilation directory, which a relative file is
	                       * relative to; NULL if unknown */
	const char *module;   /* path of the mapped file, NULL if pc is in no module */
	uint64_t module_off;  /* pc - load bias: the address addr2line -e module wants */
};

/* Reports the modules of /proc/PID/maps.  NULL on failure (errno set). */
struct cts_sym *cts_sym_new(pid_t pid);
void cts_sym_free(struct cts_sym *s);

/* Re-read the process's mappings (after mmap/dlopen).  Unchanged modules keep
 * their loaded debug info; the pc cache is emptied.  0 or -1. */
int cts_sym_refresh(struct cts_sym *s);

/* 0 and *out filled if pc lies in a module (func, file may still be NULL);
 * -1 with *out zeroed otherwise.  Cached by pc. */
int cts_sym_pc(struct cts_sym *s, uint64_t pc, struct cts_srcloc *out);

/* "func+0x12 (file.c:34)", "func (file.c:34)", "func+0x12 (libx.so)",
 * "libx.so+0x1234" or "0x7f..." (file and module shown by base name;
 * symbol versions "@GLIBC_x" dropped). */
char *cts_sym_format(struct cts_sym *s, uint64_t pc, char *buf, size_t len);

/* Same for a frame of cts_sym_stack: frames above the innermost (caller
 * true) hold return addresses, so the line is looked up at pc-1, the call
 * instruction, while the offset printed is still that of pc. */
char *cts_sym_format_frame(struct cts_sym *s, uint64_t pc, int caller, char *buf, size_t len);

/* The pcs of the max innermost frames of thread tid, innermost first: pcs[0]
 * is where the thread stands, the others are return addresses.  The caller
 * must hold every thread of the process ptrace-stopped (libdwfl reads
 * registers and memory through ptrace and assumes nothing moves).  Returns
 * the number of frames (>= 1), or -1. */
int cts_sym_stack(struct cts_sym *s, pid_t tid, uint64_t *pcs, int max);

/* Data address -> "symbol" or "symbol+0xoff" from the ELF symbol tables
 * (globals and file statics).  0, or -1 if no symbol contains addr. */
int cts_sym_data(struct cts_sym *s, uint64_t addr, char *buf, size_t len);

/* Defined function or object symbol -> run-time address and st_size.  The
 * main executable is searched first, then the other modules.  A global (or
 * default-version "name@@V") definition beats a file static, which beats an
 * old version "name@V".  0, or -1 (errno ENOENT) if not found. */
int cts_sym_lookup(struct cts_sym *s, const char *name, uint64_t *addr, uint64_t *size);

#endif
