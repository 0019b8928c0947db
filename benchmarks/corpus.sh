#!/bin/sh
# benchmarks/corpus.sh quick|full — the per-run cost of the real-program
# corpus of tests/e2e/corpus.t (pigz, xz, zstd, pbzip2, lbzip2, 7z, and the C++, OpenMP,
# GLib and Python programs of tests/corpus) under cts-trace in sync and break
# mode, against native runs of the same command and input.
#
# Native: the median wall time of REPS runs.  Traced: REPS invocations of
# `cts-trace -s random -n RUNS` (seeds 1..REPS), each giving a per-run cost of
# its wall time / the runs it made (the runs share one fork server, so
# start-up is paid once per invocation); the table has the median and range.
# A run that ends in a bug verdict stops its invocation: the verdicts column
# counts them, so what fails today shows as failing.  Needs `make programs`
# (the tests/corpus binaries) and the corpus packages (`make deps`).
SCRIPT=corpus
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/corpus/lib.sh"
bench_init "$@"
need_cts
for t in pigz xz zstd pbzip2 lbzip2 python3 gzip bzip2; do
	need_tool "$t" "the corpus" "$t (make deps)"
done
[ -x /usr/lib/p7zip/7z ] || die "/usr/lib/p7zip/7z is missing: apt-get install p7zip-full (make deps)"
for p in cxx_queue omp_sum glib_pool; do
	[ -x "$CORPUS/$p" ] || die "$CORPUS/$p is missing: run 'make programs'"
done

reps_runs 2 2 3 3
RUN_TIMEOUT=10	# cts-trace's default per-run limit
IN=$SCRATCH/in.txt
corpus_input "$IN"

DATA=$SCRATCH/data
: >"$DATA"
# measure NAME KIND REP: one native run or one cts-trace invocation, appended
# to $DATA as "name kind rep seconds_per_run steps_per_run verdict".
measure() {
	local cmd t0 t1 rc runs steps verdict
	cmd=$(corpus_cmd "$1" "$IN")
	t0=$(now)
	if [ "$2" = native ]; then
		timeout -k 5 60 $cmd >/dev/null 2>&1
		rc=$?
		t1=$(now)
		[ $rc -eq 0 ] && verdict=ok || verdict="exit-$rc"
		echo "$1 native $3 $(fsub "$t1" "$t0") - $verdict" >>"$DATA"
		return
	fi
	rm -f "$SCRATCH/r.json"
	run_cts $((RUNS * RUN_TIMEOUT + 60)) -m "$2" -s random --seed "$3" -n $RUNS \
		--timeout $RUN_TIMEOUT --fail-on-exit -q --report "$SCRATCH/r.json" \
		-o "$SCRATCH/cts-out" -- $cmd </dev/null >/dev/null 2>"$SCRATCH/err"
	rc=$?
	t1=$(now)
	runs=$(json "$SCRATCH/r.json" '.runs')
	steps=$(json "$SCRATCH/r.json" '.steps')
	verdict=$(verdict_of $rc "$SCRATCH/r.json")
	# break mode: the code traced, per file (the same in every invocation)
	[ "$2" = break ] && [ "$3" = 1 ] && [ -s "$SCRATCH/r.json" ] &&
		jq -r '.traced_code[]? | "\(.file) \(.source | gsub(" "; "_")) \(.functions) \(.text_bytes) \(.function_bytes) \(.linear_bytes) \(.access_sites)"' \
			"$SCRATCH/r.json" >"$SCRATCH/code.$1" 2>/dev/null
	if [ "$runs" = - ] || [ "$runs" = null ] || [ "$runs" -eq 0 ]; then
		echo "$1 $2 $3 - - $verdict" >>"$DATA"
	else
		echo "$1 $2 $3 $(fdiv "$(fsub "$t1" "$t0")" "$runs") $(fdiv "$steps" "$runs") $verdict" >>"$DATA"
	fi
	[ $rc -eq 0 ] || log "  $1 $2 seed $3: $verdict $(grep -m 1 -o 'BUG.*' "$SCRATCH/err" | cut -c1-120)"
}

log "mode $BENCH_MODE: $REPS repetitions, $RUNS runs per cts-trace invocation"
for rep in $(seq $REPS); do
	log "repetition $rep/$REPS"
	for p in $CORPUS_NAMES; do
		for k in native sync break; do
			measure "$p" "$k" "$rep"
		done
	done
done

# col NAME KIND FIELD: one column of $DATA for one program and kind.
col() { awk -v p="$1" -v k="$2" -v f="$3" '$1 == p && $2 == k { print $f }' "$DATA"; }
# verdicts NAME KIND: "clean 5/5" or e.g. "timeout 5/5", the kinds counted.
verdicts() {
	col "$1" "$2" 6 | sort | uniq -c | awk -v n="$REPS" '{ printf "%s%s %d/%d", sep, $2, $1, n; sep = ", " }'
}

{
	machine_header "The real-program corpus: per-run cost of cts-trace against native runs"
	printf 'Per-run wall time in milliseconds. Native: median (min–max) of %s runs. ' "$REPS"
	printf 'cts-trace: %s invocations of `cts-trace -m MODE -s random --seed K -n %s --timeout %s --fail-on-exit` (K = 1..%s), ' \
		"$REPS" "$RUNS" "$RUN_TIMEOUT" "$REPS"
	printf 'each giving wall time / runs made (start-up and the fork server are paid once per invocation); median (min–max) of those. '
	printf 'ratio = median traced / median native. steps = visible operations per run (JSON report). '
	printf 'verdicts: how the invocations ended (clean, or the first bug kind reported): every program here is correct, so any bug is a false alarm of the tool, and the time of such a run is mostly its %s s timeout or its step budget. ' "$RUN_TIMEOUT"
	printf 'Input of the compressors: the 3.8 KB text of `corpus_input` in tests/corpus/lib.sh.\n\n'
	printf '| program | command | native ms | sync ms/run | sync ratio | sync steps | sync verdicts | break ms/run | break ratio | break steps | break verdicts |\n'
	printf '|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|\n'
	for p in $CORPUS_NAMES; do
		set -- $(col "$p" native 4 | stats)
		nat=$1
		row="| $p | \`$(corpus_cmd "$p" in.txt | sed "s|$ROOT/||")\` | $(mmm %.1f "$(fdiv "$1" 0.001)" "$(fdiv "$2" 0.001)" "$(fdiv "$3" 0.001)")"
		for k in sync break; do
			set -- $(col "$p" "$k" 4 | stats)
			if [ "$1" = - ]; then
				row="$row | - | - | -"
			else
				row="$row | $(mmm %.0f "$(fdiv "$1" 0.001)" "$(fdiv "$2" 0.001)" "$(fdiv "$3" 0.001)") | $(awk -v a="$1" -v b="$nat" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.0f×", a / b }')"
				row="$row | $(col "$p" "$k" 5 | stats | awk '{ printf ($1 == "-") ? "-" : "%.0f", $1 }')"
			fi
			row="$row | $(verdicts "$p" "$k")"
		done
		echo "$row |"
	done
	printf '\n## Traced code in break mode\n\n'
	printf 'What break mode instruments, per file (the program; `traced_code` in the report): where the function bounds came from '
	printf '(Debian binaries are stripped: their unwind tables), how many functions and how much of `.text` they cover (the rest is decoded linearly), and the access breakpoints placed.\n\n'
	printf '| program | file | bounds from | functions | .text bytes | in functions | access sites |\n'
	printf '|---|---|---|---:|---:|---:|---:|\n'
	for p in $CORPUS_NAMES; do
		[ -s "$SCRATCH/code.$p" ] || { echo "| $p | - | - | - | - | - | - |"; continue; }
		awk -v p="$p" '{ f = $1; sub(/.*\//, "", f); src = $2; gsub(/_/, " ", src)
			printf "| %s | %s | %s | %d | %d | %.0f%% | %d |\n", p, f, src, $3, $4, $4 ? 100 * $5 / $4 : 0, $7 }' \
			"$SCRATCH/code.$p"
	done
	printf '\n## Commands\n\n```sh\nmake && make programs\nsh benchmarks/corpus.sh %s\n```\n\n' "$BENCH_MODE"
	printf '## Raw data\n\nname kind repetition seconds_per_run steps_per_run verdict\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
