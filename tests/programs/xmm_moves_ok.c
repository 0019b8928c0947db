/* xmm_moves_ok.c — two workers, each on its own half of one page, copy
 * and load through SSE moves in their legacy encoding (movdqu, movdqa,
 * movups, movq, movd, movsd, movss: the moves compilers inline for struct
 * copies, memcpy and doubles), ROUNDS times, and check every value and
 * that a short load clears the rest of its register. Their halves share a
 * page, so break mode learns it as decided per access: each of these moves
 * is a fault there, which the tracer performs itself (access.c
 * emulate_xmm) instead of a single step with the page opened and closed.
 * A wrong emulation is a wrong value: the program aborts.
 * Expected: clean on every schedule, race-free.  Minimal mode: break. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 500

struct half {
	uint8_t src[16] __attribute__((aligned(16)));
	uint8_t dst[16] __attribute__((aligned(16)));
	uint8_t low[16] __attribute__((aligned(16)));
	double d[2];
	float f[2];
	uint32_t ok;
} __attribute__((aligned(64)));

static struct {
	struct half h[2];
} page __attribute__((aligned(4096)));

static void check(int cond)
{
	if (!cond)
		abort();
}

static void round_of(struct half *h, uint8_t seed)
{
	uint8_t want[16];
	for (int i = 0; i < 16; i++)
		want[i] = (uint8_t)(seed + 7 * i);
	memcpy(h->src, want, sizeof(want));
	/* 16 bytes: unaligned and aligned load, store */
	__asm__ volatile("movdqu (%1), %%xmm1\n\tmovups %%xmm1, (%0)"
			 : : "r"(h->dst), "r"(h->src) : "xmm1", "memory");
	check(memcmp(h->dst, want, 16) == 0);
	__asm__ volatile("movdqa (%1), %%xmm2\n\tmovdqa %%xmm2, (%0)"
			 : : "r"(h->low), "r"(h->dst) : "xmm2", "memory");
	check(memcmp(h->low, want, 16) == 0);
	/* 8 and 4 bytes: a load clears the register's other bytes */
	__asm__ volatile("pcmpeqd %%xmm3, %%xmm3\n\tmovq (%1), %%xmm3\n\tmovdqu %%xmm3, (%0)"
			 : : "r"(h->dst), "r"(h->src) : "xmm3", "memory");
	check(memcmp(h->dst, want, 8) == 0);
	for (int i = 8; i < 16; i++)
		check(h->dst[i] == 0);
	__asm__ volatile("pcmpeqd %%xmm4, %%xmm4\n\tmovd (%1), %%xmm4\n\tmovdqu %%xmm4, (%0)"
			 : : "r"(h->dst), "r"(h->src) : "xmm4", "memory");
	check(memcmp(h->dst, want, 4) == 0);
	for (int i = 4; i < 16; i++)
		check(h->dst[i] == 0);
	/* stores of the low 8 and 4 bytes leave the memory after them */
	memset(h->low, 0xee, sizeof(h->low));
	__asm__ volatile("movdqu (%1), %%xmm5\n\tmovq %%xmm5, (%0)\n\tmovd %%xmm5, 8(%0)"
			 : : "r"(h->low), "r"(h->src) : "xmm5", "memory");
	check(memcmp(h->low, want, 8) == 0 && memcmp(h->low + 8, want, 4) == 0);
	for (int i = 12; i < 16; i++)
		check(h->low[i] == 0xee);
	/* doubles and floats */
	h->d[0] = seed * 0.5;
	h->f[0] = seed * 0.25f;
	__asm__ volatile("movsd (%0), %%xmm6\n\tmovsd %%xmm6, 8(%0)"
			 : : "r"(h->d) : "xmm6", "memory");
	__asm__ volatile("movss (%0), %%xmm7\n\tmovss %%xmm7, 4(%0)"
			 : : "r"(h->f) : "xmm7", "memory");
	check(h->d[1] == seed * 0.5 && h->f[1] == seed * 0.25f);
	h->ok++;
}

static void *worker(void *arg)
{
	struct half *h = arg;
	for (int r = 0; r < ROUNDS; r++)
		round_of(h, (uint8_t)r);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, &page.h[i]) != 0)
			return 2;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	check(page.h[0].ok == ROUNDS && page.h[1].ok == ROUNDS);
	return 0;
}
