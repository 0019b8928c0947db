#!/bin/sh
# benchmarks/coverage.sh quick|full — coverage reached after N runs for each
# strategy (issue 12's Measure paragraph; seeds/000 HaPSet, seeds/001 MAP):
# on correct twins (no bug ends a search), break mode, one search of at most
# NMAX runs (and CTS_T seconds) per program and strategy with --coverage;
# from the report's per-run series, the HaPSet statements and pairs (learnt
# from the good runs: the guiding sets for the guided strategies, sets
# learnt alongside for the others; the same learning) and the MAP patterns
# covered after 10, 50 and NMAX runs, or at the search's end if it completed
# or ran out of time first.
# Strategies: hapset-guided dpor and pcb2 (continuous learning), plain dpor
# and pcb2, pct, random, map. Runs and patterns are counts: load-independent.
# Programs: the benchmarks/programs twins, tests/programs/hs_*_ok and
# benchmarks/programs/hapset/*_big_ok.
SCRIPT=coverage
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

TESTPROGS=$ROOT/tests/programs
STRATS="dpor+hapset pcb2+hapset dpor pcb2 pct random map"
KS="10 50 200"
if [ "$BENCH_MODE" = quick ]; then
	TWINS="hs_aget hs_pfscan lost_update publish"
	NMAX=50 KS="10 50" CTS_T=30
else
	TWINS="$(cd "$PROGS" && ls *_ok.c | sed 's/_ok\.c$//' | tr '\n' ' ')hs_aget hs_pbzip2 hs_pfscan aget_big pbzip2_big pfscan_big"
	NMAX=200 CTS_T=60
fi
TWINS=${BENCH_PROGRAMS:-$TWINS}

src_of() {
	case $1 in
	hs_*) echo "$TESTPROGS/$1.c" ;;
	*_big | *_big_ok) echo "$PROGS/hapset/$1.c" ;;
	*) echo "$PROGS/$1.c" ;;
	esac
}
args_of() {
	case $1 in
	dpor+hapset) echo "-s dpor --guide hapset" ;;
	pcb2+hapset) echo "-s pcb --bound 2 --guide hapset" ;;
	pcb2) echo "-s pcb --bound 2" ;;
	*) echo "-s $1" ;;
	esac
}
for p in $TWINS; do
	build "$(src_of "${p}_ok")" "$BIN/${p}_ok" || die "gcc failed on ${p}_ok"
done

DATA=$SCRATCH/data
: >"$DATA"
log "mode $BENCH_MODE: $(echo $TWINS | wc -w) twins, at most $NMAX runs / $CTS_T s per search"
for p in $TWINS; do
	log "${p}_ok"
	for s in $STRATS; do
		r=$SCRATCH/r.json
		rm -f "$r"
		# shellcheck disable=SC2046
		run_cts $((CTS_T + 30)) -q -m break $(args_of "$s") -n "$NMAX" -t "$CTS_T" --seed 1 \
			--coverage --report "$r" -o "$SCRATCH/out" -- "$BIN/${p}_ok" >/dev/null 2>&1
		rc=$?
		rm -rf "$SCRATCH/out"
		end=$(json "$r" '"\(.runs) \(.complete) \(.bugs | length)"')
		for k in $KS; do
			row=$(jq -r --argjson k "$k" '.coverage.series as $s | ($s[[($k - 1), ($s | length) - 1] | min])
				| "\(.hapset_statements) \(.hapset_pairs) \(.map_covered) \(.map_percent)"' "$r" 2>/dev/null)
			echo "c ${p}_ok $s $k ${row:-- - - -} ${end:-- - -} $rc" >>"$DATA"
		done
	done
done

# cell PROG STRATEGY FIELD: "v10 · v50 · vN" (field 5 statements, 6 pairs,
# 7 MAP covered, with the last percentage of the estimate), then "(done N)"
# or "(stopped at N)" when it stopped before NMAX.
cell() {
	awk -v p="$1" -v s="$2" -v f="$3" -v nmax="$NMAX" '
		$1 == "c" && $2 == p && $3 == s { v = v (v == "" ? "" : " · ") $f; runs = $9; comp = $10; pc = $8 }
		END {
			if (v == "") { printf "-"; exit }
			printf "%s", v
			if (f == 7) printf " (%s%%)", pc
			if (runs < nmax) printf(comp == "true" ? " (done %s)" : " (stopped at %s)", runs)
		}' "$DATA"
}
{
	machine_header "Coverage reached after N runs, per strategy (HaPSet and MAP)"
	printf 'Counts only (runs, statements, pairs, patterns): load-independent. The machine was\n'
	printf 'loaded (other helpers on 2 cores); that only decides how many runs fit in the %s s\n' "$CTS_T"
	printf 'cap of a search, marked where it bit.\n\n'
	printf 'Each search: `cts-trace -q -m break STRATEGY -n %s -t %s --seed 1 --coverage` on a\n' "$NMAX" "$CTS_T"
	printf 'correct twin. Cells: the value after %s runs (one seed); "(done N)": the\n' "$(echo $KS | sed 's/ / · /g')"
	printf 'systematic search completed after N runs, "(stopped at N)": the time cap stopped\n'
	printf 'it after N runs (or map stopped: every estimated pattern covered); later columns\n'
	printf 'then repeat the last value. HaPSet coverage counts the\n'
	printf 'pairs (statement, immediately dependent predecessor) of good runs; for the\n'
	printf 'guided strategies these are the sets that guide them, for the others sets learnt\n'
	printf 'alongside from the same kind of runs (`--coverage` under any strategy).\n'
	for t in "HaPSet pairs:6" "HaPSet statements:5" "MAP patterns covered:7"; do
		name=${t%:*} f=${t#*:}
		printf '\n## %s after %s runs\n\n| twin |' "$name" "$(echo $KS | sed 's/ / · /g')"
		for s in $STRATS; do printf ' %s |' "$s"; done
		printf '\n| --- |'
		for s in $STRATS; do printf ' --- |'; done
		printf '\n'
		for p in $TWINS; do
			printf '| %s_ok |' "$p"
			for s in $STRATS; do printf ' %s |' "$(cell "${p}_ok" "$s" "$f")"; done
			printf '\n'
		done
	done
	bad=$(awk '$1 == "c" && ($11 != 0 || $12 != 0) { print $2 " " $3 }' "$DATA" | sort -u | tr '\n' ';')
	printf '\nEvery search on a twin came back clean (exit 0, no bug): %s\n' "${bad:+NO: $bad}${bad:-yes}"
	printf '\nRaw data (c twin strategy k statements pairs map_covered map_percent runs complete bugs exit):\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
