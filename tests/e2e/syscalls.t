#!/bin/bash
# timeout: 400
# Blocking system calls (docs/design.md, "Blocking system calls"): threads
# that talk through pipes, eventfds with poll/epoll, signals with sigwait and
# sigsuspend, and a child process. Every correct program is clean under
# random, pct and dpor in sync and break mode; every buggy twin is found in
# each of those (sys_child, whose bug depends on a child process's timing,
# by random and pct); schedules in which a thread slept in the kernel and came
# back replay 10/10; a thread only the world could wake is reported as
# blocked outside the schedule when the run times out, never as a deadlock.
. "$(dirname "$0")/lib.sh"

twins="sys_pipe_ok sys_poll_ok sys_sigwait_ok sys_pause_ok sys_child_ok"
bugs="sys_pipe:deadlock sys_poll:deadlock sys_sigwait:crash sys_pause:deadlock sys_child:assert"
MODES="sync break"
STRATEGIES="random pct dpor"
# A check per twin, mode and strategy; 2 per bug, mode and strategy (sys_child
# has one strategy less); 4 replay checks per mode; 8 in line.
plan $(($(count $twins) * $(count $MODES) * $(count $STRATEGIES) +
	2 * $(count $MODES) * ($(count $bugs) * $(count $STRATEGIES) - 1) + 4 * $(count $MODES) + 8))

for p in $twins; do
	for m in $MODES; do
		for s in $STRATEGIES; do
			out=$("$CTS" -m "$m" -s "$s" --seed 3 -n 25 -o "$T/$p" -- "$PROG/$p" 2>&1)
			rc=$?
			is "$rc" 0 "$p/$m/$s: no bug"
			[ $rc -eq 0 ] || printf '%s\n' "$out" | tail -n 8 | sed 's/^/#   /'
		done
	done
done

for pk in $bugs; do
	p=${pk%%:*} kind=${pk#*:}
	# sys_child's bug depends on when the child (the world) writes: dpor's
	# search covers the program's own operations, not that timing.
	strategies=$STRATEGIES
	[ "$p" = sys_child ] && strategies="random pct"
	for m in $MODES; do
		for s in $strategies; do
			out=$("$CTS" -m "$m" -s "$s" --seed 1 -n 300 -o "$T/$p-$m-$s" -- "$PROG/$p" 2>&1)
			rc=$?
			is "$rc" 1 "$p/$m/$s: bug found (exit 1)"
			like "$out" "BUG \\($kind\\)" "$p/$m/$s: reported as $kind"
		done
	done
done

# What the deadlocks say: the sleeper in the kernel and why nothing can wake it.
out=$("$CTS" -m sync -s dpor -o "$T/pipe-msg" -- "$PROG/sys_pipe" 2>&1)
like "$out" "thread 1 waits for read on fd 3 \\(asleep in the kernel" \
	"sys_pipe: the reader is named asleep in read on the pipe"
like "$out" "thread 2 waits for mutex 0x[0-9a-f]+ held by thread 1" \
	"sys_pipe: the writer waits for the reader's mutex"
out=$("$CTS" -m sync -s dpor -o "$T/pause-msg" -- "$PROG/sys_pause" 2>&1)
like "$out" "thread 0 waits for a signal in pause" "sys_pause: main is named asleep in pause"

# Replay of schedules in which a thread slept in the kernel (io_return steps):
# in-program I/O (sys_poll under dpor, deterministic) and a child process's
# I/O (sys_child, where replay must wait for the reader's return).
replay10() { # FILE KIND DESC
	local good=0 i r
	for i in 1 2 3 4 5 6 7 8 9 10; do
		r=$("$CTS" --replay "$1" 2>&1)
		if [ $? -eq 1 ] && printf '%s' "$r" | grep -q "BUG ($2)" &&
		   printf '%s' "$r" | grep -q "replay reproduced the bug"; then
			good=$((good + 1))
		else
			printf '%s\n' "$r" | tail -n 3 | sed 's/^/#   /'
		fi
	done
	is "$good" 10 "$3: replay reproduces the bug 10/10"
}
for m in $MODES; do
	"$CTS" -m "$m" -s dpor -o "$T/poll-$m" -- "$PROG/sys_poll" >/dev/null 2>&1
	f="$T/poll-$m/deadlock-1.sched"
	grep -q "io_return" "$f" 2>/dev/null
	ok $? "sys_poll/$m/dpor: the schedule has a thread coming back from the kernel"
	replay10 "$f" deadlock "sys_poll/$m"
	f=$(ls "$T"/sys_child-"$m"-random/assert-1.sched 2>/dev/null)
	grep -q "io_return" "$f" 2>/dev/null
	ok $? "sys_child/$m/random: the schedule has a thread coming back from the kernel"
	replay10 "$f" assert "sys_child/$m"
done

# Only the world could wake this reader: the run is cut by the timeout and
# says so, whatever the verdict for timeouts is; nothing is left running.
out=$("$CTS" -m sync -n 1 --timeout 1 -o "$T/world" -- "$PROG/sys_world" 2>&1)
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ]
ok $? "sys_world: ends with a verdict, not an error (exit $rc)"
like "$out" "timed out after 1.0 s: thread 1 blocked in read on fd 3 outside the schedule" \
	"sys_world: the timeout names the thread blocked outside the schedule"
printf '%s' "$out" | grep -q "BUG (deadlock)"
ok $((!$?)) "sys_world: not reported as a deadlock"
like "$out" "run 0 inconclusive" "sys_world: the run is inconclusive, not a bug"
is "$(leftovers sys_world)" no "sys_world: no process left behind"

done_testing
