/* Minimal TAP producer for C unit tests (prove reads it). */
#ifndef CTS_TAP_H
#define CTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n) { printf("1..%d\n", n); fflush(stdout); }

__attribute__((format(printf, 2, 3)))
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

__attribute__((format(printf, 1, 2)))
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#define tap_is_int(got, want, ...) \
	(tap_ok((long long)(got) == (long long)(want), __VA_ARGS__) ? 1 : \
	 (tap_diag("  got %lld, want %lld", (long long)(got), (long long)(want)), 0))

/* The log of a quiet exploration: -q still prints each verdict (its BUG
 * line), which is noise between TAP lines; the checks read the result. */
static inline FILE *tap_quiet_log(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f ? f : stderr;
}

static inline int tap_done(void)
{
	if (!tap_n) {
		printf("1..0 # no tests ran\n");
		return 1;
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
