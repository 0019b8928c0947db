#!/bin/bash
# timeout: 600
# The benchmark bug programs (benchmarks/programs) through cts-trace in their
# minimal mode: every bug is found, every twin stays clean. Built here with
# the flags the benchmark scripts use.
. "$(dirname "$0")/lib.sh"

B="$TOP/benchmarks/programs"
cases="deadlock:sync:deadlock lost_wakeup:sync:deadlock check_act:sync:assert
       lost_update:break:assert publish:break:assert dcl:break:assert
       bounded_buffer:sync:assert rw_cache:sync:assert ws_deque:break:assert
       pool_shutdown:sync:deadlock bank3:sync:deadlock"
plan $((3 * $(count $cases) + 3))
for c in $cases; do
	p=${c%%:*} rest=${c#*:} m=${rest%%:*} kind=${rest#*:}
	for v in "$p" "${p}_ok"; do
		gcc -g -O1 -pthread -w -o "$T/$v" "$B/$v.c" || { ok 1 "$v: builds"; continue; }
	done
	out=$("$CTS" -m "$m" -s pct -n 3000 -o "$T/o-$p" -- "$T/$p" 2>&1)
	rc=$?
	is "$rc" 1 "$p ($m): bug found"
	like "$out" "BUG \\($kind\\)" "$p ($m): reported as $kind"
	out=$("$CTS" -m "$m" -s random -n 300 -o "$T/o-$p-ok" -- "$T/${p}_ok" 2>&1)
	rc=$?
	is "$rc" 0 "${p}_ok ($m): 300 schedules, no bug"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | head -n 12 | sed 's/^/#   /'
done

# Systematic search replays a stored prefix on every run: the program must
# do exactly the same thing each time (a join reached in the same step as
# its target's creation used to resolve its target only sometimes).
out=$("$CTS" -m sync -s dfs -n 400 -o "$T/dfs" -- "$T/bounded_buffer_ok" 2>&1)
is $? 0 "bounded_buffer_ok: 400 dfs runs, every prefix replayed exactly"
[ -z "$(printf '%s' "$out" | grep diverged)" ]
ok $? "bounded_buffer_ok: no divergence"
out=$("$CTS" -m sync -s dpor -o "$T/dpor" -- "$T/bounded_buffer" 2>&1)
is $? 1 "bounded_buffer: dpor finds the bug"
done_testing
