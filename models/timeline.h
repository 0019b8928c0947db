/* An interleaving timeline per bug (KIND-N.html next to KIND-N.sched):
 * self-contained HTML with inline SVG and no network. One lane per thread,
 * the run's steps in order, each visible operation labelled with its kind,
 * object and source line (its location, pc and call stack in the hover title and the
 * side panel), preemptions marked, the critical pair and the failing event
 * highlighted, where each live thread stood at the end (blocked or not). */
#ifndef CTS_TIMELINE_H
#define CTS_TIMELINE_H

#include <stddef.h>
#include "models/bug.h"

/* Write bug's timeline to path (replaced atomically). 0, or -1 with errno. */
int cts_timeline_write(const char *path, const struct cts_bug *bug, const struct cts_describer *be,
		       const char *replay_cmd);

#endif
