#!/bin/bash
# timeout: 900
# The correct twin of every synchronization-level bug program stays clean
# over 1,000 schedules (500 random + 500 pct), with no false alarm.
. "$(dirname "$0")/lib.sh"

twins="deadlock_ok lost_wakeup_ok check_then_act_ok rwlock_ok semaphore_ok barrier_ok
       futex_lock_ok"
plan $((7 * 2))
for p in $twins; do
	for s in random pct; do
		out=$("$CTS" -s "$s" --seed 7 -n 500 -o "$T/$p" -- "$PROG/$p" 2>&1)
		rc=$?
		is "$rc" 0 "$p/$s: 500 schedules, no bug"
		[ $rc -eq 0 ] || printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
	done
done
done_testing
