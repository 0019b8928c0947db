/* A fixed pseudo-random sequence any layer may use (models/map.c's hashes,
 * the strategies' cts_rng seeds, the tracer's own streams). */
#ifndef CTS_RNG_H
#define CTS_RNG_H

#include <stdint.h>

/* splitmix64 (Steele, Lea, Flood 2014): the next value of a simple fixed
 * sequence from *state. */
uint64_t cts_splitmix64(uint64_t *state);

#endif
