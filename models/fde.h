/* Function ranges from the unwind tables (.eh_frame_hdr's FDE search
 * table): the functions of a stripped ELF file, static ones included. The
 * tracer instruments them (tracer/elf.c) and symbolization names them
 * fn_<address> (models/symbolize.c). */
#ifndef CTS_FDE_H
#define CTS_FDE_H

#include <gelf.h>
#include <stdint.h>

/* fn(vaddr, size) for each FDE listed in .eh_frame_hdr (gcc and clang emit
 * one per function, and one per cold part). Returns the number of ranges, 0
 * when e has no .eh_frame_hdr in the layout every x86-64 linker writes. */
int cts_fde_ranges(Elf *e, void (*fn)(uint64_t vaddr, uint64_t size, void *arg), void *arg);

#endif
