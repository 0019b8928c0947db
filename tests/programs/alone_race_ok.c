/* alone_race_ok.c — alone_race's twin: worker 1's extra add is made
 * under the mutex. Main's unlocked peek stays (a benign data race,
 * reported, exit status 0). Expected: clean. */
#define LATE_ADD 0
#include "alone_race.c"
