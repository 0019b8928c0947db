#!/bin/bash
# timeout: 900
# Systematic strategies on real programs: DPOR finds the unlocked counter
# bug; three independent writers are one DPOR schedule; preemption bound 0
# exhausts without the counter bug and bound 1 finds it; DPOR never explores
# more schedules than DFS; a run that learns a spin load mid-prefix is void
# and the search restarts.
. "$(dirname "$0")/lib.sh"

field() { sed -n "s/.*\"$2\": \\([a-z0-9]*\\).*/\\1/p" "$1" | head -n 1; }
TWINS="deadlock_ok:sync lost_wakeup_ok:sync check_then_act_ok:sync rwlock_ok:sync
       futex_lock_ok:sync counter_ok:break publish_ok:break spin:break"
plan $((13 + 3 * $(count $TWINS)))

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

# A run that learns a busy-wait load while it replays its prefix diverges
# from it: the run is void and run again, the search begins again
# (summary.spin_restarts), and the user still gets the runs asked for, or a
# search exhausted (not complete: a spinner held back in sync mode proves
# nothing, docs/report-format.md). spin_then_block_ok's waiter spins on its flag for 8 ms of
# wall time, then blocks; with a 5 ms slice (CTS_SLICE_MS, for testing) the
# probe lands inside the spin in some runs and not in others: in a replayed
# prefix in 35 of 50 invocations of -n 10, in a run's own steps in 10, never
# in 5 (a loaded 2-CPU VM). Timing picks the run, so each invocation is
# checked for what holds in all of them; the void path is looked for in up
# to 5 invocations and counted as skipped if timing never took it.
bad=0 took=""
for i in 1 2 3 4 5; do
	CTS_SLICE_MS=5 "$CTS" -d -m sync -s dpor -n 10 --timeout "$(slow 10)" --report "$T/st.json" \
		-o "$T/d" -- "$PROG/spin_then_block_ok" 8 >"$T/st.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] || ! jq -e '(.bugs | length) == 0 and .summary.inconclusive == 0 and
	     (.summary.runs == 10 or .exhausted)' "$T/st.json" >/dev/null 2>&1; then
		bad=1
		diag "invocation $i: exit $rc, $(jq -c '.summary' "$T/st.json" 2>&1)"
		break
	fi
	if grep -q 'diverged from its prefix: void' "$T/st.log"; then
		took=$i
		break
	fi
done
ok $bad "spin_then_block_ok/sync/dpor: exit 0, no bug or divergence, 10 runs or the search exhausted"
if [ -n "$took" ]; then
	is "$(jq -r '.summary.spin_restarts >= 1' "$T/st.json")" true \
		"spin_then_block_ok: learned mid-prefix (invocation $took): void, rerun, spin_restarts counted"
else
	skip 1 "the spin was never learned mid-prefix in 5 invocations (timing)"
fi
done_testing
