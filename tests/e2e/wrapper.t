#!/bin/bash
# timeout: 300
# Wrapper scripts (issue 8): a #! script that execs the program is followed
# to it, and the program is tested as if cts-trace had run it directly (its
# bug found, its schedule replayed, through the script again).  A chain of
# wrappers (env, a second script) is followed too.  A script that runs the
# program as a child, or no program at all, has nothing to test: exit
# status 2 with the reason, never a verdict.
. "$(dirname "$0")/lib.sh"
plan 8

printf '#!/bin/sh\nexec %s "$@"\n' "$PROG/check_then_act" >"$T/cta.sh"
printf '#!/usr/bin/env sh\nexec %s "$@"\n' "$T/cta.sh" >"$T/chain.sh"
printf '#!/bin/sh\n%s "$@"\n' "$PROG/check_then_act_ok" >"$T/child.sh"
printf '#!/bin/sh\necho nothing here\nexit 3\n' >"$T/plain.sh"
printf '#!/bin/sh\nexec %s "$@"\n' "$PROG/check_then_act_ok" >"$T/ok.sh"
chmod +x "$T"/*.sh

out=$("$CTS" -m sync -s random -n 100 --seed 1 -o "$T/o" -- "$T/cta.sh" 2>&1)
is $? 1 "a script that execs check_then_act: the bug is found"
like "$out" "BUG \\(assert\\)" "reported as an assert"
sched=$(ls "$T"/o/assert-*.sched 2>/dev/null | head -n 1)
out=$("$CTS" --replay "$sched" 2>&1)
is $? 1 "its schedule replays through the script"

out=$("$CTS" -m sync -s random -n 100 --seed 1 -o "$T/c" -- "$T/chain.sh" 2>&1)
is $? 1 "env -> script -> check_then_act: followed, the bug is found"

out=$("$CTS" -m break -s dpor -n 20 --fail-on-exit -o "$T/k" -- "$T/ok.sh" 2>&1)
is $? 0 "a script that execs the correct twin: clean in break mode"

out=$("$CTS" -m sync -s random -n 3 -o "$T/d" -- "$T/child.sh" 2>&1)
is $? 2 "a script that runs the program as a child: exit 2"
like "$out" "without exec'ing a program in its own process: nothing to test" "with the reason"

out=$("$CTS" -m sync -s random -n 3 -o "$T/p" -- "$T/plain.sh" 2>&1)
is $? 2 "a plain shell script: exit 2, nothing to test"
done_testing
