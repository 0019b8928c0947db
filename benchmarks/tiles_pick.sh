#!/bin/sh
# benchmarks/tiles_pick.sh quick|full — issue 29 item 6 (seeds/002): runs to
# the first bug under a run budget (never a time budget) for plain dpor, and
# dpor and random inside instances of 16-point tiles, 2 per thread, drawn as
# the paper draws them (--tile-pick uniform) or first among the tiles where
# the first run's threads conflict (--tile-pick conflicts, the default).
# narrow3: three preemptions in narrow windows of a long run; relay: three
# preemptions anywhere in a long run (tiles.sh's program). Each searched
# configuration's twin gets the same search with seed 1 and must stay clean.
SCRIPT=tiles_pick
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

if [ "$BENCH_MODE" = quick ]; then
	CASES="narrow3:300:300"
	SEEDS="1"
else
	CASES="narrow3:300:1000 relay:250_8:300"
	SEEDS="1 2 3"
fi
# name|randomized|options; RUNS is the case's run budget: dpor gets it as
# -n, instances RUNS/100 (dpor, at most 100 runs each) or RUNS/5 (random, 5
# runs each), so no search makes more than RUNS + 1 runs. dpor often ends an
# instance in fewer: the table says how many runs searches without a bug made.
CONFIGS='dpor|no|-s dpor -n $RUNS
inst-dpor-uniform|yes|-s dpor --instances $((RUNS / 100)) -n 100 --tile-pick uniform
inst-dpor-conflicts|yes|-s dpor --instances $((RUNS / 100)) -n 100 --tile-pick conflicts
inst-random-uniform|yes|-s random --instances $((RUNS / 5)) -n 5 --tile-pick uniform
inst-random-conflicts|yes|-s random --instances $((RUNS / 5)) -n 5 --tile-pick conflicts'

for p in narrow3 narrow3_ok relay relay_ok; do build_bench $p; done

{
	machine_header "Instances: tiles picked at the first run's conflicts vs the paper's uniform draws (benchmarks/tiles_pick.sh)"
	echo "Mode sync; tiles of 16 points, 2 per thread (the defaults). Runs to the first bug"
	echo "(the 1-based run, counting the first run that learns the points), median (min–max)"
	echo "over the seeds that found it, found/seeds, under a run budget; the twin gets the"
	echo "same search with seed 1."
	echo
} >"$SCRATCH/table.md"

for c in $CASES; do
	prog=${c%%:*}
	rest=${c#*:}
	args=$(echo "${rest%%:*}" | tr _ ' ')
	RUNS=${rest##*:}
	{
		echo "## $prog $args (budget $RUNS runs)"
		echo
		echo "| configuration | found | runs to bug | runs made without a bug | twin (${prog}_ok) |"
		echo "| --- | --- | --- | --- | --- |"
	} >>"$SCRATCH/table.md"
	echo "$CONFIGS" | while IFS='|' read -r name randomized optt; do
		opts=$(eval "echo \"$optt\"")
		seeds=$SEEDS
		[ "$randomized" = yes ] || seeds=1
		: >"$SCRATCH/runs"
		: >"$SCRATCH/none"
		found=0 n=0
		for s in $seeds; do
			n=$((n + 1))
			rep=$SCRATCH/r.json
			rm -rf "$SCRATCH/out" "$rep"
			timeout 3600 nice "$CTS" -q -m sync $opts --seed "$s" \
				--report "$rep" -o "$SCRATCH/out" -- "$BIN/$prog" $args >/dev/null 2>&1
			rc=$?
			if [ $rc -eq 1 ] && [ -s "$rep" ]; then
				found=$((found + 1))
				jq -r '.bugs[0].run + 1' "$rep" >>"$SCRATCH/runs"
			elif [ -s "$rep" ]; then
				jq -r '.runs' "$rep" >>"$SCRATCH/none"
			fi
			log "$prog $args: $name seed $s: exit $rc, $(jq -r '.runs' "$rep" 2>/dev/null) runs"
		done
		timeout 3600 nice "$CTS" -q -m sync $opts --seed 1 \
			-o "$SCRATCH/out-ok" -- "$BIN/${prog}_ok" $args >/dev/null 2>&1
		trc=$?
		twin=$([ $trc -eq 0 ] && echo clean || echo "exit $trc")
		set -- $(stats <"$SCRATCH/runs")
		r=$(mmm %.0f "$1" "$2" "$3")
		set -- $(stats <"$SCRATCH/none")
		nb=$(mmm %.0f "$1" "$2" "$3")
		echo "| $name: \`$opts\` | $found/$n | $r | $nb | $twin |" >>"$SCRATCH/table.md"
	done
	echo >>"$SCRATCH/table.md"
done
publish
