#!/bin/bash
# timeout: 300
# Library code in its own mode (fault.h cts_fault_lib_enter, the mprotect
# mechanism): a thread whose library code keeps faulting on pages no thread
# can be granted runs it with every page open and the traced text not
# executable, until its first traced instruction faults. lib_callback_race:
# two workers qsort arrays of their own on one page, and the comparator,
# called back by qsort, counts its calls in a shared counter unlocked (a
# lost update). The callback ends the mode before it runs, so the lost
# update is found as without the mode (CTS_NO_LIB_MODE=1: the same runs);
# the twin is clean. Counts, not times.
. "$(dirname "$0")/lib.sh"
plan 10

run() { local m=$1; shift; env CTS_FAULTS=$m timeout -k 2 "$(slow 120)" "$CTS" "$@"; }
stretches() { jq '.tracer.key_faults.library_stretches' "$1"; }

for s in random pct dpor; do
	run mprotect -q -m break -s $s -n 30 --seed 1 --report "$T/$s.json" \
		-- "$PROG/lib_callback_race" >/dev/null 2>&1
	r=$?
	[ $r = 1 ] && [ "$(jq -r '.bugs[0].kind' "$T/$s.json")" = assert ] &&
		[ "$(stretches "$T/$s.json")" -gt 0 ]
	ok $? "lib_callback_race ($s, mprotect): the lost update found in run $(jq .summary.runs "$T/$s.json"), $(stretches "$T/$s.json") stretches of library code in its own mode (exit $r)"
	CTS_NO_LIB_MODE=1 run mprotect -q -m break -s $s -n 30 --seed 1 --report "$T/$s-off.json" \
		-- "$PROG/lib_callback_race" >/dev/null 2>&1
	is "$(jq .summary.runs "$T/$s-off.json")" "$(jq .summary.runs "$T/$s.json")" \
		"lib_callback_race ($s): found in the same run without the mode ($(stretches "$T/$s-off.json") stretches)"
done
for s in random pct dpor; do
	run mprotect -q -m break -s $s -n 30 --seed 1 --report "$T/ok-$s.json" \
		-- "$PROG/lib_callback_ok" >/dev/null 2>&1
	r=$?
	[ $r = 0 ] && [ "$(stretches "$T/ok-$s.json")" -gt 0 ]
	ok $? "lib_callback_ok ($s, mprotect): clean ($(stretches "$T/ok-$s.json") stretches, exit $r)"
done
run mprotect -q -m sync -s random -n 10 --seed 1 -- "$PROG/lib_callback_ok" >/dev/null 2>&1
ok $? "sync mode: the twin clean"
done_testing
