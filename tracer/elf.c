#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "models/error.h"
#include "tracer/elf.h"

static Elf *open_elf(const char *path, int *fd)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	Elf *e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		close(*fd);
		*fd = -1;
	}
	return e;
}

static void close_elf(Elf *e, int fd)
{
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
}

static bool past(uint64_t off, uint64_t len, uint64_t size)
{
	return off > size || len > size - off;
}

/* What the kernel or the loader would trip over: headers or segments cut
 * off by truncation, an entry point outside the executable code. */
static bool damaged(Elf *e, const GElf_Ehdr *eh, uint64_t size, char *why, size_t len)
{
	size_t nph = 0;
	if (past(eh->e_phoff, (uint64_t)eh->e_phnum * eh->e_phentsize, size) ||
	    elf_getphdrnum(e, &nph) != 0) {
		snprintf(why, len, "truncated (program headers past the end of the file)");
		return true;
	}
	bool entry_ok = false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph)) {
			snprintf(why, len, "unreadable program header %zu", i);
			return true;
		}
		if (ph.p_type != PT_LOAD && ph.p_type != PT_INTERP && ph.p_type != PT_DYNAMIC)
			continue;
		if (past(ph.p_offset, ph.p_filesz, size)) {
			snprintf(why, len, "truncated (segment %zu ends at byte %llu, the file has %llu)",
				 i, (unsigned long long)ph.p_offset + ph.p_filesz,
				 (unsigned long long)size);
			return true;
		}
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && eh->e_entry >= ph.p_vaddr &&
		    eh->e_entry - ph.p_vaddr < ph.p_filesz)
			entry_ok = true;
	}
	if (!entry_ok) {
		snprintf(why, len, "entry point 0x%llx is not in an executable segment",
			 (unsigned long long)eh->e_entry);
		return true;
	}
	if (eh->e_shoff && past(eh->e_shoff, (uint64_t)eh->e_shnum * eh->e_shentsize, size)) {
		snprintf(why, len, "truncated (section headers past the end of the file)");
		return true;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    past(sh.sh_offset, sh.sh_size, size)) {
			snprintf(why, len, "truncated (section %zu ends past the end of the file)",
				 elf_ndxscn(scn));
			return true;
		}
	}
	return false;
}

enum cts_elf_problem cts_elf_check(const char *path, struct cts_elf_info *info, char *err,
				   size_t errlen)
{
	struct stat sb;
	unsigned char ident[EI_NIDENT];
	enum cts_elf_problem p = CTS_ELF_OK;
	int fd = -1;
	Elf *e = NULL;

	memset(info, 0, sizeof(*info));
	if (stat(path, &sb) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return CTS_ELF_NOFILE;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return CTS_ELF_NOEXEC;
	}
	if (access(path, X_OK) != 0) {
		snprintf(err, errlen, "%s: not executable (%s)", path, strerror(errno));
		return CTS_ELF_NOEXEC;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return CTS_ELF_NOFILE;
	}
	if (read(fd, ident, sizeof(ident)) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0) {
		snprintf(err, errlen, "%s: not an ELF executable (a script? run its interpreter "
			 "under cts-trace instead)", path);
		close(fd);
		return CTS_ELF_NOTELF;
	}
	if (ident[EI_CLASS] != ELFCLASS64) {
		snprintf(err, errlen, "%s: 32-bit ELF; cts traces x86-64 programs only", path);
		close(fd);
		return CTS_ELF_32BIT;
	}
	close(fd);
	e = open_elf(path, &fd);
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh)) {
		snprintf(err, errlen, "%s: unreadable ELF header", path);
		close_elf(e, fd);
		return CTS_ELF_NOTELF;
	}
	if (eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s: not an x86-64 program (ELF machine %d)", path,
			 eh.e_machine);
		close_elf(e, fd);
		return CTS_ELF_NOTX86;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		snprintf(err, errlen, "%s: not an executable (ELF type %d)", path, eh.e_type);
		close_elf(e, fd);
		return CTS_ELF_NOTELF;
	}
	info->pie = eh.e_type == ET_DYN;
	info->entry = eh.e_entry;
	char why[160];
	if (damaged(e, &eh, (uint64_t)sb.st_size, why, sizeof(why))) {
		snprintf(err, errlen, "%s: not a valid program: %s", path, why);
		close_elf(e, fd);
		return CTS_ELF_INVALID;
	}
	size_t nph;
	bool interp = false;
	if (elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
				interp = true;
		}
	}
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			const char *name = elf_strptr(e, shstrndx, sh.sh_name);
			if (name && (strcmp(name, ".debug_info") == 0 ||
				     strcmp(name, ".gnu_debuglink") == 0))
				info->debug_info = true;
		}
	}
	if (!interp) {
		snprintf(err, errlen,
			 "%s: statically linked; cts needs the dynamic libc to catch pthread calls "
			 "(link it dynamically; futex-level scheduling would still see raw futex "
			 "calls, but lock/unlock names and asserts would be lost)", path);
		p = CTS_ELF_STATIC;
	}
	close_elf(e, fd);
	return p;
}

/* versym bit 15 marks a non-default (hidden) version such as name@GLIBC_2.2.5. */
static bool default_version(Elf_Data *versym, size_t idx)
{
	GElf_Versym vs;
	if (!versym || !gelf_getversym(versym, (int)idx, &vs))
		return true;
	return !(vs & 0x8000);
}

/* Call fn for every defined symbol of the sections of one type (SHT_DYNSYM
 * or SHT_SYMTAB) with its name and index; returns how many fn accepted. */
static int each_symbol(Elf *e, GElf_Word type,
		       bool (*fn)(const GElf_Sym *sym, const char *name, size_t idx, void *arg),
		       void *arg)
{
	int taken = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; data && i < count; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value || !(name = elf_strptr(e, sh.sh_link, sym.st_name)))
				continue;
			taken += fn(&sym, name, i, arg);
		}
	}
	return taken;
}

struct lookup_ctx {
	const char *const *names;
	int n;
	uint64_t *values, *sizes;
	Elf_Data *versym;   /* NULL: accept every version (.symtab) */
};

static bool lookup_one(const GElf_Sym *sym, const char *name, size_t idx, void *arg)
{
	struct lookup_ctx *c = arg;
	bool took = false;
	if (c->versym && !default_version(c->versym, idx))
		return false;
	for (int i = 0; i < c->n; i++) {
		if (c->values[i] || strcmp(name, c->names[i]) != 0)
			continue;
		c->values[i] = sym->st_value;
		if (c->sizes)
			c->sizes[i] = sym->st_size;
		took = true;
	}
	return took;
}

int cts_elf_lookup(const char *path, const char *const *names, int n, uint64_t *values,
		   uint64_t *sizes)
{
	int fd, found = 0;
	Elf *e = open_elf(path, &fd);
	if (!e)
		return -1;
	for (int i = 0; i < n; i++) {
		values[i] = 0;
		if (sizes)
			sizes[i] = 0;
	}
	Elf_Data *versym = NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			versym = elf_getdata(scn, NULL);
	}
	struct lookup_ctx c = { names, n, values, sizes, versym };
	found = each_symbol(e, SHT_DYNSYM, lookup_one, &c);
	c.versym = NULL;
	found += each_symbol(e, SHT_SYMTAB, lookup_one, &c);
	close_elf(e, fd);
	return found;
}

/* ---- libraries a program needs, for cts_elf_find_symbol ---- */

#define MAX_LIBS 64

struct lib_queue {
	char *path[MAX_LIBS];
	int n;
};

static bool queued(const struct lib_queue *q, const char *path)
{
	for (int i = 0; i < q->n; i++)
		if (strcmp(q->path[i], path) == 0)
			return true;
	return false;
}

/* The first dir of a ':'-separated list holding name, in buf. */
static bool search_dirs(const char *list, const char *origin, const char *name, char *buf,
			size_t len)
{
	while (list && *list) {
		const char *colon = strchr(list, ':');
		size_t dlen = colon ? (size_t)(colon - list) : strlen(list);
		if (dlen >= 7 && strncmp(list, "$ORIGIN", 7) == 0)
			snprintf(buf, len, "%s%.*s/%s", origin, (int)(dlen - 7), list + 7, name);
		else if (dlen)
			snprintf(buf, len, "%.*s/%s", (int)dlen, list, name);
		else
			buf[0] = 0;
		if (buf[0] && access(buf, R_OK) == 0)
			return true;
		list = colon ? colon + 1 : list + dlen;
	}
	return false;
}

static const char system_lib_dirs[] = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
				      "/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";

/* Queue the DT_NEEDED libraries of the file at path that can be found. */
static void queue_needed(struct lib_queue *q, const char *path)
{
	int fd;
	Elf *e = open_elf(path, &fd);
	if (!e)
		return;
	char origin[4096];
	const char *slash = strrchr(path, '/');
	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? path : ".");
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t count = sh.sh_size / sh.sh_entsize;
		const char *runpath = NULL;
		for (size_t i = 0; data && i < count; i++) {
			GElf_Dyn d;
			if (gelf_getdyn(data, (int)i, &d) &&
			    (d.d_tag == DT_RUNPATH || (d.d_tag == DT_RPATH && !runpath)))
				runpath = elf_strptr(e, sh.sh_link, d.d_un.d_val);
		}
		for (size_t i = 0; data && i < count && q->n < MAX_LIBS; i++) {
			GElf_Dyn d;
			const char *name;
			char buf[4096];
			if (!gelf_getdyn(data, (int)i, &d) || d.d_tag != DT_NEEDED ||
			    !(name = elf_strptr(e, sh.sh_link, d.d_un.d_val)))
				continue;
			if (strchr(name, '/'))
				snprintf(buf, sizeof(buf), "%s", name);
			else if (!search_dirs(getenv("LD_LIBRARY_PATH"), origin, name, buf, sizeof(buf)) &&
				 !search_dirs(runpath, origin, name, buf, sizeof(buf)) &&
				 !search_dirs(system_lib_dirs, origin, name, buf, sizeof(buf)))
				continue;
			if (!queued(q, buf))
				q->path[q->n++] = cts_xstrdup(buf);
		}
	}
	close_elf(e, fd);
}

int cts_elf_find_symbol(const char *path, const char *name, uint64_t *value, uint64_t *size,
			char *where, size_t wherelen)
{
	struct lib_queue q = { .n = 0 };
	int rc = -1;
	const char *const names[1] = { name };
	q.path[q.n++] = cts_xstrdup(path);
	for (int i = 0; i < q.n; i++) {
		if (cts_elf_lookup(q.path[i], names, 1, value, size) > 0) {
			if (where)
				snprintf(where, wherelen, "%s", q.path[i]);
			rc = 0;
			break;
		}
		queue_needed(&q, q.path[i]);
	}
	for (int i = 0; i < q.n; i++)
		free(q.path[i]);
	return rc;
}

/* The first PT_LOAD's page: load bias = mapping base - this. */
static uint64_t lowest_load(Elf *e)
{
	size_t nph;
	uint64_t lowest = UINT64_MAX;
	if (elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
				lowest = ph.p_vaddr & ~(uint64_t)0xfff;
		}
	}
	return lowest == UINT64_MAX ? 0 : lowest;
}

struct range_ctx {
	uint64_t lo, hi;
	void (*fn)(uint64_t, uint64_t, void *);
	void *arg;
};

static bool range_one(const GElf_Sym *sym, const char *name, size_t idx, void *arg)
{
	struct range_ctx *c = arg;
	(void)name, (void)idx;
	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size || sym->st_value < c->lo ||
	    sym->st_value + sym->st_size > c->hi)
		return false;
	c->fn(sym->st_value, sym->st_size, c->arg);
	return true;
}

int cts_elf_code_ranges(const char *path, uint64_t *lowest_vaddr,
			void (*fn)(uint64_t, uint64_t, void *), void *arg)
{
	int fd, n = 0;
	size_t shstrndx;
	Elf *e = open_elf(path, &fd);
	if (!e)
		return -1;
	*lowest_vaddr = lowest_load(e);
	uint64_t text_lo = 0, text_hi = 0;
	if (elf_getshdrstrndx(e, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;
			const char *name;
			if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
			    strcmp(name, ".text") == 0) {
				text_lo = sh.sh_addr;
				text_hi = sh.sh_addr + sh.sh_size;
			}
		}
	}
	if (text_lo == text_hi) {
		close_elf(e, fd);
		return 0;
	}
	/* Prefer .symtab (all functions), else .dynsym (exported ones). */
	struct range_ctx c = { text_lo, text_hi, fn, arg };
	n = each_symbol(e, SHT_SYMTAB, range_one, &c);
	if (!n)
		n = each_symbol(e, SHT_DYNSYM, range_one, &c);
	if (!n) {
		fn(text_lo, text_hi - text_lo, arg);
		n = 1;
	}
	close_elf(e, fd);
	return n;
}

/* A section's header and contents by name; NULL when absent. */
static Elf_Data *section_named(Elf *e, const char *want, GElf_Shdr *out)
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

int cts_elf_fde_ranges(const char *path, uint64_t *lowest_vaddr,
		       void (*fn)(uint64_t, uint64_t, void *), void *arg)
{
	int fd, n = 0;
	GElf_Shdr hsh, fsh;
	Elf *e = open_elf(path, &fd);
	if (!e)
		return -1;
	*lowest_vaddr = lowest_load(e);
	Elf_Data *hdr = section_named(e, ".eh_frame_hdr", &hsh);
	Elf_Data *frames = section_named(e, ".eh_frame", &fsh);
	const uint8_t *h = hdr ? hdr->d_buf : NULL, *f = frames ? frames->d_buf : NULL;
	/* The layout every x86-64 linker writes: version 1, eh_frame_ptr
	 * pcrel|sdata4, fde_count udata4, table datarel|sdata4. Anything else
	 * is left to the symbol tables. */
	if (!h || !f || hdr->d_size < 12 || h[0] != 1 || h[1] != 0x1b || h[2] != 0x03 ||
	    h[3] != 0x3b) {
		close_elf(e, fd);
		return 0;
	}
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
	close_elf(e, fd);
	return n;
}

bool cts_elf_script(const char *path, char *interp, size_t len)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(line, sizeof(line), f) && line[0] == '#' && line[1] == '!';
	fclose(f);
	if (!ok)
		return false;
	char *p = line + 2;
	p += strspn(p, " \t");
	size_t n = strcspn(p, " \t\r\n");
	if (!n)
		return false;
	p[n] = 0;
	snprintf(interp, len, "%s", p);
	return true;
}

/* fn(name, slot, arg) for each JUMP_SLOT and GLOB_DAT relocation of a named
 * symbol, until fn returns true. Returns true when fn did. */
static bool each_got_slot(Elf *e, bool (*fn)(const char *name, uint64_t slot, void *arg),
			  void *arg)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh, symsh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		Elf_Scn *symscn = elf_getscn(e, sh.sh_link);
		Elf_Data *rel = elf_getdata(scn, NULL), *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!rel || !syms || !gelf_getshdr(symscn, &symsh))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			unsigned type;
			if (!gelf_getrela(rel, (int)i, &r))
				continue;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(e, symsh.sh_link, sym.st_name)) || !*name)
				continue;
			if (fn(name, r.r_offset, arg))
				return true;
		}
	}
	return false;
}

struct slot_query {
	uint64_t slot;
	const char *name;
};

static bool slot_is(const char *name, uint64_t slot, void *arg)
{
	struct slot_query *q = arg;
	if (slot != q->slot)
		return false;
	q->name = name;
	return true;
}

/* GOT slot -> imported symbol name; NULL when the slot is not one. */
static const char *got_name(Elf *e, uint64_t slot)
{
	struct slot_query q = { .slot = slot };
	each_got_slot(e, slot_is, &q);
	return q.name;
}

struct got_ctx {
	void (*fn)(const char *name, uint64_t slot, void *arg);
	void *arg;
	int n;
};

static bool got_each(const char *name, uint64_t slot, void *arg)
{
	struct got_ctx *c = arg;
	c->fn(name, slot, c->arg);
	c->n++;
	return false;
}

int cts_elf_got_slots(const char *path, uint64_t *lowest_vaddr,
		      void (*fn)(const char *name, uint64_t slot, void *arg), void *arg)
{
	int fd;
	Elf *e = open_elf(path, &fd);
	if (!e)
		return -1;
	*lowest_vaddr = lowest_load(e);
	struct got_ctx c = { .fn = fn, .arg = arg };
	each_got_slot(e, got_each, &c);
	close_elf(e, fd);
	return c.n;
}

int cts_elf_plt_stubs(const char *path, uint64_t *lowest_vaddr,
		      void (*fn)(const char *name, uint64_t stub, void *arg), void *arg)
{
	int fd, n = 0;
	size_t shstrndx;
	Elf *e = open_elf(path, &fd);
	if (!e)
		return -1;
	*lowest_vaddr = lowest_load(e);
	if (elf_getshdrstrndx(e, &shstrndx) != 0) {
		close_elf(e, fd);
		return -1;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *sname;
		if (!gelf_getshdr(scn, &sh) || !(sname = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    (strcmp(sname, ".plt") != 0 && strcmp(sname, ".plt.sec") != 0 &&
		     strcmp(sname, ".plt.got") != 0))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		uint64_t esz = sh.sh_entsize ? sh.sh_entsize : 16;
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		const unsigned char *b = d->d_buf;
		/* Each stub is one entry holding jmp *disp32(%rip) (ff 25). */
		for (uint64_t off = 0; off + esz <= sh.sh_size; off += esz) {
			for (uint64_t j = off; j + 6 <= off + esz; j++) {
				if (b[j] != 0xff || b[j + 1] != 0x25)
					continue;
				int32_t disp;
				memcpy(&disp, b + j + 2, 4);
				const char *name = got_name(e, sh.sh_addr + j + 6 + (int64_t)disp);
				if (name && *name) {
					fn(name, sh.sh_addr + off, arg);
					n++;
				}
				break;
			}
		}
	}
	close_elf(e, fd);
	return n;
}
