#!/bin/bash
# Run one cts-trace search as N shards with GNU parallel and merge them.
#   scripts/cts-parallel.sh N OUTDIR [CTS-TRACE OPTIONS] -- PROGRAM [ARGS...]
# Locally N shards run side by side (parallel's -j, default one per core).
# Across machines: PARALLEL="--sshlogin 8/host1,8/host2 --workdir ." (every
# host needs cts-trace and the program at the same paths). Shard I writes
# OUTDIR/shard-I.json and its schedules under OUTDIR/shard-I/; the merged
# report is OUTDIR/report.json. Exit status: cts-trace merge's (0 no bug,
# 1 bugs, 2 a shard failed or is missing).
set -u
[ $# -ge 3 ] || { echo "usage: $0 N OUTDIR [OPTIONS] -- PROGRAM [ARGS...]" >&2; exit 2; }
n=$1 out=$2
shift 2
CTS=${CTS:-cts-trace}
mkdir -p "$out" || exit 2
# Each shard's own exit status (1 = it found a bug) is not a failure here:
# the merge decides. --halt never lets every shard finish.
parallel --halt never ${PARALLEL:-} "$CTS" -q --shard {}/"$n" --report "$out/shard-{}.json" \
	-o "$out/shard-{}" "$@" ::: $(seq "$n")
reports=()
for i in $(seq "$n"); do reports+=("$out/shard-$i.json"); done
exec "$CTS" merge "${reports[@]}" --report "$out/report.json"
