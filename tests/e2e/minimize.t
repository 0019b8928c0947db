#!/bin/bash
# timeout: 400
# --minimize (the default): a bug's saved schedule has no more preemptions
# than the run that found it, the original is kept beside it, every
# minimized schedule replays the bug 10 times out of 10, counter's lost
# update minimizes to its one preemption, and the critical pair is named.
. "$(dirname "$0")/lib.sh"
# Bug programs: seeds where random's first hit has more preemptions than needed.
BUGS="counter:assert:3 check_then_act:assert:3 cas_stack:assert:3 deadlock:deadlock:3"
plan $((4 * $(count $BUGS) + 33))

for pk in $BUGS; do
	IFS=: read -r p kind seed <<< "$pk"
	"$CTS" -q -n 300 --seed "$seed" -o "$T/$p" --report "$T/$p.json" -- "$PROG/$p" 2>/dev/null
	is $? 1 "$p: bug found"
	pre=$(jq -r '.bugs[0].preemptions' "$T/$p.json")
	orig=$(jq -r '.bugs[0].original_preemptions' "$T/$p.json")
	[ "$pre" -le "$orig" ]
	ok $? "$p: minimized schedule has $pre preemptions <= the original's $orig"
	f="$T/$p/$kind-1.sched"
	if [ "$pre" -lt "$orig" ]; then
		[ -s "$T/$p/$kind-1.orig.sched" ] && [ "$(jq -r '.bugs[0].original_schedule' "$T/$p.json")" = "$T/$p/$kind-1.orig.sched" ]
		ok $? "$p: the original kept beside it as $kind-1.orig.sched"
	else
		ok 0 "$p: nothing to keep (the original was minimal already)"
	fi
	good=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		r=$("$CTS" --replay "$f" 2>&1)
		[ $? -eq 1 ] && printf '%s' "$r" | grep -q "BUG ($kind)" && good=$((good + 1))
	done
	is "$good" 10 "$p: the minimized schedule replays the bug 10/10"
done

# counter's lost update needs exactly one preemption.
is "$(jq -r '.bugs[0].preemptions' "$T/counter.json")" 1 "counter: minimized to 1 preemption"
is "$(jq -r '.bugs[0].original_preemptions > 1' "$T/counter.json")" true "counter: from more than 1"
like "$(jq -r '.bugs[0].critical_pair.headline' "$T/counter.json")" \
	"^the bug happens when thread ([12])'s write of counter at counter.c:18 comes between thread [12]'s read of counter at counter.c:17 and its write of counter at counter.c:18$" \
	"counter: the critical pair as the headline"
is "$(jq -r '.bugs[0].critical_pair.events | map(.thread) | (.[0] == .[2]) and (.[0] != .[1])' "$T/counter.json")" true \
	"counter: the pair's threads (read and write of one, the other's write between)"
out=$("$CTS" -n 300 --seed 3 -o "$T/c2" -- "$PROG/counter" 2>&1)
like "$out" "BUG \(assert\).*
  the bug happens when thread" "counter: the headline printed right under the bug"
like "$out" "minimized to 1 preemption; the original \([0-9]+\) is .*assert-1.orig.sched" \
	"counter: says where the original is"

# A busy-wait's pair (a failed poll, the release, the poll that saw it) is
# named as such, not "between thread 0's read of flag and its read of flag".
"$CTS" -q -s pct --seed 1 -n 50 -o "$T/sb" --report "$T/sb.json" -- "$PROG/spinbar_deadlock" 2>/dev/null
is $? 1 "spinbar_deadlock: pct finds the deadlock"
like "$(jq -r '.bugs[0].critical_pair.headline' "$T/sb.json")" \
	"^the bug happens when thread [0-9]'s write of flag at spinbar_deadlock.c:34 comes while thread [0-9] busy-waits on flag at spinbar_deadlock.c:43 \(written before thread [0-9]'s first read there, the run is clean\)$" \
	"spinbar_deadlock: the release of a busy-wait as the headline"

# The budget bounds the work: minimization of a long run stays within it.
out=$("$CTS" -v -n 300 --seed 3 -o "$T/c3" -- "$PROG/cas_stack" 2>&1)
n=$(printf '%s\n' "$out" | sed -n 's/.*minimized in \([0-9]*\) replay.*/\1/p')
[ -n "$n" ] && [ "$n" -le 100 ]
ok $? "cas_stack: minimized within the budget of 100 replays ($n)"

# --no-minimize: the schedule as found, nothing beside it.
"$CTS" -q --no-minimize -n 300 --seed 3 -o "$T/nm" --report "$T/nm.json" -- "$PROG/counter" 2>/dev/null
is $? 1 "--no-minimize: bug found"
is "$(jq -r '.bugs[0].preemptions == .bugs[0].original_preemptions' "$T/nm.json")" true \
	"--no-minimize: preemptions as found"
[ ! -e "$T/nm/assert-1.orig.sched" ]
ok $? "--no-minimize: no .orig.sched"
is "$(jq -r '.bugs[0].critical_pair' "$T/nm.json")" null "--no-minimize: no critical pair"

# Threads the bug does not need: bystanders' two workers (threads 1 and 2)
# run beside the lost update of threads 3 and 4; the minimized schedule
# leaves their steps out (main joins them after the check).
out=$("$CTS" -m sync -n 300 --seed 1 -o "$T/by" --report "$T/by.json" -- "$PROG/bystanders" 2>&1)
is $? 1 "bystanders: bug found"
like "$out" "minimized to [0-9]+ preemptions? and 3 threads; the original \([0-9]+ and 5\) is" \
	"bystanders: says it dropped the two workers"
th=$(jq -r '.bugs[0].threads' "$T/by.json")
oth=$(jq -r '.bugs[0].original_threads' "$T/by.json")
[ "$th" -lt "$oth" ]
ok $? "bystanders: fewer threads scheduled ($th, was $oth)"
innocent() { awk '$1 ~ /^[0-9]+$/ && ($2 == 1 || $2 == 2)' "$1" | wc -l; }
n=$(innocent "$T/by/assert-1.sched")
o=$(innocent "$T/by/assert-1.orig.sched")
[ "$n" -lt "$o" ]
ok $? "bystanders: the workers' steps $n in the minimized schedule, $o in the original"
good=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$CTS" --replay "$T/by/assert-1.sched" 2>&1 | grep -q "BUG (assert)" && good=$((good + 1))
done
is "$good" 10 "bystanders: the minimized schedule replays the bug 10/10"
"$CTS" -q -m sync -n 100 --seed 1 -o "$T/byok" -- "$PROG/bystanders_ok"
is $? 0 "bystanders_ok: clean"

# The budget counts replays, never time: the same bug minimizes to the same
# schedule however loaded the machine is.
"$CTS" -q -m sync -n 300 --seed 1 -o "$T/by2" -- "$PROG/bystanders" 2>/dev/null
cmp -s "$T/by/assert-1.sched" "$T/by2/assert-1.sched"
ok $? "bystanders: minimized twice, byte-identical schedules"
"$CTS" -q -n 300 --seed 3 -o "$T/c4" -- "$PROG/cas_stack" 2>/dev/null
"$CTS" -q -n 300 --seed 3 -o "$T/c5" -- "$PROG/cas_stack" 2>/dev/null
cmp -s "$T/c4/assert-1.sched" "$T/c5/assert-1.sched"
ok $? "cas_stack (budget spent): minimized twice, byte-identical schedules"

# Issue 27 item 2: a schedule is printed only after 3 replays by a fresh
# cts-trace (as --replay runs it) ended with the bug; a minimized one that
# does not replay gives way to the original, and one that nothing replays
# is said to be so. spin_count_barrier: threads meeting at spin barriers.
out=$("$CTS" -s pct --seed 1 -n 100 -o "$T/sb" --report "$T/sb.json" -- "$PROG/spin_count_barrier" 2>&1)
is $? 1 "spin_count_barrier: pct finds the lost update"
printf "%s" "$out" | grep -q "warning: "
ok $((! $?)) "spin_count_barrier: the saved schedule passed its replays (no warning)"
good=0
for i in 1 2 3; do
	"$CTS" --replay "$T/sb/assert-1.sched" 2>&1 | grep -q "BUG (assert)" && good=$((good + 1))
done
is "$good" 3 "spin_count_barrier: the saved schedule replays the bug 3/3"
"$CTS" -q -s pct -n 100 -o "$T/sbok" -- "$PROG/spin_count_barrier_ok"
is $? 0 "spin_count_barrier_ok: clean"
# The test hook fails every replay of a schedule but an .orig.sched.
out=$(CTS_TEST_UNREPLAYABLE=minimized "$CTS" -n 300 --seed 3 -o "$T/um" --report "$T/um.json" \
	-- "$PROG/counter" 2>&1)
is $? 1 "unreplayable minimized: the bug is still found"
like "$out" "warning:  the minimized schedule did not replay \(0 of 3: [^)]*\); this is the original" \
	"unreplayable minimized: says the original is saved instead"
[ -s "$T/um/assert-1.sched" ] && [ ! -e "$T/um/assert-1.orig.sched" ]
ok $? "unreplayable minimized: the original under the printed name, no .orig.sched"
is "$(jq -r '.bugs[0] | .preemptions == .original_preemptions and .original_schedule == null' "$T/um.json")" \
	true "unreplayable minimized: the report counts the original's preemptions"
"$CTS" --replay "$T/um/assert-1.sched" >/dev/null 2>&1
is $? 1 "unreplayable minimized: the schedule saved replays the bug"
out=$(CTS_TEST_UNREPLAYABLE=all "$CTS" -n 300 --seed 3 -o "$T/ua" -- "$PROG/counter" 2>&1)
is $? 1 "unreplayable: the bug is still found"
like "$out" "this schedule does NOT reproduce the bug: 0 of 3 replays did" \
	"unreplayable: says plainly that the schedule does not replay"

# The twin stays clean (no bug: nothing to minimize).
"$CTS" -q -n 100 --seed 3 -o "$T/ok" -- "$PROG/counter_ok"
is $? 0 "counter_ok: clean"

done_testing
