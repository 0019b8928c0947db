/* timeout: 60 */
/* hw/attrib: a data-breakpoint trap attributed to its instruction, on
 * recorded inputs (code bytes, the registers after the access, DR6's slot),
 * so the logic is tested on every machine, traps or not.  The code is one
 * assembled function (GNU as, objdump -d):
 *
 *    0: 55                  push   %rbp
 *    1: 48 89 e5            mov    %rsp,%rbp
 *    4: 89 05 f8 2f 00 00   mov    %eax,0x2ff8(%rip)
 *    a: 90                  nop
 *    b: 01 17               add    %edx,(%rdi)
 *    d: f0 0f c1 07         lock xadd %eax,(%rdi)
 *   11: f0 0f b1 0f         lock cmpxchg %ecx,(%rdi)
 *   15: 0f b6 06            movzbl (%rsi),%eax
 *   18: 48 8b 00            mov    (%rax),%rax
 *   1b: f3 a4               rep movsb
 *   1d: 53                  push   %rbx
 *   1e: 5b                  pop    %rbx
 *   1f: 89 02               mov    %eax,(%rdx)
 *   21: 87 07               xchg   %eax,(%rdi)
 *   23: 89 07               mov    %eax,(%rdi)
 *   25: 8b 4c 24 10         mov    0x10(%rsp),%ecx
 *   29: c3                  ret
 */
#include "hw/attrib.h"
#include "disasm/disasm.h"
#include "tests/unit/tap.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

static const uint8_t code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x89, 0x05, 0xf8, 0x2f, 0x00, 0x00, 0x90, 0x01, 0x17,
	0xf0, 0x0f, 0xc1, 0x07, 0xf0, 0x0f, 0xb1, 0x0f, 0x0f, 0xb6, 0x06, 0x48, 0x8b,
	0x00, 0xf3, 0xa4, 0x53, 0x5b, 0x89, 0x02, 0x87, 0x07, 0x89, 0x07, 0x8b, 0x4c,
	0x24, 0x10, 0xc3,
	/* padding so every instruction has 15 bytes after it */
	0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90, 0x90,
};

#define BASE 0x401000ULL
#define W    0x600000ULL   /* the watched variable */
#define SRC  0x700000ULL

struct tcase {
	const char *what;
	uint64_t trap_off;        /* trap pc - BASE */
	uint64_t waddr;
	unsigned wlen;
	enum cts_hw_kind wkind;
	struct user_regs_struct regs;
	bool boundary;
	bool exact;
	uint64_t want_off;        /* attributed pc - BASE */
	enum cts_attr_kind want;
	uint32_t want_size;
};

static void run(struct cts_disasm *d, const struct tcase *c)
{
	struct cts_hw_set set = { 0 };
	struct cts_attr out;
	int slot = cts_hw_add(&set, c->waddr, c->wlen, c->wkind);
	uint64_t trap = BASE + c->trap_off;
	/* Without a boundary only the 15 bytes before the trap pc are known. */
	uint64_t lo = c->boundary ? BASE : trap - 15 < BASE ? BASE : trap - 15;
	struct cts_attr_input in = {
		.trap_pc = trap, .code_lo = lo, .boundary = c->boundary,
		.code = code + (lo - BASE), .code_len = sizeof(code) - (size_t)(lo - BASE),
		.set = &set, .slot = slot, .regs = &c->regs,
	};

	cts_disasm_forget(d);
	if (!tap_ok(slot >= 0 && cts_attr_find(d, &in, &out) == 0, "%s: attributed", c->what))
		return;
	tap_ok(out.exact == c->exact, "%s: %s", c->what, c->exact ? "exact" : "not exact");
	if (!tap_is_int(out.pc - BASE, c->want_off, "%s: pc is +0x%llx", c->what,
			(unsigned long long)c->want_off))
		tap_diag("  text '%s'", out.text);
	tap_ok(out.kind == c->want, "%s: kind %s (got %s)", c->what, cts_attr_kind_name(c->want),
	       cts_attr_kind_name(out.kind));
	if (c->exact)
		tap_is_int(out.size, c->want_size, "%s: size %u", c->what, c->want_size);
	/* Where the address was recomputed, it lies in the watched bytes. */
	if (c->exact && out.addr)
		tap_ok(out.addr < c->waddr + c->wlen && c->waddr < out.addr + out.size,
		       "%s: address 0x%llx overlaps the watch", c->what,
		       (unsigned long long)out.addr);
}

/* Decode recorded bytes at pc (padded to 15). */
static int dec(struct cts_disasm *d, uint64_t pc, const uint8_t *b, size_t n, struct cts_insn *x)
{
	uint8_t buf[15] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
			    0x90, 0x90, 0x90, 0x90 };
	memcpy(buf, b, n < sizeof(buf) ? n : sizeof(buf));
	return cts_disasm_decode(d, pc, buf, sizeof(buf), x);
}

/* Attribute a trap at base+trap_off in recorded code (a function starting
 * at base), the watch RW on W. */
static int find(struct cts_disasm *d, uint64_t base, const uint8_t *c, size_t n,
		uint64_t trap_off, enum cts_hw_kind wk, const struct user_regs_struct *r,
		struct cts_attr *out)
{
	struct cts_hw_set set = { 0 };
	int slot = cts_hw_add(&set, W, 8, wk);
	struct cts_attr_input in = { .trap_pc = base + trap_off, .code_lo = base,
				     .boundary = true, .code = c, .code_len = n, .set = &set,
				     .slot = slot, .regs = r };
	cts_disasm_forget(d);
	return cts_attr_find(d, &in, out);
}

#define B2 0x402000ULL
#define STK 0x7ffff000ULL

/* push/pop/call/jmp through memory: each operand its own kind, on both
 * backends (D3: a trap after push [var] said rmw; D4: access breakpoints
 * did not see them). */
static void stack_operands(struct cts_disasm *d)
{
	/*  0: ff 35 d32   push   W(%rip)
	 *  6: 8f 05 d32   pop    W(%rip)
	 *  c: ff 15 d32   call   *W(%rip)
	 * 12: ff 25 d32   jmp    *W(%rip)
	 * 18: e8 00 00 00 00  call .+5
	 * 1d: 53          push   %rbx
	 * 1e: ff 74 24 08 push   0x8(%rsp)
	 * 22: c3          ret */
	uint8_t c[0x23 + 15];
	static const uint8_t op[] = { 0x35, 0x05, 0x15, 0x25 };
	memset(c, 0x90, sizeof(c));
	for (int i = 0; i < 4; i++) {
		int32_t disp = (int32_t)(W - (B2 + 6 * (uint64_t)i + 6));
		c[6 * i] = i == 1 ? 0x8f : 0xff;
		c[6 * i + 1] = op[i];
		memcpy(c + 6 * i + 2, &disp, 4);
	}
	memcpy(c + 0x18, (const uint8_t[]){ 0xe8, 0, 0, 0, 0, 0x53, 0xff, 0x74, 0x24, 0x08, 0xc3 },
	       11);

	static const struct { uint64_t off; enum cts_attr_kind want; bool operand; } k[] = {
		{ 0x0, CTS_ATTR_READ, true }, { 0x6, CTS_ATTR_WRITE, true },
		{ 0xc, CTS_ATTR_READ, true }, { 0x12, CTS_ATTR_READ, true },
		{ 0x18, CTS_ATTR_WRITE, false }, { 0x1d, CTS_ATTR_WRITE, false },
		{ 0x1e, CTS_ATTR_READ, false }, { 0x22, CTS_ATTR_READ, false },
	};
	cts_disasm_forget(d);
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct cts_insn x;
		int rc = dec(d, B2 + k[i].off, c + k[i].off, 15, &x);
		tap_ok(rc == 0 && cts_attr_insn_kind(&x) == k[i].want &&
		       cts_disasm_mem_operand(&x) == k[i].operand,
		       "+0x%llx %s %s: kind %s, %s (got %s)", (unsigned long long)k[i].off,
		       x.mnemonic, x.op_str, cts_attr_kind_name(k[i].want),
		       k[i].operand ? "a watch site" : "no watch site",
		       cts_attr_kind_name(cts_attr_insn_kind(&x)));
	}

	/* Access breakpoints (registers before): the operand, and the slot. */
	struct user_regs_struct r = { .rsp = STK };
	struct cts_attr_access a[3];
	struct cts_insn x;
	dec(d, B2, c, 15, &x);
	int n = cts_attr_accesses(&x, &r, false, a);
	tap_ok(n == 2 && a[0].addr == W && a[0].size == 8 && a[0].kind == CTS_ATTR_READ &&
	       a[1].addr == STK - 8 && a[1].kind == CTS_ATTR_WRITE,
	       "push W(%%rip) before: reads W, writes the slot below rsp");
	dec(d, B2 + 6, c + 6, 15, &x);
	n = cts_attr_accesses(&x, &r, false, a);
	tap_ok(n == 2 && a[0].addr == W && a[0].kind == CTS_ATTR_WRITE && a[1].addr == STK &&
	       a[1].kind == CTS_ATTR_READ, "pop W(%%rip) before: writes W, reads the slot at rsp");
	dec(d, B2 + 0xc, c + 0xc, 15, &x);
	n = cts_attr_accesses(&x, &r, false, a);
	tap_ok(n == 2 && a[0].addr == W && a[0].kind == CTS_ATTR_READ && a[1].addr == STK - 8 &&
	       a[1].kind == CTS_ATTR_WRITE, "call *W(%%rip) before: reads W, writes the return slot");

	/* Debug registers (registers after): read, write, not rmw. */
	struct cts_attr out;
	r.rsp = STK - 8;
	tap_ok(find(d, B2, c, sizeof(c), 0x6, CTS_HW_RW, &r, &out) == 0 && out.exact &&
	       out.pc == B2 && out.kind == CTS_ATTR_READ && out.addr == W && out.size == 8,
	       "trap after push W(%%rip): read at the push (got %s at +0x%llx)",
	       cts_attr_kind_name(out.kind), (unsigned long long)(out.pc - B2));
	r.rsp = STK;
	tap_ok(find(d, B2, c, sizeof(c), 0xc, CTS_HW_RW, &r, &out) == 0 && out.exact &&
	       out.pc == B2 + 6 && out.kind == CTS_ATTR_WRITE && out.addr == W,
	       "trap after pop W(%%rip): write at the pop (got %s at +0x%llx)",
	       cts_attr_kind_name(out.kind), (unsigned long long)(out.pc - B2));
	tap_ok(find(d, B2, c, sizeof(c), 0xc, CTS_HW_WRITE, &r, &out) == 0 &&
	       out.kind == CTS_ATTR_WRITE && out.pc == B2 + 6,
	       "trap after pop W(%%rip), write-only watch: write at the pop");
	/* push 0x8(%rsp) computed its address before rsp moved */
	r.rsp = W - 8 - 8;
	tap_ok(find(d, B2, c, sizeof(c), 0x22, CTS_HW_RW, &r, &out) == 0 && out.exact &&
	       out.pc == B2 + 0x1e && out.kind == CTS_ATTR_READ && out.addr == W,
	       "trap after push 0x8(%%rsp) reading W: read at the push, address as before it");
}

/* Locate the site ending at base+off in recorded code (a function at base
 * when boundary, else only the 15 bytes before are known). */
static int site_of(struct cts_disasm *d, uint64_t base, const uint8_t *c, size_t n, uint64_t off,
		   bool boundary, struct cts_attr_site *site)
{
	uint64_t lo = boundary || off < 15 ? 0 : off - 15;
	struct cts_attr_input in = { .trap_pc = base + off, .code_lo = base + lo,
				     .boundary = boundary, .code = c + lo, .code_len = n - lo };
	cts_disasm_forget(d);
	return cts_attr_locate(d, &in, site);
}

/* `call *var`: a debug register traps at the callee's first instruction,
 * which its own site cannot explain; the call is found at the return
 * address [rsp] and reported as the access breakpoint before it reports
 * it: a read at the call (it was "access near" the callee). */
static void calls_through(struct cts_disasm *d)
{
	/*  0: ff 15 d32      call   *W(%rip)
	 *  6: e8 00 00 00 00 call   .+5
	 *  b: ff 54 24 08    call   *0x8(%rsp)
	 *  f: ff 25 d32      jmp    *W(%rip)      (callee: 0x100, a nop) */
	uint8_t c[0x15 + 15];
	memset(c, 0x90, sizeof(c));
	int32_t disp = (int32_t)(W - (B2 + 6));
	c[0] = 0xff;
	c[1] = 0x15;
	memcpy(c + 2, &disp, 4);
	memcpy(c + 6, (const uint8_t[]){ 0xe8, 0, 0, 0, 0, 0xff, 0x54, 0x24, 0x08 }, 9);
	disp = (int32_t)(W - (B2 + 0x15));
	c[0xf] = 0xff;
	c[0x10] = 0x25;
	memcpy(c + 0x11, &disp, 4);
	static const uint8_t callee[16] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
					    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	const uint64_t CALLEE = B2 + 0x100;
	struct cts_hw_set set = { 0 }, stk = { 0 }, far = { 0 };
	int slot = cts_hw_add(&set, W, 8, CTS_HW_RW);
	int sslot = cts_hw_add(&stk, STK + 8, 8, CTS_HW_RW);
	int fslot = cts_hw_add(&far, W + 64, 8, CTS_HW_RW);
	struct user_regs_struct r = { .rip = CALLEE, .rsp = STK - 8 };
	struct cts_attr_site callee_site, ret_site;
	struct cts_attr out;

	/* the callee's own site: nothing ends at its first instruction */
	struct cts_attr_input in = { .trap_pc = CALLEE, .code_lo = CALLEE, .boundary = true,
				     .code = callee, .code_len = sizeof(callee) };
	cts_disasm_forget(d);
	tap_ok(cts_attr_locate(d, &in, &callee_site) == 0 &&
	       cts_attr_judge(&callee_site, &set, slot, &r, &out) == 0 && !out.located,
	       "trap at a callee's first instruction: its own site does not explain it");
	/* the return address 0x6: the call through W before it */
	tap_ok(site_of(d, B2, c, sizeof(c), 0x6, true, &ret_site) == 0 &&
	       cts_attr_judge_call(&ret_site, &set, slot, &r, &out) == 0 && out.exact &&
	       out.located && out.pc == B2 && out.kind == CTS_ATTR_READ && out.addr == W &&
	       out.size == 8, "call *W(%%rip) found at the return address: read at the call");
	tap_ok(strncmp(out.text, "call", 4) == 0, "  its text is the call's ('%s')", out.text);
	/* the same without a symbol: the candidates before the return address */
	tap_ok(site_of(d, B2, c, sizeof(c), 0x6, false, &ret_site) == 0 &&
	       cts_attr_judge_call(&ret_site, &set, slot, &r, &out) == 0 && out.pc == B2 &&
	       out.kind == CTS_ATTR_READ, "no boundary: the same call, read at it");
	/* a call through W whose operand is elsewhere now: not it */
	site_of(d, B2, c, sizeof(c), 0x6, true, &ret_site);
	tap_ok(cts_attr_judge_call(&ret_site, &far, fslot, &r, &out) == -1,
	       "call *W(%%rip), watch elsewhere: not the call");
	/* a direct call: no memory operand */
	tap_ok(site_of(d, B2, c, sizeof(c), 0xb, true, &ret_site) == 0 &&
	       cts_attr_judge_call(&ret_site, &set, slot, &r, &out) == -1,
	       "direct call before the return address: not a call through the watch");
	/* call *0x8(%rsp): its operand's address is from rsp before the push */
	tap_ok(site_of(d, B2, c, sizeof(c), 0xf, true, &ret_site) == 0 &&
	       cts_attr_judge_call(&ret_site, &stk, sslot, &r, &out) == 0 && out.pc == B2 + 0xb &&
	       out.addr == STK + 8 && out.kind == CTS_ATTR_READ,
	       "call *0x8(%%rsp): operand at rsp+8 as before the call");
	/* a jump through W ends at 0x15: not a call, so not this way */
	tap_ok(site_of(d, B2, c, sizeof(c), 0x15, true, &ret_site) == 0 &&
	       cts_attr_judge_call(&ret_site, &set, slot, &r, &out) == -1,
	       "jmp *W(%%rip) before the address: not a call");
	tap_ok(cts_attr_judge_call(&ret_site, &set, 3, &r, &out) == -1 && errno == EINVAL,
	       "an unused slot is EINVAL");
}

/* One hit per iteration that touches the watch (D4: access breakpoints
 * counted every iteration whose remaining range overlapped it: 24 for 8
 * bytes, 3 for 1 qword, and missed rep movs reading it). */
static int iterations(struct cts_disasm *d, const uint8_t *b, size_t n, uint64_t rsi,
		      uint64_t rdi, uint64_t rcx, enum cts_attr_kind want)
{
	struct cts_insn x;
	struct user_regs_struct r = { .rsi = rsi, .rdi = rdi, .rcx = rcx };
	int hits = 0;
	cts_disasm_forget(d); /* the same pc as another instruction's */
	if (dec(d, B2 + 0x40, b, n, &x) != 0)
		return -1;
	for (; r.rcx; r.rcx--) {
		struct cts_attr_access a[3];
		int k = cts_attr_accesses(&x, &r, false, a);
		for (int i = 0; i < k; i++) {
			if (a[i].addr < W + 8 && W < a[i].addr + a[i].size) {
				hits += a[i].kind == want;
				break;
			}
		}
		r.rsi += x.elem;
		r.rdi += x.elem;
	}
	return hits;
}

static void string_iterations(struct cts_disasm *d)
{
	static const uint8_t movsb[] = { 0xf3, 0xa4 }, stosq[] = { 0xf3, 0x48, 0xab };
	cts_disasm_forget(d);
	tap_is_int(iterations(d, movsb, 2, SRC, W - 16, 40, CTS_ATTR_WRITE), 8,
		   "rep movsb of 40 bytes over W-16: 8 writes of W");
	tap_is_int(iterations(d, stosq, 3, 0, W - 16, 5, CTS_ATTR_WRITE), 1,
		   "rep stosq of 5 qwords over W-16: 1 write of W");
	tap_is_int(iterations(d, movsb, 2, W - 16, SRC, 40, CTS_ATTR_READ), 8,
		   "rep movsb of 40 bytes from W-16: 8 reads of W");

	struct cts_insn x;
	struct cts_attr_access a[3];
	struct user_regs_struct r = { .rsi = SRC, .rdi = W, .rcx = 0 };
	cts_disasm_forget(d);
	dec(d, B2 + 0x40, movsb, 2, &x);
	tap_is_int(cts_attr_accesses(&x, &r, false, a), 0, "rep movsb with rcx 0: no access");
	/* After an iteration going down (DF), the element is one above. */
	r = (struct user_regs_struct){ .rsi = SRC - 1, .rdi = W - 1, .rcx = 3, .eflags = 0x400 };
	tap_ok(cts_attr_accesses(&x, &r, true, a) == 2 && a[0].addr == W &&
	       a[0].kind == CTS_ATTR_WRITE && a[1].addr == SRC && a[1].kind == CTS_ATTR_READ,
	       "rep movsb after a backward iteration: wrote [rdi+1], read [rsi+1]");
}

/* D1: capstone 4 cannot decode AVX-512 kmov; its length still carries the
 * forward sweep to the trap pc.  The bytes are glibc 2.36's
 * __memset_avx512_unaligned_erms (Debian 12) up to the masked store:
 *
 *    0: vpbroadcastb %esi,%zmm16         27: vmovdqu64 %zmm16,-0x80(%rdi,%rdx,1)
 *    6: mov    %rdi,%rax                 2f: vmovdqu64 %zmm16,-0x40(%rdi,%rdx,1)
 *    9: cmp    $0x40,%rdx                37: ret
 *    d: jb     +0x40                     38: nopl   0x0(%rax,%rax,1)
 *    f: cmp    $0x80,%rdx                40: and    $0xfff,%edi
 *   16: ja     +0x80                     46: cmp    $0xfc0,%edi
 *   18: vmovdqu64 %zmm16,(%rdi)          4c: ja     ...
 *   1e: vmovdqu64 %zmm16,-0x40(%rdi,%rdx,1)  52: mov $-1,%rcx
 *   26: ret                              59: bzhi   %rdx,%rcx,%rcx
 *                                        5e: kmovq  %rcx,%k1      (undecodable)
 *                                        63: vmovdqu8 %zmm16,(%rax){%k1}
 *                                        69: ret */
static void undecodable(struct cts_disasm *d)
{
	static const uint8_t memset_avx512[0x6a + 15] = {
		0x62, 0xe2, 0x7d, 0x48, 0x7a, 0xc6, 0x48, 0x89, 0xf8, 0x48, 0x83, 0xfa,
		0x40, 0x72, 0x31, 0x48, 0x81, 0xfa, 0x80, 0x00, 0x00, 0x00, 0x77, 0x68,
		0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x07, 0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x44,
		0x17, 0xff, 0xc3, 0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x44, 0x17, 0xfe, 0x62,
		0xe1, 0xfe, 0x48, 0x7f, 0x44, 0x17, 0xff, 0xc3, 0x0f, 0x1f, 0x84, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x81, 0xe7, 0xff, 0x0f, 0x00, 0x00, 0x81, 0xff,
		0xc0, 0x0f, 0x00, 0x00, 0x0f, 0x87, 0xb3, 0x00, 0x00, 0x00, 0x48, 0xc7,
		0xc1, 0xff, 0xff, 0xff, 0xff, 0xc4, 0xe2, 0xe8, 0xf5, 0xc9, 0xc4, 0xe1,
		0xfb, 0x92, 0xc9, 0x62, 0xe1, 0x7f, 0x49, 0x7f, 0x00, 0xc3,
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
		0x90, 0x90,
	};
	struct user_regs_struct r = { .rax = W, .rdi = W & 0xfff, .rdx = 8, .rcx = 0xff };
	struct cts_attr out;
	struct cts_insn x;
	tap_ok(dec(d, B2 + 0x5e, memset_avx512 + 0x5e, 15, &x) != 0 && x.len == 5,
	       "kmovq %%rcx,%%k1: capstone cannot decode it, its length is 5");
	tap_ok(find(d, B2, memset_avx512, sizeof(memset_avx512), 0x69, CTS_HW_RW, &r, &out) == 0 &&
	       out.exact && out.pc == B2 + 0x63 && out.kind == CTS_ATTR_WRITE && out.addr == W,
	       "memset's masked store after kmovq: write at +0x63 (got %s %s +0x%llx)",
	       cts_attr_kind_name(out.kind), out.exact ? "at" : "near",
	       (unsigned long long)(out.pc - B2));

	/*  0: kmovq %rcx,%k1;  5: kmovq %k1,(%rdi) (undecodable, touches memory);  a: ret */
	static const uint8_t kst[10 + 16] = { 0xc4, 0xe1, 0xfb, 0x92, 0xc9, 0xc4, 0xe1, 0xf8,
					      0x91, 0x07, 0xc3 };
	r = (struct user_regs_struct){ .rdi = W };
	tap_ok(find(d, B2, kst, sizeof(kst), 0xa, CTS_HW_RW, &r, &out) == 0 && !out.exact &&
	       out.located && out.pc == B2 + 5 && out.kind == CTS_ATTR_ACCESS &&
	       strcmp(out.text, "(undecoded)") == 0,
	       "trap after an undecodable store: access at it, kind unknown (got %s +0x%llx '%s')",
	       cts_attr_kind_name(out.kind), (unsigned long long)(out.pc - B2), out.text);
	tap_ok(find(d, B2, kst, sizeof(kst), 0xa, CTS_HW_WRITE, &r, &out) == 0 && out.located &&
	       out.pc == B2 + 5 && out.kind == CTS_ATTR_WRITE,
	       "the same on a write-only watch: write at it");
	tap_ok(find(d, B2, kst, sizeof(kst), 0x5, CTS_HW_RW, &r, &out) == 0 && !out.exact &&
	       !out.located && out.pc == B2 + 5,
	       "trap after an undecodable instruction without memory: near the trap pc");
}

/* A site (the decoding at one trap pc) made once and judged with other
 * registers gives what cts_attr_find gives with them; a plain move's value
 * comes from its register or immediate. */
static void sites(struct cts_disasm *d)
{
	struct cts_attr_site site;
	struct cts_hw_set set = { 0 };
	int slot = cts_hw_add(&set, W, 4, CTS_HW_RW);
	struct user_regs_struct on = { .rdi = W, .rax = 0x1122334455667788ULL };
	struct user_regs_struct off = { .rdi = W + 64, .rax = 0x1122334455667788ULL };
	struct cts_attr a1, a2, f;
	uint64_t v = 0;

	/* trap after `mov %eax,(%rdi)` at 0x23, decoded from the function start */
	struct cts_attr_input in = { .trap_pc = BASE + 0x25, .code_lo = BASE, .boundary = true,
				     .code = code, .code_len = sizeof(code), .set = &set,
				     .slot = slot, .regs = &on };
	cts_disasm_forget(d);
	tap_ok(cts_attr_locate(d, &in, &site) == 0 && site.pred == 0 && site.x.pc == BASE + 0x23,
	       "site: the instruction ending at the trap pc, decoded once");
	tap_ok(cts_attr_judge(&site, &set, slot, &on, &a1) == 0 && a1.exact &&
	       a1.pc == BASE + 0x23 && a1.kind == CTS_ATTR_WRITE && a1.addr == W,
	       "site judged with rdi on the watch: the write at +0x23");
	tap_ok(cts_attr_judge(&site, &set, slot, &off, &a2) == 0 && !a2.exact &&
	       a2.pc == BASE + 0x25, "same site, rdi elsewhere: not attributed");
	in.regs = &off;
	tap_ok(cts_attr_find(d, &in, &f) == 0 && !memcmp(&f, &a2, sizeof(f)),
	       "  as cts_attr_find says with those registers");
	tap_ok(cts_attr_moved(&site, &a1, &on, &v) == 0 && v == 0x55667788,
	       "mov %%eax,(%%rdi): the value stored is eax's (0x%llx)", (unsigned long long)v);

	/* the same trap with no boundary: the candidates kept, judged alike */
	in.code_lo = BASE + 0x25 - 15;
	in.code = code + 0x25 - 15;
	in.code_len = sizeof(code) - (0x25 - 15);
	in.boundary = false;
	in.regs = &on;
	tap_ok(cts_attr_locate(d, &in, &site) == 0 && site.ncand >= 1 &&
	       cts_attr_judge(&site, &set, slot, &on, &a2) == 0 && a2.exact &&
	       a2.pc == BASE + 0x23 && cts_attr_find(d, &in, &f) == 0 && !memcmp(&f, &a2, sizeof(f)),
	       "no boundary: the site's candidates give cts_attr_find's answer");

	/* trap after `mov %eax,0x2ff8(%rip)` at 0x4: the watch at its address */
	struct cts_hw_set rip = { 0 };
	int rs = cts_hw_add(&rip, BASE + 0xa + 0x2ff8, 2, CTS_HW_RW); /* 2-aligned only */
	in = (struct cts_attr_input){ .trap_pc = BASE + 0xa, .code_lo = BASE, .boundary = true,
				      .code = code, .code_len = sizeof(code), .set = &rip,
				      .slot = rs, .regs = &on };
	tap_ok(cts_attr_locate(d, &in, &site) == 0 && cts_attr_judge(&site, &rip, rs, &on, &a1) == 0 &&
	       a1.exact && cts_attr_moved(&site, &a1, &on, &v) == 0 && v == 0x55667788,
	       "rip-relative store: value from eax");
	/* its answer needs no register but rip and eax: a trap there reads eax alone */
	struct user_regs_struct only = { .rip = BASE + 0xa };
	tap_ok(!cts_attr_site_uses_regs(&site) && cts_attr_moved_reg(&site, &a1) == X86_REG_EAX &&
	       cts_attr_judge(&site, &rip, rs, &only, &a2) == 0 && !memcmp(&a1, &a2, sizeof(a1)),
	       "rip-relative store: judged alike without the registers; the value is eax's");
	in.trap_pc = BASE + 0x25;
	tap_ok(cts_attr_locate(d, &in, &site) == 0 && cts_attr_site_uses_regs(&site),
	       "mov %%eax,(%%rdi): the answer depends on rdi");
	tap_ok(cts_disasm_reg_slot(X86_REG_EAX) == (long)offsetof(struct user_regs_struct, rax) &&
	       cts_disasm_reg_slot(X86_REG_AH) == (long)offsetof(struct user_regs_struct, rax) &&
	       cts_disasm_reg_slot(X86_REG_R9D) == (long)offsetof(struct user_regs_struct, r9) &&
	       cts_disasm_reg_slot(X86_REG_RSP) == (long)offsetof(struct user_regs_struct, rsp) &&
	       cts_disasm_reg_slot(X86_REG_RIZ) == -1 && cts_disasm_reg_slot(X86_REG_XMM0) == -1,
	       "register slots for PTRACE_PEEKUSER: eax, ah in rax; r9d in r9; rsp; none for riz, xmm0");

	/* trap after `add %edx,(%rdi)` at 0xb: an RMW, the memory must be read */
	in = (struct cts_attr_input){ .trap_pc = BASE + 0xd, .code_lo = BASE, .boundary = true,
				      .code = code, .code_len = sizeof(code), .set = &set,
				      .slot = slot, .regs = &on };
	tap_ok(cts_attr_locate(d, &in, &site) == 0 && cts_attr_judge(&site, &set, slot, &on, &a1) == 0 &&
	       a1.exact && a1.kind == CTS_ATTR_RMW && cts_attr_moved(&site, &a1, &on, &v) == -1,
	       "add %%edx,(%%rdi): no value from the registers");
	/* trap after `mov (%rax),%rax` at 0x18: the register holds what it loaded */
	struct cts_hw_set eight = { 0 };
	int es = cts_hw_add(&eight, W, 8, CTS_HW_RW);
	struct user_regs_struct ld = { .rax = 0xdeadbeefULL };
	in = (struct cts_attr_input){ .trap_pc = BASE + 0x1b, .code_lo = BASE, .boundary = true,
				      .code = code, .code_len = sizeof(code), .set = &eight,
				      .slot = es, .regs = &ld };
	tap_ok(cts_attr_locate(d, &in, &site) == 0 && cts_attr_judge(&site, &eight, es, &ld, &a1) == 0 &&
	       a1.exact && a1.kind == CTS_ATTR_READ && cts_attr_moved(&site, &a1, &ld, &v) == 0 &&
	       v == 0xdeadbeef, "mov (%%rax),%%rax: the value loaded is rax's");
	tap_ok(cts_attr_judge(&site, &set, 3, &ld, &a1) == -1 && errno == EINVAL,
	       "judging an unused slot is EINVAL");
}

int main(void)
{
	struct cts_disasm *d = cts_disasm_new();
	/* rip-relative store: next pc 0x40100a + 0x2ff8 = 0x404002 */
	const struct tcase cases[] = {
		{ "mov store, rip-relative", 0xa, BASE + 0x3002, 2, CTS_HW_RW,
		  { .rip = BASE + 0xa }, true, true, 0x4, CTS_ATTR_WRITE, 4 },
		{ "mov store under a write watch (value unchanged is still a write)", 0xa,
		  BASE + 0x3002, 2, CTS_HW_WRITE, { .rip = BASE + 0xa }, true, true, 0x4,
		  CTS_ATTR_WRITE, 4 },
		{ "add reg to memory", 0xd, W, 4, CTS_HW_RW, { .rdi = W }, true, true, 0xb,
		  CTS_ATTR_RMW, 4 },
		{ "lock xadd", 0x11, W, 4, CTS_HW_RW, { .rdi = W }, true, true, 0xd,
		  CTS_ATTR_ATOMIC, 4 },
		{ "lock cmpxchg", 0x15, W, 8, CTS_HW_WRITE, { .rdi = W + 4 }, true, true, 0x11,
		  CTS_ATTR_ATOMIC, 4 },
		{ "movzx byte load", 0x18, W, 4, CTS_HW_RW, { .rsi = W + 3 }, true, true, 0x15,
		  CTS_ATTR_READ, 1 },
		{ "load that overwrites its base register", 0x1b, W, 8, CTS_HW_RW,
		  { .rax = 42 }, true, true, 0x18, CTS_ATTR_READ, 8 },
		{ "rep movsb mid-copy, watched destination", 0x1b, W + 1, 1, CTS_HW_RW,
		  { .rsi = SRC + 2, .rdi = W + 2, .rcx = 5, .rax = 42 }, true, true, 0x1b,
		  CTS_ATTR_WRITE, 1 },
		{ "rep movsb mid-copy, watched source", 0x1b, SRC + 1, 1, CTS_HW_RW,
		  { .rsi = SRC + 2, .rdi = W + 2, .rcx = 5, .rax = 42 }, true, true, 0x1b,
		  CTS_ATTR_READ, 1 },
		{ "rep movsb backward (DF set)", 0x1b, W + 2, 2, CTS_HW_RW,
		  { .rsi = SRC, .rdi = W + 1, .rcx = 5, .rax = 42, .eflags = 0x400 }, true, true,
		  0x1b, CTS_ATTR_WRITE, 1 },
		{ "rep movsb last iteration (rip past it)", 0x1d, W + 4, 4, CTS_HW_RW,
		  { .rsi = SRC + 8, .rdi = W + 8 }, true, true, 0x1b, CTS_ATTR_WRITE, 1 },
		{ "push through a watched stack slot", 0x1e, W, 8, CTS_HW_RW, { .rsp = W },
		  true, true, 0x1d, CTS_ATTR_WRITE, 8 },
		{ "pop from a watched stack slot", 0x1f, W, 8, CTS_HW_RW, { .rsp = W + 8 },
		  true, true, 0x1e, CTS_ATTR_READ, 8 },
		{ "xchg with memory (implicitly locked)", 0x23, W, 4, CTS_HW_RW, { .rdi = W },
		  true, true, 0x21, CTS_ATTR_ATOMIC, 4 },
		{ "rsp-based load", 0x29, W + 0x10, 4, CTS_HW_RW, { .rsp = W }, true, true, 0x25,
		  CTS_ATTR_READ, 4 },
		/* Reached by a branch: the store before it went elsewhere. */
		{ "trap pc after an unrelated store: not exact", 0x21, W, 4, CTS_HW_RW,
		  { .rdx = SRC, .rdi = W }, true, false, 0x21, CTS_ATTR_ACCESS, 0 },
		{ "not exact under a write watch: a write", 0x21, W, 4, CTS_HW_WRITE,
		  { .rdx = SRC }, true, false, 0x21, CTS_ATTR_WRITE, 0 },
		{ "trap at the function start (a call or jump into it): not exact", 0x0, W, 8,
		  CTS_HW_RW, { .rsp = W }, true, false, 0x0, CTS_ATTR_ACCESS, 0 },
		/* No symbol: candidates 1..15 bytes back, one provably touches W. */
		{ "no boundary: the one candidate that touches the watch", 0x25, W, 4, CTS_HW_RW,
		  { .rdi = W }, false, true, 0x23, CTS_ATTR_WRITE, 4 },
		{ "no boundary: lock xadd", 0x11, W, 4, CTS_HW_RW, { .rdi = W }, false, true, 0xd,
		  CTS_ATTR_ATOMIC, 4 },
		{ "no boundary, no candidate touches the watch: not exact", 0x25, W, 4,
		  CTS_HW_RW, { .rdi = SRC }, false, false, 0x25, CTS_ATTR_ACCESS, 0 },
	};

	if (!d) {
		printf("1..0 # skip capstone unavailable\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run(d, &cases[i]);

	struct cts_hw_set set = { 0 };
	struct user_regs_struct r = { 0 };
	struct cts_attr out;
	struct cts_attr_input in = { .trap_pc = BASE + 4, .code_lo = BASE, .boundary = true,
				     .code = code, .code_len = sizeof(code), .set = &set,
				     .slot = 0, .regs = &r };
	errno = 0;
	tap_ok(cts_attr_find(d, &in, &out) == -1 && errno == EINVAL, "an unused slot is EINVAL");

	/* The kind of each decoded instruction, the one table both watch
	 * backends report from: an access breakpoint on `add %rbx,hits(%rip)`
	 * says rmw, as its debug-register trap does (it said write). */
	static const struct { uint64_t off; enum cts_attr_kind want; } kinds[] = {
		{ 0x4, CTS_ATTR_WRITE }, { 0xb, CTS_ATTR_RMW }, { 0xd, CTS_ATTR_ATOMIC },
		{ 0x11, CTS_ATTR_ATOMIC }, { 0x15, CTS_ATTR_READ }, { 0x18, CTS_ATTR_READ },
		{ 0x1b, CTS_ATTR_WRITE }, { 0x1d, CTS_ATTR_WRITE }, { 0x1e, CTS_ATTR_READ },
		{ 0x1f, CTS_ATTR_WRITE }, { 0x21, CTS_ATTR_ATOMIC }, { 0x23, CTS_ATTR_WRITE },
		{ 0x25, CTS_ATTR_READ },
	};
	cts_disasm_forget(d);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct cts_insn x;
		int rc = cts_disasm_decode(d, BASE + kinds[i].off, code + kinds[i].off, 15, &x);
		tap_ok(rc == 0 && cts_attr_insn_kind(&x) == kinds[i].want, "+0x%llx %s: kind %s (got %s)",
		       (unsigned long long)kinds[i].off, rc == 0 ? x.mnemonic : "?",
		       cts_attr_kind_name(kinds[i].want),
		       rc == 0 ? cts_attr_kind_name(cts_attr_insn_kind(&x)) : "no decode");
	}
	/* attach_datarace_ok's `hits += bump`: add %rbx,0x2dde(%rip) */
	static const uint8_t add_rip[15] = { 0x48, 0x01, 0x1d, 0xde, 0x2d, 0x00, 0x00 };
	struct cts_insn x;
	tap_ok(cts_disasm_decode(d, BASE + 0x100, add_rip, sizeof(add_rip), &x) == 0 &&
	       cts_attr_insn_kind(&x) == CTS_ATTR_RMW, "add %%rbx,hits(%%rip): kind rmw");
	stack_operands(d);
	calls_through(d);
	string_iterations(d);
	undecodable(d);
	sites(d);
	cts_disasm_free(d);
	return tap_done();
}
