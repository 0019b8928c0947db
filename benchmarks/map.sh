#!/bin/sh
# benchmarks/map.sh quick|full — MAP coverage (seeds/001, Wang et al. ASE 2019):
#   (a) runs to the first bug, --strategy map vs random (and pct), SEEDS seeds,
#       break mode, on the bug programs of benchmarks/programs;
#   (b) MAP coverage (covered / estimated patterns) after 10, 25 and N runs of
#       map, random and pct on each correct twin (no bug ends the search);
#   (c) the paper's RQ3 in shape: over the buggy programs run with --keep-going,
#       Kendall's tau between the MAP coverage reached after k runs and whether
#       the bug was found by then (k = 10, 25, N; every strategy and seed);
#   (d) patterns covered after 5, 10, 25, 50 runs of simulated programs
#       (benchmarks/map/*.sim through benchmarks/map/mapsim.c): no tracer.
# Counts only (runs, patterns): wall time on the shared VM is noise.
SCRIPT=map
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts
need_tool python3 "Kendall's tau" python3

STRATS="map random pct"
if [ "$BENCH_MODE" = quick ]; then
	BUGS="lost_update publish dcl ws_deque"
	SEEDS="1 2 3"
	NBUG=300 NCOV=30 T_RUN=60
else
	BUGS=$(cd "$PROGS" && ls *_ok.c | sed 's/_ok\.c$//' | tr '\n' ' ')
	SEEDS="1 2 3 4 5"
	NBUG=500 NCOV=50 T_RUN=60
fi
BUGS=${BENCH_PROGRAMS:-$BUGS}
for p in $BUGS; do
	build_bench "$p"
	build_bench "${p}_ok"
done
DATA=$SCRATCH/data.txt
: > "$DATA"

# (a) runs to the first bug
{
	machine_header "MAP coverage: map vs random vs pct (benchmarks/map.sh)"
	echo "MAP and HaPSet coverage after 10, 50 and 200 runs of every strategy (dpor, pcb2, guided"
	echo "or not, pct, random, map): [coverage.md](coverage.md) (benchmarks/coverage.sh)."
	echo
	echo "### (a) runs to the first bug (break mode, at most $NBUG runs, seeds $SEEDS)"
	echo
	echo "median (min–max) runs over the seeds that found it; found/seeds; MAP coverage at the bug"
	echo
	echo "| program | map | random | pct |"
	echo "| --- | ---: | ---: | ---: |"
} > "$SCRATCH/table.md"
# on_bug SEED FOUND RUNS SECS KIND COMPLETE EXIT MAP_PERCENT: one seed's search
on_bug() {
	rm -rf "$SCRATCH/o"
	echo "bug $p $s $1 rc=$7 runs=$3 map_percent=${8:--}" >> "$DATA"
	if [ "$7" -eq 1 ]; then
		found=$((found + 1))
		echo "$3" >> "$SCRATCH/runs"
		cov="$cov ${8:--}"
	fi
}
for p in $BUGS; do
	row="| $p"
	for s in $STRATS; do
		: > "$SCRATCH/runs"
		found=0 cov=""
		first_bug_searches "$SEEDS" "$T_RUN" '"\(.coverage.totals.map.percent)"' on_bug "$BIN/$p" \
			-q -m break -s "$s" -n "$NBUG" --coverage -o "$SCRATCH/o"
		set -- $(stats < "$SCRATCH/runs")
		cm=$(printf '%s\n' $cov | stats | cut -d' ' -f1)
		row="$row | $(mmm %s "$1" "$2" "$3") ($found/$(echo $SEEDS | wc -w); ${cm}%)"
	done
	log "$row"
	echo "$row |" >> "$SCRATCH/table.md"
done

# (b) coverage after k runs on the twins
{
	echo
	echo "### (b) MAP coverage on the correct twins after 10 / 25 / $NCOV runs (break mode)"
	echo
	echo "patterns covered after 10 · 25 · $NCOV runs, then the percentage of the estimate after $NCOV"
	echo "runs (medians over seeds $SEEDS, each taken on its own)"
	echo
	echo "| program | map | random | pct |"
	echo "| --- | --- | --- | --- |"
} >> "$SCRATCH/table.md"
at() { # REPORT K -> "covered/estimate (pct%)" of row K-1 (or the last)
	jq -r --argjson k "$2" '.coverage.series as $s | ($s[[($k - 1), ($s | length) - 1] | min])
		| "\(.map_covered) \(.map_estimate) \(.map_percent)"' "$1" 2>/dev/null || echo "- - -"
}
for p in $BUGS; do
	row="| ${p}_ok"
	for s in $STRATS; do
		: > "$SCRATCH/c10"; : > "$SCRATCH/c25"; : > "$SCRATCH/cN"
		for seed in $SEEDS; do
			run_cts "$T_RUN" -q -m break -s "$s" --seed "$seed" -n "$NCOV" --coverage \
				--report "$SCRATCH/r.json" -o "$SCRATCH/o" -- "$BIN/${p}_ok" >/dev/null 2>&1
			rm -rf "$SCRATCH/o"
			for k in 10 25 "$NCOV"; do
				set -- $(at "$SCRATCH/r.json" "$k")
				echo "cov ${p}_ok $s $seed k=$k covered=$1 estimate=$2 percent=$3" >> "$DATA"
				f=$SCRATCH/c$k
				[ "$k" = "$NCOV" ] && f=$SCRATCH/cN
				echo "$1 $2 $3" >> "$f"
			done
		done
		cell=""
		for f in c10 c25 cN; do
			c=$(cut -d' ' -f1 "$SCRATCH/$f" | stats | cut -d' ' -f1)
			cell="$cell${cell:+ · }$c"
		done
		e=$(cut -d' ' -f2 "$SCRATCH/cN" | stats | cut -d' ' -f1)
		q=$(cut -d' ' -f3 "$SCRATCH/cN" | stats | cut -d' ' -f1)
		row="$row | $cell ($q% of $e)"
	done
	log "$row"
	echo "$row |" >> "$SCRATCH/table.md"
done

# (c) coverage against bugs found, --keep-going on the buggy programs
for p in $BUGS; do
	for s in $STRATS; do
		for seed in $SEEDS; do
			run_cts "$T_RUN" -q -m break -s "$s" --seed "$seed" -n "$NCOV" --keep-going \
				--coverage --report "$SCRATCH/r.json" -o "$SCRATCH/o" -- "$BIN/$p" >/dev/null 2>&1
			rm -rf "$SCRATCH/o"
			for k in 10 25 "$NCOV"; do
				jq -r --argjson k "$k" --arg p "$p" --arg s "$s" --arg seed "$seed" \
					'.coverage.series as $x | ($x[[($k - 1), ($x | length) - 1] | min])
					| "kg \($p) \($s) \($seed) k=\($k) percent=\(.map_percent) bugs=\(.bugs)"' \
					"$SCRATCH/r.json" >> "$DATA" 2>/dev/null
			done
		done
	done
done
python3 - "$DATA" >> "$SCRATCH/table.md" <<'PY'
import sys, itertools
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("kg ")]
by = {}
for r in rows:
    kv = dict(x.split("=") for x in r[4:])
    by.setdefault(r[1], []).append((float(kv["percent"]), int(kv["bugs"])))
def tau_b(pts):
    c = d = tx = ty = 0
    for (x1, y1), (x2, y2) in itertools.combinations(pts, 2):
        sx, sy = (x1 > x2) - (x1 < x2), (y1 > y2) - (y1 < y2)
        if sx and sy:
            c += sx == sy
            d += sx != sy
        elif sx:
            tx += 1
        elif sy:
            ty += 1
    n = ((c + d + tx) * (c + d + ty)) ** 0.5
    return (c - d) / n if n else None
print()
print("### (c) MAP coverage vs bugs found (--keep-going; points: strategy x seed x k)")
print()
print("Kendall tau-b between MAP coverage after k runs and distinct bugs found by then")
print("(the paper's RQ3 in shape; `-` when either side never varies)")
print()
print("| program | points | tau-b |")
print("| --- | ---: | ---: |")
taus = []
for p, pts in sorted(by.items()):
    t = tau_b(pts)
    if t is not None:
        taus.append(t)
    print("| %s | %d | %s |" % (p, len(pts), "-" if t is None else "%.2f" % t))
if taus:
    print("| mean | | %.2f |" % (sum(taus) / len(taus)))
PY
# (d) simulated programs: coverage after k runs, no tracer involved
cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT" -D_GNU_SOURCE -o "$BIN/mapsim" "$BENCH_DIR/map/mapsim.c" \
	"$ROOT/libcts.a" -lcapstone -ldw -lelf -lseccomp -ljansson -lm || die "mapsim build failed"
{
	echo
	echo "### (d) simulated programs (strategies/sim.c): patterns covered after 5 · 10 · 25 · 50 runs"
	echo
	echo "median over seeds $SEEDS; the estimate after 50 runs in the header"
	echo
	echo "| program | estimate | map | random | pct |"
	echo "| --- | ---: | --- | --- | --- |"
} >> "$SCRATCH/table.md"
sim_row() { # NAME SCRIPT CONST...
	name=$1 script=$2
	shift 2
	row="| $name"
	est=-
	for s in $STRATS; do
		: > "$SCRATCH/sim"
		for seed in $SEEDS; do
			"$BIN/mapsim" "$script" "$s" "$seed" 50 "$@" > "$SCRATCH/sim.json" 2>/dev/null
			jq -r '.series as $x | "\($x[4].map_covered) \($x[9].map_covered) \($x[24].map_covered) \($x[49].map_covered) \($x[49].map_estimate)"' \
				"$SCRATCH/sim.json" >> "$SCRATCH/sim" 2>/dev/null
			echo "sim $name $s $seed $(tail -n 1 "$SCRATCH/sim")" >> "$DATA"
		done
		cell=""
		for c in 1 2 3 4; do
			cell="$cell${cell:+ · }$(cut -d' ' -f$c "$SCRATCH/sim" | stats | cut -d' ' -f1)"
		done
		est=$(cut -d' ' -f5 "$SCRATCH/sim" | stats | cut -d' ' -f1)
		row="$row | $cell"
	done
	log "$name $row"
	echo "| $name | $est ${row#| $name} |" >> "$SCRATCH/table.md"
}
sim_row "skew K=8" "$BENCH_DIR/map/skew.sim" K=8
sim_row "skew K=32" "$BENCH_DIR/map/skew.sim" K=32
sim_row "even" "$BENCH_DIR/map/even.sim"

{
	echo
	echo "### Commands"
	echo
	echo '```'
	echo "(a) cts-trace -q -m break -s STRATEGY --seed S -n $NBUG --coverage --report R.json PROGRAM"
	echo "(b) cts-trace -q -m break -s STRATEGY --seed S -n $NCOV --coverage --report R.json PROGRAM_ok"
	echo "(c) cts-trace -q -m break -s STRATEGY --seed S -n $NCOV --keep-going --coverage --report R.json PROGRAM"
	echo "(d) benchmarks/map/mapsim SCRIPT STRATEGY SEED 50 [K=N]   (built against libcts.a)"
	echo '```'
	echo
	echo "### Raw data"
	echo
	echo '```'
	cat "$DATA"
	echo '```'
} >> "$SCRATCH/table.md"
publish
