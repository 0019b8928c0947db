#!/bin/bash
# Attach mode's JSON report (--report with -p PID): the launch-mode schema
# (every top-level member a launched run's report has) plus "attach": the
# pid, the diagnosis at attach, the schedule observed (not replayable, and
# the report says so). An unwritable report is a usage error before the
# process is touched; a deadlock in progress, a bug found under control and
# a clean session each come out as the text output says.
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/e2e/attach_lib.sh"
# Bad input with -p: exit 2, one line, the process untouched (OPTION|REASON).
ATTACH_BAD=("--sarif $T/s.sarif|--sarif cannot be used in attach mode"
	    "-o /dev/null|--out /dev/null: cannot write the observed schedule there"
	    "--max-threads 2|process [0-9]+ has 3 threads, more than --max-threads 2"
	    "--watch -8|not an address" "--watch +0x10|not an address"
	    "--watch 99999999999999999999999|not an address"
	    "--watch 0x10000000000000000|not an address")
plan $((36 + 2 * ${#ATTACH_BAD[@]}))

# The top-level members of a launched run's report, for comparison.
"$CTS" -q -s random --runs 2 --report "$T/launch.json" -o lo -- "$PROG/counter_ok" >/dev/null 2>&1
launch_keys=$(jq -c 'keys' "$T/launch.json")
same_schema() { jq -c --argjson k "$launch_keys" '($k - keys) == [] and has("attach")' "$1"; }

"$PROG/attach_deadlock" &
d=$!
bg="$bg $d"
wait_all_futex "$d"

# ---- an unwritable report: exit 2, nothing touched --------------------------------
out=$("$CTS" -p "$d" --report "$T/no/such/dir/r.json" -o o 2>&1); rc=$?
is "$rc" 2 "unwritable report: exit 2"
is "$(printf '%s\n' "$out" | wc -l)" 1 "unwritable report: one line"
is "$(tracer_of "$d")" 0 "unwritable report: the process untouched"

for b in "${ATTACH_BAD[@]}"; do
	a=${b%%|*}
	out=$("$CTS" -p "$d" --time 0.3 $a 2>&1); rc=$?
	is "$rc $(printf '%s\n' "$out" | wc -l) $(tracer_of "$d")" "2 1 0" "-p $a: exit 2, one line, untouched"
	like "$out" "${b#*|}" "-p $a: says why"
done
out=$("$CTS" -p "$d" --time 0.3 --watch ' 4096' 2>&1); rc=$?
is "$rc $(printf '%s\n' "$out" | wc -l) $(tracer_of "$d")" "2 1 0" "-p --watch ' 4096': exit 2, one line, untouched"
# Another tracer on a thread that is not the leader (strace -p TID).
if command -v strace >/dev/null; then
	tid=$(ls "/proc/$d/task" | sort -n | tail -n 1)
	strace -p "$tid" -o /dev/null 2>/dev/null &
	s=$!
	for _ in $(seq 200); do [ "$(tracer_of "$tid")" = "$s" ] && break; sleep 0.05; done
	out=$("$CTS" -p "$d" --time 0.3 -o o 2>&1); rc=$?
	is "$rc $(printf '%s\n' "$out" | wc -l) $(tracer_of "$d")" "2 1 0" "a thread traced by strace: exit 2, one line, untouched"
	like "$out" "thread $tid of process $d is already traced by process $s \(strace\)" \
		"a thread traced by strace: says which and by whom"
	kill "$s" && wait "$s" 2>/dev/null
	for _ in $(seq 200); do [ "$(tracer_of "$tid")" = 0 ] && break; sleep 0.05; done
else
	skip 2 "no strace"
fi

# ---- a deadlock in progress -------------------------------------------------------
"$CTS" -q -p "$d" --time 10 -o o --report "$T/d.json" 2>/dev/null; rc=$?
is "$rc" 1 "deadlock in progress: exit 1"
is "$(same_schema "$T/d.json")" true "deadlock: the launch-mode report's members, and attach"
is "$(jq -r '.attach.pid' "$T/d.json")" "$d" "deadlock: the pid"
is "$(jq -r '.attach.replayable' "$T/d.json")" false "deadlock: not replayable"
like "$(jq -r '.attach.note' "$T/d.json")" "cannot be replayed from its start" "deadlock: says why"
is "$(jq -r '[.bugs[] | .kind] | join(",")' "$T/d.json")" deadlock "deadlock: one bug, a deadlock"
like "$(jq -r '.bugs[0].message' "$T/d.json")" "already in progress when cts attached" \
	"deadlock: the message says it was in progress"
like "$(jq -r '.bugs[0].detail' "$T/d.json")" "cycle: thread 1 -> thread 2 -> thread 1" \
	"deadlock: the cycle in the detail"
is "$(jq -r '.bugs[0].schedule, .bugs[0].replay' "$T/d.json" | tr '\n' ' ')" "null null " \
	"deadlock: no replay command"
is "$(jq -r '.summary.distinct_bugs' "$T/d.json")" 1 "deadlock: summary"
is "$(jq -r '.attach.diagnosis | length' "$T/d.json")" 3 "deadlock: the diagnosis has every thread"
is "$(jq -r '.attach.diagnosis[] | select(.thread == 1) | "\(.in) \(.holder)"' "$T/d.json")" "lock 2" \
	"deadlock: thread 1 waits in lock for thread 2"
like "$(jq -r '.attach.diagnosis[] | select(.thread == 1) | .location' "$T/d.json")" \
	"t1\+0x[0-9a-f]+ \(attach_deadlock.c:17\)" "deadlock: the waiter's source line"
is "$(jq -r '.attach.diagnosis[] | select(.thread == 0) | "\(.in) \(.holder)"' "$T/d.json")" "join 1" \
	"deadlock: the main thread joins thread 1"
is "$(tracer_of "$d") $(nthreads "$d")" "0 3" "deadlock: detached, threads all there"

# ---- a bug under control ---------------------------------------------------------
"$PROG/attach_race" 2>/dev/null &
r=$!
bg="$bg $r"
sleep 0.1 # its threads started (no schedule depends on it)
"$CTS" -q -p "$r" --time 60 -o o --report "$T/r.json" 2>/dev/null; rc=$?
is "$rc" 1 "bug under control: exit 1"
is "$(same_schema "$T/r.json")" true "bug under control: the launch-mode report's members"
is "$(jq -r '.bugs[0].kind' "$T/r.json")" assert "bug under control: an assert"
like "$(jq -r '.bugs[0].message' "$T/r.json")" "assertion 'x == v' failed at attach_race.c:29" \
	"bug under control: its message"
is "$(jq -r '.bugs[0].thread' "$T/r.json")" 1 "bug under control: the thread"
sched=$(jq -r '.attach.schedule_observed' "$T/r.json")
is "$sched" "o/attach-$r-1.txt" "bug under control: the schedule observed"
is "$(grep -vc '^#' "$sched")" "$(jq -r '.steps' "$T/r.json")" "bug under control: one line a step"
is "$(jq -r '(.summary.operations.lock // 0) > 0' "$T/r.json")" true "bug under control: locks counted"
wait "$r" 2>/dev/null

"$PROG/attach_race_ok" &
r=$!
bg="$bg $r"
sleep 0.1
"$CTS" -q -p "$r" --time 1 -o o --report - 2>/dev/null >"$T/ok.json"; rc=$?
is "$rc" 0 "twin, report on stdout: exit 0"
is "$(same_schema "$T/ok.json")" true "twin: the launch-mode report's members"
is "$(jq -r '.bugs | length' "$T/ok.json")" 0 "twin: no bug"
is "$(jq -r '.steps > 0 and .runs == 1' "$T/ok.json")" true "twin: one session, scheduled"
is "$(jq -r '[.attach.diagnosis[] | .tid] | length' "$T/ok.json")" 3 "twin: every thread diagnosed"
is "$(tracer_of "$r") $(nthreads "$r")" "0 3" "twin: detached, threads all there"

# ---- the process killed while attached: said by the signal's name ----------------
"$PROG/attach_idle" &
i=$!
bg="$bg $i"
wait_all_futex "$i"
cts_bg -p "$i" --time 60 -o o 2>"$T/kill.log"
wait_line "$T/kill.log" "controlling process $i"
kill -9 "$i"
wait "$C"
like "$(cat "$T/kill.log")" "process $i was killed by SIGKILL while attached" \
	"killed while attached: 'by SIGKILL', not 'by Killed'"

done_testing
