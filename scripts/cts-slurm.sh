#!/bin/bash
# Run one cts-trace search as a Slurm job array of N shards and a dependent
# job that merges them.
#   scripts/cts-slurm.sh N OUTDIR [CTS-TRACE OPTIONS] -- PROGRAM [ARGS...]
# Submits `sbatch --array=1-N` (task I runs cts-trace --shard I/N and writes
# OUTDIR/shard-I.json) and `sbatch --dependency=afterany:ARRAY` running
# cts-trace merge into OUTDIR/report.json (its exit status goes to
# OUTDIR/merge.status: 0 no bug, 1 bugs, 2 a shard failed or is missing,
# 4 no bug but the shards' runs showed different learned sets of shared
# lines: copy OUTDIR/report.json aside, to FILE, and submit the search again
# with --hot-lines FILE among its options, until the status is not 4; see
# scripts/cts-parallel.sh, which does so itself).
# OUTDIR must be on a file system every node sees. Prints the two job ids.
# SBATCH_OPTS passes more options to both sbatch calls (partition, time).
set -u
[ $# -ge 3 ] || { echo "usage: $0 N OUTDIR [OPTIONS] -- PROGRAM [ARGS...]" >&2; exit 2; }
n=$1 out=$2
shift 2
CTS=${CTS:-cts-trace}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
qo=$(printf %q "$out")
i='$SLURM_ARRAY_TASK_ID'
# A shard that finds a bug exits 1; the array task must still count as done.
array=$(sbatch --parsable ${SBATCH_OPTS:-} --array=1-"$n" --job-name=cts-shard \
	--output="$out/shard-%a.log" --chdir="$PWD" --wrap \
	"$(printf %q "$CTS") -q --shard $i/$n --report $qo/shard-$i.json -o $qo/shard-$i$(printf ' %q' "$@"); true") \
	|| exit 2
array=${array%%;*}
reports=$(for i in $(seq "$n"); do printf ' %q' "$out/shard-$i.json"; done)
merge=$(sbatch --parsable ${SBATCH_OPTS:-} --dependency=afterany:"$array" --job-name=cts-merge \
	--output="$out/merge.log" --chdir="$PWD" --wrap \
	"$(printf %q "$CTS") merge$reports --report $(printf %q "$out")/report.json; echo \$? > $(printf %q "$out")/merge.status") || exit 2
echo "$array ${merge%%;*}"
