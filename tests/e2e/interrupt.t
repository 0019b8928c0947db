#!/bin/bash
# timeout: 180
# SIGINT and SIGTERM end cts-trace at once in every wait, with status 130
# and no process of the program left behind: a replay waiting for a thread
# the schedule has come back from the kernel, a dpor search waiting for a
# thread asleep on a socket.  A replay waiting for a thread nothing can wake
# (its pipe is the program's own and nobody writes it) is a divergence
# (status 2) at once, not a wait for ever.  Then each phase of a session,
# the signal sent when a line on stderr says the phase has begun: it ends
# within BOUND ms (a bound the old behaviour, seconds of work or a hang,
# fails).
. "$(dirname "$0")/lib.sh"

# Phases (interrupt_on calls) below.
PHASES="dfs-petri-walk minimize check"
# 4 checks in line, 4 in each of 3 interrupt calls, 2 more for the dpor one,
# 4 in each phase, 2 more for minimize, 2 for check, 3 for SIGKILL, 4 for
# --time.
plan $((4 + 3 * 4 + 2 + 4 * $(count $PHASES) + 2 + 2 + 3 + 4))
BOUND=$(slow 1000)

# wait_asleep PID: poll (up to 10 s) until a traced child of PID has a
# thread asleep in the kernel (state S): cts-trace is waiting for it.
wait_asleep() {
	local i c
	for i in $(seq 200); do
		for c in $(pgrep -P "$1"); do
			grep -qs '^State:.*S (sleeping)' /proc/"$c"/task/*/status && return 0
		done
		sleep 0.05
	done
	return 1
}

# interrupt SIG DESCRIPTION ARGS...: cts-trace ARGS in the background, SIG
# once it waits; it must exit 130 within 3 s with nothing left behind.
interrupt() {
	local sig=$1 what=$2 pid kids t0 t1 rc gone
	shift 2
	# A background job of a script starts with SIGINT ignored, which
	# cts-trace respects: give it back its default first.
	env --default-signal=INT "$CTS" "$@" >/dev/null 2>"$T/err" &
	pid=$!
	wait_asleep "$pid"
	ok $? "$what: cts-trace waits for a thread asleep in the kernel"
	kids=$(pgrep -P "$pid" | tr '\n' ' ')
	t0=$(date +%s%N)
	kill -"$sig" "$pid"
	# bash's wait returns at once on exit; the 3 s are checked below.
	wait "$pid"
	rc=$?
	t1=$(date +%s%N)
	is "$rc" 130 "$what: $sig ends it with status 130"
	ok $(((t1 - t0) / 1000000 < 3000 ? 0 : 1)) "$what: within 3 s ($(((t1 - t0) / 1000000)) ms)"
	gone=yes
	for k in $kids; do
		[ -d /proc/"$k" ] && [ "$(awk '/^State:/ { print $2 }' /proc/"$k"/status)" != Z ] &&
			gone=no
	done
	is "$gone $(leftovers sock_reader)" "yes no" "$what: no process of the program left"
}

# The reader's read returns at step 4 in this schedule, before main wrote:
# the replay waits for the world (--timeout 0: no limit).
cat >"$T/wait.sched" <<EOS
cts-schedule 1
program $PROG/sock_reader
mode sync
timeout 0
steps 5
0 0 start 0x0
1 0 create 0x0
2 1 start 0x0
3 1 io 0x4
4 1 io_return 0x4
end
EOS
interrupt TERM "replay" --replay "$T/wait.sched"
interrupt INT "replay" --replay "$T/wait.sched"
interrupt TERM "dpor" -m sync -s dpor --timeout 0 -o "$T/o" --report "$T/dpor.json" \
	-- "$PROG/sock_reader" wait
# The run cut by the signal is no schedule done, nor one the search cut as
# redundant (it was counted as both).
is "$(jq -c '[.runs, .summary.cut, .interrupted]' "$T/dpor.json" 2>&1)" "[0,0,true]" \
	"dpor: the run the signal cut is not counted"
like "$(cat "$T/err")" "interrupted after 0 runs" "dpor: nor in the summary"

# pipe_handoff_ok: the worker reads its pipe before main wrote it (the
# first 5 steps of a recorded run, seed 1), then the schedule has the read
# return at once.  The pipe is the program's own and nobody can write it
# now: nothing can wake the worker.
"$CTS" -m sync -n 1 --max-steps 5 --timeout $NO_TIME_LIMIT -o "$T/r" -- "$PROG/pipe_handoff_ok" >/dev/null 2>&1
last=$(sed -n '/^4 /p' "$T/r/inconclusive-1.sched")
is "$last" "4 1 io 0x3" "recorded: the worker's read is step 4"
sed -e 's/^steps 5$/steps 6/' -e 's/^end$/5 1 io_return 0x3\nend/' \
	-e 's/^max-steps .*/max-steps 100/' -e 's/^timeout .*/timeout 0/' \
	"$T/r/inconclusive-1.sched" >"$T/stuck.sched"
out=$(timeout -k 2 20 "$CTS" --replay "$T/stuck.sched" 2>&1 >/dev/null)
rc=$?
is "$rc" 2 "replay waiting for a thread nothing can wake: divergence, status 2"
like "$out" "replay diverged: step 5: .*nothing can wake it" "said so"
is "$(leftovers pipe_handoff_ok)" no "no process of the program left"

# interrupt_on NAME SIG LINE PROG ARGS...: cts-trace ARGS with stderr to a
# file; SIG once LINE (a regex) is in it, or the file F exists for a LINE
# file:F (30 s at most). It must end with
# 130 (WANT if set) within BOUND ms, no process of PROG left (none stopped either), and a
# JSON report that says it was interrupted.
interrupt_on() {
	local name=$1 sig=$2 line=$3 prog=$4 pid i t0 t1 rc
	shift 4
	env --default-signal=INT "$CTS" --report "$T/$name.json" "$@" >/dev/null 2>"$T/$name.err" &
	pid=$!
	for i in $(seq 3000); do
		case $line in
		file:*) [ -e "${line#file:}" ] && break ;;
		*) grep -Eq -- "$line" "$T/$name.err" && break ;;
		esac
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	t0=$EPOCHREALTIME
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	t1=$EPOCHREALTIME
	local ms=$(((${t1/./} - ${t0/./}) / 1000))
	is "$rc" "${WANT:-130}" "$name: $sig ends it with status ${WANT:-130}"
	ok $((ms > BOUND)) "$name: within $BOUND ms ($ms ms)"
	is "$(leftovers "$prog")" no "$name: no process of the program left"
	is "$(jq -r .interrupted "$T/$name.json" 2>&1)" true "$name: the report says interrupted"
}

# The state-matching dfs walks its model for seconds between two runs (tens
# of thousands of markings): the walk sees the interrupt (was 9 s).
interrupt_on dfs-petri-walk TERM "^run 1:" sync_heavy \
	-v -s dfs --state-match petri -m sync -o "$T/o" -- "$PROG/sync_heavy" 20 4

# A bug found, its minimization under way (-v says when it starts): the replays stop, the schedule as found is saved and
# replays the bug; its timeline is left out (it loaded libc's compressed
# debug information first: 0.6-1.8 s).  The bug stands: status 1.
WANT=1 interrupt_on minimize INT "minimizing the schedule" long_loop_bug \
	-v -m break -o "$T/min" -- "$PROG/long_loop_bug" 1
like "$(cat "$T/minimize.err")" "schedule: $T/min/assert-1.sched" "minimize: the bug's schedule is saved"
timeout -k 2 "$(slow 60)" "$CTS" -q --replay "$T/min/assert-1.sched" >/dev/null 2>&1
is $? 1 "minimize: the schedule saved replays the bug"

# A --check command that takes its time (here for ever): it is killed with
# what it started, the run not judged (was: cts-trace waited for it) nor
# counted (was: a clean run). --no-isolate: the check's marker file must
# reach the test (with run isolation it stays in the run's overlay).
interrupt_on check TERM "file:$T/checking" sync_heavy \
	-m sync -n 5 --no-isolate --check "touch '$T/checking'; sleep 600" -o "$T/ck" -- \
	"$PROG/sync_heavy" 10 2
is "$(jq -c '[.runs, .summary.cut]' "$T/check.json" 2>&1)" "[0,0]" \
	"check: the run whose check was cut is not counted"
is "$(pgrep -f "sleep 600" | xargs -r ps -o args= -p | grep -c "^sleep 600")" 0 \
	"check: the command's own processes are gone"

# SIGKILL of a --jobs parent: nothing can clean up in it. Its workers die
# of PR_SET_PDEATHSIG (SIGTERM), kill their runs (PTRACE_O_EXITKILL would
# too) and the last one out removes the reports' directory (was left in
# TMPDIR).
mkdir "$T/tmp"
TMPDIR="$T/tmp" "$CTS" -j 2 -m sync -n 0 -o "$T/k" -- "$PROG/sync_heavy" 1000 2 >/dev/null 2>&1 &
pid=$!
for i in $(seq 1000); do
	[ "$(pgrep -P "$pid" | wc -l)" -ge 2 ] && pgrep -f "^$PROG/sync_heavy" >/dev/null && break
	sleep 0.01
done
workers=$(pgrep -P "$pid" | tr '\n' ' ')
kill -KILL "$pid"
wait "$pid" 2>/dev/null
# Wait (30 s at most: it took over 5 s at load 14 on 2 CPUs) for what the
# kernel and the workers do by themselves.
for i in $(seq $(slow 3000)); do
	alive=""
	for w in $workers; do [ -d /proc/"$w" ] && alive="$alive $w"; done
	[ -z "$alive" ] && [ -z "$(ls -A "$T/tmp")" ] && break
	sleep 0.01
done
is "${alive:-none}" none "SIGKILL of the --jobs parent: its workers end"
is "$(leftovers sync_heavy)" no "SIGKILL of the --jobs parent: no process of the program left"
is "$(ls -A "$T/tmp")" "" "SIGKILL of the --jobs parent: no directory left in TMPDIR"

# --time bounds the session, a run under way too: one run of sync_heavy
# here is minutes of steps (--timeout 30 would cut it; the old end was
# then; the step budget is out of reach: a fast machine spent the default
# one within the second). Cut at 1 s, it is neither judged nor counted.
t0=$EPOCHREALTIME
out=$(timeout -k 2 60 "$CTS" -m sync -t 1 --timeout 30 --max-steps $NO_STEP_LIMIT -o "$T/t" --report "$T/t.json" \
	-- "$PROG/sync_heavy" 1000000 2 2>&1)
rc=$?
t1=$EPOCHREALTIME
ms=$(((${t1/./} - ${t0/./}) / 1000))
is "$rc" 0 "--time 1 inside a long run: status 0"
ok $((ms > $(slow 5000))) "--time 1 inside a long run: ends within $(slow 5) s ($ms ms)"
like "$out" "covered: 0 runs, .*visible operations: none" "--time 1 inside a long run: the cut run is not counted"
is "$(jq -c '[.runs, .summary.cut, .inconclusive.count]' "$T/t.json" 2>&1)" "[0,0,0]" \
	"--time 1 inside a long run: nor in the report"

done_testing
