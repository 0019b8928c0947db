/* Locking (Table 1): argv[1] threads (default 2) each update their own slot
 * twice, reading a shared flag, every access under one lock. Same program
 * as locking.sim. */
#include <pthread.h>
#include <stdlib.h>

#define MAXN 8
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int slot[MAXN];
static int flag = 1;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	for (int k = 0; k < 2; k++) {
		pthread_mutex_lock(&m);
		slot[me] = slot[me] + flag;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXN];
	int n = argc > 1 ? atoi(argv[1]) : 2;
	if (n < 1 || n > MAXN)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
