#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"

int cts_verbosity = 1;
static void (*status_clear)(void);

void cts_set_status_clear(void (*clear)(void))
{
	status_clear = clear;
}

static void vmsg(const char *fmt, va_list ap, int err)
{
	if (status_clear)
		status_clear();
	fputs("cts-trace: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void cts_error_msg(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	errno = saved;
}

void cts_perror_msg(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;
	va_start(ap, fmt);
	vmsg(fmt, ap, saved);
	va_end(ap);
	errno = saved;
}

void cts_info_msg(const char *fmt, ...)
{
	va_list ap;
	if (cts_verbosity < 1)
		return;
	int saved = errno;
	if (status_clear)
		status_clear();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	errno = saved;
}

void cts_debug_msg(const char *fmt, ...)
{
	va_list ap;
	if (cts_verbosity < 3)
		return;
	int saved = errno;
	if (status_clear)
		status_clear();
	va_start(ap, fmt);
	fputs("cts-debug: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	errno = saved;
}

void cts_die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	exit(status);
}

static void *oom(size_t n)
{
	fprintf(stderr, "cts-trace: out of memory (%zu bytes)\n", n);
	abort();
}

void *cts_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

void *cts_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	return p ? p : oom(n * size);
}

void *cts_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom(n);
}

size_t cts_grow_cap(size_t cap, size_t need)
{
	size_t c = cap ? cap : 8;
	while (c < need)
		c *= 2;
	return c;
}

void *cts_xgrow(void *p, size_t old, size_t new_n, size_t size)
{
	char *q = cts_xrealloc(p, new_n * size);
	if (new_n > old)
		memset(q + old * size, 0, (new_n - old) * size);
	return q;
}

char *cts_xstrdup(const char *s)
{
	char *p = strdup(s);
	return p ? p : oom(strlen(s));
}
