/* wrong_output.c — two threads append their part of a report to a shared
 * buffer with an unlocked "reserve then write" (bug); main writes the
 * buffer to the file named by argv[1]. Nothing crashes or asserts: the
 * symptom is a wrong output file, which `--check 'cmp OUT expected'` sees.
 * Exposing schedule: t1 reads len 0; t2 reads len 0; both write at offset
 * 0 and set len 6 -> the file holds one part instead of two.
 * Minimal mode: break.  Twin wrong_output_ok.c: reserve under a mutex. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static char buf[64];
static volatile int len;

static void *part(void *arg)
{
	const char *s = arg;
	int at = len;	/* BUG: reserve and update are not one step */
	len = at + (int)strlen(s);
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
