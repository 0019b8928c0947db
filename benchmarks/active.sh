#!/bin/sh
# benchmarks/active.sh quick|full — active testing (seeds/003) against random
# and pct with the same budget of runs:
#   (a) per program and strategy, SEEDS searches of at most BUDGET runs each,
#       stopping at the first bug: how many found it, the runs to the first
#       bug, and the per-run probability of hitting it (found / runs spent,
#       the geometric estimate; the fuzzers' 3 phase-1 runs count as spent);
#   (b) the paper's Table 1 columns: suspects of phase 1 (hybrid races,
#       iGoodlock cycles, atomicity patterns) against those phase 2
#       confirmed, with --keep-going and --tries TRIES, on each program and
#       on its correct twin (a bug on a twin would be a false alarm).
# Programs: the benchmarks/programs bug programs with twins, and the
# rare-window programs tests/programs/active_{race,deadlock,atom}.
# racefuzzer and atomfuzzer run in break mode (they need the accesses);
# random, pct and deadlockfuzzer in the program's minimal mode.
SCRIPT=active
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

TESTPROGS=$ROOT/tests/programs
STRATEGIES="random pct racefuzzer deadlockfuzzer atomfuzzer"
FUZZERS="racefuzzer deadlockfuzzer atomfuzzer"
if [ "$BENCH_MODE" = quick ]; then
	BUGS="deadlock lost_update active_race active_deadlock active_atom"
	SEEDS="1 2"
	BUDGET=10 TRIES=3 CTS_T=60
else
	BUGS="$(cd "$PROGS" && ls *_ok.c | sed 's/_ok\.c$//' | tr '\n' ' ')active_race active_deadlock active_atom"
	SEEDS="1 2 3 4 5"
	BUDGET=30 TRIES=5 CTS_T=120
fi
BUGS=${BENCH_PROGRAMS:-$BUGS}

src_of() {
	case $1 in
	active_*) echo "$TESTPROGS/$1.c" ;;
	*) echo "$PROGS/$1.c" ;;
	esac
}
mode_of() {
	m=$(sed -n 's/.*Minimal mode: *\([a-z]*\).*/\1/p' "$(src_of "$1")" | head -n 1)
	case $m in
	sync | break | step) echo "$m" ;;
	*) die "cannot find 'Minimal mode:' in $(src_of "$1")" ;;
	esac
}
smode() {
	case $2 in
	racefuzzer | atomfuzzer) echo break ;;
	*) mode_of "$1" ;;
	esac
}
for p in $BUGS; do
	build "$(src_of "$p")" "$BIN/$p" || die "gcc failed on $p"
	build "$(src_of "${p}_ok")" "$BIN/${p}_ok" || die "gcc failed on ${p}_ok"
done

DATA=$SCRATCH/data
: >"$DATA"
# trial PROG STRATEGY -> per seed "trial prog strategy seed found|none runs_spent
#   first_bug_run kind"
on_trial() {
	case $2 in
	found) echo "trial $cur_p $cur_s $1 found $3 $3 $5" ;;
	none) echo "trial $cur_p $cur_s $1 none $3 - -" ;;
	*) echo "trial $cur_p $cur_s $1 error - - -" ;;
	esac >>"$DATA"
}
trial() {
	cur_p=$1 cur_s=$2
	first_bug_searches "$SEEDS" $((CTS_T + 30)) "" on_trial "$BIN/$1" \
		-q -s "$2" -m "$(smode "$1" "$2")" -n "$BUDGET" -t "$CTS_T" -o "$SCRATCH/out"
}
# table1 PROG FUZZER VARIANT -> "t1 prog fuzzer variant suspects confirmed runs bugs kinds"
table1() {
	p=$1 s=$2 v=$3 bin=$BIN/$1 r=$SCRATCH/r.json
	[ "$v" = twin ] && bin=$BIN/${1}_ok
	rm -f "$r"
	run_cts $((CTS_T + 30)) -q -s "$s" -m "$(smode "$p" "$s")" --keep-going --tries "$TRIES" \
		-t "$CTS_T" --report "$r" -o "$SCRATCH/out" "$bin" >/dev/null 2>&1
	line=$(json "$r" '"\(.active.suspects // "-") \(.active.confirmed // "-") \(.runs) \([.bugs[].hits] | add // 0) \([.bugs[].kind] | unique | join(",") | if . == "" then "-" else . end)"')
	echo "t1 $p $s $v ${line:-- - - - -}" >>"$DATA"
}

log "mode $BENCH_MODE: $(echo $BUGS | wc -w) programs, seeds $SEEDS, budget $BUDGET runs, tries $TRIES"
for p in $BUGS; do
	log "$p: searches"
	for s in $STRATEGIES; do
		trial "$p" "$s"
	done
	log "$p: suspects and confirmations"
	for s in $FUZZERS; do
		table1 "$p" "$s" bug
		table1 "$p" "$s" twin
	done
done

# ---- tables ----
{
	machine_header "Active testing: racefuzzer, deadlockfuzzer, atomfuzzer against random and pct"
	printf 'The machine was loaded (other helpers building and testing on 2 cores): only counts\n'
	printf 'are reported here; times would be noise.\n\n'
	printf '## Bug hits with the same budget (%s runs per search, seeds %s)\n\n' "$BUDGET" "$SEEDS"
	printf 'Each cell: searches that found a bug / searches; runs to the first bug (median,\n'
	printf 'min–max over the searches that found it); p = bugs found / runs spent, the\n'
	printf 'per-run probability of hitting the bug (a fuzzer'"'"'s 3 phase-1 runs are spent runs).\n\n'
	printf '| program | mode |'
	for s in $STRATEGIES; do printf ' %s |' "$s"; done
	printf '\n| --- | --- |'
	for s in $STRATEGIES; do printf ' --- |'; done
	printf '\n'
	for p in $BUGS; do
		printf '| %s | %s |' "$p" "$(mode_of "$p")"
		for s in $STRATEGIES; do
			n=$(awk -v p="$p" -v s="$s" '$1 == "trial" && $2 == p && $3 == s' "$DATA" | wc -l)
			f=$(awk -v p="$p" -v s="$s" '$1 == "trial" && $2 == p && $3 == s && $5 == "found"' "$DATA" | wc -l)
			spent=$(awk -v p="$p" -v s="$s" '$1 == "trial" && $2 == p && $3 == s && $6 != "-" { t += $6 } END { print t + 0 }' "$DATA")
			set -- $(awk -v p="$p" -v s="$s" '$1 == "trial" && $2 == p && $3 == s && $5 == "found" { print $7 }' "$DATA" | stats)
			prob=$(awk -v f="$f" -v t="$spent" 'BEGIN { if (t == 0) print "-"; else printf "%.2f", f / t }')
			if [ "$f" -gt 0 ]; then
				printf ' %s/%s; %s; p=%s |' "$f" "$n" "$(mmm '%g' "$1" "$2" "$3")" "$prob"
			else
				printf ' 0/%s; p=0 (%s runs) |' "$n" "$spent"
			fi
		done
		printf '\n'
	done
	printf '\n## Suspects and confirmations (--keep-going --tries %s)\n\n' "$TRIES"
	printf 'Phase 1 (3 random runs) names suspects; phase 2 tries each until it is confirmed or\n'
	printf 'has been tried %s times. "confirmed" races were both threads at the racing accesses\n' "$TRIES"
	printf 'at once; deadlocks and atomicity violations happened. "bug runs" are runs with a\n'
	printf 'crash, assert or deadlock (the program'"'"'s bug, reached by what was confirmed). A\n'
	printf 'confirmed race on a twin is a real unordered pair of plain accesses; it is no bug\n'
	printf '(exit status 0) unless --races fail, and a C11 atomic accessed with plain moves\n'
	printf 'looks the same to a binary.\n\n'
	printf '| program | fuzzer | suspects | confirmed | runs | bug runs (kinds) | twin: suspects | twin: confirmed | twin: bug runs |\n'
	printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
	for p in $BUGS; do
		for s in $FUZZERS; do
			b=$(awk -v p="$p" -v s="$s" '$1 == "t1" && $2 == p && $3 == s && $4 == "bug" { print $5, $6, $7, $8, $9 }' "$DATA")
			t=$(awk -v p="$p" -v s="$s" '$1 == "t1" && $2 == p && $3 == s && $4 == "twin" { print $5, $6, $8 }' "$DATA")
			set -- $b $t
			printf '| %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s |\n' "$p" "$s" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8"
		done
	done
	printf '\nRaw data (one line per search):\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
