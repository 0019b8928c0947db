/* cas_stack.c — a lock-free stack whose pop is a plain read-modify-write.
 * A Treiber stack: a producer pushes 4 nodes with a CAS-retry loop, then
 * sets done; 2 consumers pop concurrently and keep polling while the stack
 * is empty and the producer is not done.  Main checks that every node was
 * popped exactly once.  BUG: pop reads top and stores top->next with plain
 * loads and stores instead of a compare-and-swap.
 * Exposing schedule: both consumers load the same top and both store its
 * next, so one node is popped twice (or a consumer's store drops a node the
 * producer pushed in between).
 * Outcome: assert in main or in a consumer.  Fix (cas_stack_ok.c): unlink
 * with a CAS and retry when it fails.  Minimal mode: break. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#define NODES 4

struct node {
	struct node *next;
	int value;
};

static struct node nodes[NODES];
static struct node *top;
static int done;

static void push(struct node *n)
{
	n->next = __atomic_load_n(&top, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&top, &n->next, n, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
}

static struct node *pop(void)	/* NULL when empty */
{
	struct node *t = __atomic_load_n(&top, __ATOMIC_ACQUIRE);

	if (t)	/* BUG: not a CAS; another pop or a push may come in between */
		__atomic_store_n(&top, t->next, __ATOMIC_RELEASE);
	return t;
}

static void *producer(void *arg)
{
	for (int i = 0; i < NODES; i++)
		push(&nodes[i]);
	__atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
	return arg;
}

static void *consumer(void *arg)
{
	int *mine = arg;

	for (;;) {
		int finished = __atomic_load_n(&done, __ATOMIC_SEQ_CST);
		struct node *n = pop();

		if (n) {
			assert(!(*mine & n->value));	/* not popped twice */
			*mine |= n->value;
		} else if (finished) {
			break;	/* every push came before this empty pop */
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t p, c0, c1;
	int got0 = 0, got1 = 0;

	for (int i = 0; i < NODES; i++)
		nodes[i].value = 1 << i;
	pthread_create(&c0, NULL, consumer, &got0);
	pthread_create(&c1, NULL, consumer, &got1);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c0, NULL);
	pthread_join(c1, NULL);
	assert(!(got0 & got1));	/* no node popped by both */
	assert((got0 | got1) == (1 << NODES) - 1);	/* none lost */
	return 0;
}
