#!/bin/bash
# timeout: 600
# A page decided per access (two threads' lines on one page, p0x... in the
# learned set) keeps the deny key with faults (tracer/fault.c): every access
# there is a fault decided on its lines. On key 0 it was left to access
# breakpoints, but a loop's breakpoint retires for the run once its hits
# kept to tracked pages, so a loop that began on its own pages crossed onto
# that page unseen.
#   - slice_race (two halves of an array meet inside a page; worker 0's loop
#     runs one element into worker 1's half): the lost update is found by
#     dpor with each fault mechanism the machine has in as many runs as
#     without faults (the same events; pct too, run 46 in each way: not
#     repeated here for time); the line where the halves meet is learned
#     besides the page; its schedule replays;
#   - slice_race_ok is clean under random, pct and dpor (dpor complete).
. "$(dirname "$0")/lib.sh"
plan 10

cts() { local f=$1 s=$2; shift 2; CTS_FAULTS=$f timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }
sig() { jq -c '[.summary.runs, .learned.lines]' "$1"; }

have_keys=$(keys_here)

# Without faults: the reference run count.
cts 0 120 -q --no-minimize -m break -s dpor -n 100 --seed 1 --report "$T/d0.json" -- "$PROG/slice_race" >/dev/null 2>&1
is $? 1 "slice_race without faults: dpor finds the lost update ($(sig "$T/d0.json"))"
druns=$(jq .summary.runs "$T/d0.json")

for mech in 1 mprotect; do
	if [ "$mech" = 1 ] && [ "$have_keys" = 0 ]; then
		skip 3 "no protection keys here (the mprotect mechanism is tested below)"
		continue
	fi
	name=$([ "$mech" = 1 ] && echo keys || echo mprotect)
	cts $mech 120 -q --no-minimize -m break -s dpor -n 100 --seed 1 --report "$T/d.json" \
		-- "$PROG/slice_race" >/dev/null 2>&1
	r=$?
	[ $r = 1 ] && [ "$(jq .summary.runs "$T/d.json")" = "$druns" ]
	ok $? "slice_race ($name): dpor finds it in $druns runs, as without faults (exit $r, $(sig "$T/d.json"))"
	jq -e '.learned.lines | test("^ownk:0x[0-9a-f]+,p0x[0-9a-f]+$")' "$T/d.json" >/dev/null
	ok $? "slice_race ($name): the line where the halves meet is learned, and its page as decided per access"
	sched=$(jq -r '.bugs[0].schedule' "$T/d.json")
	[ "$(for i in 1 2 3; do cts $mech 60 -q --replay "$sched" >/dev/null 2>&1; echo $?; done | sort -u)" = 1 ]
	ok $? "slice_race ($name): its schedule replays the bug 3 of 3 times"
done

mech=$([ "$have_keys" = 0 ] && echo mprotect || echo 1)
for s in random pct; do
	cts $mech 300 -q -m break -s $s -n 5 --seed 1 -- "$PROG/slice_race_ok" >/dev/null 2>&1
	is $? 0 "slice_race_ok: clean ($s, 5 runs)"
done
cts $mech 300 -q -m break -s dpor -n 200 --seed 1 --report "$T/ok.json" -- "$PROG/slice_race_ok" >/dev/null 2>&1
r=$?
[ $r = 0 ] && [ "$(jq .complete "$T/ok.json")" = true ]
ok $? "slice_race_ok: clean, dpor complete (exit $r, $(jq -c '[.summary.runs, .complete, .learned.lines]' "$T/ok.json" 2>/dev/null))"
done_testing
