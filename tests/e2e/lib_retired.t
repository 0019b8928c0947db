#!/bin/bash
# timeout: 600
# Library calls out of the text (tracer/lcret.h, docs/design.md): in fault
# mode a leaf string or memory function's breakpoint leaves the text for the
# run after 32 calls in a row hidden on pages the thread may use; the
# faults of its body are then decided on their lines. lib_retired: two
# workers warm memcpy and memcmp up on their own pages (both leave the
# text), then publish into a shared record with two memcpy calls each.
#   - the record's torn publish is still found by random, pct and dpor: the
#     body's fault on the record's line voids the run, the two publishing
#     call sites are learned to stop (s0x... in the learned set: a
#     breakpoint on each `call memcpy@plt`, the stub out of the text for the
#     warm-up's calls), later runs see those calls as range events;
#   - lib_retired_tail makes the copies through a tail call (`jmp
#     memcpy@plt`): no return address names the call, so memcpy's stub
#     itself is learned to stay (c0x...), and the bug is found;
#   - the twin is clean, its calls leave the text, nothing is learned to
#     stay (the body's faults on the thread's own lines are native), and it
#     stops at fewer breakpoints than with CTS_NO_LIBCALL_RETIRE=1;
#   - the saved schedule holds the learned set and replays;
#   - with CTS_NO_LIBCALL_RETIRE=1 nothing leaves the text and the bug is
#     found all the same;
#   - the same with protection keys where the machine has them.
. "$(dirname "$0")/lib.sh"
plan 13

run() { local m=$1 s=$2; shift 2; env CTS_FAULTS=$m timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }
sig() { jq -c '[.summary.runs, .summary.relearned, .tracer.library_calls_retired, .tracer.library_call_faults, .learned.lines]' "$1"; }

for s in random pct dpor; do
	run mprotect 300 -q -m break -s $s -n 200 --seed 1 --report "$T/$s.json" -o "$T/$s" \
		-- "$PROG/lib_retired" >/dev/null 2>&1
	r=$?
	[ $r = 1 ] && [ "$(jq .tracer.library_calls_retired "$T/$s.json")" -ge 1 ] &&
		jq -e '.learned.lines | test(",s0x[0-9a-f]+")' "$T/$s.json" >/dev/null
	ok $? "lib_retired ($s): found after its calls left the text; the publishing call sites learned to stop ($(sig "$T/$s.json"))"
done

run mprotect 300 -q -m break -s dpor -n 200 --seed 1 --report "$T/tail.json" \
	-- "$PROG/lib_retired_tail" >/dev/null 2>&1
r=$?
[ $r = 1 ] && jq -e '.learned.lines | test(",c0x[0-9a-f]+$")' "$T/tail.json" >/dev/null
ok $? "lib_retired_tail (dpor): found; with no call site on the stack, the stub learned to stay ($(sig "$T/tail.json"))"

for s in random pct dpor; do
	run mprotect 300 -q -m break -s $s -n 30 --seed 1 --report "$T/ok_$s.json" \
		-- "$PROG/lib_retired_ok" >/dev/null 2>&1
	r=$?
	[ $r = 0 ] && [ "$(jq .tracer.library_calls_retired "$T/ok_$s.json")" -ge 2 ] &&
		! jq -e '.learned.lines | test("[cs]0x")' "$T/ok_$s.json" >/dev/null
	ok $? "lib_retired_ok ($s): clean, its calls out of the text, none learned to stay ($(sig "$T/ok_$s.json"))"
done
CTS_NO_LIBCALL_RETIRE=1 run mprotect 300 -q -m break -s random -n 30 --seed 1 \
	--report "$T/ok_off.json" -- "$PROG/lib_retired_ok" >/dev/null 2>&1
r=$?
[ $r = 0 ] && [ "$(jq .tracer.library_calls_retired "$T/ok_off.json")" = 0 ] &&
	[ "$(jq .tracer.breakpoint_hits "$T/ok_random.json")" -lt "$(jq .tracer.breakpoint_hits "$T/ok_off.json")" ]
ok $? "fewer breakpoint hits with the calls out of the text ($(jq .tracer.breakpoint_hits "$T/ok_random.json") against $(jq .tracer.breakpoint_hits "$T/ok_off.json"))"

sched=$(jq -r '.bugs[0].schedule' "$T/dpor.json")
grep -q '^hot-lines ownk:.*,s0x' "$sched"
ok $? "the schedule records the learned set with the call sites that stop"
[ "$(for i in 1 2 3; do run mprotect 60 -q --replay "$sched" >/dev/null 2>&1; echo $?; done | sort -u)" = 1 ]
ok $? "it replays the bug 3 of 3 times"

CTS_NO_LIBCALL_RETIRE=1 run mprotect 300 -q -m break -s dpor -n 200 --seed 1 --report "$T/off.json" \
	-- "$PROG/lib_retired" >/dev/null 2>&1
r=$?
[ $r = 1 ] && [ "$(jq .tracer.library_calls_retired "$T/off.json")" = 0 ]
ok $? "CTS_NO_LIBCALL_RETIRE=1: nothing out of the text, found all the same ($(sig "$T/off.json"))"

have_keys=$(keys_here)
if [ "$have_keys" = 0 ]; then
	skip 2 "no protection keys here (pku absent): the mprotect mechanism was tested above"
else
	run 1 300 -q -m break -s dpor -n 200 --seed 1 --report "$T/k.json" -- "$PROG/lib_retired" >/dev/null 2>&1
	r=$?
	[ $r = 1 ] && [ "$(jq .tracer.library_calls_retired "$T/k.json")" -ge 1 ]
	ok $? "keys: lib_retired found after its calls left the text ($(sig "$T/k.json"))"
	run 1 300 -q -m break -s random -n 30 --seed 1 --report "$T/kok.json" -- "$PROG/lib_retired_ok" >/dev/null 2>&1
	r=$?
	[ $r = 0 ] && ! jq -e '.learned.lines | test("[cs]0x")' "$T/kok.json" >/dev/null
	ok $? "keys: lib_retired_ok clean, none learned to stay ($(sig "$T/kok.json"))"
fi
done_testing
