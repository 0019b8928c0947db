/* above_stack_race_ok.c — above_stack_race's twin: the adds are made under
 * a mutex. Expected: clean. */
#define LOCKED 1
#include "above_stack_race.c"
