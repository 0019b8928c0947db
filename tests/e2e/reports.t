#!/bin/bash
# timeout: 300
# Bug reports people act on: the summary of what was covered, the progress
# line on a terminal (and nowhere else), SARIF 2.1.0 checked against the
# schema in tests/schema, and JSON that parses whatever bytes the program's
# path and arguments hold.
. "$(dirname "$0")/lib.sh"
plan 72

validate() { sarif_validate "$1"; }

# --- the summary: counter's lost update under dfs (break mode sees the accesses)
out=$("$CTS" -s dfs -o "$T/out" --report "$T/c.json" --sarif "$T/c.sarif" -- "$PROG/counter" 2>&1)
is $? 1 "counter: bug found (exit 1)"
like "$out" "covered: [0-9]+ schedules, 1 distinct bug, [1-9][0-9]* races?, (all runs completed|[0-9]+ runs? voided and run again), search not complete" \
	"summary: schedules, distinct bugs, races, inconclusive, completeness"
# A run thrown away and run again (a cold read conflicted: summary.relearned)
# is no completed run: the text says how many, as the report counts them.
v=$(jq -r '.summary.relearned + .summary.spin_restarts' "$T/c.json")
if [ "$v" -gt 0 ]; then
	like "$out" ", $v runs? voided and run again," "summary: the $v voided runs said, not 'all runs completed'"
else
	like "$out" ", all runs completed," "summary: no run voided, all runs completed"
fi
like "$out" "visible operations: .*read [0-9]+.*" "summary: visible operations per kind"
is "$(jq -r '.summary.distinct_bugs' "$T/c.json")" 1 "report summary: distinct_bugs"
is "$(jq -r '.summary.runs == .runs' "$T/c.json")" true "report summary: runs"
is "$(jq -r '(.summary.operations.read > 0) and (.summary.operations.write > 0) and (.summary.operations.create == 2 * .runs)' "$T/c.json")" \
	true "report summary: operations per kind (2 creates a run)"
is "$(jq -r '.summary.races == (.races | length)' "$T/c.json")" true "report summary: races count"
is "$(jq -r '.bugs[0].preemptions >= 1' "$T/c.json")" true "report: the bug's preemptions (a lost update needs one)"

# The twin: clean, and the summary says a complete search found nothing.
out=$("$CTS" -s dpor --report "$T/ok.json" -- "$PROG/counter_ok" 2>&1)
is $? 0 "counter_ok: clean under dpor"
like "$out" "covered: [0-9]+ schedules, 0 distinct bugs, 0 races, (all runs completed|[0-9]+ runs? voided and run again), search complete; visible operations: .*lock [0-9]+" \
	"counter_ok summary: complete, no bugs, locks seen"
is "$(jq -r '.summary.complete' "$T/ok.json")" true "counter_ok report: complete"
out=$("$CTS" -n 5 -- "$PROG/counter_ok" 2>&1)
like "$out" "covered: 5 runs, .* sampled \(not a complete search\)" "random: sampled, not complete"
out=$("$CTS" -q -n 5 -- "$PROG/counter_ok" 2>&1)
is "$out" "" "-q: no summary"
# -q with a bug: the verdict, one line, still.
out=$("$CTS" -q -s dfs -o "$T/q" -- "$PROG/counter" 2>&1)
is "$? $(printf '%s\n' "$out" | wc -l)" "1 1" "-q with a bug: exit 1, one line"
like "$out" "^cts-trace: BUG \(assert\) in run [0-9]+ after [0-9]+ steps: thread 0: assertion" \
	"-q with a bug: the BUG line"

# A program that does not repeat itself under one schedule (its lock count
# comes from the clock): the search stops at a divergence, which is no bug of
# the program: exit 0, kept out of bugs, in divergences.
out=$("$CTS" -s dfs -m sync -n 50 -o "$T/dv" --report "$T/dv.json" -- "$PROG/time_seeded_ok" 2>&1)
is $? 0 "time_seeded_ok: a divergence is exit 0"
is "$(jq -c '[(.bugs | length), .summary.distinct_bugs]' "$T/dv.json")" "[0,0]" \
	"time_seeded_ok: no bug in bugs, none counted"
is "$(jq -r '[.divergences[] | .kind] | unique | join(",")' "$T/dv.json")" divergence \
	"time_seeded_ok: the divergence in divergences"

# spin_learn_ok: the probe learns a busy-wait load mid-run, the run is void
# and run again (summary.spin_restarts, tests/e2e/classes.t): the text says so.
out=$("$CTS" -m sync -s dpor --seed 1 -n 200 -o "$T/sl" --report "$T/sl.json" -- "$PROG/spin_learn_ok" 2>&1)
v=$(jq -r '.summary.relearned + .summary.spin_restarts' "$T/sl.json")
is "$([ "$v" -ge 1 ] && echo yes)" yes "spin_learn_ok: a run voided ($v)"
like "$out" "covered: .*, $v runs? voided and run again," "spin_learn_ok: the summary says how many runs were voided"

# --- SARIF
is "$(validate "$T/c.sarif" | tail -n 1)" valid "SARIF of counter validates against the 2.1.0 schema"
is "$(jq -r '.version' "$T/c.sarif")" 2.1.0 "SARIF version"
is "$(jq -r '[.runs[0].results[].ruleId] | map(select(. == "assert")) | length' "$T/c.sarif")" 1 \
	"SARIF: one assert result"
is "$(jq -r '([.runs[0].results[] | select(.ruleId == "race")] | length) == ([(input).races[]] | length)' "$T/c.sarif" "$T/c.json")" \
	true "SARIF: one race result per race of the report"
is "$(jq -r '.runs[0].results[] | select(.ruleId == "assert") | .properties.replay' "$T/c.sarif")" \
	"$(jq -r '.bugs[0].replay' "$T/c.json")" "SARIF: the replay command"
flows=$(jq -r '.runs[0].results[] | select(.ruleId == "assert") | .codeFlows[0].threadFlows[].id' "$T/c.sarif" | tr '\n' ' ')
is "$flows" "thread 0 thread 1 thread 2 " "SARIF: one threadFlow per thread"
like "$(jq -r '.runs[0].results[] | select(.ruleId == "assert") | .codeFlows[0].threadFlows[1].locations[] | .location.physicalLocation | "\(.artifactLocation.uri):\(.region.startLine)"' "$T/c.sarif" | tr '\n' ' ')" \
	"counter.c:17 .*counter.c:18" "SARIF: thread 1's read at counter.c:17 and write at counter.c:18"
# Each step's call stack (the bug's last re-run took them), innermost first.
like "$(jq -r '.runs[0].results[] | select(.ruleId == "assert") | .codeFlows[0].threadFlows[1].locations[] |
	select(.location.physicalLocation.region.startLine == 18) | .stack.frames[] |
	"\(.threadId) \(.location.logicalLocations[0].name) \(.location.physicalLocation.artifactLocation.uri):\(.location.physicalLocation.region.startLine)"' \
	"$T/c.sarif" | tr '\n' ' ')" \
	"^1 inc [^ ]*counter.c:18 1 start_thread [^ ]+ " \
	"SARIF: thread 1's write has its stack, inc at counter.c:18 called from start_thread"
is "$(jq -r '[.runs[0].results[] | select(.ruleId == "assert") | .codeFlows[0].threadFlows[1].locations[] |
	select(.location.physicalLocation.region.startLine == 17) | .kinds[]] | join(",")' "$T/c.sarif")" \
	memory "SARIF: a memory access's kinds"
like "$(jq -r '.runs[0].results[] | select(.ruleId == "race") | .codeFlows[0].threadFlows[].locations[0].location.message.text' "$T/c.sarif")" \
	"thread [12] (read|write) counter" "SARIF race: each access's thread, op and variable"
is "$(jq -r '[.runs[0].tool.driver.rules[].id] | index("deadlock") != null and index("wrong-output") != null' "$T/c.sarif")" \
	true "SARIF: a rule per kind"

out=$("$CTS" -n 500 -o "$T/out" --sarif "$T/d.sarif" -- "$PROG/deadlock" 2>&1)
is $? 1 "deadlock: found"
is "$(validate "$T/d.sarif" | tail -n 1)" valid "SARIF of a deadlock validates"
is "$(jq -r '.runs[0].results[0].ruleId' "$T/d.sarif")" deadlock "SARIF: deadlock rule"
like "$(jq -r '.runs[0].results[0].codeFlows[0].threadFlows[].locations[].location.message.text' "$T/d.sarif")" \
	"blocked at lock" "SARIF deadlock: the blocked threads shown as blocked"

# --- SARIF points at the bug's own site, relative to SRCROOT: cts run from the
# checkout (as in CI), so the test programs' sources are under it.
# site FILE RULE: "BASE URI:LINE" of the first RULE result's primary location.
site() {
	jq -r --arg r "$2" '[.runs[0].results[] | select(.ruleId == $r)][0] | .locations[0].physicalLocation |
		"\(.artifactLocation.uriBaseId) \(.artifactLocation.uri):\(.region.startLine)"' "$1"
}
# srcroot_ok FILE: SRCROOT is the working directory, and every SRCROOT-relative URI names a
# file under it (library sources outside it are not made relative).
srcroot_ok() {
	[ "$(jq -r '.runs[0].originalUriBaseIds.SRCROOT.uri' "$1")" = "file://$TOP/" ] || return 1
	for u in $(jq -r '[.. | objects | select(.uriBaseId? == "SRCROOT") | .uri] | unique[]' "$1"); do
		[ -f "$TOP/$u" ] || return 1
	done
}
for p in counter crash deadlock; do
	(cd "$TOP" && "$CTS" -q -s dfs -o "$T/site" --sarif "$T/site-$p.sarif" -- tests/programs/$p 2>/dev/null)
	is $? 1 "SARIF site: $p bug found"
	is "$(validate "$T/site-$p.sarif" | tail -n 1)" valid "SARIF site: $p validates"
	srcroot_ok "$T/site-$p.sarif"
	ok $? "SARIF site: $p's URIs relative to SRCROOT = the working directory, only for files under it"
done
line=$(grep -n '^[[:space:]]*assert(counter == 2);' "$PROG/counter.c" | cut -d: -f1)
is "$(site "$T/site-counter.sarif" assert)" "SRCROOT tests/programs/counter.c:$line" \
	"SARIF assert: the primary location is the failing assert"
line=$(grep -n 'sink = \*cur;' "$PROG/crash.c" | cut -d: -f1)
is "$(site "$T/site-crash.sarif" crash)" "SRCROOT tests/programs/crash.c:$line" \
	"SARIF crash: the primary location is the faulting line"
# The lock whose blocking closed the cycle; the other blocked threads are related.
like "$(site "$T/site-deadlock.sarif" deadlock)" \
	"^SRCROOT tests/programs/deadlock.c:($(grep -n 'pthread_mutex_lock(&[ab]);' "$PROG/deadlock.c" |
	sed -n '2p;4p' | cut -d: -f1 | paste -sd '|'))\$" \
	"SARIF deadlock: the primary location is a blocked lock of the cycle"
like "$(jq -r '.runs[0].results[0] | .locations[0].message.text, (.relatedLocations[].message.text)' \
	"$T/site-deadlock.sarif" | tr '\n' ' ')" "^thread [12] blocked at lock [ab] .*thread [12] blocked at lock [ab]" \
	"SARIF deadlock: the failing thread's blocked lock, the other thread's related"
(cd "$TOP" && "$CTS" -q -s dfs --races fail -o "$T/site" --sarif "$T/site-race.sarif" -- tests/programs/counter 2>/dev/null)
is $? 1 "SARIF site: --races fail on counter: race found"
is "$(validate "$T/site-race.sarif" | tail -n 1)" valid "SARIF site: the race bug validates"
srcroot_ok "$T/site-race.sarif"
ok $? "SARIF site: the race's URIs relative to SRCROOT"
# The second access, as the message names it ("... vs thread 2 read at inc+0x3 (counter.c:17)").
line=$(jq -r '.runs[0].results[0].message.text' "$T/site-race.sarif" | sed -n 's/.* vs thread .*(counter\.c:\([0-9]*\)).*/\1/p')
is "$(jq -r '.runs[0].results | map(select(.ruleId == "race")) | map(.locations[0].physicalLocation |
	"\(.artifactLocation.uriBaseId) \(.artifactLocation.uri):\(.region.startLine)") | unique | join(" ")' \
	"$T/site-race.sarif")" "SRCROOT tests/programs/counter.c:$line" \
	"SARIF race: the primary location is the second racing access (line $line)"
"$CTS" -q -n 5 --sarif "$T/clean.sarif" -- "$PROG/deadlock_ok"
is "$(validate "$T/clean.sarif" | tail -n 1)" valid "SARIF of a clean run validates"
is "$(jq -r '.runs[0].results | length' "$T/clean.sarif")" 0 "SARIF of a clean run: no results"
out=$("$CTS" -q -n 5 --sarif "$T/nodir/x.sarif" -- "$PROG/deadlock_ok" 2>&1)
is $? 2 "--sarif not writable: exit 2 before exploring"

# --- invalid UTF-8 in the program's path and an argument: the JSON still parses
bad=$(printf 'prog-\377\376')
cp "$PROG/counter" "$T/$bad"
"$CTS" -q -s dfs -o "$T/out" --report "$T/u.json" --sarif "$T/u.sarif" -- "$T/$bad" "$(printf 'arg\300\257')" 2>/dev/null
is $? 1 "invalid UTF-8 program name: bug found"
python3 -c 'import json, sys; [json.load(open(f, encoding="utf-8")) for f in sys.argv[1:]]' "$T/u.json" "$T/u.sarif"
ok $? "invalid UTF-8: report and SARIF parse as strict UTF-8 JSON"
like "$(jq -r '.program, .args[0]' "$T/u.json" | tr '\n' ' ')" "prog-�� arg�� " "invalid UTF-8: bytes shown as U+FFFD"
is "$(validate "$T/u.sarif" | tail -n 1)" valid "invalid UTF-8: SARIF validates"

# --- progress: one refreshing line on a terminal, erased before any other line
# pty RUN-ARGS...: the output cts-trace writes to a terminal (stdout and stderr).
pty() {
	python3 - "$@" <<'EOF'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
EOF
}
# clean_lines: every line of the output as a terminal shows it once the
# carriage returns and erases are done; the status line must be gone.
clean_lines() {
	python3 -c 'import sys
for line in sys.stdin.buffer.read().split(b"\n"):
    print(line.split(b"\r\x1b[K")[-1].replace(b"\r", b"").decode("utf-8", "replace"))'
}
out=$(pty "$CTS" -n 40 -- "$PROG/counter_ok" | od -c | tr -s ' ' | tr -d '\n')
like "$out" '\\r 033 \[ K \[ c t s \] r u n s' "terminal: the status line is drawn"
pty "$CTS" -n 40 -- "$PROG/counter_ok" > "$T/tty.out"
like "$(clean_lines < "$T/tty.out" | grep -c '\[cts\]')" "^0$" "terminal: the status line is erased before the summary"
like "$(clean_lines < "$T/tty.out")" "covered: 40 runs" "terminal: the summary follows"
like "$(tr '\r' '\n' < "$T/tty.out" | grep '\[cts\]' | head -n 1)" "runs [0-9]+ \([0-9]+/s\)  bugs 0  [0-9]+s \(of 40 runs\)" \
	"terminal: runs, runs/s, bugs, elapsed"
pty "$CTS" -n 40 -t 100 -s dfs -- "$PROG/counter_ok" > "$T/tty2.out"
like "$(tr '\r' '\n' < "$T/tty2.out" | grep '\[cts\]' | head -n 1)" "schedules [0-9]+ .*s, [0-9]+s left" \
	"terminal, dfs with --time: schedules and time left"
out=$(pty "$CTS" -q -n 50 -- "$PROG/counter_ok")
is "$out" "" "terminal with -q: nothing at all"
pty "$CTS" -v -n 30 -- "$PROG/counter_ok" > "$T/tty3.out"
is "$(clean_lines < "$T/tty3.out" | grep -c '^run [0-9]*: ')" 30 "terminal with -v: one line per run"
is "$(clean_lines < "$T/tty3.out" | grep -c '\[cts\]')" 0 "terminal with -v: no status line left in any line"
out=$("$CTS" -n 50 -- "$PROG/counter_ok" 2>&1)
like "$(printf '%s' "$out" | grep -c '\[cts\]')" "^0$" "not a terminal: no status line"

# The ownership estimate (docs/design.md, "Break mode on memory ownership"):
# counter's lost update turns its page shared (a void run, the page
# learned); counter_ok's increments under the mutex are hand-offs. It
# counts the accesses a run showed: with every shared access visible
# (CTS_NO_COLD: no ownership of lines either), as benchmarks/ownership.sh.
CTS_NO_COLD=1 "$CTS" -q -m break --races report -s random --seed 1 -n 20 --report "$T/own.json" -o "$T/own" -- \
	"$PROG/counter" >/dev/null 2>&1
is "$(jq -r '.ownership_estimate | "\(.void_runs > 0) \(.pages_learned) \(.visible > 0)"' "$T/own.json")" \
	"true 1 true" "ownership estimate, counter: a void run, its page learned shared, then visible"
CTS_NO_COLD=1 "$CTS" -q -m break --races report -s random --seed 1 -n 20 --report "$T/own2.json" -o "$T/own" -- \
	"$PROG/counter_ok"
is "$(jq -r '.ownership_estimate | "\(.native == .plain_accesses) \(.void_runs) \(.handoffs > 0)"' "$T/own2.json")" \
	"true 0 true" "ownership estimate, counter_ok: every access native, by hand-offs under the mutex"
"$CTS" -q -m break --races off -n 2 --report "$T/own3.json" -o "$T/own" -- "$PROG/counter_ok"
is "$(jq -r '.ownership_estimate' "$T/own3.json")" null "--races off: no race detector, no estimate"

done_testing
