#!/bin/sh
# benchmarks/active_dlf.sh quick|full — issue 29 item 1: runs to confirm the
# lock-order inversion of tests/programs/dlf_loop (t1: a then b once; t2: a
# alone N times, then b then a) with deadlockfuzzer (cts's default, and the
# paper's pausing with --dlf-paper when the binary has it), against pct and
# dpor, for N = 40 and 300 on seeds 1 2 3; and the twin dlf_loop_ok under
# deadlockfuzzer. Each search stops at the first bug. Prints a markdown
# section on stdout (benchmarks/results/active.md keeps it): counts only,
# deterministic for a given build and seed.
SCRIPT=active_dlf
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

if [ "$BENCH_MODE" = quick ]; then
	NS="40" SEEDS="1" TRIES=20 BUDGET=300
else
	NS="40 300" SEEDS="1 2 3" TRIES=300 BUDGET=3000
fi
TP=$ROOT/tests/programs
build "$TP/dlf_loop.c" "$BIN/dlf_loop" || die "gcc failed on dlf_loop"
build "$TP/dlf_loop_ok.c" "$BIN/dlf_loop_ok" || die "gcc failed on dlf_loop_ok"
PAPER=
"$CTS" --help 2>&1 | grep -q -- --dlf-paper && PAPER=yes

# one LABEL PROG N SEED ARGS...: "LABEL N SEED found RUN | none RUNS" (RUN
# 1-based, phase 1's 3 runs included for the fuzzers).
one() {
	label=$1 prog=$2 n=$3 seed=$4
	shift 4
	r=$SCRATCH/r.json
	rm -f "$r"
	run_cts 600 -q -m sync --seed "$seed" --report "$r" -o "$SCRATCH/out" "$@" \
		-- "$BIN/$prog" "$n" >/dev/null 2>&1
	line=$(json "$r" 'if (.bugs | length) > 0 then "found \(.bugs[0].run + 1) \(.bugs[0].kind)"
		else "none \(.runs) -" end')
	echo "$label $n $seed $line"
}

DATA=$SCRATCH/data
: >"$DATA"
for n in $NS; do
	for seed in $SEEDS; do
		one deadlockfuzzer dlf_loop "$n" "$seed" -s deadlockfuzzer --tries "$TRIES" >>"$DATA"
		[ -n "$PAPER" ] && one deadlockfuzzer-paper dlf_loop "$n" "$seed" \
			-s deadlockfuzzer --dlf-paper --tries "$TRIES" >>"$DATA"
		one pct dlf_loop "$n" "$seed" -s pct -n "$BUDGET" >>"$DATA"
		one dpor dlf_loop "$n" "$seed" -s dpor -n "$BUDGET" >>"$DATA"
		one twin-deadlockfuzzer dlf_loop_ok "$n" "$seed" -s deadlockfuzzer --tries "$TRIES" >>"$DATA"
	done
	log "N=$n done"
done

printf '| strategy | N |'
for seed in $SEEDS; do printf ' seed %s |' "$seed"; done
printf '\n| --- | --- |'
for seed in $SEEDS; do printf ' --- |'; done
printf '\n'
for label in deadlockfuzzer ${PAPER:+deadlockfuzzer-paper} pct dpor twin-deadlockfuzzer; do
	for n in $NS; do
		printf '| %s | %s |' "$label" "$n"
		for seed in $SEEDS; do
			awk -v l="$label" -v n="$n" -v s="$seed" '$1 == l && $2 == n && $3 == s {
				if ($4 == "found") printf " %s (%s) |", $5, $6
				else if ($4 == "none") printf " none in %s |", $5
				else printf " error |" }' "$DATA"
		done
		printf '\n'
	done
done
printf '\nRaw data (label N seed found|none runs kind):\n\n```\n'
cat "$DATA"
printf '```\n'
