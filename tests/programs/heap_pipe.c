/* heap_pipe.c — heap_pipe_ok with the count made without the mutex: a lost
 * update (t1 loads 0; t2 loads 0; t1 stores 1; t2 stores 1; main's assert
 * count == 2 fails), found with every mechanism of break mode's faults,
 * the mprotect one after it learned the reader's buffer page. */
#define UNLOCKED 1
#include "heap_pipe_ok.c"
