/* Replay a saved schedule in a fresh cts-trace process, exactly as the
 * printed `cts-trace --replay FILE` command does, and tell whether it ended
 * with the bug it was saved for. A fresh process matters: the exploring one
 * has learned spin loads and hot lines that a later --replay starts without. */
#ifndef CTS_VERIFY_H
#define CTS_VERIFY_H

#include <stddef.h>
#include "models/bug.h"

struct cts_explorer_config;

/* 1: the replay ended with bug (same kind and message); 0: it did not (why
 * says what it did instead); -1: it could not be run (why says why). */
int cts_verify_replay(const struct cts_explorer_config *cfg, const char *path,
		      const struct cts_bug *bug, char *why, size_t len);

#endif
