#!/bin/bash
# timeout: 900
# The correct twin of every synchronization-level bug program stays clean
# over 1,000 schedules (500 random + 500 pct) in sync mode, and 200 more in
# break mode (the default), with no false alarm.
. "$(dirname "$0")/lib.sh"

twins="deadlock_ok lost_wakeup_ok check_then_act_ok rwlock_ok semaphore_ok barrier_ok
       futex_lock_ok"
STRATEGIES="random pct"
plan $(($(count $twins) * ($(count $STRATEGIES) + 1)))
for p in $twins; do
	for s in $STRATEGIES; do
		out=$("$CTS" -m sync -s "$s" --seed 7 -n 500 -o "$T/$p" -- "$PROG/$p" 2>&1)
		rc=$?
		is "$rc" 0 "$p/$s: 500 schedules, no bug"
		[ $rc -eq 0 ] || printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
	done
	out=$("$CTS" -s pct --seed 9 -n 200 -o "$T/$p" -- "$PROG/$p" 2>&1)
	rc=$?
	is "$rc" 0 "$p/break/pct: 200 schedules in the default mode, no bug"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
done
done_testing
