#!/bin/bash
# timeout: 300
# A thread's static TLS and TCB (around its thread pointer) are its own,
# never shared: but only inside the mapping that holds them. A libc
# thread's TCB is near the top of its stack mapping, and the block main
# allocated just before it created the thread is the next mapping up:
# before session 16 the window ran 4 KiB past the thread pointer, into that
# block, and above_stack_race's lost update on the block's first element
# was missed by random, pct and dpor (dpor "complete" after one run), with
# and without faults.
#   - above_stack_race: found by random, pct and dpor, with the machine's
#     fault mechanism and with CTS_FAULTS=0; its schedule replays;
#   - above_stack_race_ok: clean, dpor complete.
. "$(dirname "$0")/lib.sh"
plan 9

run() { local f=$1 s=$2; shift 2; env ${f:+CTS_FAULTS=$f} timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }

for f in "" 0; do
	name=$([ -z "$f" ] && echo "faults" || echo "CTS_FAULTS=0")
	for s in random pct dpor; do
		run "$f" 120 -q --no-minimize -m break -s $s -n 100 --seed 1 --report "$T/r.json" \
			-o "$T/out" -- "$PROG/above_stack_race" >/dev/null 2>&1
		r=$?
		is $r 1 "above_stack_race ($name, $s): the lost update is found ($(jq -c '[.summary.runs, .learned.lines]' "$T/r.json" 2>/dev/null))"
	done
done
sched=$(jq -r '.bugs[0].schedule' "$T/r.json")
[ "$(for i in 1 2 3; do run 0 60 -q --replay "$sched" >/dev/null 2>&1; echo $?; done | sort -u)" = 1 ]
ok $? "its schedule replays the bug 3 of 3 times"
run "" 120 -q -m break -s dpor -n 100 --seed 1 --report "$T/ok.json" -- "$PROG/above_stack_race_ok" >/dev/null 2>&1
r=$?
[ $r = 0 ] && [ "$(jq .complete "$T/ok.json")" = true ]
ok $? "above_stack_race_ok: clean, dpor complete (exit $r, $(jq -c '[.summary.runs, .complete]' "$T/ok.json" 2>/dev/null))"
run "" 120 -q -m break -s pct -n 20 --seed 1 -- "$PROG/above_stack_race_ok" >/dev/null 2>&1
is $? 0 "above_stack_race_ok: clean (pct, 20 runs)"
done_testing
