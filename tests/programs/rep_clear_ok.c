/* rep_clear_ok.c — twin of rep_clear.c: the recorder writes its hit only
 * after the clearer has cleared the table and said so under the mutex.
 * Expected: clean. */
#define REP_CLEAR_OK
#include "rep_clear.c"
