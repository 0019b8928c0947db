#!/bin/bash
# timeout: 600
# Break mode's faults by the mprotect mechanism (CTS_FAULTS=mprotect,
# tracer/fault.h), which needs no protection keys: runs on every machine.
# The tracer keeps its own keys; before a thread runs with other rights
# than the last one, the pages' protections are switched (injected mprotect
# calls, at a seccomp stop around the stopped call). The same pages are
# granted and revoked as with keys, so a run shows the same events:
#   - where the machine has keys, runs, steps, void runs, faults, grants and
#     the learned set are the same both ways (exact counts), and a schedule
#     made with one mechanism replays with the other;
#   - heap_counter's lost update is found and replays, its twin is clean;
#   - GLib's mutex and allocator inside a dpor search (a skipped futex call
#     at a seccomp stop: the switch must not enter it again);
#   - system calls into heap buffers, a forked child, threads on allocated
#     stacks, a free racing with a write (dpor) behave as with keys;
#   - heap_pipe_ok: a thread asleep in read() into a heap page cannot keep
#     the page open while others run: the run is void and the page is left
#     to access breakpoints (i0x... in the learned set); heap_pipe's lost
#     update is found.
. "$(dirname "$0")/lib.sh"
plan 22

run() { local s=$1; shift; CTS_FAULTS=mprotect timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }
keys() { local s=$1; shift; CTS_FAULTS=1 timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }

out=$(run 60 -m break -s random -n 1 -v --report "$T/v.json" -- "$PROG/counter_ok" 2>&1)
like "$(printf '%s\n' "$out" | sed -n 's/^cts-trace: memory ownership: //p')" \
     "^page faults, the mprotect mechanism .*[0-9]+ mprotect calls" "-v says the mprotect mechanism ran"
is "$(jq -r '.tracer.key_faults.mechanism' "$T/v.json")" mprotect "the report says so (tracer.key_faults.mechanism)"

# Where keys exist: the same events both ways.
have_keys=$(keys_here)
sig() { jq -c '[.runs, .steps, .summary.relearned, .tracer.key_faults.faults, .tracer.key_faults.grants, .learned.lines]' "$1"; }
for p in demo_ok heap_counter_ok user_stack_ok; do
	if [ "$have_keys" = 0 ]; then
		skip 1 "no protection keys here: nothing to compare with ($p)"
		continue
	fi
	run 120 -m break -s random -n 10 --seed 1 -q --report "$T/m.json" -- "$PROG/$p" >/dev/null 2>&1
	keys 120 -m break -s random -n 10 --seed 1 -q --report "$T/k.json" -- "$PROG/$p" >/dev/null 2>&1
	is "$(sig "$T/m.json")" "$(sig "$T/k.json")" "$p: the same runs, steps, void runs, faults, grants and learned set as with keys"
done

run 300 -m break -s random -n 200 --seed 1 -q --report "$T/hc.json" -o "$T/hc" -- "$PROG/heap_counter" >/dev/null 2>&1
is $? 1 "heap_counter: the lost update is found"
sched=$(jq -r '.bugs[0].schedule' "$T/hc.json")
n=0
for i in 1 2; do
	CTS_FAULTS=mprotect timeout -k 2 "$(slow 120)" "$CTS" -q --replay "$sched" >/dev/null 2>&1
	[ $? = 1 ] && n=$((n + 1))
done
is "$n" 2 "heap_counter: its schedule replays with mprotect 2 of 2 times"
if [ "$have_keys" = 0 ]; then
	skip 1 "no protection keys here: no replay with them"
else
	keys 120 -q --replay "$sched" >/dev/null 2>&1
	is $? 1 "heap_counter: ...and with protection keys"
fi
run 300 -m break -s dpor -n 30 --seed 1 -q -- "$PROG/heap_counter_ok" >/dev/null 2>&1
is $? 0 "heap_counter_ok: clean (dpor, 30 runs)"

run 300 -m break -s dpor -n 10 --seed 1 --races fail -o "$T/gr" -- "$TOP/tests/corpus/glib_reuse_race" >/dev/null 2>&1
is $? 1 "glib_reuse_race: the unlocked total++ races under dpor"

run 300 -m break -s pct -n 5 --seed 1 -q -- "$PROG/heap_io_ok" >/dev/null 2>&1
is $? 0 "heap_io_ok: pipe reads, fstat, clock_gettime into heap buffers behave as natively"
# A signal that came while a call was injected was dropped (a false deadlock:
# main asleep in sigsuspend for a SIGUSR1 lost in an injection).
run 120 -m break -s random -n 20 --seed 1 -q -- "$PROG/sys_pause_ok" >/dev/null 2>&1
is $? 0 "sys_pause_ok: no signal lost to the switches (random, 20 runs)"
# A thread of a program a child exec'd is not a copy of ours (popen's helper
# with threads: an injection there hung); a thread that execs ends the others
# (a switch through one of them failed the run).
run 120 -q -n 2 -o "$T/lc" -- "$PROG/leave_child" popen >/dev/null 2>&1
is $? 0 "leave_child popen: the exec'd helper's threads run free"
run 120 -q -s dfs -n 200 --timeout 10 -o "$T/ex" -- "$PROG/exec_thread" >/dev/null 2>&1
is $? 0 "exec_thread: a thread's exec, clean on every schedule (dfs)"
run 120 -m break -s random -n 3 --seed 1 -q -- "$PROG/sys_child_ok" >/dev/null 2>&1
is $? 0 "sys_child_ok: a forked child runs free (its copy of the pages unprotected)"
run 300 -m break -s random -n 100 --seed 1 -q -- "$PROG/user_stack" >/dev/null 2>&1
is $? 1 "user_stack: the lost update on allocated stacks is found"
out=$(run 120 -m break -s dpor --races fail --keep-going -o "$T/bar" -- "$PROG/big_alloc_race" 2>&1)
like "$out" "BUG \\(race\\).* write at worker .* free at main" "big_alloc_race: dpor finds the free racing with the write"

run 300 -m break -s random -n 100 --seed 1 -q --report "$T/hp.json" -o "$T/hp" -- "$PROG/heap_pipe_ok" >/dev/null 2>&1
r=$?
[ $r = 0 ] && jq -e '.summary.relearned >= 1 and (.learned.lines | test("i0x"))' "$T/hp.json" >/dev/null
ok $? "heap_pipe_ok: clean; the reader's buffer page, open while it slept, is learned as decided per access (exit $r, $(jq -c '[.summary.relearned, .learned.lines]' "$T/hp.json" 2>/dev/null))"
run 300 -m break -s random -n 100 --seed 1 -q -- "$PROG/heap_pipe" >/dev/null 2>&1
is $? 1 "heap_pipe: the lost update is found"
run 300 -m break -s dpor -n 200 --seed 1 -q -- "$PROG/heap_pipe" >/dev/null 2>&1
is $? 1 "heap_pipe: ...and by dpor"

# The bound on a switch (docs/design.md, "a switch only closes"): the pages
# the next thread may use open at its first fault there, not at the switch.
# big_clear_ok's threads each own an 8 MiB block: the same events as with
# every switch opening (CTS_MPROTECT_EAGER=1), fewer mprotect calls.
run 120 -m break -s random -n 3 --seed 1 -q -o "$T/bc" --report "$T/lz.json" -- "$PROG/big_clear_ok"
r1=$?
CTS_MPROTECT_EAGER=1 run 120 -m break -s random -n 3 --seed 1 -q -o "$T/bc" --report "$T/ea.json" \
	-- "$PROG/big_clear_ok"
ev() { jq -c '[.runs, .steps, .tracer.key_faults.faults, .tracer.key_faults.grants, .learned.lines]' "$1"; }
is "$r1 $? $(ev "$T/lz.json")" "0 0 $(ev "$T/ea.json")" \
   "big_clear_ok: lazy opening, the same runs, steps, faults, grants and set as opening at each switch"
jq -e '.tracer.key_faults.lazy_opens > 0 and .tracer.key_faults.mprotect_calls < input.tracer.key_faults.mprotect_calls' \
	"$T/lz.json" "$T/ea.json" >/dev/null
ok $? "big_clear_ok: ...with lazy opens and fewer mprotect calls ($(jq -c '.tracer.key_faults | [.lazy_opens, .mprotect_calls]' "$T/lz.json") against $(jq -c .tracer.key_faults.mprotect_calls "$T/ea.json"))"

done_testing
