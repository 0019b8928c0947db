#!/bin/sh
# benchmarks/run-all.sh quick|full — run every benchmark script in turn.
#   quick: small inputs and budgets (a few minutes), tables in
#          benchmarks/results/quick/ (git-ignored: the tracked tree stays clean)
#   full:  the committed results in benchmarks/results/ (~45 minutes, and
#          coverage.sh's up to 126 searches of <= 60 s)
# `make bench-quick` / `make bench` build cts-trace first and call this.
# See benchmarks/README.md.
case "${1:-}" in
quick | full) mode=$1 ;;
*) echo "usage: sh benchmarks/run-all.sh quick|full" >&2; exit 2 ;;
esac
dir=$(cd "$(dirname "$0")" && pwd)
# one snapshot of the binary for all the scripts (the tree is shared and
# may be rebuilt while the benchmarks run)
if [ -z "${CTS_TRACE:-}" ]; then
	root=$(dirname "$dir")
	[ -x "$root/cts-trace" ] || { echo "run-all: $root/cts-trace not found: run 'make' first" >&2; exit 2; }
	mkdir -p "$dir/work" && cp "$root/cts-trace" "$dir/work/cts-trace.run-all" || exit 2
	touch -r "$root/cts-trace" "$dir/work/cts-trace.run-all"
	CTS_TRACE=$dir/work/cts-trace.run-all
	export CTS_TRACE
fi
start=$(date +%s)
failed=""
for s in overhead throughput time_to_bug corpus active speed coverage; do
	echo "== $s ($mode)" >&2
	sh "$dir/$s.sh" "$mode" || failed="$failed $s"
done
secs=$(($(date +%s) - start))
if [ "$mode" = quick ]; then out=$dir/results/quick; else out=$dir/results; fi
echo "== run-all $mode: ${secs}s; tables in $out" >&2
if [ -n "$failed" ]; then
	echo "run-all: failed:$failed" >&2
	exit 1
fi
exit 0
