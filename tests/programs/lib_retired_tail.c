/* lib_retired_tail.c — lib_retired with the record's two copies made
 * through a function that tail-calls memcpy: the retired body's fault
 * finds no call site on the stack, so memcpy's stub is learned to stay.
 * Expected: assertion failure (break mode). Twin: lib_retired_ok. */
#define TAIL 1
#include "lib_retired.c"
