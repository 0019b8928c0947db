/* lib_callback_ok.c — lib_callback_race with a counter per thread: no
 * race. Expected: clean on every schedule, race-free.  Minimal mode: break. */
#define CALLBACK_OK
#include "lib_callback_race.c"
