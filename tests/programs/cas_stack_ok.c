/* cas_stack_ok.c — twin of cas_stack.c with the fix: pop unlinks the top
 * node with a compare-and-swap.  A Treiber stack: a producer pushes 4 nodes
 * with a CAS-retry loop, then sets done; 2 consumers pop concurrently with a
 * CAS-retry loop and keep polling while the stack is empty and the producer
 * is not done.  Main checks that every node was popped exactly once.  Nodes
 * are never reused, so there is no ABA.
 * Expected: clean on every schedule.  A consumer polling an empty stack
 * cannot progress until the producer writes top or done: a tool must not
 * call it a livelock.  Minimal mode: break (the loops make no system or
 * pthread call). */
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

	/* FIX: unlink with a CAS; when it fails t is the new top: retry */
	while (t && !__atomic_compare_exchange_n(&top, &t, t->next, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_ACQUIRE))
		;
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
