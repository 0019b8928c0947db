#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "models/error.h"
#include "models/fde.h"
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

struct exports_ctx {
	void (*fn)(const char *name, void *arg);
	void *arg;
};

static bool export_one(const GElf_Sym *sym, const char *name, size_t idx, void *arg)
{
	struct exports_ctx *c = arg;
	int type = GELF_ST_TYPE(sym->st_info);
	(void)idx;
	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !*name)
		return false;
	c->fn(name, c->arg);
	return true;
}

int cts_elf_exported_functions(const char *path, void (*fn)(const char *name, void *arg), void *arg)
{
	int fd;
	Elf *e = open_elf(path, &fd);
	if (!e)
		return -1;
	struct exports_ctx c = { fn, arg };
	int n = each_symbol(e, SHT_DYNSYM, export_one, &c);
	close_elf(e, fd);
	return n;
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

/* Function ranges inside .text, merged where they overlap. */
struct range_list {
	struct { uint64_t lo, hi; } *v;
	size_t n, cap;
	uint64_t text_lo, text_hi;
};

static void range_push(struct range_list *l, uint64_t vaddr, uint64_t size)
{
	uint64_t lo = vaddr, hi = vaddr + size;
	if (hi < lo || lo < l->text_lo || lo >= l->text_hi)
		return;
	if (hi > l->text_hi)
		hi = l->text_hi;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = cts_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n].lo = lo;
	l->v[l->n++].hi = hi;
}

static void range_fde(uint64_t vaddr, uint64_t size, void *arg)
{
	range_push(arg, vaddr, size);
}

static bool range_sym(const GElf_Sym *sym, const char *name, size_t idx, void *arg)
{
	struct range_list *l = arg;
	size_t before = l->n;
	(void)name, (void)idx;
	if (GELF_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_size)
		range_push(l, sym->st_value, sym->st_size);
	return l->n > before;
}

static int range_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort and merge overlapping ranges (each starts at an instruction
 * boundary, so their union decodes from the first start). */
static void range_merge(struct range_list *l)
{
	size_t k = 0;
	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), range_cmp);
	for (size_t i = 1; i < l->n; i++) {
		if (l->v[i].lo < l->v[k].hi) {
			if (l->v[i].hi > l->v[k].hi)
				l->v[k].hi = l->v[i].hi;
		} else {
			l->v[++k] = l->v[i];
		}
	}
	l->n = k + 1;
}

/* The separate debug file of e installed by build-id (Debian's -dbgsym
 * packages, libc6-dbg): /usr/lib/debug/.build-id/xx/yyyy.debug. */
static bool debug_file(Elf *e, char *buf, size_t len)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off, next;
		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const uint8_t *id = (const uint8_t *)d->d_buf + desc_off;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz >= 2 &&
			    nh.n_descsz <= 64 && memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0) {
				char hex[129];
				for (size_t i = 0; i < nh.n_descsz; i++)
					snprintf(hex + 2 * i, 3, "%02x", id[i]);
				snprintf(buf, len, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
				return access(buf, R_OK) == 0;
			}
			off = next;
		}
	}
	return false;
}

const char *cts_elf_code_source_name(enum cts_elf_code_source s)
{
	switch (s) {
	case CTS_CODE_SYMTAB: return "symbol table";
	case CTS_CODE_DEBUG_FILE: return "debug file";
	case CTS_CODE_UNWIND: return "unwind tables";
	case CTS_CODE_DYNSYM: return "exported symbols";
	case CTS_CODE_TEXT: return "whole .text";
	case CTS_CODE_NONE: break;
	}
	return "none";
}

int cts_elf_code_ranges(const char *path, uint64_t *lowest_vaddr,
			void (*fn)(uint64_t, uint64_t, void *), void *arg, struct cts_elf_code *info)
{
	int fd, dfd = -1;
	size_t shstrndx;
	struct cts_elf_code dummy;
	Elf *e = open_elf(path, &fd), *de = NULL;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	if (!e)
		return -1;
	*lowest_vaddr = lowest_load(e);
	struct range_list l = { 0 };
	if (elf_getshdrstrndx(e, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;
			const char *name;
			if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
			    strcmp(name, ".text") == 0) {
				l.text_lo = sh.sh_addr;
				l.text_hi = sh.sh_addr + sh.sh_size;
			}
		}
	}
	info->text_bytes = l.text_hi - l.text_lo;
	if (l.text_lo == l.text_hi) {
		close_elf(e, fd);
		return 0;
	}
	/* Every function the file knows: .symtab (or the installed debug
	 * file's), joined with the unwind tables, which list the static
	 * functions of a stripped file too; the exported symbols add the
	 * functions without CFI (hand-written assembly). */
	char dpath[160];
	if (each_symbol(e, SHT_SYMTAB, range_sym, &l)) {
		info->source = CTS_CODE_SYMTAB;
	} else if (debug_file(e, dpath, sizeof(dpath)) && (de = open_elf(dpath, &dfd)) &&
		   each_symbol(de, SHT_SYMTAB, range_sym, &l)) {
		info->source = CTS_CODE_DEBUG_FILE;
		snprintf(info->debug_file, sizeof(info->debug_file), "%s", dpath);
	}
	close_elf(de, dfd);
	if (cts_fde_ranges(e, range_fde, &l) && !info->source)
		info->source = CTS_CODE_UNWIND;
	if (each_symbol(e, SHT_DYNSYM, range_sym, &l) && !info->source)
		info->source = CTS_CODE_DYNSYM;
	if (!l.n)
		info->source = CTS_CODE_TEXT;
	range_merge(&l);
	info->functions = (int)l.n;
	for (size_t i = 0; i < l.n; i++)
		info->function_bytes += l.v[i].hi - l.v[i].lo;
	/* Code between the known functions (start-up code, assembly without
	 * CFI, the functions of a file stripped of its unwind tables too) is
	 * decoded linearly from the end of the function before it: an
	 * instruction boundary, and the padding after it decodes as nops. */
	size_t known = l.n;
	uint64_t at = l.text_lo;
	for (size_t i = 0; i <= known; i++) {
		uint64_t next = i < known ? l.v[i].lo : l.text_hi;
		if (next > at) {
			range_push(&l, at, next - at);
			info->gap_bytes += next - at;
		}
		if (i < known)
			at = l.v[i].hi;
	}
	range_merge(&l);
	for (size_t i = 0; i < l.n; i++)
		fn(l.v[i].lo, l.v[i].hi - l.v[i].lo, arg);
	int n = (int)l.n;
	free(l.v);
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

/* fn(e, section) for each section of path that occupies memory and is
 * named in names (NULL-ended). Returns how many, -1 when path is no ELF. */
static int each_named_section(const char *path, const char *const *names, uint64_t *lowest_vaddr,
			      void (*fn)(Elf *e, const GElf_Shdr *sh, Elf_Scn *scn, void *arg),
			      void *arg)
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
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size ||
		    !(sname = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		for (const char *const *w = names; *w; w++)
			if (strcmp(sname, *w) == 0) {
				fn(e, &sh, scn, arg);
				n++;
				break;
			}
	}
	close_elf(e, fd);
	return n;
}

struct stub_ctx {
	void (*fn)(const char *name, uint64_t stub, void *arg);
	void *arg;
	int n;
};

static void plt_section(Elf *e, const GElf_Shdr *sh, Elf_Scn *scn, void *arg)
{
	struct stub_ctx *c = arg;
	Elf_Data *d = elf_getdata(scn, NULL);
	uint64_t esz = sh->sh_entsize ? sh->sh_entsize : 16;
	if (!d || !d->d_buf || d->d_size < sh->sh_size)
		return;
	const unsigned char *b = d->d_buf;
	/* Each stub is one entry holding jmp *disp32(%rip) (ff 25). */
	for (uint64_t off = 0; off + esz <= sh->sh_size; off += esz) {
		for (uint64_t j = off; j + 6 <= off + esz; j++) {
			if (b[j] != 0xff || b[j + 1] != 0x25)
				continue;
			int32_t disp;
			memcpy(&disp, b + j + 2, 4);
			const char *name = got_name(e, sh->sh_addr + j + 6 + (int64_t)disp);
			if (name && *name) {
				c->fn(name, sh->sh_addr + off, c->arg);
				c->n++;
			}
			break;
		}
	}
}

int cts_elf_plt_stubs(const char *path, uint64_t *lowest_vaddr,
		      void (*fn)(const char *name, uint64_t stub, void *arg), void *arg)
{
	static const char *const plt[] = { ".plt", ".plt.sec", ".plt.got", NULL };
	struct stub_ctx c = { .fn = fn, .arg = arg };
	return each_named_section(path, plt, lowest_vaddr, plt_section, &c) < 0 ? -1 : c.n;
}

struct range_ctx {
	void (*fn)(uint64_t vaddr, uint64_t size, void *arg);
	void *arg;
};

static void section_range(Elf *e, const GElf_Shdr *sh, Elf_Scn *scn, void *arg)
{
	(void)e, (void)scn;
	struct range_ctx *c = arg;
	c->fn(sh->sh_addr, sh->sh_size, c->arg);
}

int cts_elf_sections(const char *path, const char *const *names, uint64_t *lowest_vaddr,
		     void (*fn)(uint64_t vaddr, uint64_t size, void *arg), void *arg)
{
	struct range_ctx c = { .fn = fn, .arg = arg };
	return each_named_section(path, names, lowest_vaddr, section_range, &c);
}
