/* Classic BPF for seccomp (bpf.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "tracer/bpf.h"

#define MEMWORDS 16

/* The instructions seccomp_check_filter lets through (after its rewrite of
 * the loads from struct seccomp_data and of BPF_LEN). */
static bool allowed(uint16_t code)
{
	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_RET | BPF_K:
	case BPF_RET | BPF_A:
	case BPF_ALU | BPF_ADD | BPF_K: case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K: case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K: case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_K: case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K: case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K: case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K: case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_K: case BPF_ALU | BPF_LSH | BPF_X:
	case BPF_ALU | BPF_RSH | BPF_K: case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_NEG:
	case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_IMM:
	case BPF_MISC | BPF_TAX:
	case BPF_MISC | BPF_TXA:
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X:
		return true;
	default:
		return false;
	}
}

/* Scratch memory must be written before it is read, as the kernel's
 * check_load_and_stores sees it: one pass in order, the words written so
 * far carried to the next instruction (a return's too) and, at a jump, to
 * its targets, where they meet the words every other way in brings. */
static int check_memory(const struct sock_filter *f, size_t n, char *err, size_t errlen)
{
	uint16_t masks[CTS_BPF_MAXINSNS], valid = 0;
	for (size_t i = 0; i < n; i++)
		masks[i] = 0xffff;
	for (size_t i = 0; i < n; i++) {
		uint16_t c = f[i].code;
		valid &= masks[i];
		if (c == BPF_ST || c == BPF_STX) {
			valid |= (uint16_t)(1u << f[i].k);
		} else if (c == (BPF_LD | BPF_MEM) || c == (BPF_LDX | BPF_MEM)) {
			if (!(valid & (1u << f[i].k))) {
				snprintf(err, errlen, "instruction %zu reads scratch word %u before "
					 "any write", i, f[i].k);
				return -1;
			}
		} else if (c == (BPF_JMP | BPF_JA)) {
			masks[i + 1 + f[i].k] &= valid;
			valid = 0xffff;
		} else if (BPF_CLASS(c) == BPF_JMP) {
			masks[i + 1 + f[i].jt] &= valid;
			masks[i + 1 + f[i].jf] &= valid;
			valid = 0xffff;
		}
	}
	return 0;
}

int cts_bpf_check(const struct sock_filter *f, size_t n, char *err, size_t errlen)
{
	if (n == 0 || n > CTS_BPF_MAXINSNS) {
		snprintf(err, errlen, "%zu instructions (1 to %d)", n, CTS_BPF_MAXINSNS);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		uint16_t c = f[i].code;
		uint32_t k = f[i].k;
		size_t left = n - i - 1; /* instructions after this one */
		if (!allowed(c)) {
			snprintf(err, errlen, "instruction %zu: opcode 0x%04x is not allowed in seccomp",
				 i, c);
			return -1;
		}
		if (c == (BPF_LD | BPF_W | BPF_ABS) &&
		    ((k & 3) || k >= sizeof(struct seccomp_data))) {
			snprintf(err, errlen, "instruction %zu loads offset %u of struct seccomp_data", i,
				 k);
			return -1;
		}
		if ((c == (BPF_ALU | BPF_DIV | BPF_K)) && k == 0) {
			snprintf(err, errlen, "instruction %zu divides by zero", i);
			return -1;
		}
		if ((c == (BPF_ALU | BPF_LSH | BPF_K) || c == (BPF_ALU | BPF_RSH | BPF_K)) && k >= 32) {
			snprintf(err, errlen, "instruction %zu shifts by %u", i, k);
			return -1;
		}
		if ((c == (BPF_LD | BPF_MEM) || c == (BPF_LDX | BPF_MEM) || c == BPF_ST ||
		     c == BPF_STX) && k >= MEMWORDS) {
			snprintf(err, errlen, "instruction %zu uses scratch word %u", i, k);
			return -1;
		}
		if (c == (BPF_JMP | BPF_JA) && k >= left) {
			snprintf(err, errlen, "instruction %zu jumps out of the program", i);
			return -1;
		}
		if (BPF_CLASS(c) == BPF_JMP && c != (BPF_JMP | BPF_JA) &&
		    (f[i].jt >= left || f[i].jf >= left)) {
			snprintf(err, errlen, "instruction %zu jumps out of the program", i);
			return -1;
		}
	}
	if (BPF_CLASS(f[n - 1].code) != BPF_RET) {
		snprintf(err, errlen, "the last instruction is not a return");
		return -1;
	}
	return check_memory(f, n, err, errlen);
}

uint32_t cts_bpf_run(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[MEMWORDS] = { 0 };
	unsigned char data[sizeof(*d)];

	memcpy(data, d, sizeof(data));
	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *in = &f[pc];
		uint32_t k = in->k;
		uint32_t src = BPF_SRC(in->code) == BPF_X ? x : k;
		switch (in->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k > sizeof(data) - 4)
				return SECCOMP_RET_KILL_PROCESS; /* rejected by cts_bpf_check */
			memcpy(&a, data + k, 4);
			break;
		case BPF_LD | BPF_W | BPF_LEN:
			a = sizeof(data);
			break;
		case BPF_LDX | BPF_W | BPF_LEN:
			x = sizeof(data);
			break;
		case BPF_LD | BPF_IMM:
			a = k;
			break;
		case BPF_LDX | BPF_IMM:
			x = k;
			break;
		case BPF_LD | BPF_MEM:
			a = mem[k % MEMWORDS];
			break;
		case BPF_LDX | BPF_MEM:
			x = mem[k % MEMWORDS];
			break;
		case BPF_ST:
			mem[k % MEMWORDS] = a;
			break;
		case BPF_STX:
			mem[k % MEMWORDS] = x;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_ALU | BPF_ADD | BPF_K: case BPF_ALU | BPF_ADD | BPF_X:
			a += src;
			break;
		case BPF_ALU | BPF_SUB | BPF_K: case BPF_ALU | BPF_SUB | BPF_X:
			a -= src;
			break;
		case BPF_ALU | BPF_MUL | BPF_K: case BPF_ALU | BPF_MUL | BPF_X:
			a *= src;
			break;
		case BPF_ALU | BPF_DIV | BPF_K: case BPF_ALU | BPF_DIV | BPF_X:
			if (src == 0)
				return 0;
			a /= src;
			break;
		case BPF_ALU | BPF_AND | BPF_K: case BPF_ALU | BPF_AND | BPF_X:
			a &= src;
			break;
		case BPF_ALU | BPF_OR | BPF_K: case BPF_ALU | BPF_OR | BPF_X:
			a |= src;
			break;
		case BPF_ALU | BPF_XOR | BPF_K: case BPF_ALU | BPF_XOR | BPF_X:
			a ^= src;
			break;
		case BPF_ALU | BPF_LSH | BPF_K: case BPF_ALU | BPF_LSH | BPF_X:
			a <<= src & 31;
			break;
		case BPF_ALU | BPF_RSH | BPF_K: case BPF_ALU | BPF_RSH | BPF_X:
			a >>= src & 31;
			break;
		case BPF_ALU | BPF_NEG:
			a = -a;
			break;
		case BPF_JMP | BPF_JA:
			pc += k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
			pc += a == src ? in->jt : in->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
			pc += a >= src ? in->jt : in->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
			pc += a > src ? in->jt : in->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X:
			pc += (a & src) ? in->jt : in->jf;
			break;
		case BPF_RET | BPF_K:
			return k;
		case BPF_RET | BPF_A:
			return a;
		default:
			return SECCOMP_RET_KILL_PROCESS; /* rejected by cts_bpf_check */
		}
	}
	return SECCOMP_RET_KILL_PROCESS; /* ran off the end: rejected by cts_bpf_check */
}

static bool known_action(uint32_t act)
{
	switch (act) {
	case SECCOMP_RET_KILL_PROCESS: case SECCOMP_RET_KILL_THREAD: case SECCOMP_RET_TRAP:
	case SECCOMP_RET_ERRNO: case SECCOMP_RET_USER_NOTIF: case SECCOMP_RET_TRACE:
	case SECCOMP_RET_LOG: case SECCOMP_RET_ALLOW:
		return true;
	default:
		return false;
	}
}

int32_t cts_bpf_action(uint32_t ret)
{
	uint32_t act = ret & SECCOMP_RET_ACTION_FULL;
	return (int32_t)(known_action(act) ? act : SECCOMP_RET_KILL_PROCESS);
}

const char *cts_bpf_action_name(uint32_t ret)
{
	switch ((uint32_t)cts_bpf_action(ret)) {
	case SECCOMP_RET_KILL_PROCESS: return "KILL_PROCESS";
	case SECCOMP_RET_KILL_THREAD: return "KILL_THREAD";
	case SECCOMP_RET_TRAP: return "TRAP";
	case SECCOMP_RET_ERRNO: return "ERRNO";
	case SECCOMP_RET_USER_NOTIF: return "USER_NOTIF";
	case SECCOMP_RET_TRACE: return "TRACE";
	case SECCOMP_RET_LOG: return "LOG";
	default: return "ALLOW";
	}
}
