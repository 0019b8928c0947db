#!/bin/sh
# make demo: find a bug in a bundled example, show its schedule, replay it.
# CTS=cts-trace sh docs/demo.sh runs an installed cts-trace instead of ./cts-trace.
set -u
cd "$(dirname "$0")/.."
CTS=${CTS:-./cts-trace}
out=cts-out/demo
rm -rf "$out"
echo "== cts-trace -s pct -n 1000 -o $out -- tests/programs/demo"
echo "   (two bank transfers that lock the same two accounts in opposite orders)"
"$CTS" -s pct -n 1000 -o "$out" -- tests/programs/demo
rc=$?
if [ $rc -ne 1 ]; then
	echo "demo: expected cts-trace to find the deadlock (exit 1), got exit $rc" >&2
	exit 1
fi
f=$(ls "$out"/*.sched | head -n 1)
echo
echo "== the saved schedule: $f"
cat "$f"
echo
echo "== cts-trace --replay $f"
"$CTS" --replay "$f"
rc=$?
if [ $rc -ne 1 ]; then
	echo "demo: the replay did not reproduce the bug (exit $rc)" >&2
	exit 1
fi
echo
echo "== the fixed twin (demo_ok: accounts locked in id order), 1000 schedules"
"$CTS" -s pct -n 1000 -o "$out" -- tests/programs/demo_ok
