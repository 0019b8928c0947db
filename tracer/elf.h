/* ELF facts the tracer needs before and after exec: is this a program we can
 * trace, and where do named functions live (dynamic symbols of libc). */
#ifndef CTS_ELF_H
#define CTS_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cts_elf_problem {
	CTS_ELF_OK = 0,
	CTS_ELF_NOFILE,       /* does not exist / cannot open */
	CTS_ELF_NOEXEC,       /* no execute permission / not a regular file */
	CTS_ELF_NOTELF,
	CTS_ELF_32BIT,
	CTS_ELF_NOTX86,
	CTS_ELF_STATIC,       /* no PT_INTERP: statically linked */
	CTS_ELF_INVALID,      /* truncated, or no executable code at the entry point */
};

struct cts_elf_info {
	bool pie;             /* ET_DYN */
	bool debug_info;      /* has .debug_info (or a .gnu_debuglink) */
	uint64_t entry;
};

enum cts_elf_problem cts_elf_check(const char *path, struct cts_elf_info *info, char *err,
				   size_t errlen);

/* Does the file start with "#!"? Then interp gets the interpreter's path. */
bool cts_elf_script(const char *path, char *interp, size_t len);

/* Look up n names among the default-version dynamic symbols (and .symtab
 * when present) of the ELF file at path; values[i] = st_value or 0 when
 * missing, sizes[i] = st_size (sizes may be NULL). Returns how many were found, -1 on error. */
int cts_elf_lookup(const char *path, const char *const *names, int n, uint64_t *values,
		   uint64_t *sizes);

/* fn(name) for every function the ELF file at path defines in .dynsym (what
 * it exports). Returns how many, -1 on error. */
int cts_elf_exported_functions(const char *path, void (*fn)(const char *name, void *arg),
			       void *arg);

/* A symbol's place before the program runs: the program's own symbol
 * tables first, then those of the libraries it needs (DT_NEEDED, breadth
 * first, searched along LD_LIBRARY_PATH, DT_RUNPATH/DT_RPATH and the system
 * library directories), as cts_elf_lookup sees them. 0 with the symbol's
 * st_value in that file, its st_size and the file's path in where (may be
 * NULL); -1 when no file defines it. */
int cts_elf_find_symbol(const char *path, const char *name, uint64_t *value, uint64_t *size,
			char *where, size_t wherelen);

/* Where the function boundaries of the traced code came from. */
enum cts_elf_code_source {
	CTS_CODE_NONE,        /* no .text */
	CTS_CODE_SYMTAB,      /* .symtab: every function */
	CTS_CODE_DEBUG_FILE,  /* the .symtab of a debug file found by build-id */
	CTS_CODE_UNWIND,      /* stripped: the FDEs of .eh_frame_hdr */
	CTS_CODE_DYNSYM,      /* stripped, no unwind tables: exported functions only */
	CTS_CODE_TEXT,        /* nothing at all: .text decoded as one range */
};

struct cts_elf_code {
	enum cts_elf_code_source source;
	int functions;           /* functions known, overlaps merged */
	uint64_t text_bytes;     /* size of .text */
	uint64_t function_bytes; /* bytes inside those functions */
	uint64_t gap_bytes;      /* the rest of .text, decoded linearly */
	char debug_file[160];    /* CTS_CODE_DEBUG_FILE: its path */
};

const char *cts_elf_code_source_name(enum cts_elf_code_source s);

/* Code worth instrumenting: fn(vaddr, size) for every function inside
 * .text: those of .symtab (or, stripped, of the installed debug file's),
 * of the unwind tables and of .dynsym, overlaps merged; and for each stretch
 * of .text between them, which is decoded linearly from the end of the
 * function before it (a linear sweep of a whole mapping would run through
 * PLT stubs and data out of step with the instruction boundaries).
 * *lowest_vaddr gets the first PT_LOAD's address (load bias = mapping base
 * - lowest_vaddr); info (may be NULL) says where the function bounds came
 * from and how much of .text they cover. Returns the number of ranges, -1
 * on error. */
int cts_elf_code_ranges(const char *path, uint64_t *lowest_vaddr,
			void (*fn)(uint64_t vaddr, uint64_t size, void *arg), void *arg,
			struct cts_elf_code *info);

/* The program's (or a library's) PLT stubs: fn(name, vaddr) for every stub
 * that jumps through the GOT slot of an imported function (.plt, .plt.sec,
 * .plt.got). *lowest_vaddr as above. Returns the number of stubs, -1 on error. */
int cts_elf_plt_stubs(const char *path, uint64_t *lowest_vaddr,
		      void (*fn)(const char *name, uint64_t stub, void *arg), void *arg);

/* The GOT slots of imported functions (JUMP_SLOT and GLOB_DAT relocations):
 * fn(name, slot vaddr). Code built without a PLT (-fno-plt, and Rust, which
 * calls libc through `call *slot(%rip)`) reaches them this way only.
 * *lowest_vaddr as above. Returns the number of slots, -1 on error. */
int cts_elf_got_slots(const char *path, uint64_t *lowest_vaddr,
		      void (*fn)(const char *name, uint64_t slot, void *arg), void *arg);

/* fn(vaddr, size) for each section of path named in names (NULL-ended) that
 * occupies memory. *lowest_vaddr as above. Returns how many, -1 on error. */
int cts_elf_sections(const char *path, const char *const *names, uint64_t *lowest_vaddr,
		     void (*fn)(uint64_t vaddr, uint64_t size, void *arg), void *arg);

#endif
