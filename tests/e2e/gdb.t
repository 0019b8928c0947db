#!/bin/bash
# timeout: 300
# --replay FILE --gdb / --gdb-batch / --core / --stop-at (issue 30 item 1):
# the replayed run's program, held where the bug shows (or before step N),
# is handed to gdb with the failing thread selected and cts's thread
# numbers next to gdb's; the variable gdb prints is what that step implies;
# cts's int3s and entry jmps are out of the text; a crash's core file reads
# back with its signal and frame; nothing is left running; bad input is one
# line and status 2. gdb runs non-interactively throughout (-batch, or the
# interactive form reading commands from a pipe).
. "$(dirname "$0")/lib.sh"
command -v gdb >/dev/null 2>&1 || skip_all "skipped: gdb is not installed (make deps)"
# Text that must be as in the files once gdb has the process: the program's
# own code (break mode's access int3s) and libc entry points (stub jmps).
LIBC_FNS="pthread_mutex_lock pthread_join __assert_fail"
plan $((52 + $(count $LIBC_FNS)))

G="timeout -k 5 $(slow 60)"
# The bytes of "x/8xb SYM" output, without the address.
bytes() { sed -n 's/^0x[0-9a-f]* <[^>]*>:[[:space:]]*//p' | tail -n 1; }

# --- a lost update: counter's assert, and the steps before it ----------------
"$CTS" -q -n 300 --seed 3 -o "$T/c" -- "$PROG/counter" 2>/dev/null
is $? 1 "counter: the lost update found"
S="$T/c/assert-1.sched"
nsteps=$(awk '$1 == "steps" {print $2}' "$S")
# The first write of counter, and the thread that makes it: before it,
# counter is 0 (both threads read 0); after it, 1 (and 1 at the assert).
read -r W WT <<< "$(awk '$1 ~ /^[0-9]+$/ && $3 == "write" {print $1, $2; exit}' "$S")"

out=$($G "$CTS" --replay "$S" --gdb-batch 'print counter; info threads; bt' 2>"$T/err"); rc=$?
err=$(cat "$T/err")
is $rc 1 "--gdb-batch at the bug: exit 1, the bug reproduced"
like "$out" '^\$1 = 1$' "at the assert gdb prints counter = 1 (the update lost)"
like "$out" "^cts: stopped at the bug, after $nsteps steps: thread 0: assertion 'counter == 2' failed" \
	"gdb shows where cts stopped and why"
like "$out" '^cts thread 0 = gdb thread 1 \(LWP [0-9]+\), selected$' \
	"the table: cts thread 0 = gdb thread 1, the asserting thread selected"
lwp=$(printf '%s\n' "$out" | sed -n 's/^cts thread 0 = gdb thread [0-9]* (LWP \([0-9]*\)).*/\1/p')
like "$out" "^\* 1 +Thread 0x[0-9a-f]+ \(LWP $lwp\)" "info threads: gdb's current thread is that LWP"
like "$out" '^#1 +0x[0-9a-f]+ in main \(\) at .*counter\.c:30' "bt: the assert's caller, counter.c:30"
like "$err" "process [0-9]+ handed to gdb; continuing it there runs the program without cts" \
	"the hand-over says continuing misbehaves"
like "$err" "replay reproduced the bug" "the verdict as --replay gives it"
kill -0 "$lwp" 2>/dev/null
is $? 1 "the program is gone once cts-trace exits"
pgrep -f "^[^ ]*gdb -q -batch -p $lwp( |\$)" >/dev/null
is $? 1 "and so is its gdb"

out=$($G "$CTS" --replay "$S" --stop-at "$W" --gdb-batch 'print counter; info threads' 2>"$T/err"); rc=$?
err=$(cat "$T/err")
is $rc 0 "--stop-at $W: exit 0 (stopped before the end: not judged)"
like "$out" '^\$1 = 0$' "before step $W (the first write) counter is 0"
like "$out" "^cts: stopped before step $W of $nsteps: thread $WT is about to do 'write 0x" \
	"gdb shows the step not taken"
like "$out" "^cts thread $WT = gdb thread [0-9]+ \(LWP [0-9]+\), selected$" \
	"the thread of step $W is selected"
wl=$(printf '%s\n' "$out" | sed -n "s/^cts thread $WT = gdb thread [0-9]* (LWP \([0-9]*\)).*/\1/p")
like "$out" "^\* [0-9]+ +Thread 0x[0-9a-f]+ \(LWP $wl\) \"counter\" (0x[0-9a-f]+ in )?inc \(arg=.*counter\.c:18" \
	"gdb's current thread is it, at its write (counter.c:18)"
like "$err" "replay stopped before step $W of $nsteps \(--stop-at\): not judged" "cts-trace says so"
out=$($G "$CTS" -q --replay "$S" --stop-at $((W + 1)) --gdb-batch 'print counter' 2>/dev/null)
like "$out" '^\$1 = 1$' "before step $((W + 1)) counter is 1: the value follows the stop"
out=$($G "$CTS" -q --replay "$S" --stop-at "$nsteps" --gdb-batch 'print counter' 2>/dev/null)
like "$out" '^cts: stopped at the bug' "--stop-at the schedule's length is its end"

# cts's patches are out of the text gdb sees: the program's code (access
# int3s in break mode) and libc's entry points (jmps to cts's stubs).
cmds="x/8xb inc"
for f in $LIBC_FNS; do cmds="$cmds; x/8xb $f"; done
out=$($G "$CTS" -q --replay "$S" --gdb-batch "$cmds" 2>/dev/null)
live=$(printf '%s\n' "$out" | grep '<inc>:' | bytes)
is "$live" "$(gdb -batch -nx -ex 'x/8xb inc' "$PROG/counter" 2>/dev/null | bytes)" \
	"inc's first bytes in the process are the file's (no int3)"
libc=$(ldd "$PROG/counter" | awk '/libc\.so/ {print $3}')
for f in $LIBC_FNS; do
	want=$(gdb -batch -nx -ex "x/8xb $f" "$libc" 2>/dev/null | bytes)
	got=$(printf '%s\n' "$out" | grep -A0 "^0x[0-9a-f]* <[_a-zA-Z]*${f#__}>:" | bytes)
	is "$got" "$want" "$f's first bytes in the process are libc's (no jmp to a stub)"
done

# The interactive form, its commands from a pipe.
out=$(printf 'print counter\nquit\n' | $G "$CTS" -q --replay "$S" --gdb 2>/dev/null); rc=$?
like "$out" '\$1 = 1' "--gdb reads gdb commands from its input: counter = 1"
is $rc 1 "--gdb: exit 1 once gdb is done"

# A race (--races fail): the program has exited by the schedule's end, so
# the error names the step of the race's second access, where it can stop.
"$CTS" -q --races fail -n 300 --seed 3 -o "$T/r" -- "$PROG/counter" 2>/dev/null
is $? 1 "counter --races fail: the race found"
out=$($G "$CTS" --replay "$T/r/race-1.sched" --gdb-batch bt 2>&1); rc=$?
is $rc 2 "a race's schedule runs to the program's exit: nothing to hand over, status 2"
R=$(printf '%s\n' "$out" | sed -n "s/.*(--stop-at \([0-9]*\) stops before the race's second access).*/\1/p")
read -r RT rop <<< "$(awk -v s="$R" '$1 == s {print $2, $3}' "$T/r/race-1.sched")"
out=$($G "$CTS" -q --replay "$T/r/race-1.sched" --stop-at "${R:-0}" --gdb-batch 'bt 1' 2>/dev/null)
like "$out" "^cts: stopped before step $R of [0-9]+: thread $RT is about to do '$rop 0x" \
	"the error's --stop-at $R stops before the race's second access (thread $RT's $rop)"
like "$out" '^#0 +(0x[0-9a-f]+ in )?inc \(arg=.*counter\.c:1[78]' "...in inc, at counter.c:17 or 18"

# --- a crash: the core file and the crashing thread ---------------------------
"$CTS" -q -m sync -s pct -o "$T/x" -- "$PROG/crash" 2>/dev/null
is $? 1 "crash: the NULL dereference found"
X="$T/x/crash-1.sched"
ct=$(sed -n 's/^bug thread \([0-9]*\) killed by.*/\1/p' "$X")
out=$($G "$CTS" --replay "$X" --core "$T/core" --gdb-batch 'bt 1' 2>"$T/err"); rc=$?
is $rc 1 "--core with --gdb-batch: exit 1"
like "$out" "^cts thread $ct = gdb thread [0-9]+ \(LWP [0-9]+\), selected$" \
	"the crashing thread ($ct) is selected"
like "$out" '^#0 +0x[0-9a-f]+ in reader \(arg=.*\) at .*crash\.c:24' "bt: the faulting line, crash.c:24"
[ -s "$T/core" ]
ok $? "the core file is written"
like "$(cat "$T/err")" "core file: $T/core" "cts-trace names it"
core=$(gdb -batch -nx -c "$T/core" "$PROG/crash" -ex bt 2>&1)
like "$core" "Program terminated with signal SIGSEGV" "gdb -c: the core names SIGSEGV"
like "$core" '#0 +0x[0-9a-f]+ in reader \(arg=.*\) at .*crash\.c:24' "gdb -c: its first thread is the crash, at crash.c:24"
rm -f "$T/core"
$G "$CTS" -q --replay "$X" --core "$T/core" >/dev/null 2>&1
is $? 1 "--core alone: exit 1, the crash reproduced"
[ -s "$T/core" ]
ok $? "--core alone writes the core"
gone=0
for l in $(printf '%s\n' "$out" | sed -n 's/^cts thread [0-9]* = gdb thread [0-9]* (LWP \([0-9]*\)).*/\1/p'); do
	kill -0 "$l" 2>/dev/null || gone=$((gone + 1))
done
[ "$gone" -ge 2 ]
ok $? "no thread of the crashed program is left ($gone gone)"

# --- a deadlock: every thread held at its lock --------------------------------
"$CTS" -q -s pct -o "$T/d" -- "$PROG/deadlock" 2>/dev/null
is $? 1 "deadlock: found"
out=$($G "$CTS" -q --replay "$T/d/deadlock-1.sched" --gdb-batch 'thread apply all bt 2' 2>/dev/null)
n=$(printf '%s\n' "$out" | grep -A1 '^Thread [0-9]* (' | grep -c '^#0 .*pthread_mutex_lock (mutex=')
is "$n" 2 "both threads of the cycle stand in pthread_mutex_lock"

# A thread asleep in the kernel (read on an empty pipe, outside the
# schedule) is stopped for gdb too, in its call.
"$CTS" -q -m sync -o "$T/p" -- "$PROG/sys_pipe" 2>/dev/null
is $? 1 "sys_pipe: the deadlock with a reader asleep in read() found"
out=$($G "$CTS" -q --replay "$T/p/deadlock-1.sched" --gdb-batch 'thread apply all bt 3' 2>/dev/null)
like "$out" '^#[0-9] .*read \(fd=3, .*
#[0-9] +0x[0-9a-f]+ in reader \(arg=.*sys_pipe\.c:23' "the reader stands in its read, sys_pipe.c:23"

# --- bad input: one line, status 2 --------------------------------------------
out=$("$CTS" --gdb -- "$PROG/counter" 2>&1)
is $? 2 "--gdb without --replay: status 2"
like "$out" "cannot be used without --replay" "...said so"
out=$("$CTS" --replay "$S" --stop-at $((nsteps + 1)) --gdb-batch bt 2>&1)
is $? 2 "--stop-at past the schedule: status 2"
like "$out" "--stop-at $((nsteps + 1)): .* has $nsteps steps" "...said so"
out=$(CTS_GDB=/nonexistent/gdb "$CTS" --replay "$S" --gdb-batch bt 2>&1)
is $? 2 "gdb not there: status 2"
like "$out" "/nonexistent/gdb not found: --gdb, --gdb-batch and --core run gdb" "...said so"
out=$(PATH=/nonexistent "$CTS" --replay "$S" --core "$T/c2" 2>&1)
like "$out" "gdb on PATH not found" "no gdb on PATH: said so"
out=$("$CTS" --replay "$S" --stop-at 3 2>&1)
is $? 2 "--stop-at alone: status 2"
out=$("$CTS" --replay "$S" --gdb --gdb-batch bt 2>&1)
like "$out" "one or the other" "--gdb and --gdb-batch together: said so"
"$CTS" -q --fail-on-exit -o "$T/e" -- "$PROG/exit_status" 2>/dev/null
out=$($G "$CTS" --replay "$T/e/exit-status-1.sched" --gdb-batch bt 2>&1)
is $? 2 "a schedule whose program exits before the stop: status 2"
like "$out" "there is no process to hand over \(--stop-at [0-9]+ stops before its last step\)" \
	"...said so, with the --stop-at that would work"
done_testing
