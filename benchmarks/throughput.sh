#!/bin/sh
# benchmarks/throughput.sh quick|full — schedules (runs) per second of each
# cts-trace strategy on the correct twin of every bug program, in the mode the
# bug needs (its "Minimal mode:" line).  Twins have no bug, so a run never
# stops exploration early; --keep-going keeps exploring even if cts-trace
# reports something (which would be a false alarm, and is listed).  Each cell
# is the median (min–max) of 3 repetitions (seeds 1, 2, 3) of a fixed time
# budget; runs/s = runs / elapsed_seconds from the JSON report.
SCRIPT=throughput
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

STRATEGIES="random pct dfs dpor pcb idb"
REPS=3
if [ "$BENCH_MODE" = quick ]; then
	BUDGET=0.25
	TWINS="deadlock_ok lost_update_ok"
else
	BUDGET=2
	TWINS=$(cd "$PROGS" && ls *_ok.c | sed 's/\.c$//')
fi
# BENCH_PROGRAMS="deadlock dcl" restricts the run to the twins of some programs.
if [ -n "${BENCH_PROGRAMS:-}" ]; then
	TWINS=$(for p in $BENCH_PROGRAMS; do echo "${p%_ok}_ok"; done)
fi
for t in $TWINS; do
	[ -f "$PROGS/$t.c" ] || die "no twin $t.c in $PROGS"
done
[ -n "$TWINS" ] || die "no *_ok.c twins in $PROGS"

# mode_of TWIN: the mode its buggy sibling needs ("Minimal mode: sync|break").
mode_of() {
	m=$(sed -n 's/.*Minimal mode: *\([a-z]*\).*/\1/p' "$PROGS/${1%_ok}.c" 2>/dev/null | head -n 1)
	case $m in
	sync | break | step) echo "$m" ;;
	*) die "cannot find 'Minimal mode:' in $PROGS/${1%_ok}.c" ;;
	esac
}
opts_of() {
	case $1 in
	pcb | idb) echo "-s $1 --bound 1" ;;
	*) echo "-s $1" ;;
	esac
}

for t in $TWINS; do
	build_bench "$t"
	mode_of "$t" >/dev/null
done

DATA=$SCRATCH/data
: >"$DATA"
n_twins=$(echo $TWINS | wc -w)
log "mode $BENCH_MODE: $n_twins twins x 6 strategies x $REPS seeds, ${BUDGET}s each"
for t in $TWINS; do
	m=$(mode_of "$t")
	for s in $STRATEGIES; do
		for seed in $(seq 1 $REPS); do
			r=$SCRATCH/r.json
			rm -f "$r"
			run_cts 60 -q $(opts_of "$s") -m "$m" -n 0 -t "$BUDGET" --seed "$seed" \
				--keep-going --report "$r" -o "$SCRATCH/cts-out" "$BIN/$t" >/dev/null 2>"$SCRATCH/err"
			rc=$?
			if [ -s "$r" ]; then
				# one jq call per run: runs elapsed complete bugs internal_error
				set -- $(json "$r" '"\(.runs) \(.elapsed_seconds) \(.complete) " +
					([.bugs[] | "\(.kind)x\(.hits)"] | join(",") | if . == "" then "-" else . end) + " " +
					((.internal_error // "-") | gsub(" "; "_"))')
				runs=${1:--} el=${2:--} complete=${3:--} bugs=${4:--} ierr=${5:--}
				rps=$(fdiv "$runs" "$el")
			else
				runs=- el=- rps=- complete=- bugs="no-report(exit_$rc)" ierr=$(head -c 80 "$SCRATCH/err" | tr ' \n' '__')
			fi
			echo "$t $m $s $seed $rc $runs $el $rps $complete ${bugs:--} ${ierr:--}" >>"$DATA"
		done
	done
	log "  $t ($m) done"
done

{
	machine_header "Throughput: schedules per second per strategy"
	printf 'Each cell: runs (schedules) per second, median (min–max) over %s repetitions (seeds 1..%s), each a %s s budget ' "$REPS" "$REPS" "$BUDGET"
	printf '(`-n 0 -t %s`), on the correct twin of each bug program in the mode its bug needs. ' "$BUDGET"
	printf 'A run is one full execution of the program under cts-trace (fork, exec, ptrace set-up, the schedule, exit), so these programs (2-4 threads, tens of visible operations) measure the per-run fixed cost more than the per-step cost. '
	printf '"(c)" = the systematic strategy exhausted its (bounded) space before the budget ran out (rate over fewer, complete runs); "!" = cts-trace reported a bug on a correct program (false alarm, listed below).\n\n'
	printf '| twin | mode |'
	for s in $STRATEGIES; do
		case $s in pcb | idb) printf ' %s --bound 1 |' "$s" ;; *) printf ' %s |' "$s" ;; esac
	done
	printf '\n|---|---|'
	for s in $STRATEGIES; do printf -- '---:|'; done
	printf '\n'
	for t in $TWINS; do
		m=$(mode_of "$t")
		printf '| %s | %s |' "$t" "$m"
		for s in $STRATEGIES; do
			set -- $(awk -v t="$t" -v s="$s" '$1 == t && $3 == s { print $8 }' "$DATA" | stats)
			cell=$(mmm %.0f "$1" "$2" "$3")
			awk -v t="$t" -v s="$s" '$1 == t && $3 == s && $9 == "true"' "$DATA" | grep -q . && cell="$cell (c)"
			awk -v t="$t" -v s="$s" '$1 == t && $3 == s && $10 != "-"' "$DATA" | grep -q . && cell="$cell !"
			printf ' %s |' "$cell"
		done
		printf '\n'
	done
	printf '\n## Reports on correct programs (false alarms, hangs, internal errors)\n\n'
	awk '$10 != "-" || $11 != "-" || ($5 != 0 && $5 != 1) {
		printf "- %s (%s), %s seed %s: exit %s, bugs %s, internal error %s\n", $1, $2, $3, $4, $5, $10, $11; n++ }
		END { if (!n) print "None: every run of every twin came back clean." }' "$DATA"
	printf '\n## Commands\n\n```sh\n'
	printf '# for TWIN in: %s\n' "$(echo $TWINS)"
	printf '# STRATEGY in: random, pct, dfs, dpor, "pcb --bound 1", "idb --bound 1"; SEED in 1..%s\n' "$REPS"
	printf './cts-trace -q -s STRATEGY -m MODE -n 0 -t %s --seed SEED --keep-going --report R.json -o DIR benchmarks/work/bin/TWIN\n' "$BUDGET"
	printf '```\n\n## Raw data\n\n'
	printf 'twin mode strategy seed exit runs elapsed_s runs_per_s complete bugs internal_error\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
