#!/bin/bash
# timeout: 600
# Optimal DPOR (-s odpor) on real programs: lastzero (the optimal-DPOR
# paper's program) with a bug in one class of schedules is found and its
# schedule replays; the correct twin comes back clean and complete after
# exactly one run per Mazurkiewicz trace (12, the paper's count for
# lastzero(3)), none cut short, never more runs than dpor; the same with
# --jobs 2 (complete, no bug), with --break (a constraint like dpor's) and
# with --guide hapset (covered orders last, the search still complete).
. "$(dirname "$0")/lib.sh"

plan 14
sum() { jq -r ".summary.$2" "$1"; }
TO=$(slow 120)

out=$("$CTS" -m break -s odpor --timeout "$TO" -o "$T/d" -- "$PROG/lastzero" 2>&1)
is $? 1 "lastzero: odpor finds the bug"
like "$out" "assertion 'i != 0' failed" "lastzero: the reader walked down to array[0]"
"$CTS" -q --replay "$T/d/assert-1.sched" >/dev/null 2>&1
is $? 1 "lastzero: odpor's schedule replays the bug"

"$CTS" -q -m break -s odpor --timeout "$TO" --report "$T/o.json" -o "$T/d" -- "$PROG/lastzero_ok"
is $? 0 "lastzero_ok: odpor finds no bug"
is "$(sum "$T/o.json" complete)" true "lastzero_ok: odpor complete"
is "$(sum "$T/o.json" runs)" 12 "lastzero_ok: one run per trace (12)"
is "$(sum "$T/o.json" cut)" 0 "lastzero_ok: no run cut short as redundant"
"$CTS" -q -m break -s dpor --timeout "$TO" --report "$T/p.json" -o "$T/d" -- "$PROG/lastzero_ok"
a=$(sum "$T/o.json" runs) b=$(sum "$T/p.json" runs)
ok $(( a > b )) "lastzero_ok: odpor ($a runs) no more than dpor ($b)"

"$CTS" -q -m break -s odpor -j 2 --timeout "$TO" --report "$T/j.json" -o "$T/d" -- "$PROG/lastzero_ok"
is $? 0 "lastzero_ok: odpor -j 2 finds no bug"
is "$(sum "$T/j.json" complete)" true "lastzero_ok: odpor -j 2 complete"
"$CTS" -q -m break -s odpor -j 2 --timeout "$TO" -o "$T/d" -- "$PROG/lastzero" >/dev/null 2>&1
is $? 1 "lastzero: odpor -j 2 finds the bug"

"$CTS" -q -m break -s odpor --break lastzero_ok.c:28 --timeout "$TO" --report "$T/b.json" \
	-o "$T/d" -- "$PROG/lastzero_ok"
is "$?:$(sum "$T/b.json" complete)" 0:true "lastzero_ok: odpor --break clean and complete"
"$CTS" -q -m break -s odpor --guide hapset --timeout "$TO" -o "$T/d" -- "$PROG/lastzero" >/dev/null 2>&1
is $? 1 "lastzero: odpor --guide hapset finds the bug"
"$CTS" -q -m break -s odpor --guide hapset --timeout "$TO" --report "$T/h.json" -o "$T/d" \
	-- "$PROG/lastzero_ok"
is "$?:$(sum "$T/h.json" complete):$(sum "$T/h.json" runs)" 0:true:12 \
	"lastzero_ok: odpor --guide hapset clean and complete in 12 runs"
done_testing
