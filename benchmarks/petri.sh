#!/bin/sh
# benchmarks/petri.sh — the Table 1 programs of Kähkönen & Heljanko (TAP 2014,
# seeds/004): runs ("test executions") and seconds to full coverage for dfs,
# dpor (sleep sets), the naive stateful search with Petri-net state
# matching (dfs --state-match petri: values keying; petri-writes: the
# paper's write-identity keying), the stateless unfolding (unfold
# --no-cutoffs) and the stateful unfolding (unfold, values keying).
#   (a) simulated programs (benchmarks/petri/*.sim, tests/sim/filesystem.sim)
#       through strategies/sim.c: exact, fast, no kernel;
#   (b) the C versions (benchmarks/petri/*.c) on the live tracer, break mode.
# Each cell is cut at SIM_T / REAL_T seconds ("(runs in s)" then: not complete).
# The stateless unfolding's count is its tests (JSON stateless_tests: the runs
# until every event of the prefix was executed by one, as a tester without a
# model needs), the others' their runs.
# PETRI_COLS: the columns to run (default all: dfs dpor petri petri-writes
# unfold-nc unfold), e.g. PETRI_COLS="unfold-nc unfold" to add two columns.
# Output: benchmarks/results/petri.md (tables only; the prose is written by hand).
SCRIPT=petri
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

SIM_T=${SIM_T:-30}
REAL_T=${REAL_T:-60}
COLS=${PETRI_COLS:-dfs dpor petri petri-writes unfold-nc unfold}
if [ "$BENCH_MODE" = quick ]; then SIM_T=5 REAL_T=10; fi
mkdir -p "$BIN"
cc -std=gnu11 -O2 -I"$ROOT" -D_GNU_SOURCE -o "$BIN/simbench" "$BENCH_DIR/petri/simbench.c" \
	"$ROOT/libcts.a" -lcapstone -ldw -lelf -lseccomp -ljansson -lm || die "simbench build failed"
P=$BENCH_DIR/petri
OUTF=$RESULTS
TMP=$SCRATCH/cell

colname() {
	case $1 in
	dfs) printf 'dfs' ;;
	dpor) printf 'dpor' ;;
	petri) printf 'naive stateful (values)' ;;
	petri-writes) printf 'naive stateful (writes, paper)' ;;
	unfold-nc) printf 'stateless unfolding' ;;
	unfold) printf 'stateful unfolding' ;;
	*) die "unknown column $1" ;;
	esac
}
header() {
	h="| program" r="| ---"
	for c in $COLS; do h="$h | $(colname "$c")" r="$r | ---:"; done
	echo "$h |"
	echo "$r |"
}

cell() { # runs/seconds, (runs in seconds) when not complete; $3 = nc: tests
	runs=$(sed -n 's/^runs=\([0-9]*\).*/\1/p' "$1")
	[ "$3" = nc ] && runs=$(sed -n 's/.*stateless_tests=\([0-9]*\).*/\1/p' "$1")
	comp=$(sed -n 's/.*complete=\([01]\).*/\1/p' "$1")
	secs=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$1")
	mk=$(sed -n 's/.*markings=\([0-9]*\).*/\1/p' "$1")
	ev=$(sed -n 's/.*events=\([0-9]*\).*/\1/p' "$1")
	co=$(sed -n 's/.*cutoffs=\([0-9]*\).*/\1/p' "$1")
	if [ "$comp" = 1 ]; then printf '%s / %ss' "$runs" "$secs"; else printf '(%s in %ss)' "$runs" "$secs"; fi
	if [ -n "$2" ] && [ "${ev:-0}" != 0 ]; then
		printf ' [%s, %s/%s]' "$mk" "$ev" "$co"
	elif [ -n "$2" ] && [ "${mk:-0}" != 0 ]; then
		printf ' [%s]' "$mk"
	fi
	return 0
}

{
	echo "### (a) simulated programs (strategies/sim.c), limit ${SIM_T} s per cell"
	echo
	echo "runs / seconds to full coverage; (runs in seconds) = cut by the limit, not complete;"
	echo "[markings stored] for the state-matching searches; unfolding: [markings, events/cut-offs]."
	echo
	header
} > "$OUTF"
sim_row() { # name script const...
	name=$1 script=$2
	shift 2
	row="| $name"
	for s in $COLS; do
		LIMIT_SECONDS=$SIM_T "$BIN/simbench" "$script" $s "$@" > "$TMP" 2>/dev/null
		row="$row | $(cell "$TMP" m $([ $s = unfold-nc ] && echo nc))"
	done
	log "$row"
	echo "$row |" >> "$OUTF"
}
sim_row "Dining 1 (2 philosophers)" "$P/dining.sim" N=2
sim_row "Dining 2 (3)" "$P/dining.sim" N=3
sim_row "Dining 3 (4)" "$P/dining.sim" N=4
sim_row "Dining 4 (5)" "$P/dining.sim" N=5
sim_row "Locking 1 (2 threads)" "$P/locking.sim" N=2
sim_row "Locking 2 (3)" "$P/locking.sim" N=3
sim_row "Locking 3 (4)" "$P/locking.sim" N=4
sim_row "Writes (3 threads x 2)" "$P/writes.sim" N=3 K=2
sim_row "Writes (4 threads x 3)" "$P/writes.sim" N=4 K=3
sim_row "Filesystem 1 (14 threads)" "$ROOT/tests/sim/filesystem.sim" N=14
sim_row "Filesystem 2 (16 threads)" "$ROOT/tests/sim/filesystem.sim" N=16
sim_row "Updater" "$P/updater.sim"
sim_row "Fib 1 (2 rounds)" "$P/fib.sim" K=2
sim_row "Fib 2 (3 rounds)" "$P/fib.sim" K=3
sim_row "Szymanski" "$P/szymanski.sim"
sim_row "Synthetic 1" "$P/synthetic1.sim"
sim_row "Synthetic 2" "$P/synthetic2.sim"
sim_row "Synthetic 3" "$P/synthetic3.sim"

{
	echo
	echo "### (b) live tracer, break mode, limit ${REAL_T} s per cell"
	echo
	header
} >> "$OUTF"
for p in dining locking writes fib; do
	cc $CFLAGS_BENCH -o "$BIN/petri_$p" "$P/$p.c" || die "build $p"
done
real_row() { # name prog args...
	name=$1 prog=$2
	shift 2
	row="| $name"
	for c in $COLS; do
		case $c in
		petri | petri-writes) s="dfs --state-match $c" ;;
		unfold-nc) s="unfold --no-cutoffs" ;;
		*) s=$c ;;
		esac
		"$CTS" -q -m break -s $s -t "$REAL_T" -o "$SCRATCH/cts-out" --report "$TMP.json" \
			-- "$BIN/petri_$prog" "$@" >/dev/null 2>&1
		printf 'runs=%s complete=%s markings=%s events=%s cutoffs=%s stateless_tests=%s seconds=%s\n' \
			"$(jq -r .runs "$TMP.json")" \
			"$(jq -r 'if .complete then 1 else 0 end' "$TMP.json")" \
			"$(jq -r '.state_matching.markings // 0' "$TMP.json")" \
			"$(jq -r '.state_matching.events // 0' "$TMP.json")" \
			"$(jq -r '.state_matching.terminals // 0' "$TMP.json")" \
			"$(jq -r '.state_matching.stateless_tests // 0' "$TMP.json")" \
			"$(jq -r .elapsed_seconds "$TMP.json")" > "$TMP"
		row="$row | $(cell "$TMP" m $([ $c = unfold-nc ] && echo nc))"
	done
	log "$row"
	echo "$row |" >> "$OUTF"
}
real_row "Dining 1 (2 philosophers)" dining 2
real_row "Dining 2 (3)" dining 3
real_row "Dining 3 (4)" dining 4
real_row "Locking 1 (2 threads)" locking 2
real_row "Locking 2 (3)" locking 3
real_row "Writes (3 threads x 2)" writes 3 2
real_row "Fib 1 (2 rounds)" fib
log "wrote $OUTF"
