#!/bin/bash
# timeout: 300
# SSE moves on a page decided per access (access.c emulate_xmm): each is a
# fault, which the tracer performs itself through the thread's FXSAVE image
# rather than by a single step with the page opened and closed around it.
# xmm_moves_ok: two workers on their own halves of one page, 500 rounds of
# movdqu/movdqa/movups/movq/movd/movsd/movss each, every value checked by
# the program (a wrong emulation aborts it). Before: about 21,000 opened
# steps a run; now the few left are the loads of ucomisd and the like.
# Counts, not times: the same schedule makes the same faults on any machine.
. "$(dirname "$0")/lib.sh"
plan 5

run() { local m=$1; shift; env CTS_FAULTS=$m timeout -k 2 "$(slow 120)" "$CTS" "$@"; }
steps() { jq '.tracer.key_faults.opened_steps' "$1"; }
emulated() { jq '.tracer.emulated' "$1"; }
runs() { jq '.summary.runs' "$1"; }
per_access() { jq -r '.learned.lines' "$1" | grep -c 'p0x'; }
# clean, the page decided per access, and at most 4,000 opened steps a run
good() {
	[ "$1" = 0 ] && [ "$(per_access "$2")" -ge 1 ] &&
		[ "$(steps "$2")" -lt $((4000 * $(runs "$2"))) ]
}

for s in random pct dpor; do
	run mprotect -q -m break -s $s -n 3 --seed 1 --report "$T/$s.json" \
		-- "$PROG/xmm_moves_ok" >/dev/null 2>&1
	r=$?
	good $r "$T/$s.json"
	ok $? "xmm_moves_ok ($s, mprotect): clean, its SSE moves emulated ($(emulated "$T/$s.json") emulated, $(steps "$T/$s.json") opened steps in $(runs "$T/$s.json") runs, learned $(jq -r .learned.lines "$T/$s.json"))"
done

have_keys=$(keys_here)
if [ "$have_keys" = 0 ]; then
	skip 1 "no protection keys here (pku absent): the mprotect mechanism was tested above"
else
	run 1 -q -m break -s random -n 3 --seed 1 --report "$T/k.json" \
		-- "$PROG/xmm_moves_ok" >/dev/null 2>&1
	r=$?
	good $r "$T/k.json"
	ok $? "keys: clean, its SSE moves emulated ($(emulated "$T/k.json") emulated, $(steps "$T/k.json") opened steps)"
fi
run 1 -q -m sync -s random -n 3 --seed 1 -- "$PROG/xmm_moves_ok" >/dev/null 2>&1
ok $? "sync mode: clean"
done_testing
