#!/bin/bash
# timeout: 240
# Launch, exec, signals and the end of a run (issue 17): an exec that fails is
# a one-line error (exit 2), never a hang; a program cannot stop, signal or
# ptrace its tracer; a thread's exec or a signal the program sends itself
# ends the run as what it is, never as a false bug. Each cts-trace runs under
# a short timeout: the defects here were hangs.
. "$(dirname "$0")/lib.sh"

# run SECONDS ARGS...: cts-trace under a timeout (124/137 = it hung), scaled.
run() { local s=$1; shift; timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }
SELFKILLS="term kill0 int"
CANCELS="cond join sleep async"
STARTUP_DELAYS="0 0.2 0.5"
EXPLORE_DELAYS="0.3 1"
# how:cts-trace options (commas for spaces) for leave_child
LEFT_CHILDREN="fork:-n,2 popen:-n,2 setsid:-n,2 fork,20:-n,2 fork:-m,sync,--no-fork-server,-n,3 popen:-s,dfs,-n,3"
plan $((29 + $(count $SELFKILLS) + $(count $CANCELS) + 2 * $(count $STARTUP_DELAYS) +
	2 * $(count $EXPLORE_DELAYS) + $(count $LEFT_CHILDREN)))

# 1. exec fails with ETXTBSY: the program file is open for writing. (With
# run isolation a program inside an isolated directory is exec'd through
# its overlay, whose file nobody has open: --no-isolate, docs/design.md.)
cp "$PROG/deadlock_ok" "$T/busy"
out=$(exec 3>>"$T/busy"; run 20 --no-isolate -n 1 -o "$T/o" -- "$T/busy" 2>&1)
is $? 2 "program open for writing: exit 2, no hang"
like "$out" "^cts-trace: cannot run .*busy: Text file busy$" "program open for writing: one-line error"
out=$(exec 3>>"$T/busy"; run 20 --no-isolate --no-fork-server -n 3 -o "$T/o" -- "$T/busy" 2>&1)
is $? 2 "program open for writing (exec mode): exit 2"

# 2. exec fails with E2BIG: a schedule file with a 200,000-byte argument.
"$CTS" -q -n 500 -o "$T/dl" -- "$PROG/deadlock"
big=$(head -c 200000 /dev/zero | tr '\0' a)
{ sed '/^mode /,$d' "$T/dl/deadlock-1.sched"; printf 'arg %s\n' "$big"
  sed -n '/^mode /,$p' "$T/dl/deadlock-1.sched"; } >"$T/big.sched"
out=$(run 20 --replay "$T/big.sched" 2>&1)
is $? 2 "argument over 128 KiB: exit 2, no hang"
like "$out" "^cts-trace: cannot run .*: Argument list too long$" "argument over 128 KiB: one-line error"

# 3. The program attacks its tracer (kill, tgkill, tkill, ptrace,
# process_vm_writev, pidfd_open, /proc/<tracer>/mem, kill(-1)): every attempt
# is refused (it asserts so), in both launch modes.
run 60 -q -n 20 -o "$T/h" -- "$PROG/hostile"
is $? 0 "hostile program: every attack on the tracer refused"
run 60 -q --no-fork-server -n 5 -o "$T/h" -- "$PROG/hostile"
is $? 0 "hostile program (exec mode): every attack refused"

# 8. A thread execs: the run follows the new image to its end.
run 60 -q -s dfs -n 200 --timeout 10 -o "$T/ex" -- "$PROG/exec_thread"
is $? 0 "exec from a thread: clean on every schedule (was a timeout)"
run 60 -q --no-fork-server -n 10 --timeout 10 -o "$T/ex" -- "$PROG/exec_thread"
is $? 0 "exec from a thread (exec mode): clean"
out=$(run 60 --fail-on-exit -n 3 --timeout 10 -o "$T/ex2" -- "$PROG/exec_thread" /bin/sh -c 'exit 4' 2>&1)
is $? 1 "exec from a thread: the new image's exit status counts (--fail-on-exit)"
like "$out" "program exited with status 4" "exec from a thread: says the new image's status"

run 60 -q -n 2 --timeout 1 -o "$T/ex3" -- "$PROG/exec_thread" /bin/sleep 30
is $? 0 "exec from a thread: a long-running new image is no timeout bug"

# 11. The program ends itself with a signal: the end of the run, not a bug.
for how in $SELFKILLS; do
	run 60 -q -s dfs -n 200 -o "$T/sk" -- "$PROG/selfkill" $how
	is $? 0 "selfkill $how: clean on every schedule"
done
run 60 -q --no-fork-server -n 10 -o "$T/sk" -- "$PROG/selfkill" kill0
is $? 0 "selfkill kill0 (exec mode): clean"
out=$(run 60 --fail-on-exit -n 3 -o "$T/sk2" -- "$PROG/selfkill" term 2>&1)
is $? 1 "selfkill term with --fail-on-exit: a bug"
like "$out" "program killed itself by signal 15" "selfkill term: says it killed itself"
out=$(run 60 -n 3 -o "$T/sk3" -- "$PROG/selfkill" segv 2>&1)
is $? 1 "selfkill segv: SIGSEGV is a crash"
like "$out" "BUG \\(crash\\).*thread 2 killed by Segmentation fault" "selfkill segv: says crash"
is "$(leftovers selfkill)" no "selfkill: nothing left running"

# 9. Cancellation: deferred at a cond wait, a join and a sleep, and
# asynchronous; clean on every schedule. The twin without a cleanup handler
# leaves the mutex locked: a deadlock on every schedule.
for how in $CANCELS; do
	run 120 -q -s dfs -n 200 --timeout 10 -o "$T/c" -- "$PROG/cancel_ok" $how
	is $? 0 "cancel_ok $how: clean on every schedule"
done
run 60 -q -m sync -s pct -n 100 --timeout 10 -o "$T/c" -- "$PROG/cancel_ok" cond
is $? 0 "cancel_ok cond (sync mode, pct): clean"
out=$(run 60 -s dfs -n 50 -o "$T/cb" -- "$PROG/cancel" 2>&1)
is $? 1 "cancel (no cleanup handler): found"
like "$out" "BUG \\(deadlock\\).*thread 0 waits for mutex 0x[0-9a-f]+ held by thread 1" \
	"cancel: main waits for the mutex the cancelled thread kept"
r=$(run 30 --replay "$T/cb/deadlock-1.sched" 2>&1)
is $? 1 "cancel: replay reproduces it"

# 12. Thread numbers count every thread a run creates; the tables grow (the
# big cases are in threads.t). --max-threads bounds them: above it a one-line
# error, exit 2 (was exit 3), nothing left running.
out=$(run 60 --max-threads 150 -n 2 -o "$T/mt" -- "$PROG/many_threads" 200 2>&1)
is $? 2 "200 sequential threads, --max-threads 150: exit 2 (a limit, not an internal error)"
like "$out" "^cts-trace: .*many_threads creates more than 150 threads in one run .*raise --max-threads\\)$" \
	"200 sequential threads, --max-threads 150: one-line error"
is "$(leftovers many_threads)" no "200 sequential threads: nothing left running"
run 60 -q -n 3 -o "$T/mt" -- "$PROG/many_threads" 200
is $? 0 "200 sequential threads: clean"

# 16. The program leaves a child process running that has threads of its
# own (issue 27 item 7): the child is killed with the run, every thread of it
# reaped, and cts-trace goes on and exits (it waited for ever on the child's
# leader, whose death the kernel reports only after its other threads, our
# stopped tracees, are reaped). A hang is status 124 or 137.
for c in $LEFT_CHILDREN; do
	how=${c%%:*} opts=${c#*:}
	run 60 -q ${opts//,/ } -o "$T/lc" -- "$PROG/leave_child" ${how//,/ }
	is $? 0 "leave_child ${how//,/ } (${opts//,/ }): the run ends, clean"
done
is "$(leftovers leave_child)" no "leave_child: no child process left running or stopped"

# 15. An interrupt is served at once wherever the tracer is: SIGTERM during
# start-up (scanning code, planting a thousand breakpoints, the program's
# seconds-long constructor) and during the exploration ends cts-trace with
# 130 within a bound, nothing left running. (Before: it waited for main, the
# constructor's 10 s or more.) Unloaded it takes 8-90 ms; the bound of 5 s
# leaves room for a machine that runs other suites at once and still fails
# the old wait. Each point waits until the program is exec'd, so the
# handlers are in place.
interrupt_at() { # DELAY PROGRAM ARGS...
	local d=$1; shift
	# No step budget: the signal comes in the middle of a run on any machine.
	"$CTS" -q -n 0 --timeout 60 --max-steps $NO_STEP_LIMIT -o "$T/lat" -- "$@" >/dev/null 2>&1 &
	local pid=$! i
	for i in $(seq 300); do pgrep -f "^$1" >/dev/null && break; sleep 0.02; done
	sleep "$d"
	local t0=$EPOCHREALTIME
	kill -TERM $pid
	wait $pid
	local rc=$? t1=$EPOCHREALTIME
	ms=$(( (${t1/./} - ${t0/./}) / 1000 ))
	return $rc
}
for d in $STARTUP_DELAYS; do
	interrupt_at $d "$PROG/slow_start"
	is $? 130 "SIGTERM ${d}s into start-up: exit 130"
	ok $((ms > 5000)) "SIGTERM ${d}s into start-up: served in ${ms} ms (bound 5000)"
done
is "$(leftovers slow_start)" no "start-up interrupts: nothing left running"
for d in $EXPLORE_DELAYS; do
	interrupt_at $d "$PROG/sync_heavy" 100000 2
	is $? 130 "SIGTERM ${d}s into exploring: exit 130"
	ok $((ms > 5000)) "SIGTERM ${d}s into exploring: served in ${ms} ms (bound 5000)"
done
is "$(leftovers sync_heavy)" no "exploring interrupts: nothing left running"

done_testing
