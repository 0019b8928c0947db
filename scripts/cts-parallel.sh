#!/bin/bash
# Run one cts-trace search as N shards with GNU parallel and merge them.
#   scripts/cts-parallel.sh N OUTDIR [CTS-TRACE OPTIONS] -- PROGRAM [ARGS...]
# Locally N shards run side by side (parallel's -j, default one per core).
# Across machines: PARALLEL="--sshlogin 8/host1,8/host2 --workdir ." (every
# host needs cts-trace and the program at the same paths). Shard I writes
# OUTDIR/shard-I.json and its schedules under OUTDIR/shard-I/; the merged
# report is OUTDIR/report.json. In break mode the shards learn shared lines
# each on its own: when their learned sets differ (merge exits 4), every
# shard runs again from their union (OUTDIR/learned-R.json, R = 1, 2...),
# at most 16 times, so the merged report is one search on one learned set.
# Exit status: cts-trace merge's (0 no bug, 1 bugs, 2 a shard failed or is
# missing, 4 no bug but the shards' learned sets still differ).
set -u
[ $# -ge 3 ] || { echo "usage: $0 N OUTDIR [OPTIONS] -- PROGRAM [ARGS...]" >&2; exit 2; }
n=$1 out=$2
shift 2
CTS=${CTS:-cts-trace}
mkdir -p "$out" || exit 2
reports=()
for i in $(seq "$n"); do reports+=("$out/shard-$i.json"); done
from=()
for r in $(seq 16); do
	# Each shard's own exit status (1 = it found a bug) is not a failure
	# here: the merge decides. --halt never lets every shard finish.
	parallel --halt never ${PARALLEL:-} "$CTS" -q --shard {}/"$n" --report "$out/shard-{}.json" \
		-o "$out/shard-{}" "${from[@]}" "$@" ::: $(seq "$n")
	"$CTS" merge "${reports[@]}" --report "$out/report.json"
	st=$?
	[ $st -eq 4 ] || exit $st
	# The shards' sets differ: all of them again, from the union.
	cp "$out/report.json" "$out/learned-$r.json" || exit 2
	from=(--hot-lines "$out/learned-$r.json")
done
exit $st
