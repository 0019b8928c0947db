#!/bin/bash
# timeout: 300
# A rep string instruction in traced code does one element per single
# step. Its access is decided at its int3 for every element left (one range,
# as a library call's is), so the rest of its elements run in the same step
# (tracer/dispatch.c): before, each element came back to the int3 and, when
# the range left still held a shared line, was a scheduling point of its own
# (an inlined 4 KiB memset over a freed block's lines: 512 steps).
#   - rep_clear (a worker clears a shared table with one `rep stosq` while
#     another records a hit in its last slot, no lock): the lost hit is found
#     by random, pct and dpor in a few dozen steps (525 steps a run before),
#     with and without faults; its schedule replays;
#   - rep_clear_ok is clean, dpor complete.
. "$(dirname "$0")/lib.sh"
plan 9

cts() { local f=$1 s=$2; shift 2; CTS_FAULTS=$f timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }

for s in random pct dpor; do
	cts 1 120 -q --no-minimize -m break -s $s -n 50 --seed 1 --report "$T/$s.json" -o "$T/o-$s" \
		-- "$PROG/rep_clear" >/dev/null 2>&1
	r=$?
	[ $r = 1 ] && jq -e '.steps < 100' "$T/$s.json" >/dev/null
	ok $? "rep_clear: $s finds the lost hit, the rep stosq one step (exit $r, $(jq -c '{runs: .summary.runs, steps}' "$T/$s.json" 2>/dev/null))"
done
sched=$(jq -r '.bugs[0].schedule' "$T/dpor.json")
[ "$(for i in 1 2 3; do cts 1 60 -q --replay "$sched" >/dev/null 2>&1; echo $?; done | sort -u)" = 1 ]
ok $? "rep_clear: its schedule replays the bug 3 of 3 times"
for f in 0 mprotect; do
	cts $f 120 -q --no-minimize -m break -s dpor -n 50 --seed 1 --report "$T/f.json" -- "$PROG/rep_clear" >/dev/null 2>&1
	r=$?
	[ $r = 1 ] && jq -e '.steps < 100' "$T/f.json" >/dev/null
	ok $? "rep_clear with CTS_FAULTS=$f: dpor finds it, the same way (exit $r, $(jq -c '{runs: .summary.runs, steps}' "$T/f.json" 2>/dev/null))"
done
for s in random pct; do
	cts 1 120 -q -m break -s $s -n 20 --seed 1 -- "$PROG/rep_clear_ok" >/dev/null 2>&1
	is $? 0 "rep_clear_ok: clean ($s, 20 runs)"
done
cts 1 120 -q -m break -s dpor -n 200 --seed 1 --report "$T/ok.json" -- "$PROG/rep_clear_ok" >/dev/null 2>&1
r=$?
[ $r = 0 ] && [ "$(jq .complete "$T/ok.json")" = true ]
ok $? "rep_clear_ok: clean, dpor complete (exit $r, $(jq -c '[.summary.runs, .complete]' "$T/ok.json" 2>/dev/null))"
done_testing
