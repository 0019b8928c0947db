/* wrong_output_ok.c — twin of wrong_output.c: each part reserves its place
 * under a mutex, so the file always holds both parts (in either order:
 * the check accepts both). Expected: the check passes on every schedule. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static char buf[64];
static int len;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *part(void *arg)
{
	const char *s = arg;
	pthread_mutex_lock(&m);
	int at = len;
	len = at + (int)strlen(s);
	pthread_mutex_unlock(&m);
	memcpy(buf + at, s, strlen(s));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t x, y;

	if (argc < 2)
		return 2;
	pthread_create(&x, NULL, part, "alpha\n");
	pthread_create(&y, NULL, part, "omega\n");
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fwrite(buf, 1, (size_t)len, f);
	fclose(f);
	return 0;
}
