#!/bin/bash
# timeout: 600
# Repeats made alone (docs/design.md): a plain access a thread repeats (the
# same instruction, bytes and kind; a load only after a store of its own)
# since its last other event, while every other live thread waits on what
# only a step can end, runs without a step. alone_race: two workers take
# turns at a mutex, each turn a loop over a shared record's line (shared
# since main peeks at it unlocked); worker 1's last add is made unlocked.
#   - the bug is found by random, pct and dpor in exactly as many runs as
#     with every repeat a step (CTS_NO_QUIET_REPEATS=1), in far fewer steps;
#   - the twin's dpor search is complete in the same number of runs, with
#     the same runs cut, as with every repeat a step (the argument:
#     the repeats race with nothing their first access does not);
#   - the saved schedule says `repeats quiet` and replays; one saved with
#     every repeat a step (no key: an older file) replays as it was made;
#     a bad value is refused.
. "$(dirname "$0")/lib.sh"
plan 11

run() { local q=$1 s=$2; shift 2; env ${q:+CTS_NO_QUIET_REPEATS=1} timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }
sig() { jq -c '[.summary.runs, .steps, .summary.quiet_repeats, .summary.cut, .complete]' "$1"; }

for s in random pct dpor; do
	run "" 300 -q --no-minimize -m break -s $s -n 300 --seed 1 --report "$T/q.json" -o "$T/q" \
		-- "$PROG/alone_race" >/dev/null 2>&1
	rq=$?
	run 1 300 -q --no-minimize -m break -s $s -n 300 --seed 1 --report "$T/s.json" -o "$T/s" \
		-- "$PROG/alone_race" >/dev/null 2>&1
	rs=$?
	[ $rq = 1 ] && [ $rs = 1 ] &&
		[ "$(jq .summary.runs "$T/q.json")" = "$(jq .summary.runs "$T/s.json")" ] &&
		[ "$(jq .summary.quiet_repeats "$T/q.json")" -gt 0 ] &&
		[ "$(jq .steps "$T/q.json")" -lt "$(jq .steps "$T/s.json")" ]
	ok $? "alone_race ($s): found in as many runs, fewer steps (quiet $(sig "$T/q.json"), every repeat a step $(sig "$T/s.json"))"
done
run "" 300 -q --no-minimize -m break -s random -n 5 --seed 1 --report "$T/r5.json" -- "$PROG/alone_race_ok" >/dev/null 2>&1
r=$?
run 1 300 -q --no-minimize -m break -s random -n 5 --seed 1 --report "$T/r5s.json" -- "$PROG/alone_race_ok" >/dev/null 2>&1
[ $r = 0 ] && [ $(( $(jq .steps "$T/r5.json") * 10 )) -lt "$(jq .steps "$T/r5s.json")" ] &&
	[ "$(jq .summary.races "$T/r5.json")" = "$(jq .summary.races "$T/r5s.json")" ]
ok $? "alone_race_ok (random, 5 runs): clean, the same races, a tenth of the steps or less ($(sig "$T/r5.json") against $(sig "$T/r5s.json"))"
out=$(run "" 300 -m break -s pct -n 5 --seed 1 -- "$PROG/alone_race_ok" 2>&1 >/dev/null)
is $? 0 "alone_race_ok: clean (pct, 5 runs)"
like "$out" "covered: 5 runs, .*; [0-9]+ repeated accesses made no step \\(only its thread could move\\)$" \
	"the summary counts the repeats that made no step"

run "" 300 -q -m break -s dpor -n 0 --seed 1 --report "$T/dq.json" -- "$PROG/alone_race_ok" 2 10 >/dev/null 2>&1
rq=$?
run 1 300 -q -m break -s dpor -n 0 --seed 1 --report "$T/ds.json" -- "$PROG/alone_race_ok" 2 10 >/dev/null 2>&1
rs=$?
[ $rq = 0 ] && [ $rs = 0 ] && [ "$(jq .complete "$T/dq.json")" = true ] &&
	[ "$(jq -c '[.summary.runs, .summary.cut]' "$T/dq.json")" = "$(jq -c '[.summary.runs, .summary.cut]' "$T/ds.json")" ]
ok $? "alone_race_ok 2 10 (dpor): complete in the same runs, the same cut ($(sig "$T/dq.json") against $(sig "$T/ds.json"))"

# Replays: dpor's schedule from above (quiet), then one made without.
sq=$(jq -r '.bugs[0].schedule' "$T/q.json")
grep -qx 'repeats quiet' "$sq"
ok $? "the schedule records the rule (repeats quiet)"
[ "$(for i in 1 2 3; do run "" 60 -q --replay "$sq" >/dev/null 2>&1; echo $?; done | sort -u)" = 1 ]
ok $? "it replays the bug 3 of 3 times"
ss=$(jq -r '.bugs[0].schedule' "$T/s.json")
! grep -q '^repeats' "$ss" && run "" 60 -q --replay "$ss" >/dev/null 2>&1
is $? 1 "a schedule made with every repeat a step (no key, as older files) replays as made"
sed 's/^repeats quiet$/repeats loud/' "$sq" > "$T/bad.sched"
run "" 60 -q --replay "$T/bad.sched" > /dev/null 2> "$T/bad.err"
r=$?
[ $r = 2 ] && grep -q 'repeats wants quiet' "$T/bad.err"
ok $? "a bad repeats value is refused (exit $r: $(head -c 200 "$T/bad.err"))"
done_testing
