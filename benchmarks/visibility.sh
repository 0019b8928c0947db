#!/bin/bash
# benchmarks/visibility.sh quick|full — break mode's visibility models side
# by side (issue 26, stages 2 and 3): which accesses a run shows as
# scheduling points, how the tracer learns them, and what that costs.
#
#   keys  the default where the machine has protection keys (stage 3,
#         tracer/fault.h): ownership of lines as below, but an instruction
#         that keeps to pages its thread was granted runs natively, and a key
#         fault finds its accesses to anyone else's
#   mprot CTS_FAULTS=mprotect: the same faults by page protections the
#         tracer switches with the running thread (injected mprotect), on
#         any machine: the same steps as keys, other costs
#   own   CTS_FAULTS=0 (stage 2): an access is an event only on a 64-byte
#         line that is shared (tracer/own.h): owned lines, lines only read so
#         far and lines handed over by happens-before run on without one,
#         but every access instruction stops at its int3
#   cold  CTS_NO_OWNERSHIP=1: reads of lines nobody wrote stay invisible
#         (tracer/cold.h), every write is an event
#   all   CTS_NO_COLD=1: every shared access is an event
#
# Per program and model, one invocation of `cts-trace -m break -s random
# --seed 1 -n RUNS --max-steps 2000000 --timeout 120`, interleaved (own,
# cold, all, native) REPS times; steps, stops and void runs are exact counts,
# times are medians. Every model but keys stops at every access instruction
# (int3): what changes between them is how many accesses are scheduling
# points, so how long a run is in steps, how often it ends inconclusive at
# the default budget, and the strategy's and detectors' work per step; keys
# removes the stop per access on memory one thread owns.
SCRIPT=visibility
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/corpus/lib.sh"
bench_init "$@"
need_cts
reps_runs 1 3 3 10
IN=$SCRATCH/in.txt
corpus_input "$IN"

for p in par_sum lock_counter pipeline bounded_buffer_ok rw_cache_ok; do
	build_bench "$p"
done
build "$ROOT/tests/programs/compute.c" "$BIN/compute" || die "gcc failed on compute.c"

DATA=$SCRATCH/data
: >"$DATA"
# one MODEL NAME CMD...: "steps stops voids inconclusive secs verdict" of one invocation.
one() {
	local model=$1 name=$2
	shift 2
	local env=
	case $model in
	keys) env=CTS_FAULTS=1 ;;
	mprot) env=CTS_FAULTS=mprotect ;;
	own) env=CTS_FAULTS=0 ;;
	cold) env="CTS_FAULTS=0 CTS_NO_OWNERSHIP=1" ;;
	all) env="CTS_FAULTS=0 CTS_NO_COLD=1" ;;
	esac
	rm -f "$SCRATCH/r.json"
	local t0 t1 rc
	t0=$(now)
	env $env "$CTS" -m break -s random --seed 1 -n "$RUNS" --max-steps 2000000 --timeout 120 \
		-q --report "$SCRATCH/r.json" -o "$SCRATCH/o" -- "$@" </dev/null >/dev/null 2>&1
	rc=$?
	t1=$(now)
	if [ ! -s "$SCRATCH/r.json" ]; then
		echo "- - - - $(fsub "$t1" "$t0") exit-$rc"
		return
	fi
	echo "$(json "$SCRATCH/r.json" '"\(.steps) \(.tracer.stops) \(.summary.relearned) \(.inconclusive.count)"') $(fsub "$t1" "$t0") $(verdict_of $rc "$SCRATCH/r.json")"
}

native() { # CMD...: seconds of RUNS native runs
	local t0 t1
	t0=$(now)
	for _ in $(seq "$RUNS"); do "$@" </dev/null >/dev/null 2>&1; done
	t1=$(now)
	fsub "$t1" "$t0"
}

# measure NAME CMD...: REPS interleaved rounds; a line of $DATA per model.
measure() {
	local name=$1
	shift
	local m r
	for m in $MODELS native; do : >"$SCRATCH/$m.t"; done
	for r in $(seq "$REPS"); do
		for m in $MODELS; do
			one $m "$name" "$@" >"$SCRATCH/$m.line"
			awk '{ print $5 }' "$SCRATCH/$m.line" >>"$SCRATCH/$m.t"
		done
		native "$@" >>"$SCRATCH/native.t"
	done
	local nat
	nat=$(sort -g "$SCRATCH/native.t" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	for m in $MODELS; do
		local med
		med=$(sort -g "$SCRATCH/$m.t" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		read -r steps stops voids inc _ verdict <"$SCRATCH/$m.line"
		echo "$name $m $steps $stops $voids $inc $med $nat $verdict" >>"$DATA"
		log "  $name $m: $(tail -n 1 "$DATA")"
	done
}

# VIS_MODELS: a subset, in this order (e.g. "keys mprot own")
MODELS=${VIS_MODELS:-keys mprot own cold all}
log "mode $BENCH_MODE: $RUNS runs per invocation, $REPS rounds"
measure par_sum_200k_2 "$BIN/par_sum" 200000 2
measure par_sum_20k_4 "$BIN/par_sum" 20000 4
measure par_sum_4m_2 "$BIN/par_sum" 4194304 2
measure compute_2k "$BIN/compute" 2048
measure lock_counter_20k "$BIN/lock_counter" 20000
measure pipeline "$BIN/pipeline"
measure bounded_buffer_ok "$BIN/bounded_buffer_ok"
measure rw_cache_ok "$BIN/rw_cache_ok"
for p in lbzip2 pigz; do
	[ -x "/usr/bin/$p" ] || { log "  $p: not installed, skipped"; continue; }
	measure "$p" $(corpus_cmd "$p" "$IN" break)
done

{
	machine_header "Break mode's visibility models: protection-key faults, ownership of lines, cold reads, every access"
	printf 'Per program and model: `cts-trace -m break -s random --seed 1 -n %s --max-steps 2000000 --timeout 120` (keys: the default on a machine with protection keys; mprot: `CTS_FAULTS=mprotect`; own: `CTS_FAULTS=0`; cold: `CTS_FAULTS=0 CTS_NO_OWNERSHIP=1`; all: `CTS_FAULTS=0 CTS_NO_COLD=1`), %s interleaved rounds with %s native runs of the same command. ' "$RUNS" "$REPS" "$RUNS"
	printf '*steps*: scheduling points over all runs (exact); *stops*: ptrace stops of the tracer (exact for the build); *void*: runs thrown away and run again because they hid an access a later one conflicted with; *inc.*: runs inconclusive; *s*: median seconds of the invocation (start-up included); *× native*: that over the median of the native runs. '
	printf 'own, cold and all stop at every access instruction: their stops barely move, what ownership removes there is scheduling points (steps), and with them the step budget, the strategy'"'"'s and the detectors'"'"' work; keys and mprot also remove the stops on pages the running thread holds (mprot: at the cost of `mprotect` calls when threads switch).\n\n'
	printf '| program | model | steps | stops | void | inc. | s | native s | × native | verdict |\n'
	printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n'
	awk '{ x = ($8 + 0 > 0 && $7 != "-") ? sprintf("%.0f", $7 / $8) : "-";
	       printf "| %s | %s | %s | %s | %s | %s | %.2f | %.4f | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, x, $9 }' "$DATA"
	printf '\n## Commands\n\n```sh\nmake && make programs\nsh benchmarks/visibility.sh %s\n```\n\n' "$BENCH_MODE"
	printf '## Raw data\n\nname model steps stops void_runs inconclusive median_s native_s verdict\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
