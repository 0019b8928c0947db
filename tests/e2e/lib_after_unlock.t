#!/bin/bash
# timeout: 300
# A pthread call ends when its frame does (sync.c cts_tr_in_call): library
# code a thread runs after an unlock is its own work, not the call's.
# lib_after_unlock: two workers bump a locked count, then sort a private
# array with qsort, whose merge buffer is fresh memory libc allocates. The
# faults of that library code grant the thread its pages (a few faults a
# page); while the unlock's "inside the call" lasted to the thread's next
# event, each of qsort's accesses faulted and the tracer performed it
# (about 150,000 faults a run before). Counts, not times: the same schedule
# makes the same faults on any machine.
. "$(dirname "$0")/lib.sh"
plan 5

run() { local m=$1; shift; env CTS_FAULTS=$m timeout -k 2 "$(slow 120)" "$CTS" "$@"; }
faults() { jq '.tracer.key_faults.faults' "$1"; }

for s in random pct dpor; do
	run mprotect -q -m break -s $s -n 3 --seed 1 --report "$T/$s.json" \
		-- "$PROG/lib_after_unlock" >/dev/null 2>&1
	r=$?
	[ $r = 0 ] && [ "$(faults "$T/$s.json")" -lt 20000 ]
	ok $? "lib_after_unlock ($s, mprotect): clean, qsort's pages granted, not faulted per access ($(faults "$T/$s.json") faults in $(jq .summary.runs "$T/$s.json") runs)"
done

have_keys=$(keys_here)
if [ "$have_keys" = 0 ]; then
	skip 1 "no protection keys here (pku absent): the mprotect mechanism was tested above"
else
	run 1 -q -m break -s random -n 3 --seed 1 --report "$T/k.json" \
		-- "$PROG/lib_after_unlock" >/dev/null 2>&1
	r=$?
	[ $r = 0 ] && [ "$(faults "$T/k.json")" -lt 20000 ]
	ok $? "keys: clean, qsort's pages granted ($(faults "$T/k.json") faults)"
fi
run 1 -q -m sync -s random -n 3 --seed 1 -- "$PROG/lib_after_unlock" >/dev/null 2>&1
ok $? "sync mode: clean"
done_testing
