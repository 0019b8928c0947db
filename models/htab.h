/* A small generic hash table: fixed-size keys and values stored inline,
 * open addressing with linear probing, deletion by backward shift (no
 * tombstones), capacity a power of two kept at most 3/4 full. Keys are
 * compared and hashed as bytes, so a key struct must have no padding. A
 * pointer returned by get or put stays valid until the next put or del. */
#ifndef CTS_HTAB_H
#define CTS_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cts_htab;

struct cts_htab *cts_htab_new(size_t key_size, size_t val_size);
void cts_htab_free(struct cts_htab *h);
/* Every entry removed; the memory is kept. */
void cts_htab_clear(struct cts_htab *h);
size_t cts_htab_count(const struct cts_htab *h);

/* The value stored under key, or NULL. */
void *cts_htab_get(const struct cts_htab *h, const void *key);
/* The value under key, inserted zeroed when absent (*added says which;
 * may be NULL). */
void *cts_htab_put(struct cts_htab *h, const void *key, bool *added);
/* Remove key; false when it was not there. */
bool cts_htab_del(struct cts_htab *h, const void *key);

/* Iteration in slot order: start with *pos = 0; each call gives the next
 * entry's key and value and returns true, false at the end. No put or del
 * while iterating. */
bool cts_htab_next(const struct cts_htab *h, size_t *pos, const void **key, void **val);

/* The keys of a table keyed by uint64_t, ascending: up to max in out
 * (NULL: only counted); how many there are. */
size_t cts_htab_u64_keys(const struct cts_htab *h, uint64_t *out, size_t max);

/* The hash of n bytes (also for callers that hash keys of their own). */
uint64_t cts_htab_hash(const void *p, size_t n);

#endif
