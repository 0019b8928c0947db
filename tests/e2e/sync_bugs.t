#!/bin/bash
# timeout: 600
# Every synchronization-level bug program is found by random and pct (fixed
# seeds), its schedule is saved, and --replay reproduces it 10 times out of 10.
. "$(dirname "$0")/lib.sh"

progs="deadlock:deadlock lost_wakeup:deadlock check_then_act:assert rwlock:assert
       semaphore:assert barrier:assert futex_lock:assert"
STRATEGIES="random pct"
plan $((4 * $(count $progs) * $(count $STRATEGIES)))
for pk in $progs; do
	p=${pk%%:*} kind=${pk#*:}
	for s in $STRATEGIES; do
		out=$("$CTS" -m sync -s "$s" --seed 1 -n 5000 -o "$T/$p-$s" -- "$PROG/$p" 2>&1)
		is "$?" 1 "$p/$s: bug found (exit 1)"
		like "$out" "BUG \\($kind\\)" "$p/$s: reported as $kind"
		f="$T/$p-$s/$kind-1.sched"
		[ -s "$f" ]
		ok $? "$p/$s: schedule saved as $kind-1.sched"
		good=0
		for i in 1 2 3 4 5 6 7 8 9 10; do
			r=$("$CTS" --replay "$f" 2>&1)
			if [ $? -eq 1 ] && printf '%s' "$r" | grep -q "BUG ($kind)" &&
			   printf '%s' "$r" | grep -q "replay reproduced the bug"; then
				good=$((good + 1))
			fi
		done
		is "$good" 10 "$p/$s: replay reproduces the bug 10/10"
	done
done
done_testing
