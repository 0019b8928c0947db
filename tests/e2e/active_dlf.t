#!/bin/bash
# timeout: 300
# DeadlockFuzzer past the paper (issue 29 item 1; docs/active.md): on
# tests/programs/dlf_loop (t1 takes a then b once; t2 takes a alone N times,
# then b then a) the paper's pausing holds t1 at lock(b) holding a, t2
# blocks on a inside its loop and the stall releases t1, so the cycle is
# never confirmed; the default pauses t1 ahead of lock(a) while t2 still
# takes a on its way, and confirms the deadlock within 20 runs (phase 1's 3
# included) for N = 40 and 300 on 3 seeds. The twin stays clean. The
# schedule replays; --dlf-paper keeps the paper's behaviour.
. "$(dirname "$0")/lib.sh"
NS="40 300"
SEEDS="1 2 3"
# 3 checks per (N, seed), 2 per N for the twin, and 7 in line.
plan $((3 * $(count $NS) * $(count $SEEDS) + 2 * $(count $NS) + 7))

for n in $NS; do
	for s in $SEEDS; do
		out=$("$CTS" -s deadlockfuzzer -m sync --seed "$s" --tries 17 -t "$(slow 60)" \
			--report "$T/r$n-$s.json" -o "$T/o$n-$s" -- "$PROG/dlf_loop" "$n" 2>&1)
		is $? 1 "N=$n seed $s: deadlockfuzzer finds the deadlock (exit 1)"
		like "$out" "active: deadlock cycle confirmed" "N=$n seed $s: the cycle confirmed"
		is "$(jq -r '.bugs[0].kind == "deadlock" and .bugs[0].run + 1 <= 20' "$T/r$n-$s.json")" \
			true "N=$n seed $s: within 20 runs (run $(jq -r '.bugs[0].run' "$T/r$n-$s.json"))"
	done
	out=$("$CTS" -s deadlockfuzzer -m sync --tries 17 -t "$(slow 60)" -o "$T/ok$n" \
		-- "$PROG/dlf_loop_ok" "$n" 2>&1)
	is $? 0 "dlf_loop_ok N=$n: clean (exit 0)"
	like "$out" "active: 0 suspects, 0 confirmed" "dlf_loop_ok N=$n: no cycle suspected"
done

good=0
for i in 1 2 3; do
	r=$("$CTS" --replay "$T/o40-1/deadlock-1.sched" 2>&1)
	[ $? -eq 1 ] && printf '%s' "$r" | grep -q "BUG (deadlock)" && good=$((good + 1))
done
is "$good" 3 "the confirming schedule replays: 3/3"

# The paper's pausing: 20 runs, the suspect tried 17 times, never confirmed.
out=$("$CTS" -s deadlockfuzzer --dlf-paper -m sync --tries 17 -t "$(slow 60)" \
	--report "$T/p.json" -o "$T/p" -- "$PROG/dlf_loop" 40 2>&1)
is $? 0 "--dlf-paper: no bug (exit 0)"
is "$(jq -r '"\(.runs) \(.active.suspects) \(.active.confirmed)"' "$T/p.json")" "20 1 0" \
	"--dlf-paper: 20 runs, 1 suspect, 0 confirmed: it thrashes"

# The suspect list says what phase 1 saw: t2's link takes t1's held lock first.
"$CTS" -q -s deadlockfuzzer -m sync --keep-going --suspects "$T/s.json" -o "$T/s" \
	-- "$PROG/dlf_loop" 40 >/dev/null 2>&1
is "$(jq -r 'def line: .context.at | capture("\\((?<l>[^)]*)\\)").l;
	.list[0].cycle as $c | [$c[] | "\(line) takes [\([(.takes_first // [])[] |
	"\($c[.link] | line) x\(.times)"] | join(","))]"] | sort | join("; ")' "$T/s.json")" \
	"dlf_loop.c:22 takes []; dlf_loop.c:37 takes [dlf_loop.c:22 x40]" \
	"--suspects: t2's link (line 37) takes the held lock of t1's (line 22) 40 times on its way"

# A list without what phase 1 saw (an older --suspects file): the first try
# thrashes, shows that t2 blocked on the lock paused t1 held, and the second
# pauses t1 ahead of it.
jq 'del(.list[].cycle[].takes_first)' "$T/s.json" >"$T/bare.json"
out=$("$CTS" -s deadlockfuzzer -m sync --suspects-from "$T/bare.json" -t "$(slow 60)" \
	--report "$T/b.json" -o "$T/b" -- "$PROG/dlf_loop" 300 2>&1)
is $? 1 "--suspects-from without takes_first: the deadlock (exit 1)"
is "$(jq -r '"\(.bugs[0].kind) \(.bugs[0].run)"' "$T/b.json")" "deadlock 1" \
	"--suspects-from without takes_first: learnt from the thrash of run 0, confirmed in run 1"

out=$("$CTS" -s pct --dlf-paper -- "$PROG/dlf_loop" 2>&1)
is $? 2 "--dlf-paper with -s pct: a usage error (exit 2)"
done_testing
