#!/bin/bash
# timeout: 300
# Race reports say as much as ThreadSanitizer's (issue 30 item 2): both
# accesses' full stacks (race_deep: pay() and refund() both race in
# deposit(), and only the stacks tell them apart), which access came first,
# what the memory is (a global's name, or the heap block with its
# allocation's stack) and where each thread was created; on the terminal,
# in the JSON report (frames as objects) and in SARIF (result stacks,
# related locations, validated against the 2.1.0 schema). The C11-atomic
# note is said once, not on every line.
. "$(dirname "$0")/lib.sh"
plan 32

out=$("$CTS" -m break --races report -n 20 --seed 1 -o "$T/o" --report "$T/d.json" \
	--sarif "$T/d.sarif" -- "$PROG/race_deep" 2>&1)
is $? 1 "race_deep: its lost update is found (the assert, exit 1)"
dl=$(grep -n 'BUG: unlocked' "$TOP/tests/programs/race_deep.c" | cut -d: -f1)
like "$out" "data race on 0x[0-9a-f]+ \\(8 bytes\\): thread [23] [a-z]+ at deposit[+0-9a-fx]* \\(race_deep.c:$dl\\) vs thread [23]" \
	"terminal: the race's line"
# One race's block: from its line to the next cts-trace line.
block=$(printf '%s\n' "$out" | awk 'on && /^cts-trace:/ { exit } /data race on/ { on = 1; print; next } on')
like "$block" "  [a-z]+ of 8 bytes by thread [23]:
    #0 deposit[+0-9a-fx]* \\(race_deep.c:$dl\\)
    #1 (pay|refund)\\+0x[0-9a-f]+ \\(race_deep.c:[0-9]+\\)
    #2 (payer|refunder)\\+0x[0-9a-f]+ " "terminal: the access's stack, deposit under pay or refund"
like "$block" "  previous [a-z]+ by thread [23]:
    #0 deposit[+0-9a-fx]* \\(race_deep.c:$dl\\)
    #1 (pay|refund)\\+0x" "terminal: the previous access's stack"
ok "$( [ "$(printf '%s\n' "$block" | grep -cE '#1 pay\+0x')" = 1 ] &&
	[ "$(printf '%s\n' "$block" | grep -cE '#1 refund\+0x')" = 1 ]; echo $?)" \
	"terminal: one stack goes through pay, the other through refund"
like "$block" "  location: heap block of [0-9]+ bytes at 0x[0-9a-f]+ \\(offset 0\\), allocated by thread 0 at:
    #0 open_account\\+0x[0-9a-f]+ \\(race_deep.c:[0-9]+\\)
    #1 main\\+0x" "terminal: the heap block and its allocation's stack"
like "$block" "  thread 2 created by thread 0 at:
    #0 main\\+0x[0-9a-f]+ \\(race_deep.c:[0-9]+\\)" "terminal: where thread 2 was created"
like "$block" "  thread 3 created by thread 0 at:
    #0 main\\+0x[0-9a-f]+ \\(race_deep.c:[0-9]+\\)" "terminal: where thread 3 was created"
n=$(printf '%s\n' "$out" | grep -c 'data race on')
[ "$n" -ge 1 ] && [ "$(printf '%s\n' "$out" | grep 'data race on' | grep -vc ' \*$')" = 0 ]
ok $? "terminal: each plain race's line ends in ' *' ($n races)"
is "$(printf '%s\n' "$out" | grep -c 'not a race if the variable is a C11 atomic')" 1 \
	"terminal: the C11-atomic note once, as a footnote"
unlike "$(printf '%s\n' "$out" | grep 'data race on')" "C11" "terminal: not on the race lines"

# JSON: frames are objects, each access has its stack, its creation, and
# which came first; the heap block has its allocation's stack.
j="$T/d.json"
is "$(jq -r '.races[0].accesses | map(.stack[1].function) | sort | join(" ")' "$j")" "pay refund" \
	"JSON: the two accesses' stacks: deposit under pay and under refund"
is "$(jq -r '.races[0].accesses[1].frame | "\(.function) \(.file | split("/") | last):\(.line) \(.module | split("/") | last) \(.pc | test("^0x"))"' "$j")" \
	"deposit race_deep.c:$dl race_deep true" "JSON: an access's frame object (function, file, line, module, pc)"
is "$(jq -r '.races[0].accesses[1].frame.offset | type' "$j")" number "JSON: the frame's offset is a number"
is "$(jq -r '[.races[0].accesses[].previous] | map(tostring) | join(" ")' "$j")" "true false" \
	"JSON: the first access is the previous one"
is "$(jq -r '.races[0].accesses | map("\(.thread):\(.created_by.thread):\(.created_by.stack[0].function)") | sort | join(" ")' "$j")" \
	"2:0:main 3:0:main" "JSON: each thread's creation, by thread 0 in main"
is "$(jq -r '.races[0].heap_block | "\(.offset) \(.allocated_by) \(.stack[0].function) \(.stack[1].function)"' "$j")" \
	"0 0 open_account main" "JSON: the heap block, its offset and its allocation's stack"
is "$(jq -r '.races[0].accesses[0].location | type' "$j")" string "JSON: the location string is kept beside the frame"

# SARIF: validates; the race's primary location is deposit's line, its
# stacks tell pay from refund, the previous access, the allocation and the
# creations are related locations.
s="$T/d.sarif"
is "$(sarif_validate "$s" | tail -n 1)" valid "SARIF validates against the 2.1.0 schema"
r='[.runs[0].results[] | select(.ruleId == "race")][0]'
is "$(jq -r "$r"' | .locations[0].physicalLocation | "\(.artifactLocation.uri | split("/") | last):\(.region.startLine)"' "$s")" \
	"race_deep.c:$dl" "SARIF: the race's primary location is deposit's line"
is "$(jq -r "$r"' | [.stacks[0:2][] | .frames[1].location.logicalLocations[0].name] | sort | join(" ")' "$s")" \
	"pay refund" "SARIF: the two accesses' stacks go through pay and refund"
like "$(jq -r "$r"' | .stacks[].message.text' "$s" | tr '\n' '|')" \
	'^[a-z]+ by thread [23]\|previous [a-z]+ by thread [23]\|heap block of [0-9]+ bytes at 0x[0-9a-f]+ \(offset 0\) allocated by thread 0\|thread [23] created by thread 0\|thread [23] created by thread 0\|$' \
	"SARIF: stacks of the access, the previous one, the allocation and both creations"
is "$(jq -r "$r"' | [.relatedLocations[] | .physicalLocation.region.startLine | tostring] | length' "$s")" 4 \
	"SARIF: the previous access, the allocation and two creations related"
is "$(jq -r "$r"' | [.codeFlows[0].threadFlows[].locations[0].stack.frames | length > 2] | all' "$s")" true \
	"SARIF: each access's threadFlow location carries its stack"

# A block allocated while main ran alone (no allocation event): the heap
# block is found in the heap all the same, its allocation said unseen.
out=$("$CTS" -m break --races report -n 5 --seed 1 -o "$T/o4" --report "$T/e.json" -- \
	"$PROG/race_deep" early 2>&1)
like "$out" "  location: heap block of [0-9]+ bytes at 0x[0-9a-f]+ \\(offset 0\\), allocated where cts does not see allocations" \
	"terminal: a block allocated while main ran alone is still a heap block"
is "$(jq -r '.races[0].heap_block | "\(.offset) \(.allocated_by) \(.stack | length)"' "$T/e.json")" "0 null 0" \
	"JSON: its heap block, allocated_by null"

# The report's replay runs the program once more: what it prints is shown
# once all the same (--replay and --output show it). dfs's first schedule
# runs clean (no bug: no minimization, whose replays show it too) and races.
out=$("$CTS" -s dfs -m break --races report -n 1 --output -o "$T/o5" -- "$PROG/race_deep" print 2>&1)
is "$(printf '%s\n' "$out" | grep -c '^balance ')" 1 "--output: the program's output once, not again from the report's replay"
like "$out" "  previous [a-z]+ by thread" "  (its race was reported with its stacks)"
out=$("$CTS" --no-fork-server -s dfs -m break --races report -n 1 --output -o "$T/o6" -- "$PROG/race_deep" print 2>&1)
is "$(printf '%s\n' "$out" | grep -c '^balance ')" 1 "--output without the fork server: once too"

# A global: named.
out=$("$CTS" -m break --races report -n 5 --seed 1 -o "$T/o2" -- "$PROG/counter" 2>&1)
like "$out" "  location: global counter \\(0x[0-9a-f]+\\)" "terminal: a global is named"

# The correct twin: clean, race-free.
out=$("$CTS" -m break --races report -n 20 --seed 1 -o "$T/o3" -- "$PROG/race_deep_ok" 2>&1)
is $? 0 "race_deep_ok: clean"
unlike "$out" "data race" "race_deep_ok: no race"

done_testing
