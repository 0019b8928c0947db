/* slice_race_ok.c — twin of slice_race.c: worker 0's loop stops at the
 * end of its half, so no element is updated by both workers; the shared
 * page (the halves meet inside it) holds lines of both, never one line
 * used by two. Expected: clean. */
#define OVERRUN 0
#include "slice_race.c"
