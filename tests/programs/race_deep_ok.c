/* race_deep_ok.c — twin of race_deep.c with the fix: deposit() holds the
 * account's lock around its read-modify-write.
 * Expected: clean on every schedule, race-free.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

struct account {
	pthread_mutex_t m;
	long bal;
};

static sem_t audit;

static void __attribute__((noinline)) deposit(struct account *a, long v)
{
	pthread_mutex_lock(&a->m);	/* FIX */
	*(volatile long *)&a->bal += v;
	pthread_mutex_unlock(&a->m);
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
	pthread_mutex_init(&a->m, NULL);
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
	assert(a->bal == 100);
	free(a);
	return 0;
}
