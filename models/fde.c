#include "models/fde.h"

#include <string.h>

/* A section's header and contents by name; NULL when absent or SHT_NOBITS. */
static Elf_Data *section(Elf *e, const char *want, GElf_Shdr *out)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		const char *name;
		if (gelf_getshdr(scn, out) && out->sh_type != SHT_NOBITS &&
		    (name = elf_strptr(e, shstrndx, out->sh_name)) && strcmp(name, want) == 0)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static int32_t sdata4(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

int cts_fde_ranges(Elf *e, void (*fn)(uint64_t, uint64_t, void *), void *arg)
{
	GElf_Shdr hsh, fsh;
	int n = 0;
	Elf_Data *hdr = section(e, ".eh_frame_hdr", &hsh);
	Elf_Data *frames = section(e, ".eh_frame", &fsh);
	const uint8_t *h = hdr ? hdr->d_buf : NULL, *f = frames ? frames->d_buf : NULL;
	/* The layout every x86-64 linker writes: version 1, eh_frame_ptr
	 * pcrel|sdata4, fde_count udata4, table datarel|sdata4. Anything else
	 * is left to the symbol tables. */
	if (!h || !f || hdr->d_size < 12 || h[0] != 1 || h[1] != 0x1b || h[2] != 0x03 ||
	    h[3] != 0x3b)
		return 0;
	uint32_t count;
	memcpy(&count, h + 8, 4);
	if (count > (hdr->d_size - 12) / 8)
		count = (uint32_t)((hdr->d_size - 12) / 8);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t start = hsh.sh_addr + (uint64_t)(int64_t)sdata4(h + 12 + 8 * i);
		uint64_t fde = hsh.sh_addr + (uint64_t)(int64_t)sdata4(h + 16 + 8 * i);
		uint64_t off = fde - fsh.sh_addr;
		/* length, CIE pointer, pc_begin (pcrel sdata4), pc_range */
		if (fde < fsh.sh_addr || off + 16 > frames->d_size)
			continue;
		const uint8_t *p = f + off;
		uint64_t begin = fde + 8 + (uint64_t)(int64_t)sdata4(p + 8);
		uint32_t len;
		memcpy(&len, p + 12, 4);
		if (begin != start || !len || sdata4(p) == -1)
			continue; /* not the pc_begin encoding assumed: skip it */
		fn(start, len, arg);
		n++;
	}
	return n;
}
