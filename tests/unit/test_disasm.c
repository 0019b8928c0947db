/* timeout: 60 */
/* disasm/: classification table, effective addresses, string ranges, the
 * decode cache and the text scan. */
#include "disasm/disasm.h"
#include "tests/unit/tap.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tests/unit/disasm_table.h"

#define NROWS (sizeof disasm_rows / sizeof disasm_rows[0])
#define PC0 0x401000u

static const struct disasm_row *row(const char *text)
{
	for (size_t i = 0; i < NROWS; i++)
		if (!strcmp(disasm_rows[i].text, text))
			return &disasm_rows[i];
	tap_diag("no table row \"%s\"", text);
	abort();
}

/* Decode a table row at pc (uncached: forget first). */
static int dec(struct cts_disasm *d, const char *text, uint64_t pc, struct cts_insn *in)
{
	const struct disasm_row *r = row(text);

	cts_disasm_forget(d);
	return cts_disasm_decode(d, pc, r->bytes, r->len, in);
}

static void test_table(struct cts_disasm *d)
{
	unsigned bad[CTS_ACC_UNKNOWN + 1] = { 0 }, total[CTS_ACC_UNKNOWN + 1] = { 0 };
	unsigned badlen = 0;

	for (size_t i = 0; i < NROWS; i++) {
		const struct disasm_row *r = &disasm_rows[i];
		struct cts_insn in;
		uint8_t buf[32];

		/* Trailing bytes must not change the answer or the length. */
		memset(buf, 0x90, sizeof buf);
		memcpy(buf, r->bytes, r->len);
		cts_disasm_decode(d, PC0 + 16 * i, buf, sizeof buf, &in);
		total[r->acc]++;
		if (in.access != r->acc || in.size != r->size || in.reads != r->reads ||
		    in.writes != r->writes) {
			bad[r->acc]++;
			tap_diag("%-44s got %s size %u %c%c, want %s size %u %c%c (%s %s)",
				 r->text, cts_access_name(in.access), in.size,
				 in.reads ? 'r' : '-', in.writes ? 'w' : '-',
				 cts_access_name(r->acc), r->size, r->reads ? 'r' : '-',
				 r->writes ? 'w' : '-', in.mnemonic, in.op_str);
		}
		if (in.len != r->len) {
			badlen++;
			tap_diag("%-44s length %u, want %u", r->text, in.len, r->len);
		}
	}
	for (int a = CTS_ACC_NONE; a <= CTS_ACC_UNKNOWN; a++)
		tap_ok(total[a] > 0 && !bad[a], "table: %u/%u %s rows classified right",
		       total[a] - bad[a], total[a], cts_access_name(a));
	tap_ok(!badlen, "table: all %zu rows decode to their exact length (VEX/EVEX "
	       "length worked out when capstone fails)", NROWS);
	tap_ok(NROWS >= 300, "table has %zu rows", NROWS);
}

static void test_fields(struct cts_disasm *d)
{
	struct cts_insn in;
	bool ok;

	dec(d, "lock cmpxchg qword ptr [rdi], rsi", PC0, &in);
	tap_ok(in.lock && in.decoded && in.has_mem && in.ea_valid && in.base == X86_REG_RDI,
	       "lock cmpxchg: lock flag, operand fields");
	dec(d, "xchg qword ptr [rdi], rax", PC0, &in);
	tap_ok(!in.lock && in.access == CTS_ACC_ATOMIC, "xchg mem is atomic without a lock prefix");

	ok = dec(d, "vpgatherdd ymm0, [rax+ymm1*4], ymm2", PC0, &in) == 0 && in.has_mem &&
	     !in.ea_valid;
	ok = ok && dec(d, "vpternlogd zmm0, zmm1, zmmword ptr [rax], 0x55", PC0, &in) == -1 &&
	     !in.decoded && in.has_mem && !in.ea_valid && cts_disasm_may_share(&in);
	ok = ok && dec(d, "kortestd k0, k1", PC0, &in) == -1 && !in.has_mem &&
	     !cts_disasm_may_share(&in);
	tap_ok(ok, "gather and undecodable EVEX: memory operand known, address not");

	ok = dec(d, "vmovdqu64 zmmword ptr [rdi+0x80]{k1}, zmm16", PC0, &in) == 0 && in.masked;
	ok = ok && dec(d, "vmovdqu64 zmmword ptr [rax], zmm0", PC0, &in) == 0 && !in.masked;
	ok = ok && dec(d, "vpcmpneqb k1{k2}, zmm16, zmmword ptr [rdi+0x40]", PC0, &in) == -1 &&
	     in.masked;
	ok = ok && dec(d, "vmaskmovps ymmword ptr [rax], ymm1, ymm0", PC0, &in) == 0 && in.masked;
	tap_ok(ok, "opmask / maskmov stores flagged as masked");

	static const uint8_t junk[] = { 0x06, 0x90 };   /* push es: invalid in 64-bit mode */
	cts_disasm_forget(d);
	ok = cts_disasm_decode(d, PC0, junk, sizeof junk, &in) == -1 &&
	     in.access == CTS_ACC_UNKNOWN && in.len == 0 && !in.decoded && !in.has_mem;
	tap_ok(ok, "undecodable legacy byte: UNKNOWN, length 0");

	ok = dec(d, ".byte 0xe8, 0, 0, 0, 0", PC0, &in) == 0 && in.is_call && !in.is_branch;
	ok = ok && dec(d, "ret", PC0, &in) == 0 && in.is_ret;
	ok = ok && dec(d, ".byte 0xf3, 0xc3", PC0, &in) == 0 && in.is_ret && !in.rep &&
	     in.access == CTS_ACC_STACK;
	ok = ok && dec(d, ".byte 0x75, 0x00", PC0, &in) == 0 && in.is_branch;
	ok = ok && dec(d, "jmp qword ptr [rax]", PC0, &in) == 0 && in.is_branch;
	ok = ok && dec(d, "syscall", PC0, &in) == 0 && in.is_syscall && !in.is_branch;
	ok = ok && dec(d, "mov dword ptr [rax], ebx", PC0, &in) == 0 && !in.is_branch &&
	     !in.is_call && !in.is_ret && !in.is_syscall;
	tap_ok(ok, "branch / call / ret / syscall flags");

	const char *names[CTS_ACC_UNKNOWN + 1];
	ok = true;
	for (int a = CTS_ACC_NONE; a <= CTS_ACC_UNKNOWN; a++) {
		names[a] = cts_access_name(a);
		ok = ok && strcmp(names[a], "?");
		for (int b = 0; b < a; b++)
			ok = ok && strcmp(names[a], names[b]);
	}
	tap_ok(ok, "cts_access_name: distinct names");
}

static void test_regs(void)
{
	struct user_regs_struct r;
	uint64_t v;
	bool ok = true;

	memset(&r, 0, sizeof r);
	r.rax = 0x1122334455667788;
	r.rsi = 0xfedcba9876543210;
	r.r8 = 0xa1a2a3a4a5a6a7a8;
	r.r9 = 0x0102030405060708;
	r.r15 = 0xffffffffffffffff;
	static const struct { int reg; uint64_t want; } cases[] = {
		{ X86_REG_RAX, 0x1122334455667788 }, { X86_REG_EAX, 0x55667788 },
		{ X86_REG_AX, 0x7788 }, { X86_REG_AL, 0x88 }, { X86_REG_AH, 0x77 },
		{ X86_REG_ESI, 0x76543210 }, { X86_REG_SIL, 0x10 },
		{ X86_REG_R8D, 0xa5a6a7a8 }, { X86_REG_R8W, 0xa7a8 }, { X86_REG_R8B, 0xa8 },
		{ X86_REG_R9, 0x0102030405060708 }, { X86_REG_R15D, 0xffffffff },
		{ X86_REG_RIZ, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		v = 0xdead;
		if (cts_disasm_reg_value(cases[i].reg, &r, &v) || v != cases[i].want) {
			ok = false;
			tap_diag("reg %d: got %#llx want %#llx", cases[i].reg,
				 (unsigned long long)v, (unsigned long long)cases[i].want);
		}
	}
	tap_ok(ok, "sub-registers map to the low bits of the 64-bit register");
	tap_ok(cts_disasm_reg_value(X86_REG_XMM0, &r, &v) == -1, "xmm0 is not a general register");
}

static bool ea_is(struct cts_disasm *d, const char *text, const struct user_regs_struct *r,
		  uint64_t pc, uint64_t want)
{
	struct cts_insn in;

	dec(d, text, pc, &in);
	uint64_t got = cts_disasm_ea(&in, r);
	if (got != want)
		tap_diag("%s: ea %#llx, want %#llx", text, (unsigned long long)got,
			 (unsigned long long)want);
	return got == want;
}

static void test_ea(struct cts_disasm *d)
{
	struct user_regs_struct r;
	bool ok;

	memset(&r, 0, sizeof r);
	r.rax = 0x10000;
	r.rbx = 3;
	r.rcx = 5;
	r.r12 = 0x7fff0000;
	r.r13 = 2;
	r.r8 = 0x601000;
	r.r9 = 0x10;
	r.rsp = 0x7ffffffde000;
	r.rbp = 0x7ffffffde100;
	r.rip = 0x1234;   /* deliberately not the instruction: rip-relative uses pc + len */

	ok = ea_is(d, "mov dword ptr [rax+rbx*8+0x1000], ecx", &r, PC0, 0x10000 + 24 + 0x1000);
	ok &= ea_is(d, "mov r11, qword ptr [r12+r13*8-8]", &r, PC0, 0x7fff0000 + 16 - 8);
	ok &= ea_is(d, "mov qword ptr [r8+r9*2], r10", &r, PC0, 0x601020);
	ok &= ea_is(d, "add ebx, dword ptr [rax+rcx*4+16]", &r, PC0, 0x10000 + 20 + 16);
	ok &= ea_is(d, "mov qword ptr [rbp-8], rax", &r, PC0, 0x7ffffffde0f8);
	ok &= ea_is(d, "mov qword ptr [rsp+8], rax", &r, PC0, 0x7ffffffde008);
	ok &= ea_is(d, "movabs al, ds:0x1122334455667788", &r, PC0, 0x1122334455667788);
	ok &= ea_is(d, "vmovdqu64 zmm0, zmmword ptr [rax+0x40]", &r, PC0, 0x10040);
	tap_ok(ok, "ea: base + index*scale + disp (negative disp, moffs, EVEX disp8*N)");

	ok = ea_is(d, "mov rax, qword ptr [rip+0x2f00]", &r, 0x555555555000, 0x555555555007 + 0x2f00);
	ok &= ea_is(d, "lock xadd qword ptr [rip+0x40], rcx", &r, 0x401230, 0x401239 + 0x40);
	ok &= ea_is(d, "call qword ptr [rip+0x2fe2]", &r, 0x401000, 0x401006 + 0x2fe2);
	tap_ok(ok, "ea: rip-relative from the next instruction");

	r.rax = 0xffffffff00001234;
	r.rbx = 0x12345678fffffff0;
	r.rcx = 8;
	r.rdi = 0xaaaaaaaa00000010;
	ok = ea_is(d, "mov eax, dword ptr [eax]", &r, PC0, 0x1234);
	ok &= ea_is(d, "mov dword ptr [ebx+ecx*4], eax", &r, PC0, 0x10);   /* wraps mod 2^32 */
	ok &= ea_is(d, "inc dword ptr [edi+8]", &r, PC0, 0x18);
	tap_ok(ok, "ea: 32-bit address size truncates (sub-register base and index)");

	r.rax = 0x40;
	r.rbx = 0x80;
	r.fs_base = 0x7ffff7d8a740;
	r.gs_base = 0x7ffff0000000;
	ok = ea_is(d, "mov rax, qword ptr fs:[0x28]", &r, PC0, 0x7ffff7d8a768);
	ok &= ea_is(d, "mov qword ptr fs:[rax], rbx", &r, PC0, 0x7ffff7d8a780);
	ok &= ea_is(d, "mov eax, dword ptr gs:[0x10]", &r, PC0, 0x7ffff0000010);
	ok &= ea_is(d, "add dword ptr gs:[rbx], 1", &r, PC0, 0x7ffff0000080);
	tap_ok(ok, "ea: fs_base / gs_base added for FS/GS overrides");

	r.rbx = 0x601000;
	r.rax = 0xabcdef05;   /* al = 5 */
	r.rdi = 0x602000;
	ok = ea_is(d, "xlatb", &r, PC0, 0x601005);
	ok &= ea_is(d, "maskmovdqu xmm0, xmm1", &r, PC0, 0x602000);
	tap_ok(ok, "ea: implicit operands (xlat [rbx+al], maskmovdqu [rdi])");

	r.rax = 0x601000;
	r.rcx = 130;
	ok = ea_is(d, "bts qword ptr [rax], rcx", &r, PC0, 0x601010);
	r.rcx = (uint64_t)-1;
	ok &= ea_is(d, "bt qword ptr [rax], rcx", &r, PC0, 0x600ff8);
	r.rcx = 0xffffffdf;   /* ecx = -33: word -2 */
	ok &= ea_is(d, "lock btr dword ptr [rax], ecx", &r, PC0, 0x600ff8);
	ok &= ea_is(d, "bts dword ptr [rax], 3", &r, PC0, 0x601000);
	tap_ok(ok, "ea: bt* with a register bit offset address the selected word");

	struct cts_insn in;
	dec(d, "lea rax, [rbx+rcx*4+8]", PC0, &in);
	ok = in.access == CTS_ACC_NONE && in.has_mem;
	dec(d, "vpgatherdd ymm0, [rax+ymm1*4], ymm2", PC0, &in);
	ok = ok && cts_disasm_ea(&in, &r) == 0;
	dec(d, "add rax, rbx", PC0, &in);
	ok = ok && !in.has_mem && cts_disasm_ea(&in, &r) == 0;
	tap_ok(ok, "ea: 0 without a computable operand");
}

static bool ranges_are(struct cts_disasm *d, const char *text, const struct user_regs_struct *r,
		       uint64_t s_lo, uint64_t s_hi, uint64_t d_lo, uint64_t d_hi)
{
	struct cts_insn in;
	uint64_t a, b, c, e;

	dec(d, text, PC0, &in);
	cts_disasm_string_ranges(&in, r, &a, &b, &c, &e);
	if (a == s_lo && b == s_hi && c == d_lo && e == d_hi)
		return true;
	tap_diag("%s (df %d rcx %#llx): src [%#llx,%#llx) dst [%#llx,%#llx), want "
		 "[%#llx,%#llx) [%#llx,%#llx)", text, !!(r->eflags & 0x400),
		 (unsigned long long)r->rcx, (unsigned long long)a, (unsigned long long)b,
		 (unsigned long long)c, (unsigned long long)e, (unsigned long long)s_lo,
		 (unsigned long long)s_hi, (unsigned long long)d_lo, (unsigned long long)d_hi);
	return false;
}

static void test_strings(struct cts_disasm *d)
{
	struct user_regs_struct r;
	struct cts_insn in;
	bool ok;

	ok = dec(d, "rep movsq", PC0, &in) == 0 && in.rep && in.elem == 8 && in.str_reads_src &&
	     in.str_writes_dst && !in.str_reads_dst;
	ok = ok && dec(d, "movsb", PC0, &in) == 0 && !in.rep && in.elem == 1;
	ok = ok && dec(d, "rep stosw", PC0, &in) == 0 && in.elem == 2 && !in.str_reads_src &&
	     in.str_writes_dst;
	ok = ok && dec(d, "repne scasb", PC0, &in) == 0 && in.rep && in.str_reads_dst &&
	     !in.str_writes_dst && !in.str_reads_src;
	ok = ok && dec(d, "repe cmpsb", PC0, &in) == 0 && in.str_reads_src && in.str_reads_dst;
	ok = ok && dec(d, "lodsq", PC0, &in) == 0 && in.str_reads_src && !in.str_reads_dst &&
	     in.elem == 8;
	ok = ok && dec(d, "movsd xmm0, qword ptr [rax]", PC0, &in) == 0 &&
	     in.access == CTS_ACC_READ;
	tap_ok(ok, "string ops: element size, rep, which side is read or written");

	memset(&r, 0, sizeof r);
	r.rsi = 0x1000;
	r.rdi = 0x2000;
	r.rcx = 4;
	r.eflags = 0x202;
	ok = ranges_are(d, "rep movsq", &r, 0x1000, 0x1020, 0x2000, 0x2020);
	ok &= ranges_are(d, "movsb", &r, 0x1000, 0x1001, 0x2000, 0x2001);
	ok &= ranges_are(d, "rep stosb", &r, 0, 0, 0x2000, 0x2004);
	ok &= ranges_are(d, "rep lodsd", &r, 0x1000, 0x1010, 0, 0);
	ok &= ranges_are(d, "repe cmpsb", &r, 0x1000, 0x1004, 0x2000, 0x2004);
	tap_ok(ok, "string ranges with DF clear: upward from rsi/rdi, rcx elements");

	r.eflags = 0x602;   /* DF set */
	ok = ranges_are(d, "rep movsq", &r, 0x1000 - 24, 0x1008, 0x2000 - 24, 0x2008);
	ok &= ranges_are(d, "movsb", &r, 0x1000, 0x1001, 0x2000, 0x2001);
	ok &= ranges_are(d, "rep stosq", &r, 0, 0, 0x2000 - 24, 0x2008);
	tap_ok(ok, "string ranges with DF set: downward, ending at the first element");

	r.eflags = 0x202;
	r.rcx = 0;
	ok = ranges_are(d, "rep movsb", &r, 0, 0, 0, 0);
	r.rcx = (uint64_t)-1;
	ok &= ranges_are(d, "repne scasb", &r, 0, 0, 0x2000, UINT64_MAX);
	r.eflags = 0x602;
	ok &= ranges_are(d, "repne scasb", &r, 0, 0, 0, 0x2001);
	ok &= ranges_are(d, "add dword ptr [rax], ebx", &r, 0, 0, 0, 0);
	tap_ok(ok, "string ranges: rcx 0 empty, rcx -1 saturates, non-string empty");

	r.eflags = 0x202;
	r.rcx = 0x100000002;      /* ecx = 2 */
	r.rdi = 0xdead00001000;   /* edi = 0x1000 */
	r.rsi = 0x3000;
	r.fs_base = 0x7ffff7d8a000;
	ok = ranges_are(d, ".byte 0x67, 0xf3, 0xab", &r, 0, 0, 0x1000, 0x1008);
	ok &= ranges_are(d, ".byte 0x64, 0xa4", &r, 0x7ffff7d8d000, 0x7ffff7d8d001,
			 0xdead00001000, 0xdead00001001);
	tap_ok(ok, "string ranges: addr32 uses ecx/edi, fs override moves the source only");
}

static void test_cache(struct cts_disasm *d)
{
	const struct disasm_row *a = row("mov qword ptr [rax], rbx");
	const struct disasm_row *b = row("lock cmpxchg qword ptr [rdi], rsi");
	struct cts_disasm_stats s0, s1;
	struct cts_insn in, in2;
	bool ok;

	cts_disasm_forget(d);
	cts_disasm_stats(d, &s0);
	ok = cts_disasm_decode(d, 0x500000, a->bytes, a->len, &in) == 0;
	/* Same pc, different bytes: the cached answer comes back, no decode. */
	ok = ok && cts_disasm_decode(d, 0x500000, b->bytes, b->len, &in2) == 0;
	cts_disasm_stats(d, &s1);
	tap_ok(ok && in2.access == CTS_ACC_WRITE && !memcmp(&in, &in2, sizeof in) &&
	       s1.decodes == s0.decodes + 1 && s1.hits == s0.hits + 1 && s1.entries == 1,
	       "cache: second decode of a pc is a hit and skips capstone");

	cts_disasm_forget(d);
	cts_disasm_decode(d, 0x500000, b->bytes, b->len, &in2);
	tap_ok(in2.access == CTS_ACC_ATOMIC, "cache: forget drops stale entries");

	/* Enough pcs to grow the table several times; each must come back right.
	 * 15 bytes each, so that undecodable rows are cached too. */
	cts_disasm_forget(d);
	ok = true;
	for (uint64_t i = 0; i < 20000; i++) {
		const struct disasm_row *r = &disasm_rows[i % NROWS];
		uint8_t buf[15];
		memset(buf, 0x90, sizeof buf);
		memcpy(buf, r->bytes, r->len);
		cts_disasm_decode(d, 0x400000 + i * 4, buf, sizeof buf, &in);
	}
	cts_disasm_stats(d, &s0);
	for (uint64_t i = 0; i < 20000 && ok; i++) {
		const struct disasm_row *r = &disasm_rows[i % NROWS];
		cts_disasm_decode(d, 0x400000 + i * 4, a->bytes, a->len, &in);
		ok = in.pc == 0x400000 + i * 4 && in.access == r->acc && in.size == r->size;
	}
	cts_disasm_stats(d, &s1);
	tap_ok(ok && s0.entries == 20000 && s1.hits - s0.hits == 20000 &&
	       s1.decodes == s0.decodes, "cache: 20000 pcs survive growth, all hits");

	/* A decode failure on too few bytes must not poison the cache. */
	const struct disasm_row *c = row("mov dword ptr [rax+rbx*8+0x1000], ecx");
	cts_disasm_forget(d);
	ok = cts_disasm_decode(d, 0x510000, c->bytes, 3, &in) == -1;
	ok = ok && cts_disasm_decode(d, 0x510000, c->bytes, c->len, &in) == 0 &&
	     in.access == CTS_ACC_WRITE && in.len == c->len;
	tap_ok(ok, "cache: truncated bytes are not cached");
}

struct seen {
	int n;
	uint64_t pc[32];
	enum cts_access acc[32];
};

static void on_insn(const struct cts_insn *in, void *arg)
{
	struct seen *s = arg;

	if (s->n < 32) {
		s->pc[s->n] = in->pc;
		s->acc[s->n] = in->access;
	}
	s->n++;
}

static void test_scan(struct cts_disasm *d)
{
	static const struct { const char *text; bool report; } prog[] = {
		{ "push rax", false },
		{ "mov qword ptr [rbp-8], rax", true },
		{ "lea rax, [rbx+rcx*4+8]", false },
		{ "nop dword ptr [rax]", false },
		{ "mov qword ptr [rsp+8], rax", false },
		{ "call qword ptr [rip+0x2fe2]", true },   /* a GOT call: cts_disasm_rip_call */
		{ "lock add dword ptr [rax], ebx", true },
		{ "rep movsb", true },
		{ "vpternlogd zmm0, zmm1, zmmword ptr [rax], 0x55", true },
		{ "kortestd k0, k1", false },
		{ "prefetcht0 byte ptr [rax]", false },
		{ NULL, false },                           /* one invalid byte */
		{ "mov rbx, qword ptr [rax]", true },
		{ "jmp qword ptr [rax]", true },
		{ "vpgatherdd ymm0, [rax+ymm1*4], ymm2", true },
		{ "pop rbx", false },
		{ "ret", false },
	};
	uint8_t code[256];
	uint64_t want[32];
	size_t len = 0;
	int nwant = 0;
	const uint64_t base = 0x401100;

	for (size_t i = 0; i < sizeof prog / sizeof prog[0]; i++) {
		if (!prog[i].text) {
			code[len++] = 0x06;
			continue;
		}
		const struct disasm_row *r = row(prog[i].text);
		if (prog[i].report)
			want[nwant++] = base + len;
		memcpy(code + len, r->bytes, r->len);
		len += r->len;
	}

	struct seen s = { 0 };
	struct cts_disasm_stats st;
	cts_disasm_forget(d);
	int n = cts_disasm_scan(d, base, code, len, CTS_SCAN_SHARED, on_insn, &s);
	bool ok = n == nwant && s.n == nwant;
	for (int i = 0; ok && i < nwant; i++)
		ok = s.pc[i] == want[i];
	if (!ok)
		for (int i = 0; i < s.n && i < 32; i++)
			tap_diag("reported %#llx %s", (unsigned long long)s.pc[i],
				 cts_access_name(s.acc[i]));
	tap_ok(ok, "scan: %d of %zu instructions reported at the right pcs", n,
	       sizeof prog / sizeof prog[0]);
	cts_disasm_stats(d, &st);
	tap_ok(st.entries == 0, "scan does not fill the decode cache");
	tap_ok(cts_disasm_scan(d, base, code, 0, CTS_SCAN_SHARED, on_insn, &s) == 0 &&
	       cts_disasm_scan(d, base, NULL, 4, CTS_SCAN_SHARED, on_insn, &s) == -1, "scan: empty / bad input");
}

/* Plain moves the tracer performs itself instead of single-stepping. */
static void test_emulate(struct cts_disasm *d)
{
	static const struct { const uint8_t b[8]; size_t n; int emu; } cases[] = {
		{ { 0x8b, 0x47, 0x10 }, 3, CTS_EMU_LOAD },              /* mov eax, [rdi+0x10] */
		{ { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 }, 7, CTS_EMU_LOAD }, /* mov rax, [rip+0x10] */
		{ { 0x41, 0x57 }, 2, CTS_EMU_PUSH },                    /* push r15 */
		{ { 0x41, 0xb8, 1, 0, 0, 0 }, 6, CTS_EMU_MOV_IMM },     /* mov r8d, 1 */
		{ { 0xc7, 0x07, 5, 0, 0, 0 }, 6, CTS_EMU_STORE_IMM },   /* mov dword [rdi], 5 */
		{ { 0x88, 0x18 }, 2, CTS_EMU_STORE_REG },               /* mov [rax], bl */
		{ { 0x8a, 0x20 }, 2, CTS_EMU_NONE },                    /* mov ah, [rax] */
		{ { 0x66, 0x8b, 0x07 }, 3, CTS_EMU_NONE },              /* mov ax, [rdi]: keeps rax's top */
		{ { 0xf0, 0x01, 0x07 }, 3, CTS_EMU_ALU },               /* lock add [rdi], eax */
		{ { 0x8a, 0x07 }, 2, CTS_EMU_NONE },                    /* mov al, [rdi]: a byte register */
		{ { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, }, 8, CTS_EMU_NONE }, /* fs: load */
		{ { 0xff, 0x25, 0x10, 0, 0, 0 }, 6, CTS_EMU_JMP_MEM },  /* jmp [rip+0x10]: a PLT stub */
		{ { 0xf2, 0xff, 0x25, 0x10, 0, 0, 0 }, 7, CTS_EMU_JMP_MEM }, /* bnd jmp [rip+0x10] */
		{ { 0xff, 0xe0 }, 2, CTS_EMU_NONE },                    /* jmp rax: no memory */
		{ { 0xff, 0x15, 0x10, 0, 0, 0 }, 6, CTS_EMU_NONE },     /* call [rip+0x10]: pushes too */
		{ { 0x64, 0xff, 0x24, 0x25, 0x10, 0, 0, 0 }, 8, CTS_EMU_NONE }, /* jmp fs:[0x10] */
		{ { 0xf3, 0x0f, 0x6f, 0x07 }, 4, CTS_EMU_XMM_LOAD },    /* movdqu xmm0, [rdi] */
		{ { 0x66, 0x0f, 0x6f, 0x07 }, 4, CTS_EMU_XMM_LOAD },    /* movdqa xmm0, [rdi] */
		{ { 0x44, 0x0f, 0x10, 0x3f }, 4, CTS_EMU_XMM_LOAD },    /* movups xmm15, [rdi] */
		{ { 0x0f, 0x11, 0x07 }, 3, CTS_EMU_XMM_STORE },         /* movups [rdi], xmm0 */
		{ { 0xf3, 0x0f, 0x7e, 0x07 }, 4, CTS_EMU_XMM_LOAD },    /* movq xmm0, [rdi] */
		{ { 0x66, 0x0f, 0xd6, 0x07 }, 4, CTS_EMU_XMM_STORE },   /* movq [rdi], xmm0 */
		{ { 0x66, 0x0f, 0x6e, 0x07 }, 4, CTS_EMU_XMM_LOAD },    /* movd xmm0, [rdi] */
		{ { 0xf2, 0x0f, 0x10, 0x07 }, 4, CTS_EMU_XMM_LOAD },    /* movsd xmm0, [rdi] */
		{ { 0xf3, 0x0f, 0x11, 0x07 }, 4, CTS_EMU_XMM_STORE },   /* movss [rdi], xmm0 */
		{ { 0xc5, 0xfa, 0x6f, 0x07 }, 4, CTS_EMU_NONE },        /* vmovdqu xmm0, [rdi]: VEX */
		{ { 0x0f, 0x6f, 0x07 }, 3, CTS_EMU_NONE },              /* movq mm0, [rdi]: mmx */
		{ { 0xa5 }, 1, CTS_EMU_NONE },                          /* movsd: the string move */
		{ { 0x66, 0x0f, 0x2e, 0x07 }, 4, CTS_EMU_NONE },        /* ucomisd xmm0, [rdi] */
		{ { 0x66, 0x48, 0x0f, 0x7e, 0xc0 }, 5, CTS_EMU_NONE },  /* movq rax, xmm0: no memory */
	};
	int good = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cts_insn in;
		uint8_t buf[16] = { 0 };
		memcpy(buf, cases[i].b, cases[i].n);
		cts_disasm_decode(d, 0x600000 + 0x20 * i, buf, sizeof(buf), &in);
		if (in.emu == cases[i].emu)
			good++;
		else
			tap_diag("  emulation class of case %zu: got %d, want %d", i, in.emu, cases[i].emu);
	}
	tap_is_int(good, sizeof(cases) / sizeof(cases[0]), "emulation: which moves qualify");
	{
		struct cts_insn a, u;
		uint8_t bytes[16] = { 0x66, 0x0f, 0x6f, 0x07 }, ub[16] = { 0x44, 0x0f, 0x10, 0x3f };
		cts_disasm_decode(d, 0x680000, bytes, sizeof(bytes), &a);
		cts_disasm_decode(d, 0x680020, ub, sizeof(ub), &u);
		tap_ok(a.emu_aligned && a.size == 16 && cts_disasm_xmm_index(a.emu_reg) == 0 &&
		       !u.emu_aligned && cts_disasm_xmm_index(u.emu_reg) == 15 &&
		       cts_disasm_xmm_index(X86_REG_RAX) == -1,
		       "emulation: an SSE move's register, size and alignment");
	}

	struct user_regs_struct r;
	struct cts_insn in;
	uint64_t addr = 0, out = 0, val = 0x1122334455667788ull;
	uint8_t ld[16] = { 0x8b, 0x47, 0x10 };
	memset(&r, 0, sizeof(r));
	r.rip = 0x700000;
	r.rdi = 0x1000;
	r.rax = 0xffffffffffffffffull;
	cts_disasm_decode(d, 0x700000, ld, sizeof(ld), &in);
	int rc = cts_disasm_emulate(&in, &r, &addr, &out, NULL);
	tap_ok(rc == 0 && addr == 0x1010 && r.rip == 0x700000, "emulate load: address first, rip kept");
	rc = cts_disasm_emulate(&in, &r, &addr, &out, &val);
	tap_ok(rc == 0 && r.rax == 0x55667788 && r.rip == 0x700003,
	       "emulate load: 32-bit destination zero-extends, rip advances");
	uint8_t ps[16] = { 0x41, 0x57 };
	memset(&r, 0, sizeof(r));
	r.rip = 0x700100;
	r.rsp = 0x7ff000;
	r.r15 = 0xabcdef;
	cts_disasm_decode(d, 0x700100, ps, sizeof(ps), &in);
	rc = cts_disasm_emulate(&in, &r, &addr, &out, NULL);
	tap_ok(rc == 0 && r.rsp == 0x7feff8 && addr == 0x7feff8 && out == 0xabcdef &&
	       r.rip == 0x700102, "emulate push r15: rsp, stored value, rip");
	uint8_t st[16] = { 0x88, 0x18 };
	memset(&r, 0, sizeof(r));
	r.rip = 0x700200;
	r.rax = 0x5000;
	r.rbx = 0x1234;
	cts_disasm_decode(d, 0x700200, st, sizeof(st), &in);
	rc = cts_disasm_emulate(&in, &r, &addr, &out, NULL);
	tap_ok(rc == 0 && addr == 0x5000 && out == 0x34 && in.size == 1,
	       "emulate mov [rax], bl: one byte, the low byte of rbx");
	uint8_t mi[16] = { 0x41, 0xb8, 1, 0, 0, 0 };
	memset(&r, 0, sizeof(r));
	r.r8 = ~0ull;
	r.rip = 0x700300;
	cts_disasm_decode(d, 0x700300, mi, sizeof(mi), &in);
	rc = cts_disasm_emulate(&in, &r, &addr, &out, NULL);
	tap_ok(rc == 0 && r.r8 == 1 && r.rip == 0x700306, "emulate mov r8d, 1: zero-extended");
	uint8_t jm[16] = { 0xff, 0x25, 0x10, 0, 0, 0 };
	memset(&r, 0, sizeof(r));
	r.rip = 0x700400;
	cts_disasm_decode(d, 0x700400, jm, sizeof(jm), &in);
	rc = cts_disasm_emulate(&in, &r, &addr, &out, NULL);
	tap_ok(rc == 0 && addr == 0x700416 && r.rip == 0x700400 && in.size == 8,
	       "emulate jmp [rip+0x10]: the slot's address first, rip kept");
	val = 0x7ffff7e5b006ull;
	rc = cts_disasm_emulate(&in, &r, &addr, &out, &val);
	tap_ok(rc == 0 && r.rip == 0x7ffff7e5b006ull && r.rsp == 0,
	       "emulate jmp [rip+0x10]: rip is the 8 bytes read, nothing pushed");
}


/* ---- ALU emulation against the real instruction ------------------------------
 * Each form is assembled below as a tiny function working on [rdi] with rsi
 * (and rax for cmpxchg). emu_run executes it natively with the given flags and
 * registers; the emulation decodes the same bytes and must produce the same
 * memory, registers and arithmetic flags, on random and edge inputs. */
struct emu_ctx {
	uint64_t fl, rax, rsi, mem;
};

__asm__(".text\n"
	"emu_run:\n"
	"\tpush %rbx\n\tpush %r12\n\tmov %rdi, %rbx\n\tmov %rsi, %r12\n"
	"\tpushq 0(%rbx)\n\tpopfq\n"
	"\tmov 8(%rbx), %rax\n\tmov 16(%rbx), %rsi\n\tlea 24(%rbx), %rdi\n"
	"\tcall *%r12\n"
	"\tpushfq\n\tpopq 0(%rbx)\n\tmov %rax, 8(%rbx)\n\tmov %rsi, 16(%rbx)\n"
	"\tpop %r12\n\tpop %rbx\n\tret\n"
	"emu_form_add_m32_r: addl %esi, (%rdi); ret\n"
	"emu_form_add_m8_r: addb %sil, (%rdi); ret\n"
	"emu_form_add_m16_imm: addw $-3, (%rdi); ret\n"
	"emu_form_add_m64_imm: addq $0x7f, (%rdi); ret\n"
	"emu_form_add_m64_imm32: addq $-0x12345678, (%rdi); ret\n"
	"emu_form_sub_m64_r: subq %rsi, (%rdi); ret\n"
	"emu_form_adc_m32_r: adcl %esi, (%rdi); ret\n"
	"emu_form_sbb_m8_imm: sbbb $0x80, (%rdi); ret\n"
	"emu_form_and_m32_imm: andl $0xf0f0, (%rdi); ret\n"
	"emu_form_or_m64_r: orq %rsi, (%rdi); ret\n"
	"emu_form_xor_m16_r: xorw %si, (%rdi); ret\n"
	"emu_form_cmp_m32_r: cmpl %esi, (%rdi); ret\n"
	"emu_form_cmp_m8_imm: cmpb $0x41, (%rdi); ret\n"
	"emu_form_cmp_r64_m: cmpq (%rdi), %rsi; ret\n"
	"emu_form_test_m32_r: testl %esi, (%rdi); ret\n"
	"emu_form_test_m8_imm: testb $0x81, (%rdi); ret\n"
	"emu_form_add_r32_m: addl (%rdi), %esi; ret\n"
	"emu_form_sub_r64_m: subq (%rdi), %rsi; ret\n"
	"emu_form_and_r32_m: andl (%rdi), %esi; ret\n"
	"emu_form_inc_m32: incl (%rdi); ret\n"
	"emu_form_dec_m64: decq (%rdi); ret\n"
	"emu_form_inc_m8: incb (%rdi); ret\n"
	"emu_form_neg_m16: negw (%rdi); ret\n"
	"emu_form_not_m32: notl (%rdi); ret\n"
	"emu_form_lock_add_m64_r: lock addq %rsi, (%rdi); ret\n"
	"emu_form_lock_sub_m32_imm: lock subl $1, (%rdi); ret\n"
	"emu_form_lock_inc_m32: lock incl (%rdi); ret\n"
	"emu_form_lock_dec_m64: lock decq (%rdi); ret\n"
	"emu_form_lock_or_m32_imm: lock orl $4, (%rdi); ret\n"
	"emu_form_lock_and_m64_r: lock andq %rsi, (%rdi); ret\n"
	"emu_form_lock_xadd_m32: lock xaddl %esi, (%rdi); ret\n"
	"emu_form_lock_xadd_m64: lock xaddq %rsi, (%rdi); ret\n"
	"emu_form_xadd_m32: xaddl %esi, (%rdi); ret\n"
	"emu_form_xchg_m64: xchgq %rsi, (%rdi); ret\n"
	"emu_form_xchg_m32: xchgl %esi, (%rdi); ret\n"
	"emu_form_lock_cmpxchg_m32: lock cmpxchgl %esi, (%rdi); ret\n"
	"emu_form_lock_cmpxchg_m64: lock cmpxchgq %rsi, (%rdi); ret\n"
	"emu_form_movzx_r32_m8: movzbl (%rdi), %esi; ret\n"
	"emu_form_movzx_r64_m16: movzwq (%rdi), %rsi; ret\n"
	"emu_form_movsx_r32_m8: movsbl (%rdi), %esi; ret\n"
	"emu_form_movsx_r64_m16: movswq (%rdi), %rsi; ret\n"
	"emu_form_movsxd_r64_m32: movslq (%rdi), %rsi; ret\n"
	);
void emu_run(struct emu_ctx *c, const void *fn);
extern const uint8_t emu_form_add_m32_r[];
extern const uint8_t emu_form_add_m8_r[];
extern const uint8_t emu_form_add_m16_imm[];
extern const uint8_t emu_form_add_m64_imm[];
extern const uint8_t emu_form_add_m64_imm32[];
extern const uint8_t emu_form_sub_m64_r[];
extern const uint8_t emu_form_adc_m32_r[];
extern const uint8_t emu_form_sbb_m8_imm[];
extern const uint8_t emu_form_and_m32_imm[];
extern const uint8_t emu_form_or_m64_r[];
extern const uint8_t emu_form_xor_m16_r[];
extern const uint8_t emu_form_cmp_m32_r[];
extern const uint8_t emu_form_cmp_m8_imm[];
extern const uint8_t emu_form_cmp_r64_m[];
extern const uint8_t emu_form_test_m32_r[];
extern const uint8_t emu_form_test_m8_imm[];
extern const uint8_t emu_form_add_r32_m[];
extern const uint8_t emu_form_sub_r64_m[];
extern const uint8_t emu_form_and_r32_m[];
extern const uint8_t emu_form_inc_m32[];
extern const uint8_t emu_form_dec_m64[];
extern const uint8_t emu_form_inc_m8[];
extern const uint8_t emu_form_neg_m16[];
extern const uint8_t emu_form_not_m32[];
extern const uint8_t emu_form_lock_add_m64_r[];
extern const uint8_t emu_form_lock_sub_m32_imm[];
extern const uint8_t emu_form_lock_inc_m32[];
extern const uint8_t emu_form_lock_dec_m64[];
extern const uint8_t emu_form_lock_or_m32_imm[];
extern const uint8_t emu_form_lock_and_m64_r[];
extern const uint8_t emu_form_lock_xadd_m32[];
extern const uint8_t emu_form_lock_xadd_m64[];
extern const uint8_t emu_form_xadd_m32[];
extern const uint8_t emu_form_xchg_m64[];
extern const uint8_t emu_form_xchg_m32[];
extern const uint8_t emu_form_lock_cmpxchg_m32[];
extern const uint8_t emu_form_lock_cmpxchg_m64[];
extern const uint8_t emu_form_movzx_r32_m8[];
extern const uint8_t emu_form_movzx_r64_m16[];
extern const uint8_t emu_form_movsx_r32_m8[];
extern const uint8_t emu_form_movsx_r64_m16[];
extern const uint8_t emu_form_movsxd_r64_m32[];

static const struct { const char *text; const uint8_t *code; } emu_forms[] = {
	{ "addl %esi, (%rdi)", emu_form_add_m32_r },
	{ "addb %sil, (%rdi)", emu_form_add_m8_r },
	{ "addw $-3, (%rdi)", emu_form_add_m16_imm },
	{ "addq $0x7f, (%rdi)", emu_form_add_m64_imm },
	{ "addq $-0x12345678, (%rdi)", emu_form_add_m64_imm32 },
	{ "subq %rsi, (%rdi)", emu_form_sub_m64_r },
	{ "adcl %esi, (%rdi)", emu_form_adc_m32_r },
	{ "sbbb $0x80, (%rdi)", emu_form_sbb_m8_imm },
	{ "andl $0xf0f0, (%rdi)", emu_form_and_m32_imm },
	{ "orq %rsi, (%rdi)", emu_form_or_m64_r },
	{ "xorw %si, (%rdi)", emu_form_xor_m16_r },
	{ "cmpl %esi, (%rdi)", emu_form_cmp_m32_r },
	{ "cmpb $0x41, (%rdi)", emu_form_cmp_m8_imm },
	{ "cmpq (%rdi), %rsi", emu_form_cmp_r64_m },
	{ "testl %esi, (%rdi)", emu_form_test_m32_r },
	{ "testb $0x81, (%rdi)", emu_form_test_m8_imm },
	{ "addl (%rdi), %esi", emu_form_add_r32_m },
	{ "subq (%rdi), %rsi", emu_form_sub_r64_m },
	{ "andl (%rdi), %esi", emu_form_and_r32_m },
	{ "incl (%rdi)", emu_form_inc_m32 },
	{ "decq (%rdi)", emu_form_dec_m64 },
	{ "incb (%rdi)", emu_form_inc_m8 },
	{ "negw (%rdi)", emu_form_neg_m16 },
	{ "notl (%rdi)", emu_form_not_m32 },
	{ "lock addq %rsi, (%rdi)", emu_form_lock_add_m64_r },
	{ "lock subl $1, (%rdi)", emu_form_lock_sub_m32_imm },
	{ "lock incl (%rdi)", emu_form_lock_inc_m32 },
	{ "lock decq (%rdi)", emu_form_lock_dec_m64 },
	{ "lock orl $4, (%rdi)", emu_form_lock_or_m32_imm },
	{ "lock andq %rsi, (%rdi)", emu_form_lock_and_m64_r },
	{ "lock xaddl %esi, (%rdi)", emu_form_lock_xadd_m32 },
	{ "lock xaddq %rsi, (%rdi)", emu_form_lock_xadd_m64 },
	{ "xaddl %esi, (%rdi)", emu_form_xadd_m32 },
	{ "xchgq %rsi, (%rdi)", emu_form_xchg_m64 },
	{ "xchgl %esi, (%rdi)", emu_form_xchg_m32 },
	{ "lock cmpxchgl %esi, (%rdi)", emu_form_lock_cmpxchg_m32 },
	{ "lock cmpxchgq %rsi, (%rdi)", emu_form_lock_cmpxchg_m64 },
	{ "movzbl (%rdi), %esi", emu_form_movzx_r32_m8 },
	{ "movzwq (%rdi), %rsi", emu_form_movzx_r64_m16 },
	{ "movsbl (%rdi), %esi", emu_form_movsx_r32_m8 },
	{ "movswq (%rdi), %rsi", emu_form_movsx_r64_m16 },
	{ "movslq (%rdi), %rsi", emu_form_movsxd_r64_m32 },
};

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static uint64_t rnd_value(void)
{
	static const uint64_t edge[] = { 0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
					 0x7fffffff, 0x80000000u, 0xffffffffu,
					 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull };
	uint64_t r = rnd();
	return (r & 3) == 0 ? edge[(r >> 8) % (sizeof(edge) / sizeof(edge[0]))] : rnd();
}

static void test_emulate_native(struct cts_disasm *d)
{
	for (size_t f = 0; f < sizeof(emu_forms) / sizeof(emu_forms[0]); f++) {
		uint64_t pc = (uint64_t)(uintptr_t)emu_forms[f].code;
		struct cts_insn in;
		uint8_t bytes[16];
		memcpy(bytes, emu_forms[f].code, sizeof(bytes));
		if (cts_disasm_decode(d, pc, bytes, sizeof(bytes), &in) != 0 || in.emu != CTS_EMU_ALU) {
			tap_ok(false, "emulate %s: decoded as an ALU form", emu_forms[f].text);
			continue;
		}
		int bad = 0;
		for (int it = 0; it < 2000 && bad < 3; it++) {
			struct emu_ctx c = { .fl = 0x202 | (rnd() & 0x8d5), .rax = rnd_value(),
					     .rsi = rnd_value(), .mem = rnd_value() };
			if (it & 1)
				c.mem = c.rax; /* cmpxchg: equal half the time */
			struct emu_ctx before = c;
			emu_run(&c, emu_forms[f].code);

			struct user_regs_struct r;
			memset(&r, 0, sizeof(r));
			r.rip = pc;
			r.rdi = 0x10000;
			r.rsi = before.rsi;
			r.rax = before.rax;
			r.eflags = before.fl;
			uint64_t addr = 0, out = 0, mem = before.mem;
			uint64_t mask = in.size >= 8 ? ~0ull : (1ull << (8 * in.size)) - 1;
			uint64_t val = mem & mask;
			if (cts_disasm_emulate(&in, &r, &addr, &out, NULL) != 0 || addr != 0x10000 ||
			    cts_disasm_emulate(&in, &r, &addr, &out, &val) != 0) {
				bad++;
				tap_diag("  %s: emulation refused", emu_forms[f].text);
				continue;
			}
			if (in.writes)
				mem = (mem & ~mask) | (out & mask);
			if (mem != c.mem || r.rax != c.rax || r.rsi != c.rsi ||
			    (r.eflags & 0x8d5) != (c.fl & 0x8d5) || r.rip != pc + in.len) {
				bad++;
				tap_diag("  %s: in mem %#llx rsi %#llx rax %#llx fl %#llx", emu_forms[f].text,
					 (unsigned long long)before.mem, (unsigned long long)before.rsi,
					 (unsigned long long)before.rax, (unsigned long long)before.fl);
				tap_diag("    cpu  mem %#llx rsi %#llx rax %#llx fl %#llx", (unsigned long long)c.mem,
					 (unsigned long long)c.rsi, (unsigned long long)c.rax,
					 (unsigned long long)(c.fl & 0x8d5));
				tap_diag("    emu  mem %#llx rsi %#llx rax %#llx fl %#llx", (unsigned long long)mem,
					 (unsigned long long)r.rsi, (unsigned long long)r.rax,
					 (unsigned long long)(r.eflags & 0x8d5));
			}
		}
		tap_ok(bad == 0, "emulate %s: same memory, registers and flags as the CPU (2000 inputs)",
		       emu_forms[f].text);
	}
}

/* cts_disasm_relocate: what tracer/stub.c copies out of libc's entry points. */
static void test_relocate(struct cts_disasm *d)
{
	uint8_t out[64];
	size_t used = 0;
	int n;

	static const uint8_t plain[] = { 0x8b, 0x47, 0x10, 0x89, 0xc2, 0x90 }; /* mov 0x10(%rdi),%eax; mov %eax,%edx */
	n = cts_disasm_relocate(d, 0x1000, plain, sizeof(plain), 5, 0x5000, out, sizeof(out), &used);
	tap_ok(n == 5 && used == 5 && memcmp(out, plain, 5) == 0,
	       "relocate: plain instructions are copied whole, up to at least min bytes");

	static const uint8_t riprel[] = { 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 }; /* mov 0x10(%rip),%eax */
	static const uint8_t riprel_at[] = { 0x8b, 0x05, 0x10, 0xf0, 0xff, 0xff };
	n = cts_disasm_relocate(d, 0x1000, riprel, sizeof(riprel), 5, 0x2000, out, sizeof(out), &used);
	tap_ok(n == 6 && used == 6 && memcmp(out, riprel_at, 6) == 0,
	       "relocate: a rip-relative operand keeps its target (0x1016)");

	static const uint8_t jcc[] = { 0x83, 0xfe, 0x01, 0x77, 0x0b }; /* cmp $1,%esi; ja 0x1010 */
	static const uint8_t jcc_at[] = { 0x83, 0xfe, 0x01, 0x0f, 0x87, 0x07, 0xe0, 0xff, 0xff };
	n = cts_disasm_relocate(d, 0x1000, jcc, sizeof(jcc), 5, 0x3000, out, sizeof(out), &used);
	tap_ok(n == 9 && used == 5 && memcmp(out, jcc_at, 9) == 0,
	       "relocate: a short jcc becomes a rel32 jcc with the same target");

	static const uint8_t call[] = { 0xe8, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t jmp_early[] = { 0xeb, 0x05, 0x90, 0x90, 0x90, 0x90, 0x90 };
	static const uint8_t far[] = { 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00 };
	bool ok = cts_disasm_relocate(d, 0x1000, call, sizeof(call), 5, 0x2000, out, sizeof(out), &used) < 0 &&
		  cts_disasm_relocate(d, 0x1000, jmp_early, sizeof(jmp_early), 5, 0x2000, out, sizeof(out),
				      &used) < 0 &&
		  cts_disasm_relocate(d, 0x1000, far, sizeof(far), 5, 0x100001000ull, out, sizeof(out),
				      &used) < 0 &&
		  cts_disasm_relocate(d, 0x1000, plain, sizeof(plain), 5, 0x5000, out, 4, &used) < 0;
	tap_ok(ok, "relocate refuses a call, a jmp before min, a target out of rel32 reach, a short buffer");
}

/* Bytes capstone 4 cannot decode, recorded from glibc 2.36's EVEX string
 * functions (__memcmp_evex_movbe, __strcmp_evex): their length, whether they
 * touch memory, how much, and whether they only read it. */
static void test_vex_mem(struct cts_disasm *d)
{
	static const uint8_t vpcmpub[] = { 0x62, 0xf3, 0x75, 0x20, 0x3e, 0x4c, 0x17, 0x01, 0x04,
					   0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	static const uint8_t ternlog[] = { 0x62, 0xe3, 0x75, 0x20, 0x25, 0x67, 0x03, 0xde,
					   0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	static const uint8_t kmovd[] = { 0xc5, 0xfb, 0x93, 0xc1, 0x85, 0xc0, 0x75, 0x10,
					 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	/* vmovdqu64 [rdi+0x40], zmm16 (a store; capstone decodes it, the
	 * table must still not call it a read) */
	static const uint8_t store[] = { 0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x47, 0x01, 0x90,
					 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	unsigned vlen = 0;
	bool ro = false;
	tap_ok(cts_disasm_vex_mem(vpcmpub, sizeof(vpcmpub), &vlen, &ro) && vlen == 32 && ro,
	       "vex_mem: vpcmpub ymm, [mem] reads at most 32 bytes");
	tap_ok(cts_disasm_vex_mem(ternlog, sizeof(ternlog), &vlen, &ro) && vlen == 32 && ro,
	       "vex_mem: vpternlogd ymm, ymm, [mem] reads at most 32 bytes");
	tap_ok(!cts_disasm_vex_mem(kmovd, sizeof(kmovd), &vlen, &ro), "vex_mem: kmovd r32, k has no memory operand");
	tap_ok(cts_disasm_vex_mem(store, sizeof(store), &vlen, &ro) && vlen == 64 && !ro,
	       "vex_mem: vmovdqu64 [mem], zmm may write 64 bytes");
	struct cts_insn in;
	int rc = cts_disasm_decode(d, PC0 + 0x100, kmovd, sizeof(kmovd), &in);
	tap_ok(rc == 0 ? in.len == 4 : !in.decoded && in.len == 4,
	       "kmovd: its length is known whether capstone decodes it or not");
	static const uint8_t jcc[] = { 0x0f, 0x84, 0x10, 0x00, 0x00, 0x00, 0x90, 0x90,
				       0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	tap_ok(cts_disasm_decode(d, PC0 + 0x200, jcc, sizeof(jcc), &in) == 0 && in.is_branch &&
	       in.target == PC0 + 0x200 + 6 + 0x10, "a direct jcc's target");
}

int main(void)
{
	struct cts_disasm *d = cts_disasm_new();

	if (!tap_ok(d != NULL, "cts_disasm_new"))
		return tap_done();
	test_table(d);
	test_fields(d);
	test_regs();
	test_ea(d);
	test_strings(d);
	test_cache(d);
	test_scan(d);
	test_emulate(d);
	test_emulate_native(d);
	test_relocate(d);
	test_vex_mem(d);
	cts_disasm_free(d);
	return tap_done();
}
