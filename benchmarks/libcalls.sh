#!/bin/bash
# benchmarks/libcalls.sh OLD_CTS [NEW_CTS] — what library calls as events cost and find.
# OLD_CTS is a cts-trace built without them (e.g. from the commit before),
# NEW_CTS defaults to ./cts-trace. Prints markdown tables on stdout:
#  1. runs/s of `-s random -n RUNS --seed 1` in sync and break mode on every
#     benchmarks/programs program (median of REPS repetitions, interleaved);
#  2. in break mode, distinct races (`--races report --keep-going`, random,
#     YRUNS runs) and bugs, and what dpor concludes, old vs new.
set -u
OLD=${1:?usage: benchmarks/libcalls.sh OLD_CTS [NEW_CTS]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NEW=${2:-$ROOT/cts-trace}
RUNS=${RUNS:-30} REPS=${REPS:-3} YRUNS=${YRUNS:-200}
W=$(mktemp -d /tmp/cts-libcalls.XXXXXX)
trap 'rm -rf "$W"' EXIT
for f in "$ROOT"/benchmarks/programs/*.c; do
	gcc -g -O1 -pthread -w -o "$W/$(basename "$f" .c)" "$f" -lm || exit 1
done
progs=$(cd "$W" && ls)

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
secs() { # secs BIN MODE PROG: wall seconds of one exploration
	local t0 t1
	t0=$(date +%s.%N)
	"$1" -q -m "$2" -s random --seed 1 -n "$RUNS" -o "$W/o" -- "$W/$3" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

echo "### Cost: runs/s, random, $RUNS runs, median of $REPS"
echo
echo "| program | sync old | sync new | break old | break new | break new/old |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for p in $progs; do
	row="| $p"
	for m in sync break; do
		: >"$W/old" ; : >"$W/new"
		for r in $(seq "$REPS"); do
			secs "$OLD" $m $p >>"$W/old"
			secs "$NEW" $m $p >>"$W/new"
		done
		o=$(median <"$W/old") n=$(median <"$W/new")
		row="$row | $(awk -v r="$RUNS" -v t="$o" 'BEGIN { printf "%.0f", r / t }') | $(awk -v r="$RUNS" -v t="$n" 'BEGIN { printf "%.0f", r / t }')"
	done
	echo "$row | $(awk -v a="$o" -v b="$n" 'BEGIN { printf "%.2f", a / b }') |"
done

field() { sed -n "s/.*\"$2\": \\([a-z0-9]*\\).*/\\1/p" "$1" | head -n 1; }
echo
echo "### Yield in break mode: random $YRUNS runs (races, bugs); dpor (runs, verdict)"
echo
echo "| program | races old | races new | bugs old | bugs new | dpor old | dpor new |"
echo "| --- | ---: | ---: | ---: | ---: | --- | --- |"
for p in $progs; do
	row="| $p"
	for b in "$OLD" "$NEW"; do
		"$b" -m break -s random --seed 1 -n "$YRUNS" --keep-going --races report -o "$W/o" \
			--report "$W/r.json" -- "$W/$p" >"$W/out" 2>&1
		races=$(grep -c 'data race on' "$W/out")
		bugs=$(grep -c '"kind"' "$W/r.json")
		echo "$races $bugs" >>"$W/y.$p"
	done
	for b in "$OLD" "$NEW"; do
		"$b" -q -m break -s dpor -n 3000 -o "$W/o" --report "$W/d.json" -- "$W/$p" >/dev/null 2>&1
		v="$(field "$W/d.json" runs) runs"
		[ "$(field "$W/d.json" complete)" = true ] && v="$v, complete"
		[ "$(field "$W/d.json" exhausted)" = true ] && [ "$(field "$W/d.json" complete)" != true ] &&
			v="$v, exhausted, not complete"
		grep -q '"kind"' "$W/d.json" && v="$v, bug"
		echo "$v" >>"$W/d.$p"
	done
	set -- $(sed -n 1p "$W/y.$p") $(sed -n 2p "$W/y.$p")
	echo "$row | $1 | $3 | $2 | $4 | $(sed -n 1p "$W/d.$p") | $(sed -n 2p "$W/d.$p") |"
done
