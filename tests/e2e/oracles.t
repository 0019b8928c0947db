#!/bin/bash
# timeout: 300
# The oracles: fatal signal (with thread, pc and source line), non-zero exit
# with --fail-on-exit; a run cut by the step budget or the per-run timeout is
# inconclusive, never a bug (exit 0, or 4 with --fail-on-inconclusive); and
# SIGINT in the middle of a run leaves nothing behind.
. "$(dirname "$0")/lib.sh"
plan 32

line=$(grep -n 'BUG: cur may have been cleared' "$TOP/tests/programs/crash.c" | cut -d: -f1)
out=$("$CTS" -n 500 -o "$T/crash" -- "$PROG/crash" 2>&1)
is $? 1 "crash: found"
like "$out" "BUG \\(crash\\).*thread 1 killed by Segmentation fault at reader\\+0x[0-9a-f]+ \\(crash.c:$line\\) \\(address 0x0\\)" \
	"crash: signal, thread, function and line"
like "$out" "#1 start_thread" "crash: stack of the faulting thread"
r=$("$CTS" --replay "$T/crash/crash-1.sched" 2>&1)
is $? 1 "crash: replay reproduces it"
"$CTS" -q -n 500 -o "$T/crash" -- "$PROG/crash_ok"
is $? 0 "crash_ok: 500 schedules clean"

# A correct program longer than the step budget: slow, not wrong. (No time
# limit: the budget, not the machine's speed, ends these runs.)
out=$("$CTS" --max-steps 50 --timeout $NO_TIME_LIMIT -n 2 -o "$T/ll" --report "$T/ll.json" -- "$PROG/sync_heavy" 2>&1)
is $? 0 "step budget: not a bug (exit 0)"
like "$out" "warning: run 0 inconclusive after 50 steps: step budget of 50 exhausted; no deadlock or livelock seen" \
	"step budget: a warning says the run is inconclusive and why"
like "$out" "schedule: $T/ll/inconclusive-1.sched" "step budget: its schedule is saved"
like "$out" "0 bugs found; 2 runs inconclusive" "step budget: the summary counts it"
like "$(tr -d '\n' < "$T/ll.json")" '"inconclusive": \{ *"count": 2, *"runs": \[ *\{ *"run": 0, *"steps": 50, *"kind": "max-steps", *"reason": "step budget' \
	"step budget: the report lists it"
"$CTS" -q --max-steps 50 --timeout $NO_TIME_LIMIT -n 2 --fail-on-inconclusive -o "$T/ll2" -- "$PROG/sync_heavy"
is $? 4 "--fail-on-inconclusive: exit 4"
r=$("$CTS" --replay "$T/ll/inconclusive-1.sched" 2>&1)
is $? 0 "replay of an inconclusive schedule: exit 0"
like "$r" "replay finished without a bug \(the run was inconclusive\)" "replay: says inconclusive"

# A thread that computes for ever: the run times out, inconclusive too. (No
# step budget: a fast machine spent the default one in less than the 1 s.)
out=$("$CTS" --timeout 1 --max-steps $NO_STEP_LIMIT -n 1 -o "$T/to" -- "$PROG/forever" 2>&1)
is $? 0 "timeout: not a bug (exit 0)"
like "$out" "warning: run 0 inconclusive after [0-9]+ steps: run timed out after 1.0 s.*no deadlock or livelock seen" \
	"timeout: inconclusive, says why"
is "$(leftovers forever)" no "timeout: the program is gone"

out=$("$CTS" --fail-on-exit -n 200 -o "$T/ex" -- "$PROG/exit_status" 2>&1)
is $? 1 "--fail-on-exit: exit status 3 is a bug"
like "$out" "exited with status 3" "--fail-on-exit: says the status"
"$CTS" -q -n 200 -o "$T/ex2" -- "$PROG/exit_status"
is $? 0 "without --fail-on-exit: no bug"

# Programs that run other programs (system(3)) work, in both launch modes,
# and leave nothing behind.
"$CTS" -q -n 100 -o "$T/sp" -- "$PROG/spawn"
is $? 0 "spawn: system() from threads works (fork server)"
"$CTS" -q --no-fork-server -n 30 -o "$T/sp" -- "$PROG/spawn"
is $? 0 "spawn: system() from threads works (exec every run)"
is "$(pgrep -fc '^sh -c exit 7')" 0 "spawn: no child of the program left behind"

# A schedule found with the fork server replays with exec, and vice versa.
"$CTS" -q -n 500 -o "$T/fs" -- "$PROG/deadlock"
r=$("$CTS" --no-fork-server --replay "$T/fs/deadlock-1.sched" 2>&1)
is $? 1 "fork-server schedule replays in exec mode"
"$CTS" -q --no-fork-server -n 500 -o "$T/ex" -- "$PROG/check_then_act"
r=$("$CTS" --replay "$T/ex/assert-1.sched" 2>&1)
is $? 1 "exec-mode schedule replays with the fork server"

# The tracer performs plain moves itself; the single-step path they replace
# stays tested.
out=$(CTS_NO_EMULATE=1 "$CTS" -m break -s pct -n 2000 -o "$T/ne" -- "$PROG/counter" 2>&1)
is $? 1 "single-step path: counter bug found"
r=$(CTS_NO_EMULATE=1 "$CTS" --replay "$T/ne/assert-1.sched" 2>&1)
is $? 1 "single-step path: replayed"
r=$("$CTS" --replay "$T/ne/assert-1.sched" 2>&1)
is $? 1 "single-step schedule replays with emulation"
CTS_NO_EMULATE=1 "$CTS" -q -n 200 -o "$T/ne" -- "$PROG/deadlock_ok"
is $? 0 "single-step path: deadlock_ok clean"

# SIGTERM while the program is running: exit 130, nothing left behind. (A
# background job's SIGINT is ignored, and cts-trace leaves it so.) Wait until
# the program itself runs: its command line starts with its path.
"$CTS" --timeout 60 --max-steps $NO_STEP_LIMIT -n 1 -o "$T/int" -- "$PROG/forever" >"$T/int.log" 2>&1 &
pid=$!
for i in $(seq 200); do pgrep -f "^$PROG/forever" >/dev/null && break; sleep 0.1; done
kill -TERM $pid
wait $pid
is $? 130 "SIGTERM: exit status 130"
like "$(cat "$T/int.log")" "interrupted" "SIGTERM: says interrupted"
is "$(leftovers forever)" no "SIGTERM: no traced process left behind"
is "$(ps -eo stat,comm | grep -c '^Z.*forever')" 0 "SIGTERM: no zombie left behind"
done_testing
