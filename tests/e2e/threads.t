#!/bin/bash
# timeout: 600
# Many threads (issue 17, item 12): thread tables grow, memory follows live
# threads. 1,000 threads alive at once and 10,000 created and joined one after
# another come back clean in sync mode under random and a systematic strategy
# (every run completes: no inconclusive run); a deadlock that needs threads
# numbered above 200 is found and replayed, its twin is clean. Unloaded each
# big run takes a few seconds; the per-run --timeout is generous because a
# loaded machine stretches every ptrace stop.
. "$(dirname "$0")/lib.sh"

LATE_SEARCHES="random dpor"
# 3 checks in each of 4 clean calls, 4 per search, 3 in line.
plan $((4 * 3 + 4 * $(count $LATE_SEARCHES) + 3))

# clean NAME ARGS...: exit 0, and no run was cut short.
clean() {
	local what=$1; shift
	out=$("$CTS" -m sync --timeout "$(slow 300)" -o "$T/o" "$@" 2>&1)
	rc=$?
	is "$rc" 0 "$what: exit 0"
	like "$out" "mode sync: 0 bugs found(;|$)" "$what: clean"
	case $out in *inconclusive*) r=1 ;; *) r=0 ;; esac
	ok $r "$what: every run completed (none inconclusive)"
}

clean "1,000 threads at once, random" -s random -n 1 -- "$PROG/thousand_threads" 1000
clean "1,000 threads at once, dfs" -s dfs -n 1 -- "$PROG/thousand_threads" 1000
clean "10,000 threads one after another, random" -s random -n 1 -- "$PROG/many_threads" 10000
clean "10,000 threads one after another, pcb" -s pcb -n 1 -- "$PROG/many_threads" 10000

# The bug needs threads 201 and 202.
for s in $LATE_SEARCHES; do
	out=$("$CTS" -m sync -s "$s" -n 100 -o "$T/late-$s" -- "$PROG/late_deadlock" 2>&1)
	is $? 1 "late_deadlock/$s: found"
	like "$out" "BUG \\(deadlock\\).*thread 201 waits for mutex 0x[0-9a-f]+ held by thread 202" \
		"late_deadlock/$s: threads 201 and 202 named"
	f=$(ls "$T/late-$s"/deadlock-*.sched 2>/dev/null | head -n 1)
	out=$("$CTS" --replay "$f" 2>&1)
	is $? 1 "late_deadlock/$s: replay reproduces it"
	like "$out" "thread 201 waits for mutex" "late_deadlock/$s: replay names the same threads"
done
out=$("$CTS" -m sync -s random -n 20 -o "$T/ok" -- "$PROG/late_deadlock_ok" 2>&1)
is $? 0 "late_deadlock_ok/random: 20 runs clean"
out=$("$CTS" -m sync -s dpor -o "$T/ok" -- "$PROG/late_deadlock_ok" 2>&1)
is $? 0 "late_deadlock_ok/dpor: clean"
like "$out" "search space exhausted \\(complete\\)" "late_deadlock_ok/dpor: complete"
done_testing
