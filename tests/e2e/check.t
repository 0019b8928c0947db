#!/bin/bash
# timeout: 120
# --check has a time limit and leaves nothing behind (issue 27 item 8): the
# command runs in a process group of its own within the run's --timeout and
# what is left of --time; one that runs out of time or stops itself is
# killed with its group and the run is inconclusive (exit 0, 4 with
# --fail-on-inconclusive), never a bug; a child it leaves holding its output
# is not waited for and is killed with the group. Each of these hung
# cts-trace before (a timeout here is status 124 or 137). No case depends on
# the machine's speed: the commands below never end by themselves, and a
# run of counter_ok takes milliseconds against limits of seconds.
. "$(dirname "$0")/lib.sh"
plan 21

# run SECONDS ARGS...: cts-trace under a timeout (124/137 = it hung), scaled.
run() { local s=$1; shift; timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }
# A sleep no other test runs, to look for afterwards.
S=$((200000 + $$))
left() { pgrep -f "^sleep $S\$" >/dev/null && echo yes || echo no; }
TO=$(slow 2)

# 1. A check that never ends: --timeout ends it, the run is inconclusive.
out=$(run 60 -m sync -n 2 --timeout $TO --check "sleep $S" -o "$T/o1" --report "$T/r1.json" \
	-- "$PROG/counter_ok" 2>&1)
is $? 0 "check that hangs: exit 0 (was: cts-trace hung)"
like "$out" "warning: run 0 inconclusive after [0-9]+ steps: the --check command did not end within --timeout $TO s; killed with its process group" \
	"check that hangs: the run is inconclusive, and says why"
like "$out" "0 bugs found; 2 runs inconclusive" "check that hangs: the summary counts it"
is "$(jq -c '[.runs, .inconclusive.count, .inconclusive.runs[0].kind, (.bugs | length)]' "$T/r1.json" 2>&1)" \
	'[2,2,"check",0]' "check that hangs: the report lists it as kind check, no bug"
is "$(left)" no "check that hangs: killed"
run 60 -q -m sync -n 1 --timeout $TO --fail-on-inconclusive --check "sleep $S" -o "$T/o1" -- "$PROG/counter_ok"
is $? 4 "check that hangs, --fail-on-inconclusive: exit 4"

# 2. --time bounds the check too, with no per-run limit: the run whose
# check it cut is neither judged nor counted.
run 60 -q -m sync -n 5 --time 1 --timeout 0 --check "sleep $S" -o "$T/o2" --report "$T/r2.json" \
	-- "$PROG/counter_ok"
is $? 0 "check cut by --time (--timeout 0): exit 0"
is "$(jq -c '[.runs, .inconclusive.count, .summary.cut]' "$T/r2.json" 2>&1)" "[0,0,0]" \
	"check cut by --time: the run is not counted"
is "$(left)" no "check cut by --time: killed"

# 3. A check that stops itself: no limit needed to end it.
out=$(run 60 -m sync -n 2 --timeout 0 --check 'kill -STOP $$; exit 0' -o "$T/o3" -- "$PROG/counter_ok" 2>&1)
is $? 0 "check that stops itself: exit 0 (was: cts-trace hung)"
like "$out" "warning: run 0 inconclusive after [0-9]+ steps: the --check command stopped itself; killed with its process group" \
	"check that stops itself: inconclusive, and says why"
is "$(pgrep -f "kill -STOP" | xargs -r ps -o stat= -p | grep -c T)" 0 "check that stops itself: nothing left stopped"

# 4. A check that exits and leaves a child holding its output: not waited
# for (was: until the child ended), the child killed with the group.
run 60 -q -m sync -n 2 --timeout 0 --check "sleep $S & exit 0" -o "$T/o4" -- "$PROG/counter_ok"
is $? 0 "check leaving a child on its output: exit 0 at once (was: waited for the child)"
is "$(left)" no "check leaving a child on its output: the child is killed"

# 5. The same with a failing status: a bug, with the output written before
# the exit.
out=$(run 60 -m sync -n 2 --timeout 0 --check "echo first; sleep $S & exit 3" -o "$T/o5" -- "$PROG/counter_ok" 2>&1)
is $? 1 "failing check leaving a child: a bug"
like "$out" "BUG \\(check\\) in run 0 after [0-9]+ steps: --check command failed with status 3" \
	"failing check leaving a child: its status"
like "$out" "  check: first" "failing check leaving a child: its output"
is "$(left)" no "failing check leaving a child: the child is killed"

# 6. A background child that does not hold the output is killed with the
# group when the check exits (was: left running).
run 60 -q -m sync -n 2 --timeout 0 --check "(sleep $S >/dev/null 2>&1 &); exit 0" -o "$T/o6" -- "$PROG/counter_ok"
is $? 0 "check leaving a detached child: exit 0"
is "$(left)" no "check leaving a detached child: killed with the check's group"

# 7. A check that passes is still a pass, and one that fails a bug.
"$CTS" -q -m sync -n 20 --check 'test "$CTS_EXIT_STATUS" = 0' -o "$T/o7" -- "$PROG/counter_ok"
is $? 0 "plain check: 20 runs pass"

done_testing
