/* race_deep.c — a lost update one call deep: pay() and refund() both call
 * deposit(), which does `a->bal += v` on a heap block with no lock. A race
 * report naming only deposit's line cannot tell the two apart; its stacks
 * (deposit <- pay <- payer, deposit <- refund <- refunder) can.
 * Exposing schedule: payer loads 100; refunder loads 100; payer stores 95;
 * refunder stores 105 -> assert(bal == 100) in main fails.
 * The account is allocated while a third thread (the auditor, waiting on a
 * semaphore) is alive, so the allocation is an event with its own stack;
 * with the argument "early" before, while main runs alone: no event. With
 * "print" it prints the balance before its check (one line per run).
 * Minimal mode: break. Twin race_deep_ok.c: deposit holds the account's lock. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct account {
	long bal;
};

static sem_t audit;

static void __attribute__((noinline)) deposit(struct account *a, long v)
{
	*(volatile long *)&a->bal += v;	/* BUG: unlocked read-modify-write */
}

static void __attribute__((noinline)) pay(struct account *a)
{
	deposit(a, -5);
}

static void __attribute__((noinline)) refund(struct account *a)
{
	deposit(a, 5);
}

static void *payer(void *arg)
{
	pay(arg);
	return NULL;
}

static void *refunder(void *arg)
{
	refund(arg);
	return NULL;
}

static void *auditor(void *arg)
{
	sem_wait(&audit);
	return arg;
}

static struct account * __attribute__((noinline)) open_account(void)
{
	struct account *a = calloc(1, sizeof(*a));
	a->bal = 100;
	return a;
}

int main(int argc, char **argv)
{
	pthread_t au, p, r;
	struct account *a = NULL;

	sem_init(&audit, 0, 0);
	if (argc > 1 && strcmp(argv[1], "early") == 0)	/* allocated while main runs alone */
		a = open_account();
	pthread_create(&au, NULL, auditor, NULL);
	if (!a)
		a = open_account();
	pthread_create(&p, NULL, payer, a);
	pthread_create(&r, NULL, refunder, a);
	pthread_join(p, NULL);
	pthread_join(r, NULL);
	sem_post(&audit);
	pthread_join(au, NULL);
	if (argc > 1 && strcmp(argv[1], "print") == 0)
		printf("balance %ld\n", a->bal);
	assert(a->bal == 100);
	free(a);
	return 0;
}
