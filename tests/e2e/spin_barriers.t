#!/bin/bash
# timeout: 600
# Bugs behind hand-written spin barriers (issue 27 item 6): held-out
# programs whose threads meet at spin barriers had their bug found by dpor
# in 1-3 runs at c1ce9d6 and in none of 85-139 runs at 5d4304e, and pct lost
# a crash. Four such programs, each with a correct twin: threads meeting at
# a barrier made of a counter under a mutex and a busy-waited flag, whose
# last arriver releases the others before its serial section (a deadlock,
# spinbar_deadlock) or before it publishes the round's table (a crash,
# spinbar_crash); a split-phase sense-reversing barrier whose threads
# arrive before they store what the last arriver sums (an assert,
# spinbar_assert); a lost update two barriers before the end, behind a
# barrier whose waiters yield between polls (an assert, spin_count_barrier:
# 2,319 dpor runs before dpor deferred the races on spin locations and
# between waiters' arrivals). In break mode, the default, dpor, pct and
# random must each find the bug within a budget of runs (not of time; the
# counts are in benchmarks/results/spin-barriers.md), with the right
# verdict, and its schedule must replay; the twins must come back clean
# with every run complete.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/corpus/lib.sh"

# program | verdict | runs allowed: dpor pct random
PROGRAMS='
spinbar_deadlock   deadlock 6 20 20
spinbar_crash      crash    6 20 20
spinbar_assert     assert   6 20 20
spin_count_barrier assert   6 20 20
'
STRATEGIES="dpor pct random"
plan $(($(printf '%s\n' "$PROGRAMS" | grep -c .) * ($(count $STRATEGIES) * 3)))

while read -r p kind nd np nr; do
	[ -n "$p" ] || continue
	for s in $STRATEGIES; do
		case $s in dpor) n=$nd ;; pct) n=$np ;; random) n=$nr ;; esac
		cts_run 300 -s "$s" --seed 1 -n "$n" --timeout "$(slow 10)" -o "$T/$p.$s" -- "$PROG/$p"
		found=no
		[ "$RC" -eq 1 ] && [ "$KIND" = "$kind" ] && found=yes
		SEEN="$SEEN; runs $RUNS_DONE"
		[ $found = yes ]
		check $? "$p/$s" "BUG ($kind) found within $n runs (in run $(jq -r '.bugs[0].run // "-"' "$T/report.json" 2>/dev/null))"
		if [ $found = yes ]; then
			sched=$(jq -r '.bugs[0].schedule' "$T/report.json")
			out=$(timeout -k 5 120 "$CTS" --replay "$sched" 2>&1 </dev/null >/dev/null)
			st=$?
			SEEN="replay exit $st: $(printf '%s\n' "$out" | grep -m 1 BUG)"
			[ $st -eq 1 ] && printf '%s\n' "$out" | grep -q "BUG ($kind)"
		else
			SEEN="nothing to replay: the bug was not found"
			false
		fi
		check $? "$p/$s/replay" "the bug's schedule replays it"
		cts_run 300 -s "$s" --seed 1 -n 30 --timeout "$(slow 10)" --fail-on-exit -o "$T/$p.ok.$s" \
			-- "$PROG/${p}_ok"
		clean
		check $? "${p}_ok/$s" "clean in 30 runs (at most): no bug, every run complete"
	done
done <<<"$PROGRAMS"
done_testing
