/* lib_retired_ok.c — lib_retired's twin: each worker publishes both
 * copies under a mutex, so every schedule keeps them together.
 * Expected: clean in every mode. */
#define LOCKED 1
#include "lib_retired.c"
