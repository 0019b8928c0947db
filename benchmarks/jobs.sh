#!/bin/sh
# benchmarks/jobs.sh quick|full — task competition and shards (--jobs, --shard):
#  (1) wall-clock speed-up of --jobs 2 over one process for random and pct (a
#      fixed number of runs, -n) and for exhaustive dfs and dpor searches
#      (dpor with the same --split-depth in both, plus plain dpor for
#      reference), on correct twins (no bug stops the work early); the same
#      work in both (runs equal, checked); median (min–max) of REPS
#      interleaved repetitions;
#  (2) the start-up cost of one shard run: `cts-trace --version`, a shard
#      that owns no run (--shard 2/2 -n 1), a shard that makes one run, and
#      for a systematic search the walk runs (runs cut where another shard's
#      subtree starts) per shard of 8.
#  (3) an instances row: --instances over relay_ok (random inside each
#      instance), the same instances with 1 and 2 jobs (instances searched
#      and runs equal, checked); INSTANCE_ARGS replaces its options.
# Counts (runs, instances) are exact; times depend on the machine's load.
SCRIPT=jobs
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

reps_runs 1 60 3 300
build_bench deadlock_ok
build_bench lost_update_ok
build_bench bank3_ok
build_bench relay_ok
DATA=$SCRATCH/data
: >"$DATA"

# timed LABEL JOBS ARGS...: one search; "LABEL JOBS seconds runs" to DATA.
timed() {
	label=$1 j=$2
	shift 2
	r=$SCRATCH/r.json
	t0=$(now)
	run_cts 600 -q -j "$j" --report "$r" -o "$SCRATCH/out" "$@" >/dev/null 2>&1
	t1=$(now)
	printf '%s %s %s %s\n' "$label" "$j" "$(fsub "$t1" "$t0")" \
		"$(json "$r" .runs)$(jq -r 'if .instances then "/\(.instances.searched)i" else "" end' "$r")" >>"$DATA"
}

ROWS="random|-m sync -s random -n $RUNS -- $BIN/deadlock_ok
pct|-m sync -s pct -n $RUNS -- $BIN/deadlock_ok
random-break|-m break -s random -n $((RUNS / 3)) -- $BIN/lost_update_ok
dfs|-m sync -s dfs -- $BIN/deadlock_ok
dpor-split|-m break -s dpor --split-depth 4 -- $BIN/bank3_ok"
ROWS="$ROWS
instances|${INSTANCE_ARGS:--m sync -s random -n $((RUNS / 30)) --instances 20 --tile 2 --tiles-per-thread 2 -- $BIN/relay_ok 12 2}"

log "mode $BENCH_MODE: $REPS repetitions of each row with 1 and 2 jobs"
for rep in $(seq 1 $REPS); do
	printf '%s\n' "$ROWS" | while IFS='|' read -r label args; do
		# shellcheck disable=SC2086
		timed "$label" 1 $args
		# shellcheck disable=SC2086
		timed "$label" 2 $args
	done
done
# plain dpor for reference (one process)
r=$SCRATCH/r.json
run_cts 600 -q -m break -s dpor --report "$r" -o "$SCRATCH/out" -- "$BIN/bank3_ok" >/dev/null 2>&1
plain_dpor=$(json "$r" .runs)

# Start-up of one shard.
SU=$SCRATCH/startup
: >"$SU"
for rep in $(seq 1 $((REPS * 3))); do
	t0=$(now); "$CTS" --version >/dev/null; t1=$(now)
	echo "version $(fsub "$t1" "$t0")" >>"$SU"
	t0=$(now); run_cts 60 -q -m sync --shard 2/2 -n 1 -o "$SCRATCH/out" -- "$BIN/deadlock_ok" >/dev/null 2>&1; t1=$(now)
	echo "empty $(fsub "$t1" "$t0")" >>"$SU"
	t0=$(now); run_cts 60 -q -m sync --shard 1/2 -n 1 -o "$SCRATCH/out" -- "$BIN/deadlock_ok" >/dev/null 2>&1; t1=$(now)
	echo "one $(fsub "$t1" "$t0")" >>"$SU"
	t0=$(now); "$BIN/deadlock_ok" >/dev/null 2>&1; t1=$(now)
	echo "native $(fsub "$t1" "$t0")" >>"$SU"
done
WALK=$SCRATCH/walk
: >"$WALK"
for i in $(seq 1 8); do
	run_cts 600 -q -m sync -s dfs --shard "$i/8" --report "$r" -o "$SCRATCH/out" -- "$BIN/deadlock_ok" >/dev/null 2>&1
	echo "$i $(json "$r" .runs) $(json "$r" .shard.walk_runs) $(json "$r" .elapsed_seconds)" >>"$WALK"
done

med() { awk -v l="$1" -v j="$2" '$1 == l && $2 == j { print $3 }' "$DATA" | stats; }
runs_of() { awk -v l="$1" -v j="$2" '$1 == l && $2 == j { print $4 }' "$DATA" | sort -u | tr '\n' ' '; }
sumed() { awk -v k="$1" '$1 == k { print $2 }' "$SU" | stats; }
{
	machine_header "--jobs and --shard: speed-up and start-up cost"
	printf -- '- **The machine was loaded** by other helpers building and testing during this run (load average above); the lead re-measures on a quiet machine. Work is equal in both columns (runs listed), times are wall clock.\n\n'
	printf '| row | runs (1 job / 2 jobs) | 1 job s | 2 jobs s | speed-up |\n| --- | --- | --- | --- | --- |\n'
	printf '%s\n' "$ROWS" | while IFS='|' read -r label args; do
		set -- $(med "$label" 1); m1=$1 a1=$2 b1=$3
		set -- $(med "$label" 2); m2=$1 a2=$2 b2=$3
		printf '| %s | %s/ %s| %s | %s | %s× |\n' "$label" "$(runs_of "$label" 1)" "$(runs_of "$label" 2)" \
			"$(mmm %.2f "$m1" "$a1" "$b1")" "$(mmm %.2f "$m2" "$a2" "$b2")" \
			"$(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.2f", a / b }')"
	done
	printf '\nPlain dpor on bank3_ok (no split): %s runs; with --split-depth 4: the runs above. The instances row: relay_ok 12 2, --instances 20 (random inside each instance, `-n` runs each; runs/instances searched listed as R/Ni); its first run is made by both workers (one counts it).\n\n' "$plain_dpor"
	printf '## Start-up of a shard run (deadlock_ok, sync mode)\n\n| what | seconds, median (min–max) |\n| --- | --- |\n'
	for k in native version empty one; do
		set -- $(sumed $k)
		case $k in
		native) d="the program natively" ;;
		version) d='`cts-trace --version` (exec)' ;;
		empty) d='`--shard 2/2 -n 1`: a shard with no run (options, ELF check, report)' ;;
		one) d='`--shard 1/2 -n 1`: a shard with one run (+ tracer, fork server, one run)' ;;
		esac
		printf '| %s | %s |\n' "$d" "$(mmm %.3f "$1" "$2" "$3")"
	done
	printf '\n## Walking past other shards (dfs on deadlock_ok, 8 shards)\n\n| shard | runs | walk runs | seconds |\n| --- | --- | --- | --- |\n'
	awk '{ printf "| %s/8 | %s | %s | %s |\n", $1, $2, $3, $4 }' "$WALK"
	printf '\nWalk runs are cut where another shard'"'"'s subtree starts (at the 4th branching state); every shard makes them, so their share shrinks as the search grows.\n\n## Raw data (label, jobs, seconds, runs)\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
