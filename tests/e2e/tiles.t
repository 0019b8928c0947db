#!/bin/bash
# timeout: 300
# Instances of a uniform window tiling (strategies/tiles.h, seeds/002 §III):
# --instances N draws N at random and searches them one after another,
# --instance SPEC searches one; bugs found inside an instance replay and name
# it (text, JSON, schedule file); twins stay clean; races are counted across
# instances; bad specs are usage errors.
. "$(dirname "$0")/lib.sh"

B="$TOP/benchmarks/programs"
BAD_SPECS='t=0:1 t=2 t=2:1//2 x t=2:1.1 t=2:a'
BAD_ARGS=("--instance t=2:0 --instances 3" "--tile 4" "--tiles-per-thread 2" "--instances 0"
	  "--tile 0 --instances 2" "--tile-pick conflicts" "--instances 2 --tile-pick some")
plan $((28 + $(count $BAD_SPECS) + ${#BAD_ARGS[@]}))
for v in relay relay_ok narrow3 narrow3_ok; do
	gcc -g -O1 -pthread -w -o "$T/$v" "$B/$v.c" || { ok 1 "$v: builds"; done_testing; }
done
# 12 rounds, legs of 2 rounds: the bug needs three preemptions.
ARGS="12 2"

# The paper's draws (--tile-pick uniform); the conflicts are narrow3's below.
out=$("$CTS" -m sync -s random -n 20 --instances 20 --tile 2 --tiles-per-thread 2 \
	--tile-pick uniform --report "$T/r.json" -o "$T/o1" -- "$T/relay" $ARGS 2>&1)
is $? 1 "relay: a drawn instance finds the bug that needs three preemptions"
like "$out" "instances: first run: 3 threads, [0-9]+ points; tiles of 2 points, 2 per thread" \
	"the first run learns each thread's points"
like "$out" "  instance: t=2:[-*0-9./]+ \\(--instance" "the bug report names its instance"
spec=$(printf '%s\n' "$out" | sed -n 's/^  instance: \([^ ]*\) .*/\1/p' | head -n 1)
sched=$(ls "$T"/o1/assert-*.sched 2>/dev/null | head -n 1)
is "$(grep '^instance ' "$sched")" "instance $spec" "the schedule file records the instance"
is "$(jq -r '.bugs[0].instance' "$T/r.json")" "$spec" "the JSON report names it"
is "$(jq -r '.instances.tile, .instances.tiles_per_thread, .instances.bug_instance' "$T/r.json" \
	| tr '\n' ' ')" "2 2 $spec " "the JSON report describes the instances"
"$CTS" -q --replay "$sched" >/dev/null 2>&1
is $? 1 "the bug replays from its schedule (inside its instance)"

out=$("$CTS" -m sync -s dfs --instance "$spec" -o "$T/o2" -- "$T/relay" $ARGS 2>&1)
is $? 1 "dfs inside that instance alone finds the bug again"
like "$out" "searched inside instance $spec only" "and says it searched only there"
out=$("$CTS" -m sync -s dpor --instance "$spec" -o "$T/o3" -- "$T/relay" $ARGS 2>&1)
is $? 1 "dpor inside that instance finds it too"

out=$("$CTS" -m sync -s dfs --instance 't=2:*/-/-' -o "$T/o4" -- "$T/relay" $ARGS 2>&1)
is $? 0 "an instance that never preempts the workers cannot expose it"
like "$out" "search space exhausted \\(complete\\)" "dfs reports that instance complete"

out=$("$CTS" -m sync -s random -n 5 --instances 10 --tile 2 --tiles-per-thread 2 \
	-o "$T/o5" -- "$T/relay_ok" $ARGS 2>&1)
is $? 0 "relay_ok: 10 instances x 5 random runs, no bug"
like "$out" "instances: 10 of 10 searched" "every instance was searched"
out=$("$CTS" -m sync -s pct -n 5 --instances 4 --tile 4 --tiles-per-thread 1 \
	-o "$T/o6" -- "$T/relay_ok" $ARGS 2>&1)
is $? 0 "relay_ok: pct inside 4 instances, no bug"
out=$("$CTS" -m sync -s dfs --instance "$spec" -o "$T/o7" -- "$T/relay_ok" $ARGS 2>&1)
is $? 0 "relay_ok: dfs inside the buggy program's instance, no bug"
like "$out" "exhausted \\(complete\\)" "and complete"

# One race detector for all instances: counter's race is in every run of
# every instance, so it is listed once with all the runs (not only the last
# instance's), first seen in the first run.
"$CTS" -q -m break -s random -n 3 --instances 4 --tile 2 --tiles-per-thread 1 --keep-going \
	--report "$T/races.json" -o "$T/o10" -- "$TOP/tests/programs/counter"
is $? 1 "counter --instances 4: the race"
is "$(jq -c '[.runs, ([.races[].runs] | max), ([.races[].first_run] | min)]' "$T/races.json")" \
   "[13,13,0]" "its race: once, seen in all 13 runs of the 4 instances and the first run"
is "$(jq '[.races[] | [.address, [.accesses[].pc]]] | (length == (unique | length))' "$T/races.json")" \
   true "no race listed twice"

# Issue 29 item 6: narrow3's bug needs three preemptions, each in a window of
# 2 points among ~600 per worker. dpor inside instances whose tiles hold the
# first run's conflicting steps finds it within 3 instances of at most 100
# runs (a run budget, not time); the twin stays clean under the same search.
out=$("$CTS" -m sync -s dpor --instances 3 -n 100 --report "$T/n.json" -o "$T/o11" \
	-- "$T/narrow3" 2>&1)
is $? 1 "narrow3: dpor inside 3 instances at the conflicts finds the bug"
like "$out" "instances: [0-9]+ tiles hold conflicting steps: the first [0-9]+ instances" \
	"it says how many tiles and instances are hot"
is "$(jq -r '[.instances.tile_pick, (.instances.hot > 0), (.runs <= 301)] | join(" ")' \
	"$T/n.json")" "conflicts true true" "the report: tile_pick, hot instances, within the budget"
out=$("$CTS" -m sync -s dpor --instances 3 -n 100 -o "$T/o12" -- "$T/narrow3_ok" 2>&1)
is $? 0 "narrow3_ok: the same search, no bug"
out=$("$CTS" -m sync -s dpor --instances 3 -n 100 --tile-pick uniform --report "$T/u.json" \
	-o "$T/o13" -- "$T/narrow3" 2>&1)
is "$(jq -r '[.instances.tile_pick, .instances.hot] | join(" ")' "$T/u.json")" "uniform 0" \
	"--tile-pick uniform: the paper's draws only"
diag "narrow3, the paper's draws, the same budget: exit $(jq -r 'if (.bugs | length) > 0 then 1 else 0 end' "$T/u.json"), $(jq .runs "$T/u.json") runs"

# Bad specs and combinations: exit 2, one line.
for bad in $BAD_SPECS; do
	out=$("$CTS" --instance "$bad" -o "$T/o8" -- "$T/relay_ok" $ARGS 2>&1)
	rc=$?
	is "$rc $(printf '%s\n' "$out" | grep -c .)" "2 1" "--instance '$bad': exit 2, one line"
done
like "$out" "--instance 't=2:a'" "the line quotes the spec"
for args in "${BAD_ARGS[@]}"; do
	out=$("$CTS" $args -o "$T/o9" -- "$T/relay_ok" $ARGS 2>&1)
	is $? 2 "$args: exit 2"
done
sed 's/^instance .*/instance t=2:1..2/' "$sched" > "$T/bad.sched"
out=$("$CTS" --replay "$T/bad.sched" 2>&1)
is "$? $(printf '%s\n' "$out" | grep -c .)" "2 1" "a schedule with a corrupt instance line: exit 2, one line"
out=$("$CTS" --replay "$sched" --instance "$spec" 2>&1)
is $? 2 "--replay takes the instance from its file, not from --instance"
done_testing
