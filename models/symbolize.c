/* libdwfl symbolization of a live process (see symbolize.h).
 *
 * Function names come from a per-module sorted index of the ELF symbol
 * table, built on first use: libdwfl's own dwfl_module_addrinfo scans the
 * whole table on every call (120-340 us inside libc with libc6-dbg).  File
 * and line come from libdw's line tables.  Results are cached by pc. */
#include "models/symbolize.h"

#include "models/fde.h"
#include "models/htab.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sym_ent {
	uint64_t addr, size;
	const char *name;   /* in the module's string table, or interned if cut at '@' */
};

/* Kept in the Dwfl_Module's userdata slot, freed when the module goes. */
struct mod_index {
	struct sym_ent *v;
	size_t n;
	struct sym_ent *u;  /* fn_<addr> names from the unwind tables, sorted */
	size_t nu;
	uint64_t lo, hi;    /* extent of its PT_LOAD segments in memory, .bss included */
};

struct loc_slot {          /* the cache's value for a pc */
	bool found;
	struct cts_srcloc loc;
};

struct cts_sym {
	pid_t pid;
	Dwfl *dwfl;
	bool attached;           /* dwfl_linux_proc_attach done (lazily, for stacks) */
	char exe[PATH_MAX];      /* /proc/PID/exe target: searched first by name */
	struct cts_htab *cache;  /* pc -> struct loc_slot, made at the first lookup */
	char **strs;             /* interned strings, open addressing */
	size_t strs_cap, strs_n;
};

static char *debuginfo_path;

/* Could libdwfl's path search find a separate debug file for file_name:
 * the debuglink's name (or BASE.debug, or BASE) in its directory, its
 * .debug, or under /usr/lib/debug (a generous superset of its candidates). */
static bool debug_file_nearby(const char *file_name, const char *link)
{
	if (link && link[0] == '/')
		return access(link, F_OK) == 0;
	if (!file_name || file_name[0] != '/')
		return false;
	char real[PATH_MAX], path[PATH_MAX * 2 + 64];
	const char *files[2] = { file_name, realpath(file_name, real) };
	for (int f = 0; f < 2 && files[f]; f++) {
		const char *base = strrchr(files[f], '/') + 1;
		int dlen = (int)(base - 1 - files[f]);
		const char *dirs[] = { "", "/.debug", "/usr/lib/debug", "/usr/lib/debug" };
		for (int d = 0; d < 4; d++) {
			const char *names[] = { link, base, base };
			const char *ext[] = { "", ".debug", "" };
			for (int n = 0; n < 3; n++) {
				if (!names[n] || (n == 2 && d < 2))
					continue;  /* BASE beside it is the file itself */
				if (d < 2)
					snprintf(path, sizeof(path), "%.*s%s/%s%s", dlen, files[f],
						 dirs[d], names[n], ext[n]);
				else
					snprintf(path, sizeof(path), "%s%.*s/%s%s", dirs[d],
						 d == 2 ? dlen : 0, files[f], names[n], ext[n]);
				if (access(path, F_OK) == 0)
					return true;
			}
		}
	}
	return false;
}

/* dwfl_standard_find_debuginfo ends, when nothing local is found, with a
 * debuginfod query, and libdw 0.188 loads libdebuginfod and curl for it
 * even with DEBUGINFOD_URLS unset (0.3 s, for the vdso first). A network
 * lookup from a testing tool would surprise: unless DEBUGINFOD_URLS asks
 * for one, the standard lookup runs only when a local file may answer. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *link,
			  GElf_Word crc, char **debug_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (urls && urls[0])
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, link,
						    crc, debug_name);
	/* By build ID (also an alternate file's): no network in it. */
	errno = 0;
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, link, crc,
					      debug_name);
	if (fd >= 0 || errno != 0 || !debug_file_nearby(file_name, link))
		return fd;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, link, crc,
					    debug_name);
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* ---- interned strings: stable for the handle's life ---- */

static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	while (*p)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return h;
}

static const char *intern(struct cts_sym *s, const char *str)
{
	if (!str)
		return NULL;
	if (2 * (s->strs_n + 1) > s->strs_cap) {
		size_t ncap = s->strs_cap ? 2 * s->strs_cap : 256;
		char **nv = calloc(ncap, sizeof *nv);
		if (!nv)
			return NULL;
		for (size_t i = 0; i < s->strs_cap; i++) {
			if (!s->strs[i])
				continue;
			size_t j = str_hash(s->strs[i]) & (ncap - 1);
			while (nv[j])
				j = (j + 1) & (ncap - 1);
			nv[j] = s->strs[i];
		}
		free(s->strs);
		s->strs = nv;
		s->strs_cap = ncap;
	}
	size_t j = str_hash(str) & (s->strs_cap - 1);
	for (; s->strs[j]; j = (j + 1) & (s->strs_cap - 1))
		if (!strcmp(s->strs[j], str))
			return s->strs[j];
	if (!(s->strs[j] = strdup(str)))
		return NULL;
	s->strs_n++;
	return s->strs[j];
}

/* ---- per-module symbol index ---- */

static int binding_rank(unsigned char bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

static size_t underscores(const char *p)
{
	size_t n = 0;
	while (p[n] == '_')
		n++;
	return n;
}

/* Symbol tables from debug files carry versions: "pthread_cond_wait@@GLIBC_2.3.2"
 * is the default version, "pthread_cond_wait@GLIBC_2.2.5" an old one. */
static bool old_version(const char *name)
{
	const char *at = strchr(name, '@');
	return at && at[1] != '@';
}

struct raw_sym {
	struct sym_ent e;
	unsigned char bind;
};

/* Address order; among aliases at one address the preferred name first:
 * global over weak over local, default version over old, then
 * "pthread_mutex_lock" over "__pthread_mutex_lock". */
static int raw_cmp(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;
	if (x->e.addr != y->e.addr)
		return x->e.addr < y->e.addr ? -1 : 1;
	int d = binding_rank(x->bind) - binding_rank(y->bind);
	if (d)
		return d;
	d = (int)old_version(x->e.name) - (int)old_version(y->e.name);
	if (d)
		return d;
	size_t ux = underscores(x->e.name), uy = underscores(y->e.name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x->e.name, y->e.name);
}

/* name without its "@VERSION" suffix, interned when it has one */
static const char *display_name(struct cts_sym *s, const char *name)
{
	const char *at = strchr(name, '@');
	if (!at)
		return name;
	char *cut = strndup(name, (size_t)(at - name));
	const char *r = cut ? intern(s, cut) : NULL;
	free(cut);
	return r ? r : name;
}

/* libdwfl's module range ends with the last file-backed mapping; a large
 * .bss continues in anonymous memory after it. */
static void load_extent(Dwfl_Module *mod, uint64_t *lo, uint64_t *hi)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n;

	*lo = UINT64_MAX;
	*hi = 0;
	if (!elf || elf_getphdrnum(elf, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr + bias < *lo)
			*lo = ph.p_vaddr + bias;
		if (ph.p_vaddr + ph.p_memsz + bias > *hi)
			*hi = ph.p_vaddr + ph.p_memsz + bias;
	}
}

struct unwind_ctx {
	struct mod_index *ix;
	size_t cap;
	uint64_t bias;
};

static void unwind_one(uint64_t vaddr, uint64_t size, void *arg)
{
	struct unwind_ctx *c = arg;
	struct mod_index *ix = c->ix;
	if (ix->nu == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct sym_ent *u = realloc(ix->u, cap * sizeof *u);
		if (!u)
			return;
		ix->u = u;
		c->cap = cap;
	}
	/* named when a lookup lands in it (resolve): a module has thousands */
	ix->u[ix->nu++] = (struct sym_ent){ vaddr + c->bias, size, NULL };
}

static int ent_cmp(const void *a, const void *b)
{
	const struct sym_ent *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The module's functions as its unwind tables list them, named
 * fn_<address in the file>: looked up only where no symbol covers a pc (a
 * stripped file's static functions). */
static void unwind_names(Dwfl_Module *mod, struct mod_index *ix)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	struct unwind_ctx c = { ix, 0, bias };
	if (elf)
		cts_fde_ranges(elf, unwind_one, &c);
	if (ix->nu)
		qsort(ix->u, ix->nu, sizeof *ix->u, ent_cmp);
}

static struct mod_index *build_index(struct cts_sym *s, Dwfl_Module *mod)
{
	struct mod_index *ix = calloc(1, sizeof *ix);
	int n = dwfl_module_getsymtab(mod);
	struct raw_sym *raw = n > 0 ? calloc((size_t)n, sizeof *raw) : NULL;
	size_t k = 0;

	if (!ix)
		goto fail;
	load_extent(mod, &ix->lo, &ix->hi);
	for (int i = 1; i < n && raw; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == (GElf_Word)-1)
			continue;
		if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC)
			continue;
		raw[k++] = (struct raw_sym){ { addr, sym.st_size, name }, GELF_ST_BIND(sym.st_info) };
	}
	unwind_names(mod, ix);
	if (k) {
		qsort(raw, k, sizeof *raw, raw_cmp);
		if (!(ix->v = malloc(k * sizeof *ix->v)))
			goto fail;
		for (size_t i = 0; i < k; i++) {
			struct sym_ent *last = ix->n ? &ix->v[ix->n - 1] : NULL;
			if (last && last->addr == raw[i].e.addr) {
				if (!last->size)
					last->size = raw[i].e.size;   /* sized alias of a sizeless name */
				continue;
			}
			ix->v[ix->n] = raw[i].e;
			ix->v[ix->n++].name = display_name(s, raw[i].e.name);
		}
	}
	free(raw);
	return ix;
fail:
	free(raw);
	free(ix);
	return NULL;
}

static struct mod_index *mod_index(struct cts_sym *s, Dwfl_Module *mod)
{
	void **ud;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!*ud)
		*ud = build_index(s, mod);
	return *ud;
}

static void free_index(void *p)
{
	struct mod_index *ix = p;
	if (ix) {
		free(ix->v);
		free(ix->u);
	}
	free(ix);
}

/* The symbol containing addr: the last one starting at or below it if it is
 * sized and covers addr or is sizeless, else an enclosing one a few back. */
static const struct sym_ent *find_in(const struct sym_ent *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, back = 0; i > 0 && back < 8; i--, back++) {
		const struct sym_ent *e = &v[i - 1];
		if (e->size ? addr - e->addr < e->size : back == 0)
			return e;
	}
	return NULL;
}

static const struct sym_ent *index_find(const struct mod_index *ix, uint64_t addr)
{
	return ix ? find_in(ix->v, ix->n, addr) : NULL;
}

/* A function's name: a symbol's, else the unwind tables' fn_<addr>. */
static const struct sym_ent *func_find(const struct mod_index *ix, uint64_t addr)
{
	const struct sym_ent *e = index_find(ix, addr);
	return e || !ix ? e : find_in(ix->u, ix->nu, addr);
}

/* ---- handle ---- */

static int drop_removed(Dwfl_Module *mod, void *userdata, const char *name,
			Dwarf_Addr base, void *arg)
{
	(void)mod, (void)name, (void)base, (void)arg;
	free_index(userdata);
	return DWARF_CB_OK;
}

static int drop_each(Dwfl_Module *mod, void **userdata, const char *name,
		     Dwarf_Addr base, void *arg)
{
	(void)mod, (void)name, (void)base, (void)arg;
	free_index(*userdata);
	*userdata = NULL;
	return DWARF_CB_OK;
}

static int report(struct cts_sym *s)
{
	dwfl_report_begin(s->dwfl);
	int r = dwfl_linux_proc_report(s->dwfl, s->pid);
	if (dwfl_report_end(s->dwfl, drop_removed, NULL) != 0 || r != 0) {
		errno = r > 0 ? r : ESRCH;
		return -1;
	}
	return 0;
}

struct cts_sym *cts_sym_new(pid_t pid)
{
	struct cts_sym *s = calloc(1, sizeof *s);
	char path[64];

	if (!s)
		return NULL;
	s->pid = pid;
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, s->exe, sizeof s->exe - 1);
	s->exe[n > 0 ? n : 0] = 0;
	if (!(s->dwfl = dwfl_begin(&proc_callbacks))) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	if (report(s) < 0) {
		int saved = errno;
		cts_sym_free(s);
		errno = saved;
		return NULL;
	}
	return s;
}

static void cache_clear(struct cts_sym *s)
{
	if (s->cache)
		cts_htab_clear(s->cache);
}

void cts_sym_free(struct cts_sym *s)
{
	if (!s)
		return;
	if (s->dwfl) {
		dwfl_getmodules(s->dwfl, drop_each, NULL, 0);
		dwfl_end(s->dwfl);   /* attached with assume_ptrace_stopped: detaches nothing */
	}
	for (size_t i = 0; i < s->strs_cap; i++)
		free(s->strs[i]);
	free(s->strs);
	cts_htab_free(s->cache);
	free(s);
}

int cts_sym_refresh(struct cts_sym *s)
{
	cache_clear(s);
	return report(s);
}

/* ---- pc lookups ---- */

static int resolve(struct cts_sym *s, uint64_t pc, struct cts_srcloc *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, pc);
	const char *mname;
	Dwarf_Addr start = 0, bias = 0;

	memset(out, 0, sizeof *out);
	if (!mod || !(mname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL)))
		return -1;
	out->module = intern(s, mname);
	out->module_off = pc - (dwfl_module_getelf(mod, &bias) ? bias : start);

	const struct sym_ent *e = func_find(mod_index(s, mod), pc);
	if (e && e->name) {
		out->func = intern(s, e->name);
	} else if (e) { /* from the unwind tables: fn_<address in the file> */
		char name[32];
		snprintf(name, sizeof name, "fn_%" PRIx64, e->addr - bias);
		out->func = intern(s, name);
	}
	if (e)
		out->func_off = pc - e->addr;
	Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
	int lineno = 0;
	const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (file && lineno > 0) {
		const char *dir = dwfl_line_comp_dir(line);
		out->file = intern(s, file);
		out->line = lineno;
		out->comp_dir = dir ? intern(s, dir) : NULL;
	}
	return 0;
}

int cts_sym_pc(struct cts_sym *s, uint64_t pc, struct cts_srcloc *out)
{
	if (!s->cache)
		s->cache = cts_htab_new(sizeof(pc), sizeof(struct loc_slot));
	const struct loc_slot *c = cts_htab_get(s->cache, &pc);
	if (c) {
		*out = c->loc;
		return c->found ? 0 : -1;
	}
	int r = resolve(s, pc, out);
	*(struct loc_slot *)cts_htab_put(s->cache, &pc, NULL) =
		(struct loc_slot){ .found = r == 0, .loc = *out };
	return r;
}

static const char *base_name(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

/* loc describes lookup; the offsets printed are those of lookup + delta. */
static char *format_loc(const struct cts_srcloc *loc, int found, uint64_t pc, uint64_t delta,
			char *buf, size_t len)
{
	char where[PATH_MAX + 32] = "";

	if (loc->file)
		snprintf(where, sizeof where, " (%s:%d)", base_name(loc->file), loc->line);
	else if (loc->module)
		snprintf(where, sizeof where, " (%s)", base_name(loc->module));

	if (found < 0)
		snprintf(buf, len, "0x%llx", (unsigned long long)pc);
	else if (!loc->func)
		snprintf(buf, len, "%s+0x%llx", base_name(loc->module),
			 (unsigned long long)(loc->module_off + delta));
	else if (loc->func_off + delta)
		snprintf(buf, len, "%s+0x%llx%s", loc->func,
			 (unsigned long long)(loc->func_off + delta), where);
	else
		snprintf(buf, len, "%s%s", loc->func, where);
	return buf;
}

char *cts_sym_format(struct cts_sym *s, uint64_t pc, char *buf, size_t len)
{
	struct cts_srcloc loc;
	int r = cts_sym_pc(s, pc, &loc);
	return format_loc(&loc, r, pc, 0, buf, len);
}

char *cts_sym_format_frame(struct cts_sym *s, uint64_t pc, int caller, char *buf, size_t len)
{
	if (!caller || pc == 0)
		return cts_sym_format(s, pc, buf, len);
	struct cts_srcloc loc;
	int r = cts_sym_pc(s, pc - 1, &loc);
	return format_loc(&loc, r, pc, 1, buf, len);
}

/* ---- stacks ---- */

struct frames {
	uint64_t *pcs;
	int max, n;
};

static int take_frame(Dwfl_Frame *f, void *arg)
{
	struct frames *fr = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(f, &pc, NULL))
		return DWARF_CB_ABORT;
	fr->pcs[fr->n++] = pc;
	return fr->n < fr->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int cts_sym_stack(struct cts_sym *s, pid_t tid, uint64_t *pcs, int max)
{
	struct frames fr = { pcs, max, 0 };

	if (max <= 0) {
		errno = EINVAL;
		return -1;
	}
	if (!s->attached) {
		int r = dwfl_linux_proc_attach(s->dwfl, s->pid, true);
		if (r != 0) {
			errno = r > 0 ? r : ESRCH;
			return -1;
		}
		s->attached = true;
	}
	/* Ends with -1 at the outermost frame (no CFI for _start's caller) or on
	 * error; what was collected before either is the answer. */
	dwfl_getthread_frames(s->dwfl, tid, take_frame, &fr);
	if (fr.n == 0) {
		errno = ESRCH;
		return -1;
	}
	return fr.n;
}

/* ---- data and names ---- */

struct extent_query {
	struct cts_sym *s;
	uint64_t addr;
	const struct mod_index *ix;
};

static int in_extent(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr base, void *arg)
{
	struct extent_query *q = arg;
	(void)ud, (void)name, (void)base;
	const struct mod_index *ix = mod_index(q->s, mod);
	if (ix && q->addr >= ix->lo && q->addr < ix->hi) {
		q->ix = ix;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int cts_sym_data(struct cts_sym *s, uint64_t addr, char *buf, size_t len)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	struct extent_query q = { s, addr, mod ? mod_index(s, mod) : NULL };

	if (!mod)
		dwfl_getmodules(s->dwfl, in_extent, &q, 0);
	const struct sym_ent *e = index_find(q.ix, addr);
	if (!e || (!e->size && addr != e->addr))
		return -1;
	if (addr == e->addr)
		snprintf(buf, len, "%s", e->name);
	else
		snprintf(buf, len, "%s+0x%llx", e->name, (unsigned long long)(addr - e->addr));
	return 0;
}

struct name_query {
	const char *name, *exe;
	bool main_pass;      /* first pass: the executable only; second: the rest */
	int rank;            /* of the best match so far, 0 = none */
	uint64_t addr, size;
};

/* 3: global (or default-version) definition, 2: file static, 1: old symbol
 * version ("name@VER"). */
static int name_rank(const char *symname, const char *want, unsigned char bind)
{
	size_t n = strlen(want);
	if (strncmp(symname, want, n))
		return 0;
	if (!symname[n])
		return bind == STB_LOCAL ? 2 : 3;
	if (symname[n] != '@')
		return 0;
	return symname[n + 1] == '@' ? 3 : 1;
}

static int find_in_module(Dwfl_Module *mod, void **ud, const char *mname,
			  Dwarf_Addr base, void *arg)
{
	struct name_query *q = arg;
	const char *mainfile = NULL;
	(void)ud, (void)base;

	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	bool is_main = !strcmp(mname, q->exe) || (mainfile && !strcmp(mainfile, q->exe));
	if (is_main != q->main_pass)
		return DWARF_CB_OK;

	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *nm = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!nm || shndx == SHN_UNDEF || shndx == (GElf_Word)-1)
			continue;
		if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		int rank = name_rank(nm, q->name, GELF_ST_BIND(sym.st_info));
		if (rank > q->rank) {
			q->rank = rank;
			q->addr = addr;
			q->size = sym.st_size;
		}
		if (q->rank == 3)
			return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int cts_sym_lookup(struct cts_sym *s, const char *name, uint64_t *addr, uint64_t *size)
{
	struct name_query q = { .name = name, .exe = s->exe, .main_pass = true };

	dwfl_getmodules(s->dwfl, find_in_module, &q, 0);
	if (!q.rank) {
		q.main_pass = false;
		dwfl_getmodules(s->dwfl, find_in_module, &q, 0);
	}
	if (!q.rank) {
		errno = ENOENT;
		return -1;
	}
	if (addr)
		*addr = q.addr;
	if (size)
		*size = q.size;
	return 0;
}
