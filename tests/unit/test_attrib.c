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

#include <errno.h>

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
	cts_disasm_free(d);
	return tap_done();
}
