#!/bin/bash
# timeout: 420
# Active testing on the live tracer (strategies/active.h): racefuzzer,
# deadlockfuzzer and atomfuzzer find bugs behind windows random scheduling
# almost never opens, each with a schedule that replays; the correct twins
# come back clean; suspect lists go to JSON and back; concurrency
# breakpoints; the options' usage errors.
. "$(dirname "$0")/lib.sh"
unlike() { if printf '%s' "$1" | grep -Eq -- "$2"; then ok 1 "$3"; else ok 0 "$3"; fi; }
TRIES="1 3"
BREAK_SEARCHES="dfs dpor pcb"
SUSPECTED_OK="tas_lock_ok cas_stack_ok futex_mutex_ok"
# 34 checks in line, 8 in each of 5 fuzz calls, and the loops'.
plan $((34 + 5 * 8 + 2 * $(count $TRIES) + 3 * $(count $BREAK_SEARCHES) + 2 * $(count $SUSPECTED_OK)))

# fuzz NAME STRATEGY MODE KIND PHRASE: the bug, its replay, its twin.
fuzz() {
	local p=$1 s=$2 m=$3 kind=$4 phrase=$5
	out=$("$CTS" -s "$s" -m "$m" -o "$T/$p" --report "$T/$p.json" -- "$PROG/$p" 2>&1)
	is $? 1 "$p/$s: bug found (exit 1)"
	like "$out" "BUG \\($kind\\)" "$p/$s: reported as $kind"
	like "$out" "active: $phrase" "$p/$s: the report says what the fuzzer made happen"
	like "$out" "active: [1-9][0-9]* suspects?, [1-9][0-9]* confirmed" "$p/$s: suspects and confirmed counted"
	is "$(jq -r '.active.confirmed >= 1 and .active.suspects >= .active.confirmed' "$T/$p.json")" \
		true "$p/$s: the JSON report's active block counts them"
	good=0
	for i in 1 2 3; do
		r=$("$CTS" --replay "$T/$p/$kind-1.sched" 2>&1)
		[ $? -eq 1 ] && printf '%s' "$r" | grep -q "BUG ($kind)" && good=$((good + 1))
	done
	is "$good" 3 "$p/$s: replay reproduces it 3/3"
	out=$("$CTS" -s "$s" -m "$m" -o "$T/${p}_ok" -- "$PROG/${p}_ok" 2>&1)
	is $? 0 "${p}_ok/$s: clean (exit 0)"
	like "$out" "active: [0-9]+ suspects?, 0 confirmed" "${p}_ok/$s: nothing confirmed"
}

fuzz active_race racefuzzer break assert "race confirmed on x"
fuzz active_deadlock deadlockfuzzer sync deadlock "deadlock cycle confirmed"
fuzz active_atom atomfuzzer break assert "atomicity violation on x"

# Suspects to a file, and back: phase 2 alone then needs no phase 1.
"$CTS" -q -s racefuzzer --keep-going --tries 3 --suspects "$T/s.json" -o "$T/s" \
	-- "$PROG/active_race" >/dev/null 2>&1
is $? 1 "--suspects: racefuzzer with --keep-going (exit 1)"
is "$(jq -r '[.list[] | select(.kind == "race")] | length' "$T/s.json")" 3 \
	"--suspects: the three race pairs on x"
like "$(jq -r '.list[0].statements[].at' "$T/s.json")" "active_race.c:1[45]" \
	"--suspects: statements with their source lines"
out=$("$CTS" -s racefuzzer --suspects-from "$T/s.json" -o "$T/s2" -v -- "$PROG/active_race" 2>&1)
is $? 1 "--suspects-from: bug found"
like "$out" "BUG \\(assert\\) in run [0-2] " "--suspects-from: in phase 2 from the first run"

# --tries N: phase 2 tries each suspect it cannot confirm N times, after
# phase 1's 3 runs (cas_stack_ok: race suspects on a CAS loop's plain
# accesses that phase 2 never finds both at once with one a write).
for n in $TRIES; do
	"$CTS" -q -s racefuzzer --tries $n --report "$T/t$n.json" -o "$T/t$n" \
		-- "$PROG/cas_stack_ok" >/dev/null 2>&1
	is $? 0 "--tries $n: clean (exit 0)"
	is "$(jq -r ".active.suspects >= 1 and .active.confirmed == 0 and
		.runs == 3 + $n * .active.suspects and ([.active.list[].tries] | unique) == [$n]" \
		"$T/t$n.json")" true "--tries $n: each unconfirmed suspect tried $n times, 3 + $n per suspect runs"
done

# A confirmed race with no bug after it is reported, not a failure, and its
# schedule is saved; its replay shows the race (seed 1: run 3 resolves a race
# harmlessly before run 4's lost update).
out=$("$CTS" -s racefuzzer --seed 1 -o "$T/r1" -- "$PROG/active_race" 2>&1)
like "$out" "active: race confirmed on x .*\\(run [0-9]+\\); schedule .*/race-1.sched" \
	"racefuzzer: a race that did no harm is reported with its schedule"
r=$("$CTS" --replay "$T/r1/race-1.sched" 2>&1)
is $? 0 "racefuzzer: its replay runs clean (a race alone is no bug with --races report)"
like "$r" "data race on x" "racefuzzer: ... and the replay reports the race"

# Breakpoints: t1's store and t2's store are partners; t2 then always loaded
# x before t1 stored it, so the update is lost whichever goes first.
out=$("$CTS" -n 20 --break active_race.c:15,active_race.c:24 --report "$T/b.json" -o "$T/b" \
	-- "$PROG/active_race" 2>&1)
is $? 1 "--break FILE:LINE,FILE:LINE: the lost update (exit 1)"
is "$(jq -r '.active.breakpoints.list[0] | "\(.spec) \(.confirmed)"' "$T/b.json")" \
	"active_race.c:15,active_race.c:24 1" "--break: the report counts the run where threads met"
like "$out" "active: breakpoint 0 reached by thread 1 at t1.* and thread 2 at t2" \
	"--break: both threads reached it"
out=$("$CTS" -n 5 -s pct --break t1 --break t2 -o "$T/b2" -- "$PROG/active_race_ok" 2>&1)
is $? 0 "--break on a correct program: clean"
unlike "$out" "breakpoint [0-9]+ reached" "--break SYMBOL per group: no partner in another thread, no hit"

# Breakpoints under a systematic search: a constraint on the explored
# schedules (t1 is not scheduled at its store until t2 reaches its load).
# dfs alone does not reach the lost update in 20 runs; with the breakpoints
# its first run does, and the schedule replays without them. The twin's
# constrained space is searched to the end by dpor.
out=$("$CTS" -s dfs -m break -n 20 -o "$T/d0" -- "$PROG/active_race" 2>&1)
is $? 0 "dfs alone: no bug in 20 runs"
for s in $BREAK_SEARCHES; do
	out=$("$CTS" -s $s -m break --break active_race.c:15,active_race.c:24 -o "$T/d$s" \
		-- "$PROG/active_race" 2>&1)
	is $? 1 "$s --break: the lost update (exit 1)"
	like "$out" "BUG \\(assert\\) in run 0 " "$s --break: in the first run"
	like "$out" "active: breakpoint 0 reached by thread 1 at t1.* and thread 2 at t2" \
		"$s --break: the report says where the threads met"
done
good=0
for i in 1 2 3; do
	r=$("$CTS" --replay "$T/ddfs/assert-1.sched" 2>&1)
	[ $? -eq 1 ] && printf '%s' "$r" | grep -q "BUG (assert)" && good=$((good + 1))
done
is "$good" 3 "dfs --break: replay reproduces it 3/3"
out=$("$CTS" -s dpor -m break --break active_race_ok.c:13,active_race_ok.c:23 \
	--report "$T/dok.json" -o "$T/dok" -- "$PROG/active_race_ok" 2>&1)
is $? 0 "dpor --break on the twin: clean (exit 0)"
like "$out" "exhausted for the schedules the breakpoints allow \\(complete for those" \
	"dpor --break on the twin: complete for the constrained schedules, said so"
is "$(jq -r '.complete' "$T/dok.json")" true "dpor --break on the twin: complete in the JSON report"

# A lost update behind lock traffic: dpor alone needs 71 runs
# (benchmarks/results/active.md); with --break its first run has it, and
# the twin's constrained space is 2 runs.
out=$("$CTS" -s dpor -m break --break active_window.c:18,active_window.c:34 -o "$T/w" \
	-- "$PROG/active_window" 2>&1)
is $? 1 "active_window: dpor --break finds the lost update (exit 1)"
like "$out" "BUG \\(assert\\) in run 0 " "active_window: dpor --break: in the first run"
out=$("$CTS" -s dpor -m break --break active_window_ok.c:14,active_window_ok.c:32 -o "$T/wok" \
	-- "$PROG/active_window_ok" 2>&1)
is $? 0 "active_window_ok: dpor --break clean (exit 0)"
like "$out" "^cts-trace: 2 runs, .*exhausted for the schedules the breakpoints allow" \
	"active_window_ok: dpor --break complete in 2 runs"

# Correct programs whose phase 1 suspects something: phase 2 confirms at
# most real unordered plain accesses (a test-and-set lock's plain release
# store), never a bug.
for p in $SUSPECTED_OK; do
	out=$("$CTS" -s racefuzzer --tries 3 -o "$T/$p" -- "$PROG/$p" 2>&1)
	is $? 0 "$p/racefuzzer: clean (exit 0)"
	unlike "$out" "BUG" "$p/racefuzzer: no bug reported"
done

# Statements with contexts: bump's load and store reached through via_a and
# via_b are suspects apart (same pcs, other callers); without contexts
# (--context 0) they fall together.
fuzz active_ctx racefuzzer break assert "race confirmed on x"
"$CTS" -q -s racefuzzer --keep-going --tries 3 --suspects "$T/c1.json" -o "$T/c1" \
	-- "$PROG/active_ctx" >/dev/null 2>&1
is $? 1 "--context 1 (default): racefuzzer finds the lost update"
is "$(jq -r '[.list[] | select(.kind == "race") | {p: ([.statements[].pc] | sort),
	c: ([.statements[] | "\(.pc) \(.callers[0].at)"] | sort)}] | group_by(.p) |
	map(select((map(.c) | unique | length) >= 2)) | length' "$T/c1.json")" 1 \
	"--context: two suspects at the same pcs told apart by their callers"
like "$(jq -r '[.list[].statements[].callers[0].at] | unique | join(" ")' "$T/c1.json")" \
	"via_a.*via_b" "--context: the callers are named in the JSON"
"$CTS" -q -s racefuzzer --context 0 --keep-going --tries 3 --suspects "$T/c0.json" \
	-o "$T/c0" -- "$PROG/active_ctx" >/dev/null 2>&1
is "$(jq -r ".suspects < $(jq -r .suspects "$T/c1.json")" "$T/c0.json")" true \
	"--context 0: fewer suspects (pcs alone)"
out=$("$CTS" -s racefuzzer --suspects-from "$T/c1.json" -o "$T/c2" -- "$PROG/active_ctx" 2>&1)
is $? 1 "--suspects-from with contexts: phase 2 matches pc and caller, finds the bug"

# A lock in a block malloc'd before the first pthread_create is named by its
# allocation site (break mode sees allocations while one thread lives when a
# fuzzer asks).
fuzz active_heap_deadlock deadlockfuzzer break deadlock "deadlock cycle confirmed"
"$CTS" -q -s deadlockfuzzer -m break --suspects "$T/h.json" -o "$T/h" \
	-- "$PROG/active_heap_deadlock" >/dev/null 2>&1
like "$(jq -r '.list[0].cycle[] | "\(.held.heap) \(.held.site.at) \(.acquires.offset)"' "$T/h.json")" \
	"true main.*active_heap_deadlock.c:48\) (0|40)" \
	"early allocation: the cycle's locks are named by main's malloc and their offsets"

# Usage errors.
"$CTS" -q --context 9 -- "$PROG/active_race" 2>/dev/null
is $? 2 "--context beyond 4: usage error"
"$CTS" -q --tries 3 -- "$PROG/active_race" 2>/dev/null
is $? 2 "--tries without a fuzzer: usage error"
"$CTS" -q -s hapset --break t1 -- "$PROG/active_race" 2>/dev/null
is $? 2 "--break with hapset: usage error"
"$CTS" -q -s dfs --state-match petri --break t1 -- "$PROG/active_race" 2>/dev/null
is $? 2 "--break with --state-match: usage error"
"$CTS" -q -s racefuzzer --suspects-from "$T/none.json" -- "$PROG/active_race" 2>/dev/null
is $? 2 "--suspects-from a missing file: usage error"
echo '{"list": [{"kind": "race", "statements": ["0x1"]}]}' > "$T/bad.json"
"$CTS" -q -s racefuzzer --suspects-from "$T/bad.json" -- "$PROG/active_race" 2>/dev/null
is $? 2 "--suspects-from a malformed list: usage error"
done_testing
