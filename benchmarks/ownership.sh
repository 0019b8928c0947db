#!/bin/bash
# benchmarks/ownership.sh quick|full — what break mode on memory ownership
# would make of today's visible accesses (issue 26, stage 1: the estimate).
#
# Each program runs `cts-trace -m break -s random --seed 1 -n RUNS --races
# report` with CTS_NO_COLD=1 (every shared read visible, as ownership would
# start from), and the report's ownership_estimate says, of the visible plain
# accesses (reads, writes, RMWs, library-call ranges), how many the page
# states of models/pages.c would let run natively (the page is owned by the
# thread, or read-shared), how many stay visible (learned shared pages), how
# many runs would be void (a page turned shared mid-run) and how many pages
# end up learned; hand-offs are owner changes ordered by happens-before (a
# join, a lock). Counts are exact (no timing): the same on every machine for
# the same build and seed. Programs: benchmarks/programs (compute-shaped and
# bug-shaped), tests/programs' private-slice and counter shapes, and the
# real-program corpus of tests/e2e/corpus.t.
SCRIPT=ownership
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/corpus/lib.sh"
bench_init "$@"
need_cts
reps_runs 1 3 1 10
IN=$SCRATCH/in.txt
corpus_input "$IN"

for p in par_sum lock_counter pipeline bounded_buffer_ok rw_cache_ok ws_deque_ok lost_update; do
	build_bench "$p"
done

DATA=$SCRATCH/data
: >"$DATA"
# measure NAME CMD...: one invocation, a line of $DATA.
measure() {
	local name=$1
	shift
	rm -f "$SCRATCH/r.json"
	CTS_NO_COLD=1 run_cts 600 -m break -s random --seed 1 -n "$RUNS" --races report \
		--max-steps 2000000 --timeout 60 -q --report "$SCRATCH/r.json" -o "$SCRATCH/o" -- \
		"$@" </dev/null >/dev/null 2>"$SCRATCH/err"
	local rc=$?
	if [ ! -s "$SCRATCH/r.json" ]; then
		echo "$name - - - - - - - - - - - exit-$rc" >>"$DATA"
		return
	fi
	echo "$name $(json "$SCRATCH/r.json" '"\(.runs) \(.steps) \(.ownership_estimate | "\(.plain_accesses) \(.native) \(.visible) \(.handoffs) \(.void_runs) \(.pages_learned) \(.lines.native) \(.lines.void_runs) \(.lines.learned)")"') $(verdict_of $rc "$SCRATCH/r.json")" >>"$DATA"
	log "  $name: $(tail -n 1 "$DATA")"
}

log "mode $BENCH_MODE: $RUNS runs per program"
measure par_sum "$BIN/par_sum" 20000 4
measure lock_counter "$BIN/lock_counter"
measure pipeline "$BIN/pipeline"
measure bounded_buffer_ok "$BIN/bounded_buffer_ok"
measure rw_cache_ok "$BIN/rw_cache_ok"
measure ws_deque_ok "$BIN/ws_deque_ok"
measure lost_update "$BIN/lost_update"
for p in $CORPUS_NAMES; do
	measure "$p" $(corpus_cmd "$p" "$IN" break)
done

{
	machine_header "Break mode on memory ownership: the estimate on today's visible accesses"
	printf 'Per program: `CTS_NO_COLD=1 cts-trace -m break -s random --seed 1 -n %s --races report --max-steps 2000000 --timeout 60`, ' "$RUNS"
	printf 'and the report'"'"'s `ownership_estimate` (docs/design.md, "Break mode on memory ownership"). '
	printf '*accesses*: visible plain accesses over all runs (reads, writes, RMWs, library-call ranges; atomics and what the run showed to be synchronization excluded); '
	printf '*native*: those on a page the thread owns or a read-shared page, which would cost no stop and be no scheduling point; '
	printf '*visible*: those on pages learned shared; *void runs*: runs in which a page would turn shared (the run is thrown away and the search restarts with the page shared); '
	printf '*pages learned*: pages shared at the end; *hand-offs*: owner changes ordered by happens-before; *line* columns: the same states on 64-byte lines instead of 4 KiB pages (what deciding visibility per line inside a faulting page would give). '
	printf 'Input of the compressors: the 3.8 KB text of `corpus_input` in tests/corpus/lib.sh. Exact counts: the same on every machine for this build and seed.\n\n'
	printf '| program | runs | steps | accesses | native | native %% | visible | hand-offs | void runs | pages learned | line native %% | line void runs | lines learned | verdict |\n'
	printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
	awk '{ ok = ($4 ~ /^[0-9]+$/ && $4 > 0);
	       pct = ok ? sprintf("%.1f%%", 100 * $5 / $4) : "-";
	       lpct = ok ? sprintf("%.1f%%", 100 * $10 / $4) : "-";
	       printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, pct, $6, $7, $8, $9, lpct, $11, $12, $13 }' "$DATA"
	printf '\n## Commands\n\n```sh\nmake && make programs\nsh benchmarks/ownership.sh %s\n```\n\n' "$BENCH_MODE"
	printf '## Raw data\n\nname runs steps accesses native visible handoffs void_runs pages_learned line_native line_void_runs lines_learned verdict\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
