/* One error module: every message the tool prints about itself goes through here. */
#ifndef CTS_ERROR_H
#define CTS_ERROR_H

#include <stddef.h>

extern int cts_verbosity; /* 0 quiet, 1 normal, 2 verbose (-v), 3 debug (-d) */

__attribute__((format(printf, 1, 2))) void cts_error_msg(const char *fmt, ...);
/* Appends ": strerror(errno)" (errno is preserved). */
__attribute__((format(printf, 1, 2))) void cts_perror_msg(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void cts_info_msg(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void cts_debug_msg(const char *fmt, ...);
__attribute__((format(printf, 2, 3), noreturn)) void cts_die(int status, const char *fmt, ...);

/* A status line on the terminal (the explorer's progress) is erased by
 * clear before any message is printed; NULL: none. */
void cts_set_status_clear(void (*clear)(void));

void *cts_xmalloc(size_t n);
void *cts_xcalloc(size_t n, size_t size);
void *cts_xrealloc(void *p, size_t n);
char *cts_xstrdup(const char *s);
/* Tables that grow on demand (threads, clocks): the capacity to move to so
 * that `need` elements fit, doubling (amortized O(1) appends); then
 * cts_xgrow reallocates p from old to new elements and zeroes the new ones. */
size_t cts_grow_cap(size_t cap, size_t need);
void *cts_xgrow(void *p, size_t old, size_t new_n, size_t size);

#endif
