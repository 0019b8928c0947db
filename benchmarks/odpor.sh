#!/bin/sh
# benchmarks/odpor.sh — optimal DPOR (-s odpor: wakeup trees and sleep sets,
# Abdulla, Aronis, Jonsson, Sagonas, POPL 2014) against dpor (Flanagan &
# Godefroid with sleep sets): runs, runs cut short as redundant, seconds.
#   (a) simulated programs (strategies/sim.c through benchmarks/petri/simbench):
#       dining philosophers 3/4/5 (benchmarks/petri/dining.sim), the paper's
#       lastzero(N) and readers(N) (benchmarks/odpor/*.sim), Filesystem and
#       Indexer (tests/sim); exact counts, times the median of SIM_REPS;
#   (b) the live tracer, break mode: the same dining, lastzero and readers
#       programs in C (benchmarks/petri/dining.c, benchmarks/odpor/*.c);
#   (c) the live tracer on benchmarks/programs: runs to the first bug
#       (buggy programs) and to the end of the search (their twins), in the
#       minimal mode of each program.
# Each live cell is one invocation cut at REAL_T / PROG_T seconds
# ("(runs in s)": not complete). Output: benchmarks/results/odpor.md
# (tables; the prose after them is written by hand).
SCRIPT=odpor
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

SIM_T=${SIM_T:-120}
SIM_REPS=${SIM_REPS:-3}
REAL_T=${REAL_T:-120}
PROG_T=${PROG_T:-60}
if [ "$BENCH_MODE" = quick ]; then SIM_T=10 SIM_REPS=1 REAL_T=10 PROG_T=5; fi
cc -std=gnu11 -O2 -I"$ROOT" -D_GNU_SOURCE -o "$BIN/simbench" "$BENCH_DIR/petri/simbench.c" \
	"$ROOT/libcts.a" -lcapstone -ldw -lelf -lseccomp -ljansson -lm || die "simbench build failed"
TMP=$SCRATCH/cell
TAB=$SCRATCH/tables.md

# sim_cell SCRIPT STRATEGY CONST...: "runs [cut] / median s", or "(runs in s)"
sim_cell() {
	script=$1 s=$2
	shift 2
	: > "$TMP.t"
	i=0
	while [ $i -lt "$SIM_REPS" ]; do
		LIMIT_SECONDS=$SIM_T "$BIN/simbench" "$script" "$s" "$@" > "$TMP" 2>/dev/null
		sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$TMP" >> "$TMP.t"
		i=$((i + 1))
	done
	runs=$(sed -n 's/.*runs=\([0-9]*\).*/\1/p' "$TMP")
	comp=$(sed -n 's/.*complete=\([01]\).*/\1/p' "$TMP")
	cut=$(sed -n 's/.*cut=\([0-9]*\).*/\1/p' "$TMP")
	secs=$(stats < "$TMP.t" | cut -d' ' -f1)
	if [ "$comp" = 1 ]; then
		printf '%s [%s] / %ss' "$runs" "$cut" "$secs"
	else
		printf '(%s [%s] in %ss)' "$runs" "$cut" "$secs"
	fi
}
sim_row() { # name script const...
	name=$1 script=$2
	shift 2
	row="| $name | $(sim_cell "$script" dpor "$@") | $(sim_cell "$script" odpor "$@") |"
	log "$row"
	echo "$row" >> "$TAB"
}

# live_cell LIMIT MODE STRATEGY PROG ARGS...: runs [cut] / s, "(... in s)"
# when cut by the limit, "bug after N runs / s" when a bug stopped it
live_cell() {
	lim=$1 mode=$2 s=$3
	shift 3
	rm -f "$TMP.json"
	run_cts "$((lim + 30))" -q -m "$mode" -s "$s" -n 0 -t "$lim" -o "$SCRATCH/out" \
		--report "$TMP.json" -- "$@" >/dev/null 2>&1
	rc=$?
	runs=$(json "$TMP.json" .summary.runs) cut=$(json "$TMP.json" .summary.cut)
	secs=$(json "$TMP.json" .elapsed_seconds)
	comp=$(json "$TMP.json" .summary.complete)
	exh=$(json "$TMP.json" .exhausted)
	if [ $rc -eq 1 ]; then
		printf 'bug: %s [%s] / %ss' "$runs" "$cut" "$secs"
	elif [ $rc -eq 0 ] && [ "$comp" = true ]; then
		printf '%s [%s] / %ss' "$runs" "$cut" "$secs"
	elif [ $rc -eq 0 ] && [ "$exh" = true ]; then
		printf '%s [%s] / %ss (exhausted; unseen)' "$runs" "$cut" "$secs"
	elif [ $rc -eq 0 ]; then
		printf '(%s [%s] in %ss)' "$runs" "$cut" "$secs"
	else
		printf 'exit %s' "$rc"
	fi
}
live_row() { # name limit mode prog args...
	name=$1 lim=$2 mode=$3
	shift 3
	row="| $name | $(live_cell "$lim" "$mode" dpor "$@") |"
	export CTS_NO_COLD=1
	row="$row $(live_cell "$lim" "$mode" dpor "$@") |"
	unset CTS_NO_COLD
	row="$row $(live_cell "$lim" "$mode" odpor "$@") |"
	log "$row"
	echo "$row" >> "$TAB"
}

head_ab() {
	printf '| program | dpor | odpor |\n| --- | ---: | ---: |\n' >> "$TAB"
}
head_live() {
	printf 'dpor runs with cold reads (tracer/cold.h: a run that shows a hidden read voids\n' >> "$TAB"
	printf 'it and the search starts again, so its count includes runs before the restart);\n' >> "$TAB"
	printf 'odpor never does; the middle column is dpor without them (CTS_NO_COLD=1).\n\n' >> "$TAB"
	printf '| program | dpor | dpor, no cold reads | odpor |\n| --- | ---: | ---: | ---: |\n' >> "$TAB"
}

P=$BENCH_DIR/petri
O=$BENCH_DIR/odpor
{
	echo "## (a) simulated programs (strategies/sim.c), ${SIM_T} s per cell, median of ${SIM_REPS}"
	echo
	echo "runs [of them cut short as redundant] / seconds to the end of the search;"
	echo "(runs in s): cut by the limit, not complete."
	echo
} > "$TAB"
head_ab
sim_row "Dining 3 philosophers" "$P/dining.sim" N=3
sim_row "Dining 4" "$P/dining.sim" N=4
sim_row "Dining 5" "$P/dining.sim" N=5
for n in 3 5 8 10; do sim_row "lastzero($n)" "$O/lastzero.sim" N=$n; done
for n in 3 6 8 10; do sim_row "readers($n)" "$O/readers.sim" N=$n; done
sim_row "Filesystem (14 threads)" "$ROOT/tests/sim/filesystem.sim" N=14
sim_row "Filesystem (16 threads)" "$ROOT/tests/sim/filesystem.sim" N=16
sim_row "Indexer" "$ROOT/tests/sim/indexer.sim"

cc $CFLAGS_BENCH -o "$BIN/odpor_dining" "$P/dining.c" || die "build dining"
cc $CFLAGS_BENCH -o "$BIN/odpor_lastzero" "$O/lastzero.c" || die "build lastzero"
cc $CFLAGS_BENCH -o "$BIN/odpor_readers" "$O/readers.c" || die "build readers"
{
	echo
	echo "## (b) live tracer, break mode, ${REAL_T} s per cell, one invocation each"
	echo
} >> "$TAB"
head_live
for n in 3 4 5; do live_row "Dining $n philosophers" "$REAL_T" break "$BIN/odpor_dining" $n; done
for n in 3 5 8; do live_row "lastzero($n)" "$REAL_T" break "$BIN/odpor_lastzero" $n; done
for n in 3 6 8; do live_row "readers($n)" "$REAL_T" break "$BIN/odpor_readers" $n; done

{
	echo
	echo "## (c) benchmarks/programs, live tracer, minimal mode, ${PROG_T} s per cell"
	echo
	echo "bug: runs / s to the first bug; twins: runs / s to the end of the search;"
	echo "(exhausted; unseen): the search ran out of schedules but is not complete because"
	echo "the program has something the mode does not see (the report's \"unseen\");"
	echo "(runs in s): the search stopped short of its end (limit, or a strategy that could not"
	echo "claim it had explored everything)."
	echo
} >> "$TAB"
head_live
for p in deadlock lost_wakeup check_act bounded_buffer rw_cache pool_shutdown bank3 \
	lost_update publish dcl ws_deque; do
	case $p in lost_update | publish | dcl | ws_deque) m=break ;; *) m=sync ;; esac
	build_bench "$p"
	build_bench "${p}_ok"
	live_row "$p ($m)" "$PROG_T" "$m" "$BIN/$p"
	live_row "${p}_ok ($m)" "$PROG_T" "$m" "$BIN/${p}_ok"
done

{
	machine_header "Optimal DPOR (odpor) against dpor"
	cat "$TAB"
} > "$RESULTS"
log "wrote $RESULTS"
