#!/bin/bash
# timeout: 900
# Systematic strategies on real programs: DPOR finds the unlocked counter
# bug; three independent writers are one DPOR schedule; preemption bound 0
# exhausts without the counter bug and bound 1 finds it; DPOR never explores
# more schedules than DFS.
. "$(dirname "$0")/lib.sh"

field() { sed -n "s/.*\"$2\": \\([a-z0-9]*\\).*/\\1/p" "$1" | head -n 1; }
TWINS="deadlock_ok:sync lost_wakeup_ok:sync check_then_act_ok:sync rwlock_ok:sync
       futex_lock_ok:sync counter_ok:break publish_ok:break spin:break"
plan $((11 + 3 * $(count $TWINS)))

out=$("$CTS" -m break -s dpor -o "$T/d" -- "$PROG/counter" 2>&1)
is $? 1 "dpor finds the counter bug"
like "$out" "BUG \\(assert\\)" "dpor: the failed assert"
r=$("$CTS" --replay "$T/d/assert-1.sched" 2>&1)
is $? 1 "dpor's schedule replays the bug"

"$CTS" -q -m break -s dpor --report "$T/tw.json" -o "$T/d" -- "$PROG/three_writers"
is $? 0 "three_writers: no bug"
is "$(field "$T/tw.json" runs)" 1 "three_writers: dpor explores exactly 1 schedule"
is "$(field "$T/tw.json" complete)" true "three_writers: dpor reports complete"

"$CTS" -q -m break -s pcb --bound 0 --report "$T/p0.json" -o "$T/d" -- "$PROG/counter"
is $? 0 "pcb --bound 0: no counter bug"
is "$(field "$T/p0.json" complete)" true "pcb --bound 0: bounded space exhausted"
"$CTS" -q -m break -s pcb --bound 1 -o "$T/d" -- "$PROG/counter"
is $? 1 "pcb --bound 1: finds the counter bug"
"$CTS" -q -m break -s idb --bound 0 --report "$T/i0.json" -o "$T/d" -- "$PROG/counter"
is "$(field "$T/i0.json" runs)" 1 "idb --bound 0: exactly one schedule"
"$CTS" -q -m break -s idb --bound 1 -o "$T/d" -- "$PROG/counter"
is $? 1 "idb --bound 1: finds the counter bug"

for pm in $TWINS; do
	p=${pm%%:*} m=${pm#*:}
	"$CTS" -q -m "$m" -s dfs -n 5000 --report "$T/dfs.json" -o "$T/d" -- "$PROG/$p"
	rc1=$?
	"$CTS" -q -m "$m" -s dpor -n 5000 --report "$T/dpor.json" -o "$T/d" -- "$PROG/$p"
	rc2=$?
	a=$(field "$T/dfs.json" runs) b=$(field "$T/dpor.json" runs)
	ok $(( rc1 != 0 || rc2 != 0 )) "$p: dfs and dpor find no bug"
	ok $(( b > a )) "$p: dpor ($b) explores no more schedules than dfs ($a)"
	# futex_lock_ok's lock is its own cmpxchg and xchg: sync mode sees its
	# futex calls but not an uncontended acquire, so its search is exhausted,
	# not complete (the report's unseen says why).
	want=true
	[ "$pm" = futex_lock_ok:sync ] && want=false
	is "$(field "$T/dpor.json" complete)" $want "$p: dpor complete: $want"
	diag "$p ($m): dfs $a, dpor $b schedules"
done
done_testing
