#!/bin/bash
# timeout: 300
# --shard I/N and cts-trace merge: the shards of a search cover its runs
# (random: the same seeds), its subtrees (dfs: exactly the same schedules)
# or its instances (--instances: the same instances) once; merge sums runs, dedupes bugs and races, says complete only when
# every shard is and 1..N are all there, and refuses what does not fit
# (exit 2). The GNU parallel driver (scripts/cts-parallel.sh) runs for
# real. A program path and argument that are not UTF-8 still give JSON.
. "$(dirname "$0")/lib.sh"

runs() { jq -r .runs "$1"; }
BAD_SHARDS="0/2 3/2 2/0 x 1/ /3 1/2/3"
DFS_SHARDS="1 2 3"
plan $(($(count $BAD_SHARDS) + 2 * $(count $DFS_SHARDS) + 59))

for bad in $BAD_SHARDS; do
	"$CTS" -q --shard "$bad" -o out -- "$PROG/counter_ok" 2>/dev/null
	is $? 2 "--shard $bad: usage error"
done

# dfs in three shards: exactly the single-process schedules.
"$CTS" -q -m sync -s dfs --report dfs-all.json -o out -- "$PROG/lost_wakeup_ok"
sum=0
for i in $DFS_SHARDS; do
	"$CTS" -q -m sync -s dfs --shard $i/3 --report dfs-$i.json -o out -- "$PROG/lost_wakeup_ok"
	is $? 0 "dfs shard $i/3: no bug"
	is "$(jq -r .shard.index dfs-$i.json)/$(jq -r .shard.count dfs-$i.json)" $i/3 "dfs shard $i/3: the report says which"
	r=$(runs dfs-$i.json)
	sum=$((sum + ${r:-0}))
done
is "$sum" "$(runs dfs-all.json)" "dfs: the shards' runs add up to the single-process search's"
"$CTS" merge dfs-3.json dfs-1.json dfs-2.json --report m.json 2>/dev/null
is $? 0 "merge of the dfs shards: exit 0"
is "$(runs m.json)" "$(runs dfs-all.json)" "merged dfs report: as many runs as one process"
is "$(jq -r .complete m.json)" true "merged dfs report: complete"
is "$(jq -r .shard.merged m.json)" 3 "merged dfs report: from 3 shards"

# Shards with workers inside: still the single search.
"$CTS" -q -m sync -s dfs --shard 1/2 -j 2 --report dj-1.json -o out -- "$PROG/lost_wakeup_ok"
"$CTS" -q -m sync -s dfs --shard 2/2 --report dj-2.json -o out -- "$PROG/lost_wakeup_ok"
"$CTS" merge dj-1.json dj-2.json --report m.json 2>/dev/null
is "$(runs m.json)" "$(runs dfs-all.json)" "dfs: shard 1/2 with 2 jobs and shard 2/2 alone merge to the single search"

# -n N over subtree shards: shard I counts its share (11 = 6 + 5).
for i in 1 2; do
	"$CTS" -q -m sync -s dfs -n 11 --shard $i/2 --report n-$i.json -o out -- "$PROG/lost_wakeup_ok"
done
is "$(runs n-1.json) $(runs n-2.json)" "6 5" "dfs -n 11 in 2 shards: 6 and 5 runs"
"$CTS" merge n-1.json n-2.json --report m.json 2>/dev/null
is "$(runs m.json)" 11 "merged: 11 runs, the total -n asked for"

# random: the shards run exactly the single search's run numbers and seeds.
"$CTS" -q -n 30 --keep-going --report all.json -o out -- "$PROG/counter"
for i in 1 2; do
	"$CTS" -q -n 30 --keep-going --shard $i/2 --report r-$i.json -o out -- "$PROG/counter"
done
"$CTS" merge r-1.json r-2.json --report m.json 2>/dev/null
is $? 1 "merge of shards with a bug: exit 1"
is "$(runs m.json)" 30 "merged random report: 30 runs"
is "$(jq -c '[.bugs[] | [.kind, .message, .hits, .run]]' m.json)" \
   "$(jq -c '[.bugs[] | [.kind, .message, .hits, .run]]' all.json)" \
   "merged random report: the bugs of the single search, deduplicated, hits summed, earliest run"
is "$(jq -c '[.races[] | [.address, .runs, .first_run]] | sort' m.json)" \
   "$(jq -c '[.races[] | [.address, .runs, .first_run]] | sort' all.json)" \
   "merged random report: the races of the single search"
is "$(jq -r .complete m.json)" false "random: never complete"
is "$(jq -c '[.summary.distinct_bugs, .summary.races]' m.json)" \
   "$(jq -c '[(.bugs | length), (.races | length)]' m.json)" \
   "merged: summary.distinct_bugs and summary.races count the merged bugs and races, not the shards' sum"

# 16,000 bugs and races in one shard, every other one again (its accesses
# in the other order) in the other: found by hash, not by a scan of the
# merged list per entry (issue 27 item 10: 38 s). The counts are checked,
# not the time (the limit only stops a hang).
jq '.bugs += [range(16000) | {kind: "assert", message: "m\(.)", run: ., hits: 1}] |
    .races += [range(16000) | {address: ., size: 4, runs: 1, first_run: .,
	accesses: [{pc: ., op: "read"}, {pc: (. + 1), op: "write"}]}]' r-1.json >big-1.json
jq '.bugs += [range(0; 16000; 2) | {kind: "assert", message: "m\(.)", run: 0, hits: 2}] |
    .races += [range(0; 16000; 2) | {address: ., size: 4, runs: 3, first_run: 0,
	accesses: [{pc: (. + 1), op: "write"}, {pc: ., op: "read"}]}]' r-2.json >big-2.json
timeout -k 5 "$(slow 200)" "$CTS" merge -q big-1.json big-2.json --report m.json >/dev/null 2>&1
is $? 1 "merge of 16,000 bugs and races: exit 1"
is "$(jq -c '[.summary.distinct_bugs == (.bugs | length), ([.bugs[] | select(.message | startswith("m"))] |
	[length, (map(.hits) | add), (map(select(.run == 0)) | length)])]' m.json)" "[true,[16000,32000,8000]]" \
   "16,000 bugs merged: each once, hits summed, the earliest run kept"
is "$(jq -c '[.summary.races == (.races | length), ([.races[] | select(.address | type == "number")] |
	[length, (map(.runs) | add), (map(select(.first_run == 0)) | length)])]' m.json)" "[true,[16000,40000,8000]]" \
   "16,000 races merged: each once (either order of accesses), runs summed, the first run kept"

# Counters near 2^63 saturate instead of overflowing (UBSan: signed
# overflow in merge.c); a negative count is refused.
jq '.steps = "BIG" | .bugs[0].hits = "BIG"' r-1.json | sed 's/"BIG"/9223372036854775807/' >o-1.json
jq '.bugs[0].hits = "BIG"' r-2.json | sed 's/"BIG"/9223372036854775807/' >o-2.json
"$CTS" merge -q o-1.json o-2.json --report m.json >/dev/null 2>&1
is $? 1 "merge of huge counters: exit 1"
is "$(grep -c '"steps": 9223372036854775807' m.json) $(grep -c '"hits": 9223372036854775807' m.json)" "1 1" \
   "huge counters: steps and hits saturate at 2^63-1"
jq '.runs = -5' r-2.json >neg.json
out=$("$CTS" merge r-1.json neg.json 2>&1)
is "$? $(printf '%s\n' "$out" | wc -l)" "2 1" "a negative run count: exit 2, one line"
like "$out" 'neg.json: "runs" is negative' "a negative run count: says which"
jq '.bugs[0].hits = -1' r-2.json >neg.json
out=$("$CTS" merge r-1.json neg.json 2>&1)
like "$? $out" '^2 .*neg.json: bug 0: "hits" is negative' "a negative hit count: exit 2, says which"
out=$("$CTS" merge -q r-1.json r-2.json --report m.json 2>&1)
is $? 1 "merge -q of shards with a bug: exit 1"
like "$out" "^cts-trace: BUG \(assert\) in run [0-9]+: thread 0: assertion" "merge -q: the verdict, a BUG line"
# jq writes 10.0 as 10: the same number, the same search.
jq . r-1.json >rj-1.json
"$CTS" merge -q rj-1.json r-2.json --report m.json 2>/dev/null
is $? 1 "a shard rewritten by jq still merges"

# A divergence (time_seeded_ok does not repeat itself under one schedule) is
# no bug: merged apart from bugs, exit 0; one listed in "bugs" by an older
# report is moved there too.
for i in 1 2; do
	"$CTS" -q -m sync -s dfs -n 50 --shard $i/2 --report dv-$i.json -o out -- "$PROG/time_seeded_ok"
done
"$CTS" merge dv-1.json dv-2.json --report m.json 2>/dev/null
is $? 0 "merge of shards with divergences: exit 0"
is "$(jq -c '[(.bugs | length), (.divergences | length) > 0]' m.json)" "[0,true]" \
	"merged: no bug, the divergences in divergences"
jq '.bugs += .divergences | del(.divergences)' dv-1.json >dv-old.json
"$CTS" merge dv-old.json dv-2.json --report m.json 2>/dev/null
is "$? $(jq -c '[(.bugs | length), (.divergences | length) > 0]' m.json)" "0 [0,true]" \
	"a divergence in an older report's bugs: exit 0, moved to divergences"

# --instances: shard I of N searches instances i with i mod N = I-1; merged,
# the single search's instances, runs and bugs (the first run, which every
# shard makes to learn the points, counts once).
gcc -g -O1 -pthread -w -o relay "$TOP/benchmarks/programs/relay.c" || exit 1
IA="-m sync -s random --tile 2 --tiles-per-thread 2 -n 20 --keep-going --instances 6 --seed 3"
"$CTS" -q $IA --report i-all.json -o out -- ./relay 12 2
for i in 1 2; do
	"$CTS" -q $IA --shard $i/2 --report i-$i.json -o out -- ./relay 12 2
done
is "$(jq -c .instances.searched_instances i-1.json) $(jq -c .instances.searched_instances i-2.json)" \
   "[0,2,4] [1,3,5]" "--instances 6 in 2 shards: instances 0,2,4 and 1,3,5"
"$CTS" merge i-2.json i-1.json --report m.json 2>/dev/null
is $? 1 "merge of instance shards with a bug: exit 1"
inst() { jq -c '[.runs, [.bugs[] | [.kind, .message, .hits, .instance]], .instances.searched_instances, .instances.searched, .instances.bug_instance]' "$1"; }
is "$(inst m.json)" "$(inst i-all.json)" "merged instance shards: the single search's runs, bugs, instances"
"$CTS" -q ${IA/--tile 2/--tile 3} --shard 2/2 --report i-t3.json -o out -- ./relay 12 2
out=$("$CTS" merge i-1.json i-t3.json 2>&1)
is $? 2 "instance shards of another tiling: exit 2"
like "$out" 'instances "tile" differs' "another tiling: says so"

# What merge refuses, with exit 2 and a reason.
out=$("$CTS" merge r-1.json 2>&1)
is $? 2 "a shard missing: exit 2"
like "$out" "1 shard of 2 missing: 2" "a shard missing: says which"
out=$("$CTS" merge r-1.json r-1.json 2>&1)
is $? 2 "a shard twice: exit 2"
like "$out" "given twice" "a shard twice: says so"
out=$("$CTS" merge r-1.json dfs-2.json 2>&1)
is $? 2 "shards of different searches: exit 2"
like "$out" "different searches" "different searches: says so"
"$CTS" -q -n 30 --max-steps 500 --keep-going --shard 2/2 --report r-opt.json -o out -- "$PROG/counter"
out=$("$CTS" merge r-1.json r-opt.json 2>&1)
is $? 2 "shards with other options: exit 2"
like "$out" "max_steps" "other options: names the option"
printf '{"version": 1, "program": ' > broken.json
out=$("$CTS" merge r-1.json broken.json 2>&1)
is $? 2 "an unparsable report: exit 2"
like "$out" "broken.json: not a JSON report" "an unparsable report: says which"
echo '{"version": 1}' > other.json
out=$("$CTS" merge r-1.json other.json 2>&1)
is $? 2 "a JSON file that is no report: exit 2"
"$CTS" merge r-1.json nosuch.json 2>/dev/null
is $? 2 "a missing file: exit 2"
"$CTS" -q -n 5 --report plain.json -o out -- "$PROG/counter_ok"
out=$("$CTS" merge plain.json 2>&1)
is $? 2 "a report of no shard: exit 2"
"$CTS" merge 2>/dev/null
is $? 2 "merge without reports: exit 2"
out=$("$CTS" merge --bogus r-1.json 2>&1)
is "$? $(printf '%s\n' "$out" | wc -l)" "2 1" "merge, unknown option: exit 2, one line"
jq '.shard.index = "1"' r-1.json >ri-1.json
out=$("$CTS" merge ri-1.json r-2.json 2>&1)
is $? 2 "a string shard index: exit 2"
like "$out" "ri-1.json: shard index is not a whole number" "a string shard index: says so, not 'index 0'"
mkdir -p adir
out=$("$CTS" merge r-1.json adir 2>&1)
is "$? $out" "2 cts-trace: merge: adir: is a directory" "a directory: says so"

# GNU parallel, for real: 4 shards of a dfs search, merged.
if command -v parallel >/dev/null; then
	CTS="$CTS" "$TOP/scripts/cts-parallel.sh" 4 par -m sync -s dfs -- "$PROG/lost_wakeup_ok" 2>/dev/null
	is $? 0 "cts-parallel.sh: 4 shards, no bug"
	is "$(runs par/report.json)" "$(runs dfs-all.json)" "cts-parallel.sh: the merged runs are the single search's"
	is "$(jq -r .complete par/report.json)" true "cts-parallel.sh: complete"
	CTS="$CTS" "$TOP/scripts/cts-parallel.sh" 3 par2 -n 30 --keep-going -- "$PROG/counter" 2>/dev/null
	is $? 1 "cts-parallel.sh on a bug: exit 1"
	sched=$(jq -r '.bugs[0].schedule' par2/report.json)
	"$CTS" -q --replay "$sched"
	is $? 1 "cts-parallel.sh: the bug's schedule replays"
else
	ok 1 "GNU parallel is not installed (make deps installs it)"
	skip 4 "no GNU parallel"
fi

# Not UTF-8: the program's path and an argument; the report is still JSON.
cp "$PROG/counter_ok" "$(printf 'prog\xff\xfe')"
"$CTS" -q -n 2 --report u.json -o out -- "./$(printf 'prog\xff\xfe')" "$(printf 'a\xc3(b\xed\xa0\x80')"
is $? 0 "a path and an argument not in UTF-8: runs"
ok "$(jq -e . u.json >/dev/null; echo $?)" "the report parses"
like "$(jq -r '.program + " " + .args[0]' u.json)" "prog..* a.\\(b" "bad bytes became U+FFFD"

done_testing
