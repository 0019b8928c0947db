/* watch_forms.c — one access of each form to the 8-byte `var`, in order,
 * from one thread, for --watch on both backends: push and pop of var,
 * add to it (rmw), lock add (atomic), a rep movsb of 40 bytes over var-16
 * (8 byte writes of var), a rep stosq of 5 qwords over var-16 (1 write), a
 * rep movsb of 40 bytes from var-16 (8 reads), a store of a function's
 * address into var and a call through it (a read).  23 accesses; the
 * neighbours pre and post absorb the rest of the string operations.
 * No bug.  Mode: sync. */
#include <stdint.h>

__asm__(".data\n\t.balign 64\n"
	"\t.globl pre\n\t.type pre, @object\n\t.size pre, 64\npre:\t.zero 64\n"
	"\t.globl var\n\t.type var, @object\n\t.size var, 8\nvar:\t.zero 8\n"
	"\t.globl post\n\t.type post, @object\n\t.size post, 64\npost:\t.zero 64\n"
	"\t.text\n");
extern uint64_t var;
static char src[64], dst[64];

#define NI __attribute__((noinline))

NI void c_pushpop(void) { __asm__ volatile("pushq %0; popq %0" : "+m"(var)); }
NI void c_rmw(void) { __asm__ volatile("addq $3, %0" : "+m"(var)); }
NI void c_lock(void) { __asm__ volatile("lock addq $1, %0" : "+m"(var)); }
NI void c_rep_store(void)
{
	void *d = (char *)&var - 16;
	const void *s = src;
	uint64_t n = 40;
	__asm__ volatile("cld; rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}
NI void c_rep_stosq(void)
{
	void *d = (char *)&var - 16;
	uint64_t n = 5;
	__asm__ volatile("cld; rep stosq" : "+D"(d), "+c"(n) : "a"(0x11) : "memory");
}
NI void c_rep_load(void)
{
	void *d = dst;
	const void *s = (char *)&var - 16;
	uint64_t n = 40;
	__asm__ volatile("cld; rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}
NI void c_target(void) { __asm__ volatile(""); }
NI void c_set(void) { __asm__ volatile("movq %1, %0" : "=m"(var) : "r"((uint64_t)(uintptr_t)c_target)); }
NI void c_call(void)
{
	__asm__ volatile("call *%0" : : "m"(var)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
}

int main(void)
{
	c_pushpop();
	c_rmw();
	c_lock();
	c_rep_store();
	c_rep_stosq();
	c_rep_load();
	c_set();
	c_call();
	return 0;
}
