#!/bin/sh
# benchmarks/tiles.sh quick|full — seeds/002's claim in shape: on bugs that
# need several context switches in long runs, a few randomly drawn instances
# of a uniform window tiling (--instances, strategies/tiles.h), searched one
# after another, find the bug sooner (runs, wall clock) than one search over
# the whole program (dfs, dpor, pcb), with random and pct for reference.
# Every configuration runs under the same wall-clock budget (--time); the
# randomized ones with 3 seeds (1 in quick mode). Runs and seconds to the
# first bug come from the JSON report; "-" = no bug within the budget.
SCRIPT=tiles
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

if [ "$BENCH_MODE" = quick ]; then
	CASES="relay:250_8"
	SEEDS="1"
	LIMIT=20
else
	CASES="relay:250_8 relay:250_8_3 relay:1000_8"
	SEEDS="1 2 3"
	LIMIT=40
fi
# name|randomized|options (instances: runs per instance, tiles, tiles per thread)
CONFIGS="inst-random-t16|yes|-s random -n 5 --instances 1000 --tile 16 --tiles-per-thread 2
inst-random-t64|yes|-s random -n 5 --instances 1000 --tile 64 --tiles-per-thread 2
inst-pct-t16|yes|-s pct --depth 4 -n 5 --instances 1000 --tile 16 --tiles-per-thread 2
inst-dpor-t2|yes|-s dpor --instances 1000 --tile 2 --tiles-per-thread 2
random|yes|-s random -n 0
pct|yes|-s pct --depth 4 -n 0
dfs|no|-s dfs
dpor|no|-s dpor
pcb-3|no|-s pcb --bound 3"

build_bench relay
build_bench relay_ok
log "budget ${LIMIT}s per configuration; cases: $CASES"

{
	echo "# Instances of a tiling vs whole-program search (benchmarks/tiles.sh $BENCH_MODE)"
	echo
	echo "cts-trace: $CTS_ID; $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load average"
	echo "$(cut -d' ' -f1-3 /proc/loadavg) at the start (the machine was shared: other builds"
	echo "and tests ran at the same time, so seconds are loaded-machine seconds)."
	echo
	echo "Mode sync, budget ${LIMIT} s per search; runs and seconds to the first bug, median"
	echo "(min–max) over the seeds that found it, and how many of them did."
	echo
} >"$RESULTS"

for c in $CASES; do
	prog=${c%%:*}
	args=$(echo "${c#*:}" | tr _ ' ')
	{
		echo "## $prog $args"
		echo
		echo "| configuration | found | runs to bug | seconds to bug | twin (${prog}_ok) |"
		echo "| --- | --- | --- | --- | --- |"
	} >>"$RESULTS"
	echo "$CONFIGS" | while IFS='|' read -r name randomized opts; do
		seeds=$SEEDS
		[ "$randomized" = yes ] || seeds=1
		: >"$SCRATCH/runs" ; : >"$SCRATCH/secs"
		found=0 n=0
		for s in $seeds; do
			n=$((n + 1))
			rep=$SCRATCH/r.json
			rm -rf "$SCRATCH/out" "$rep"
			t0=$(now)
			timeout $((LIMIT + 60)) nice "$CTS" -q -m sync $opts --seed "$s" -t "$LIMIT" \
				--report "$rep" -o "$SCRATCH/out" -- "$BIN/$prog" $args >/dev/null 2>&1
			rc=$?
			t1=$(now)
			if [ $rc -eq 1 ] && [ -s "$rep" ]; then
				found=$((found + 1))
				# runs to the bug: the bug's (0-based) run + 1
				jq -r '.bugs[0].run + 1' "$rep" >>"$SCRATCH/runs"
				echo "$(fsub "$t1" "$t0")" >>"$SCRATCH/secs"
			fi
			log "$prog $args: $name seed $s: exit $rc, $(fsub "$t1" "$t0") s"
		done
		twin=-
		if [ "$randomized" = yes ]; then
			# the twin under the same search (first seed): must stay clean
			timeout $((LIMIT + 60)) nice "$CTS" -q -m sync $opts --seed 1 -t "$((LIMIT / 2))" \
				-o "$SCRATCH/out-ok" -- "$BIN/${prog}_ok" $args >/dev/null 2>&1
			trc=$?
			twin=$([ $trc -eq 0 ] && echo clean || echo "exit $trc")
		fi
		set -- $(stats <"$SCRATCH/runs")
		r=$(mmm %.0f "$1" "$2" "$3")
		set -- $(stats <"$SCRATCH/secs")
		sec=$(mmm %.1f "$1" "$2" "$3")
		echo "| $name: \`$opts\` | $found/$n | $r | $sec | $twin |" >>"$RESULTS"
	done
	echo >>"$RESULTS"
done
log "wrote $RESULTS"
