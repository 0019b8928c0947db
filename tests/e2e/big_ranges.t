#!/bin/bash
# timeout: 600
# Big library-call ranges in break mode (models/pages.c BIG_RANGE): two
# threads memset their own 8 MiB blocks, then meet at a mutex. The clear is
# one range over 131,072 lines; it used to make every later access of the
# run visible (each a fault and a step with faults: 7.9 million stops and
# three inconclusive runs in 3 runs). Now the ok twin's runs are complete
# with a few thousand stops in every mechanism (keys where the machine has
# them, mprotect, no faults), and the lost update of big_clear is found by
# random, pct and dpor.
. "$(dirname "$0")/lib.sh"

MECHS="default mprotect off"
plan $(($(count $MECHS) * 2 + 3))

for mech in $MECHS; do
	case $mech in
	default) env=() ;;
	mprotect) env=(CTS_FAULTS=mprotect) ;;
	off) env=(CTS_FAULTS=0) ;;
	esac
	env "${env[@]}" "$CTS" -q -m break -s random -n 3 --seed 1 --timeout "$(slow 60)" \
		-o "$T/o" --report "$T/$mech.json" -- "$PROG/big_clear_ok" >/dev/null 2>&1
	is "$? $(jq -r '"\(.runs) \(.summary.inconclusive) \(.learned.lines | test("all"))"' "$T/$mech.json")" \
	   "0 3 0 false" "big_clear_ok ($mech): 3 runs, clean, none inconclusive, not every access visible"
	st=$(jq -r .tracer.stops "$T/$mech.json")
	ok "$([ "$st" -lt 50000 ]; echo $?)" "big_clear_ok ($mech): $st stops in 3 runs (per access: millions)"
done
for s in random pct dpor; do
	"$CTS" -q -m break -s $s -n 50 --seed 1 --timeout "$(slow 60)" -o "$T/o" \
		-- "$PROG/big_clear" >/dev/null 2>&1
	is $? 1 "big_clear ($s): the lost update is found"
done
done_testing
