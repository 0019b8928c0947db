/* Dining philosophers (Kähkönen & Heljanko 2014, Table 1): argv[1]
 * philosophers (default 3), each eats twice, lower-numbered fork first;
 * each counts its meals in its own slot. Same program as dining.sim. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define MAXN 8
static pthread_mutex_t fork_[MAXN];
static int meals[MAXN];
static int n;

static void *phil(void *arg)
{
	int me = (int)(long)arg, a = me, b = (me + 1) % n;
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	for (int k = 0; k < 2; k++) {
		pthread_mutex_lock(&fork_[a]);
		pthread_mutex_lock(&fork_[b]);
		meals[me] = meals[me] + 1;
		pthread_mutex_unlock(&fork_[b]);
		pthread_mutex_unlock(&fork_[a]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXN];
	n = argc > 1 ? atoi(argv[1]) : 3;
	if (n < 2 || n > MAXN)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_mutex_init(&fork_[i], NULL);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, phil, (void *)(long)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++)
		assert(meals[i] == 2);
	return 0;
}
