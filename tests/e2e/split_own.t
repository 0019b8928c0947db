#!/bin/bash
# timeout: 900
# The same events everywhere (issue 26 item 3): in break mode a run shows
# what its schedule and the learned set of shared lines make visible, and a
# search that learns a line begins again on the bigger set, so a split
# search explores exactly the runs of one process. pcb (bound 2: demo_ok's
# whole dfs tree is 31,043 runs, a minute a way), dfs and dpor (one
# process with the split's --split-depth) on demo_ok and on two_books_ok,
# whose shared line is met only mid-search: one process, --jobs 2 (workers
# begin again together) and 4 shards merged (run again from the merged
# union while merge says their sets differ, exit 4) make as many runs, as
# many steps, on one learned set, all complete; two_books' lost update is
# the verdict of all three; the same for --instances. --hot-lines starts a
# search from a set;
# scripts/cts-parallel.sh runs the shards again by itself.
. "$(dirname "$0")/lib.sh"

runs() { jq -r '"\(.runs) runs, \(.steps) steps"' "$1"; }
learned() { jq -r '"\(.learned.lines) \(.learned.agree)"' "$1"; }

# three_ways NAME PROGRAM STRATEGY [ONE-PROCESS OPTIONS]: NAME-one.json,
# NAME-two.json (-j 2) and NAME-m.json (4 shards, two at a time, merged;
# again from the merge's union while it exits 4, 3 passes at most); their
# exit statuses in NAME.rc (the first merge's and the passes last).
three_ways() {
	local name=$1 prog=$2 s=$3 from=() pass st first
	shift 3
	local o=(-q -m break -s "$s" -n 0 --timeout "$(slow 60)" -o out)
	[ "$s" = pcb ] && o+=(--bound 2)
	"$CTS" "${o[@]}" "$@" --report "$name-one.json" -- "$prog" 2>/dev/null
	local r1=$?
	"$CTS" "${o[@]}" -j 2 --report "$name-two.json" -- "$prog" 2>/dev/null
	local r2=$?
	for pass in 1 2 3; do
		for i in 1 2 3 4; do
			"$CTS" "${o[@]}" --shard $i/4 "${from[@]}" --report "$name-s$i.json" -- "$prog" \
				2>/dev/null &
			[ $i = 2 ] && wait
		done
		wait
		"$CTS" merge "$name"-s{1,2,3,4}.json --report "$name-m.json" 2>"$name-merge.err"
		st=$?
		[ -n "${first:-}" ] || { first=$st; cp "$name-merge.err" "$name-merge1.err"; }
		[ $st = 4 ] || break
		cp "$name-m.json" "$name-l$pass.json"
		from=(--hot-lines "$name-l$pass.json")
	done
	echo "$r1 $r2 $st $first $pass" >"$name.rc"
}

CLEAN="demo_ok:pcb demo_ok:dpor two_books_ok:dfs two_books_ok:dpor"
plan $((5 * $(count $CLEAN) + 18))

for c in $CLEAN; do
	p=${c%%:*} s=${c#*:}
	n=$p-$s
	# dpor above the split branches on every thread: one process with the same depth
	[ "$s" = dpor ] && set -- --split-depth 4 || set --
	three_ways "$n" "$PROG/$p" "$s" "$@"
	read -r r1 r2 rm first passes <"$n.rc"
	is "$r1 $r2 $rm" "0 0 0" "$p $s: no bug in one process, with --jobs 2, in the merged shards"
	is "$(runs "$n-two.json")" "$(runs "$n-one.json")" "$p $s: --jobs 2 makes the runs of one process ($(runs "$n-one.json"))"
	is "$(runs "$n-m.json")" "$(runs "$n-one.json")" "$p $s: 4 merged shards make them too (merge passes: $passes)"
	is "$(learned "$n-two.json"), $(learned "$n-m.json")" \
	   "$(learned "$n-one.json"), $(learned "$n-one.json")" "$p $s: on one learned set ($(learned "$n-one.json"))"
	is "$(jq -r .complete "$n-one.json" "$n-two.json" "$n-m.json" | tr '\n' ' ')" "true true true " \
	   "$p $s: complete all three ways"
done

# two_books_ok's line turns shared only once t2 comes between t1's two
# critical sections: one process met it after runs it then discarded.
ok "$(jq -e '.summary.relearned >= 1 and .summary.discarded > 0' two_books_ok-dfs-one.json >/dev/null; echo $?)" \
   "two_books_ok dfs: the line is learned mid-search ($(jq -c '[.summary.relearned, .summary.discarded]' two_books_ok-dfs-one.json): void runs, runs discarded)"
# dpor's shards 3 and 4 of two_books_ok never meet its line.
read -r r1 r2 rm first passes <two_books_ok-dpor.rc
is "$first $passes" "4 2" "two_books_ok dpor: the first merge finds the shards' sets differ (exit 4), one pass from their union agrees"
like "$(cat two_books_ok-dpor-merge1.err)" "different learned sets of shared lines .*--hot-lines" \
     "two_books_ok dpor: the first merge says so, and what to do"

# --instances: the first run counts points of the events the learned set
# shows, so a line learned mid-search begins the whole search again (first
# run and instances); one process, -j 2 and 4 merged shards make the same
# runs on the same set (two_books_ok meets its line in instance 0's run 26).
io=(-q -m break -s dfs --instances 4 -n 200 --timeout "$(slow 60)" -o out)
"$CTS" "${io[@]}" --report inst-one.json -- "$PROG/two_books_ok" 2>/dev/null
r1=$?
"$CTS" "${io[@]}" -j 2 --report inst-two.json -- "$PROG/two_books_ok" 2>/dev/null
r2=$?
for i in 1 2 3 4; do
	"$CTS" "${io[@]}" --shard $i/4 --report inst-s$i.json -- "$PROG/two_books_ok" 2>/dev/null
done
"$CTS" merge inst-s{1,2,3,4}.json --report inst-m.json 2>/dev/null
is "$r1 $r2 $?" "0 0 0" "--instances: no bug in one process, with --jobs 2, in the merged shards"
is "$(runs inst-two.json), $(runs inst-m.json)" "$(runs inst-one.json), $(runs inst-one.json)" \
   "--instances: the same runs three ways ($(runs inst-one.json))"
is "$(learned inst-two.json), $(learned inst-m.json)" \
   "$(learned inst-one.json), $(learned inst-one.json)" "--instances: on one learned set ($(learned inst-one.json))"
ok "$(jq -e '.summary.discarded > 0 and (.learned.lines | test("^ownk?:0x"))' inst-one.json >/dev/null; echo $?)" \
   "--instances: the line learned mid-search, the search begun again ($(jq -c .summary.discarded inst-one.json) runs discarded)"

# --hot-lines in one process: from the final set, nothing is void and the
# runs are the same; from a report, a schedule or the set alone.
"$CTS" -q -m break -s dfs -n 0 --hot-lines two_books_ok-dfs-one.json --report h.json -o out -- \
	"$PROG/two_books_ok"
is "$? $(runs h.json) $(jq -c '[.summary.relearned, .summary.discarded]' h.json)" \
   "0 $(runs two_books_ok-dfs-one.json) [0,0]" "--hot-lines REPORT: the same runs, none void"
jq -r .learned.lines two_books_ok-dfs-one.json >set.txt
"$CTS" -q -m break -s dpor -n 0 --hot-lines set.txt --report h2.json -o out -- "$PROG/two_books_ok"
is "$? $(jq -r '"\(.learned.from) \(.summary.relearned)"' h2.json)" \
   "0 $(jq -r .learned.lines two_books_ok-dfs-one.json) 0" "--hot-lines with the set alone"

# The buggy twin: the same verdict all three ways, and the bug's schedule
# (its learned set in hot-lines) replays.
three_ways two_books "$PROG/two_books" dfs
read -r r1 r2 rm first passes <two_books.rc
is "$r1 $r2 $rm" "1 1 1" "two_books dfs: a bug in one process, with --jobs 2, in the merged shards"
is "$(jq -r '[.bugs[].kind] | join(",")' two_books-one.json two_books-two.json two_books-m.json | tr '\n' ' ')" \
   "assert assert assert " "two_books dfs: the lost update's assert all three ways"
sched=$(jq -r '.bugs[0].schedule' two_books-two.json)
grep -Eq '^hot-lines ownk?:0x' "$sched"
ok $? "two_books: the --jobs bug's schedule records the learned set"
"$CTS" -q --replay "$sched" 2>/dev/null
is $? 1 "two_books: the --jobs bug's schedule replays"

# Usage errors: no set to start from where nothing is learned.
out=$("$CTS" -q -m break -s dfs --hot-lines "$sched" --replay "$sched" 2>&1)
like "$? $out" "^2 .*--hot-lines cannot be used with --replay" "--hot-lines with --replay: exit 2"
out=$("$CTS" -q -m sync -s dfs --hot-lines set.txt -o out -- "$PROG/two_books_ok" 2>&1)
like "$? $out" "^2 .*learns no shared lines" "--hot-lines in sync mode: exit 2"
echo "own:0x41" >bad.txt
out=$("$CTS" -q -m break -s dfs --hot-lines bad.txt -o out -- "$PROG/two_books_ok" 2>&1)
like "$? $out" "^2 .*not a learned set" "--hot-lines with a malformed set: exit 2"

# GNU parallel: the driver runs the shards again from the union by itself.
if command -v parallel >/dev/null; then
	CTS="$CTS" "$TOP/scripts/cts-parallel.sh" 4 par -m break -s dpor -n 0 --split-depth 4 -- \
		"$PROG/two_books_ok" 2>/dev/null
	is "$? $(learned par/report.json)" "0 $(learned two_books_ok-dpor-one.json)" \
	   "cts-parallel.sh: exit 0 on one learned set"
	is "$(runs par/report.json) $([ -f par/learned-1.json ] && echo again)" \
	   "$(runs two_books_ok-dpor-m.json) again" "cts-parallel.sh: the shards ran again from the union"
else
	ok 0 "GNU parallel is not installed (make deps installs it)"
	skip 1 "no GNU parallel"
fi

done_testing
