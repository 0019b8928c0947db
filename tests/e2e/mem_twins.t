#!/bin/bash
# timeout: 900
# Correct twins of the memory-level bugs stay clean over 1,000 schedules in
# break mode (and 200 in step mode), and a busy-wait handoff finishes under
# every strategy in every mode.
. "$(dirname "$0")/lib.sh"
TWINS="counter_ok publish_ok"
SAMPLERS="random pct"
MODES="sync break step"
SEARCHES="dfs dpor pcb idb"
plan $(($(count $TWINS) * ($(count $SAMPLERS) + 1) +
	$(count $MODES) * ($(count $SAMPLERS) + $(count $SEARCHES))))

for p in $TWINS; do
	for s in $SAMPLERS; do
		"$CTS" -q -m break -s "$s" --seed 5 -n 500 -o "$T/o" -- "$PROG/$p"
		is "$?" 0 "$p/break/$s: 500 schedules, no bug"
	done
	"$CTS" -q -m step -s pct --seed 5 -n 200 -o "$T/o" -- "$PROG/$p"
	is "$?" 0 "$p/step/pct: 200 schedules, no bug"
done
for m in $MODES; do
	for s in $SAMPLERS; do
		"$CTS" -q -m "$m" -s "$s" -n 200 -o "$T/o" -- "$PROG/spin"
		is "$?" 0 "spin/$m/$s: busy-wait handoff finishes, no bug"
	done
	for s in $SEARCHES; do
		out=$("$CTS" -m "$m" -s "$s" -n 2000 -o "$T/o" -- "$PROG/spin" 2>&1)
		is "$?" 0 "spin/$m/$s: busy-wait handoff finishes, no bug"
	done
done
done_testing
