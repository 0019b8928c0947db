#!/bin/sh
# benchmarks/overhead.sh quick|full — native vs cts-trace (sync, break, step) on
# the correct compute- and sync-heavy programs, under `perf stat`.
#
# Each program has one input size per mode (break and step are far slower, so
# they get smaller inputs); every traced run is paired with a native run of
# the same binary and input.  Repetitions are interleaved (native, sync,
# native, break, native, step, native, sync, ...) so that load from other
# users of the machine spreads over all modes alike.  Reported: medians with
# min–max over REPS repetitions, the ratio of median wall times, perf's
# software counters (task-clock, context switches, page faults) and, when the
# machine has a hardware PMU, cycles and instructions.  cts-trace runs one
# schedule (`-n 1 -s random`); "steps/s" is visible operations per second
# (steps from the JSON report / wall time).
SCRIPT=overhead
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts
need_tool perf "perf stat counters (task-clock, context switches, page faults)" linux-perf

# prog source mode size: sizes chosen so a traced run takes ~0.2-3 s here.
if [ "$BENCH_MODE" = quick ]; then
	# quick: small inputs, only one compute-heavy and one sync-heavy program,
	# so that the whole script stays near 30 s.
	REPS=5
	CONFIGS="par_sum sync 262144
par_sum break 512
par_sum step 64
pipeline sync 50
pipeline break 20
pipeline step 5"
	RUN_TIMEOUT=30
else
	REPS=5
	CONFIGS="par_sum sync 4194304
par_sum break 16384
par_sum step 2048
pipeline sync 1000
pipeline break 500
pipeline step 50
lock_counter sync 2000
lock_counter break 2000
lock_counter step 200
compute sync 1048576
compute break 64
compute step 16"
	RUN_TIMEOUT=120
fi
CTS_OPTS="-n 1 -s random --seed 1 --max-steps 100000000 --timeout $RUN_TIMEOUT -q"

HW=$(hw_counters)
EVENTS=task-clock,context-switches,page-faults
if [ "$HW" = yes ]; then
	EVENTS=$EVENTS,cycles,instructions
else
	log "NOTE: no hardware performance counters on this machine (perf stat -e cycles: not supported);"
	log "      measuring software counters only: $EVENTS"
fi
perf stat -e "$EVENTS" -o "$SCRATCH/probe" -- true >/dev/null 2>&1 ||
	die "'perf stat -e $EVENTS true' fails (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)); run as root or lower it"

src_of() {
	case $1 in
	compute) echo "$ROOT/tests/programs/compute.c" ;;
	*) echo "$PROGS/$1.c" ;;
	esac
}
for p in $(printf '%s\n' "$CONFIGS" | cut -d' ' -f1 | sort -u); do
	build "$(src_of "$p")" "$BIN/$p" || die "gcc failed on $(src_of "$p")"
done

# pfield FILE EVENT: one counter from perf's human output ("n/a" if unsupported).
pfield() {
	awk -v ev="$2" '
		$2 == ev { print $1; found = 1; exit }
		$3 == ev { print ($1 ~ /^</) ? "n/a" : $1; found = 1; exit }
		END { if (!found) print "-" }' "$1"
}

DATA=$SCRATCH/data
: >"$DATA"
# measure KIND PROG MODE SIZE REP: one perf-stat'ed run, appended to $DATA as
# prog mode size kind rep wall task ctxsw pf cycles instr steps rc
measure() {
	kind=$1 p=$2 m=$3 n=$4 rep=$5
	pf=$SCRATCH/perf.txt rep_json=$SCRATCH/report.json
	rm -f "$pf" "$rep_json"
	if [ "$kind" = native ]; then
		timeout -k 5 "$RUN_TIMEOUT" perf stat -e "$EVENTS" -o "$pf" -- "$BIN/$p" "$n" >/dev/null 2>&1
	else
		timeout -k 5 $((RUN_TIMEOUT + 30)) perf stat -e "$EVENTS" -o "$pf" -- \
			"$CTS" $CTS_OPTS -m "$m" --report "$rep_json" -o "$SCRATCH/cts-out" \
			"$BIN/$p" "$n" >/dev/null 2>"$SCRATCH/cts.err"
	fi
	rc=$?
	wall=$(awk '/seconds time elapsed/ { print $1 }' "$pf" 2>/dev/null)
	steps=-
	if [ "$kind" = cts ]; then
		steps=$(json "$rep_json" .steps)
		[ "$rc" -ne 0 ] && log "  cts-trace -m $m $p $n: exit $rc $(json "$rep_json" '[.bugs[].kind]|join(",")') $(head -c 200 "$SCRATCH/cts.err")"
	fi
	echo "$p $m $n $kind $rep ${wall:--} $(pfield "$pf" task-clock) $(pfield "$pf" context-switches)" \
		"$(pfield "$pf" page-faults) $(pfield "$pf" cycles) $(pfield "$pf" instructions) $steps $rc" >>"$DATA"
}

log "mode $BENCH_MODE: $REPS interleaved repetitions of $(printf '%s\n' "$CONFIGS" | wc -l) (program, mode) pairs"
rep=1
while [ $rep -le $REPS ]; do
	log "repetition $rep/$REPS"
	printf '%s\n' "$CONFIGS" | while read -r p m n; do
		measure native "$p" "$m" "$n" "$rep"
		measure cts "$p" "$m" "$n" "$rep"
	done
	rep=$((rep + 1))
done

# col PROG MODE KIND FIELD: the values of one column for one row of the table.
col() {
	awk -v p="$1" -v m="$2" -v k="$3" -v f="$4" \
		'$1 == p && $2 == m && $4 == k && $13 == 0 { print $f }' "$DATA"
}
failures() { awk -v p="$1" -v m="$2" '$1 == p && $2 == m && $13 != 0' "$DATA" | wc -l; }

{
	machine_header "Overhead: native vs cts-trace (sync, break, step)"
	if [ "$HW" != yes ]; then
		printf '**No hardware PMU on this machine**: cycles and instructions cannot be counted; the table has perf'"'"'s software counters only.\n\n'
	fi
	printf 'Median (min–max) over %s interleaved repetitions; ratio = median traced wall time / median native wall time of the same binary and input. ' "$REPS"
	printf 'Inputs are smaller for break and especially step mode (single-stepping runs at a few thousand visible operations per second), so compare ratios within a row, not across rows. '
	printf 'At small inputs native time is mostly process start-up (several ms on this VM), which caps the ratio. '
	printf 'task-clock counts the CPU time of cts-trace and the program together (perf follows children). '
	printf '"steps/s" = visible operations (steps in the JSON report) per second of wall time; breakpoint hits per second are not exposed by the cts-trace CLI (the tracer counts them in `cts_tracer_stats.bp_hits`), so they are not reported.\n\n'
	if [ "$HW" = yes ]; then
		printf '| program | input | mode | native wall s | cts-trace wall s | ratio | steps | steps/s | task-clock ms native → cts | context switches native → cts | page faults native → cts | cycles native → cts | instructions native → cts |\n'
		printf '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
	else
		printf '| program | input | mode | native wall s | cts-trace wall s | ratio | steps | steps/s | task-clock ms native → cts | context switches native → cts | page faults native → cts |\n'
		printf '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
	fi
	printf '%s\n' "$CONFIGS" | while read -r p m n; do
		set -- $(col "$p" "$m" native 6 | stats)
		nat_m=$1 nat=$(mmm %.4f "$1" "$2" "$3")
		set -- $(col "$p" "$m" cts 6 | stats)
		cts_m=$1 ctsw=$(mmm %.3f "$1" "$2" "$3")
		ratio=$(fdiv "$cts_m" "$nat_m")
		[ "$ratio" != - ] && ratio=$(awk -v r="$ratio" 'BEGIN { printf "%.1f×", r }')
		steps=$(col "$p" "$m" cts 12 | stats | cut -d' ' -f1)
		sps=$(fdiv "$steps" "$cts_m")
		[ "$sps" != - ] && sps=$(printf '%.0f' "$sps")
		cell() { # median native → median cts for field $1
			a=$(col "$p" "$m" native "$1" | stats | cut -d' ' -f1)
			b=$(col "$p" "$m" cts "$1" | stats | cut -d' ' -f1)
			printf '%s → %s' "$a" "$b"
		}
		fails=$(failures "$p" "$m")
		note=""
		[ "$fails" -gt 0 ] && note=" ($fails failed runs excluded)"
		label=$m
		[ "$m" = step ] && label="step (small input)"
		row="| $p | $n | $label$note | $nat | $ctsw | $ratio | $steps | $sps | $(cell 7) | $(cell 8) | $(cell 9)"
		[ "$HW" = yes ] && row="$row | $(cell 10) | $(cell 11)"
		printf '%s |\n' "$row"
	done
	printf '\n## Commands\n\n```sh\n'
	printf '# native (bin = benchmarks/work/bin, built with gcc %s):\n' "$CFLAGS_BENCH"
	printf 'perf stat -e %s -o OUT -- bin/PROGRAM INPUT\n' "$EVENTS"
	printf '# traced:\n'
	printf 'perf stat -e %s -o OUT -- ./cts-trace %s -m MODE --report R.json -o DIR bin/PROGRAM INPUT\n' "$EVENTS" "$CTS_OPTS"
	printf '# programs: benchmarks/programs/{par_sum,pipeline,lock_counter}.c, tests/programs/compute.c\n'
	printf '# (PROGRAM, MODE, INPUT) rows, in the order run within each repetition:\n'
	printf '%s\n' "$CONFIGS" | sed 's/^/#   /'
	printf '```\n\n## Raw data\n\n'
	printf 'One line per run: program mode input kind rep wall_s task_clock_ms context_switches page_faults cycles instructions steps exit_status\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
