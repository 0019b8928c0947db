#!/bin/bash
# timeout: 60
# make bench-quick leaves the tracked tree alone (issue 30 item 6): a quick
# run's tables go to benchmarks/results/quick/, which is git-ignored and
# holds no tracked file, while a full run still writes the committed
# benchmarks/results/. The head of every results file describes the machine
# from what is measured (virtualization, memory, load at start and end,
# other processes running, CPU busy), not a fixed description. Runs
# benchmarks/lib.sh's bench_init, machine_header and publish as a benchmark
# script does, without running a benchmark.
. "$(dirname "$0")/lib.sh"
git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 || skip_all "not a git checkout"
RUNALL=$(sed -n 's/^for s in \(.*\); do$/\1/p' "$TOP/benchmarks/run-all.sh")
plan $(($(count $RUNALL) + 12))
[ -n "$RUNALL" ]
ok $? "run-all.sh's scripts: $RUNALL"

# bench MODE COMMANDS: run COMMANDS in a benchmark script's place (\$0 in
# benchmarks/, so lib.sh finds the tree), after bench_init MODE.
bench() {
	BENCH_WORK=$T/work CTS_TRACE=$CTS BENCH_OUT= sh -c '
		SCRIPT=cts-pathcheck-$$
		. "$(dirname "$0")/lib.sh"
		unset BENCH_OUT
		bench_init "$1"
		eval "$2"' "$TOP/benchmarks/cts-pathcheck.sh" "$@"
}
mkdir -p "$T/work"
res=$(bench quick 'machine_header "path check" >"$SCRATCH/table.md"; echo "| t |" >>"$SCRATCH/table.md"
	cp "$SCRATCH/table.md" "'"$T"'/head.md"; publish 2>/dev/null; echo "$RESULTS"')
like "$res" "^$TOP/benchmarks/results/quick/cts-pathcheck-[0-9]+\.md\$" "quick mode: the table goes to benchmarks/results/quick/"
[ -f "$res" ]
ok $? "quick mode: publish wrote it"
git -C "$TOP" check-ignore -q "$res"
ok $? "quick mode: the table is git-ignored"
is "$(git -C "$TOP" status --porcelain --ignored=no -- "$res" "$TOP/benchmarks/results/quick")" "" \
	"quick mode: git status shows nothing"
rm -f "$res"
is "$(git -C "$TOP" ls-files -- benchmarks/results/quick)" "" "no tracked file under benchmarks/results/quick/"
for s in $RUNALL; do
	git -C "$TOP" check-ignore -q "benchmarks/results/quick/$s.md"
	ok $? "$s.sh quick: its table benchmarks/results/quick/$s.md is git-ignored"
done
res=$(bench full 'echo "$RESULTS"')
like "$res" "^$TOP/benchmarks/results/cts-pathcheck-[0-9]+\.md\$" "full mode: the committed benchmarks/results/"

h=$(cat "$T/head.md")
like "$h" "virtualization: [^,]+, [0-9.]+ GiB memory" "the header: virtualization and memory, measured"
like "$h" "Load at start: load average [0-9.]+ [0-9.]+ [0-9.]+ \(1, 5, 15 min\), [0-9]+ other processes running, CPUs [0-9]+% busy over 1 s" \
	"the header: the load at start, measured"
like "$h" "Load at end: load average [0-9.]+ [0-9.]+ [0-9.]+ \(1, 5, 15 min\), [0-9]+ other processes running, CPUs [0-9]+% busy over 1 s" \
	"the header: the load at end, measured"
like "$h" "Noise: the machine was (busy|idle)" "the header: the noise line follows the measured load"
printf '%s' "$h" | grep -q "shared with other engineers"
ok $((!$?)) "the header: no fixed description of a shared VM"
done_testing
