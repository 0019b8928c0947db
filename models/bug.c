#include "models/bug.h"

static const char *const bug_names[] = {
	[CTS_BUG_NONE] = "none",         [CTS_BUG_CRASH] = "crash",
	[CTS_BUG_ASSERT] = "assert",     [CTS_BUG_DEADLOCK] = "deadlock",
	[CTS_BUG_LIVELOCK] = "livelock", [CTS_BUG_EXIT] = "exit-status",
	[CTS_BUG_RACE] = "race",         [CTS_BUG_CHECK] = "check",
	[CTS_BUG_DIVERGED] = "divergence",
};

const char *cts_bug_kind_name(enum cts_bug_kind k)
{
	return (unsigned)k < sizeof(bug_names) / sizeof(bug_names[0]) ? bug_names[k] : "?";
}

const char *cts_inconclusive_kind_name(enum cts_inconclusive_kind k)
{
	return k == CTS_INC_STEPS ? "max-steps" : k == CTS_INC_TIMEOUT ? "timeout" :
	       k == CTS_INC_CHECK ? "check" : "?";
}
