#!/bin/bash
# timeout: 600
# Honest verdicts on busy-waits, long runs and wrong output:
# - spin loops (yield barrier, test-and-set lock, flag hand-off) finish under
#   every strategy with no bug and no inconclusive run; their buggy twins are
#   found;
# - a program merely longer than the step budget is inconclusive (exit 0,
#   or 4 with --fail-on-inconclusive), never a livelock;
# - a program whose threads spin for ever is a livelock when the spinners
#   are proven to make no progress (break mode), else inconclusive (sync);
# - --check turns wrong output into a bug with a schedule that replays.
. "$(dirname "$0")/lib.sh"

field() { sed -n "s/.*\"$2\": \\([a-z0-9]*\\).*/\\1/p" "$1" | head -n 1; }
SPINNERS="yield_barrier_ok tas_lock_ok livelock_ok"
STRATEGIES="random pct dfs dpor"
plan $((2 * $(count $SPINNERS) * $(count $STRATEGIES) + 28))

for p in $SPINNERS; do
	for s in $STRATEGIES; do
		"$CTS" -q -s "$s" -n 30 --report "$T/r.json" -o "$T/o" -- "$PROG/$p"
		is $? 0 "$p/$s: 30 schedules, no bug"
		is "$(field "$T/r.json" count)" 0 "$p/$s: no run inconclusive"
	done
done
"$CTS" -q -m sync -s pct -n 30 --report "$T/r.json" -o "$T/o" -- "$PROG/yield_barrier_ok"
is $? 0 "yield_barrier_ok/sync/pct: no bug"
is "$(field "$T/r.json" count)" 0 "yield_barrier_ok/sync/pct: yield loops do not starve the last arriver"

out=$("$CTS" -s random -n 300 -o "$T/tas" -- "$PROG/tas_lock" 2>&1)
is $? 1 "tas_lock: the broken lock's lost update is found"
like "$out" "BUG \\(assert\\)" "tas_lock: as a failed assert"

# Long, not stuck: 2 x 5 x 1000 table reads and as many re-reads of one
# unchanged variable by threads that count. The step budget ends these runs,
# never the time (no per-run limit: NO_TIME_LIMIT). Every shared read is a
# scheduling point here (CTS_NO_COLD): by default the reads of a table only
# read are not, and the runs would be short.
export CTS_NO_COLD=1
out=$("$CTS" -n 2 --max-steps 3000 --timeout $NO_TIME_LIMIT -o "$T/ll" -- "$PROG/long_loop" 5 2>&1)
is $? 0 "long_loop over the budget: exit 0"
like "$out" "0 bugs found; 2 runs inconclusive" "long_loop: both runs inconclusive, no livelock"
"$CTS" -q -n 2 --max-steps 3000 --timeout $NO_TIME_LIMIT --fail-on-inconclusive -o "$T/ll" -- "$PROG/long_loop" 5
is $? 4 "long_loop with --fail-on-inconclusive: exit 4"
"$CTS" -q -s pct -n 3 --report "$T/r.json" -o "$T/ll" -- "$PROG/long_loop" 1
is $? 0 "long_loop within the budget: clean"
is "$(field "$T/r.json" count)" 0 "long_loop within the budget: nothing inconclusive"
"$CTS" -q -s random -n 100 -o "$T/llb" -- "$PROG/long_loop_bug" 1
is $? 1 "long_loop_bug within the budget: the lost update is found"
out=$("$CTS" -s random -n 3 --max-steps 3000 --timeout $NO_TIME_LIMIT -o "$T/llb" -- "$PROG/long_loop_bug" 5 2>&1)
is $? 0 "long_loop_bug over the budget: its assert is never reached, not a bug"
like "$out" "0 bugs found; 3 runs inconclusive" "long_loop_bug over the budget: inconclusive"
unset CTS_NO_COLD

# Spinning for ever. In sync mode the spinners' stores are invisible: no proof,
# so only inconclusive.
out=$("$CTS" -m sync -n 2 --max-steps 2000 --timeout $NO_TIME_LIMIT -o "$T/lvs" -- "$PROG/livelock" 2>&1)
is $? 0 "livelock/sync: exit 0"
like "$out" "inconclusive.*every live thread was spinning or blocked" "livelock/sync: inconclusive, says the threads spin"
# In break mode the tracer's thread-state hash proves it.
out=$("$CTS" -n 3 --max-steps 5000 --timeout $NO_TIME_LIMIT -o "$T/lv" -- "$PROG/livelock" 2>&1)
rc=$?
ok $(( rc != 0 && rc != 1 )) "livelock/break: exit 0 or 1, never an error"
unlike=$(printf '%s' "$out" | grep -c 'BUG (deadlock)\|BUG (assert)\|BUG (crash)')
is "$unlike" 0 "livelock/break: never another kind of bug"
ok $(( rc != 1 )) "livelock/break: found"
printf '%s' "$out" | grep -Eq "BUG \(livelock\).*thread 1 spins on fb \(0x[0-9a-f]+\) = 0; thread 2 spins on fa"
ok $? "livelock/break: says who spins on what"
printf '%s' "$out" | grep -Eq "spins at a\+0x[0-9a-f]+ \(livelock.c:[0-9]+\): re-reads fb .* never changed in this run"
ok $? "livelock/break: with the source line, and that nobody ever wrote it"
out=$("$CTS" -s pct -n 10 --max-steps 5000 --timeout $NO_TIME_LIMIT -o "$T/yb" -- "$PROG/yield_barrier" 2>&1)
ok $(( $? != 1 )) "yield_barrier: the livelock is found"
printf '%s' "$out" | grep -q "spins on sense"
ok $? "yield_barrier: the threads spin on sense"

# --check: wrong output is a bug. The parts may come in either order.
cat > "$T/check.sh" <<'EOF'
#!/bin/sh
printf 'alpha\nomega\n' > expected.txt
test "$CTS_EXIT_STATUS" = 0 && sort out.txt | cmp -s - expected.txt
EOF
chmod +x "$T/check.sh"
out=$("$CTS" -s random -n 200 -o "$T/ck" --check "$T/check.sh" -- "$PROG/wrong_output" out.txt 2>&1)
is $? 1 "--check: wrong_output's lost part is a bug"
like "$out" "BUG \\(check\\) in run [0-9]+ after [0-9]+ steps: --check command failed with status 1 after the program exited with status 0" \
	"--check: the bug says the check failed"
like "$out" "replay: .* --check '$T/check.sh' --replay $T/ck/check-1.sched" "--check: the replay command keeps the check"
r=$("$CTS" --check "$T/check.sh" --replay "$T/ck/check-1.sched" 2>&1)
is $? 1 "--check: the schedule replays the wrong output"
"$CTS" -q -s random -n 200 -o "$T/ck2" --check "$T/check.sh" -- "$PROG/wrong_output_ok" out.txt
is $? 0 "--check: wrong_output_ok passes the check on 200 schedules"
out=$("$CTS" -s random -n 200 -o "$T/ck3" --check 'test $CTS_EXIT_STATUS = 0' -- "$PROG/exit_status" 2>&1)
is $? 1 "--check: sees the program's exit status (CTS_EXIT_STATUS)"
like "$out" "after the program exited with status 3" "--check: and says it"
done_testing
