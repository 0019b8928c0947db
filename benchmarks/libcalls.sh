#!/bin/bash
# benchmarks/libcalls.sh OLD_CTS [NEW_CTS] — what library calls as events cost and find.
# OLD_CTS is a cts-trace built without them (e.g. from the commit before),
# NEW_CTS defaults to ./cts-trace. Prints markdown tables on stdout:
#  1. per run of `-s random -n RUNS --seed 1` in sync and break mode on every
#     benchmarks/programs program: scheduling steps and ptrace stops (from
#     --report, deterministic) and CPU time (median of REPS, interleaved;
#     CPU, not wall time: the machine may be shared);
#  2. on benchmarks/programs in break mode, distinct races (`--races report
#     --keep-going`, random, YRUNS runs) and bugs, and what dpor concludes.
#  3. (PARTS=corpus) the same counters on the real-program corpus
#     (tests/corpus/lib.sh: pigz, xz, zstd, pbzip2, cxx_queue, omp_sum,
#     glib_pool, python3; build them with `make programs`), CRUNS runs each.
# PARTS="cost yield" (default) picks the tables; YPROGS limits the yield table
# to these programs (lock_counter, par_sum and pipeline have no bug and take
# long). OLD_CTS "-" means NEW_CTS with CTS_NO_LIBCALLS=1 (the same build
# without library-call events).
set -u
OLD=${1:?usage: benchmarks/libcalls.sh OLD_CTS [NEW_CTS]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NEW=${2:-$ROOT/cts-trace}
RUNS=${RUNS:-30} REPS=${REPS:-3} YRUNS=${YRUNS:-200} PARTS=${PARTS:-cost yield}
W=$(mktemp -d /tmp/cts-libcalls.XXXXXX)
trap 'rm -rf "$W"' EXIT
if [ "$OLD" = - ]; then
	OLD=$W/old-cts
	printf '#!/bin/sh\nCTS_NO_LIBCALLS=1 exec %s "$@"\n' "$NEW" >"$OLD"
	chmod +x "$OLD"
fi
for f in "$ROOT"/benchmarks/programs/*.c; do
	gcc -g -O1 -pthread -w -o "$W/$(basename "$f" .c)" "$f" -lm || exit 1
done
progs=$(cd "$W" && ls)
# EXTRA: more programs for the cost table only, e.g. tests/programs/lib_memcpy_ok.c
for f in ${EXTRA:-}; do
	gcc -g -O1 -pthread -w -o "$W/$(basename "$f" .c)" "$f" -lm || exit 1
	extra="${extra:-} $(basename "$f" .c)"
done

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.*\"$2\": \\([a-z0-9.]*\\).*/\\1/p" "$1" | head -n 1; }
# cpu BIN MODE PROG: user+system seconds of cts-trace for one exploration (the
# runs are children of the fork server, not counted); the deterministic
# counters go to $W/c.json.
cpu() {
	/usr/bin/time -f "%U %S" -o "$W/t" "$1" -q -m "$2" -s random --seed 1 -n "$RUNS" \
		--keep-going -o "$W/o" --report "$W/c.json" -- "$W/$3" >/dev/null 2>&1
	tail -n 1 "$W/t" | awk '{ printf "%.3f\n", $1 + $2 }' # after "exited with status 1"
}
per_run() { awk -v a="$1" -v r="$RUNS" 'BEGIN { printf "%.0f", a / r }'; }

if [[ " $PARTS " == *" cost "* ]]; then
echo "### Cost: random --seed 1 --keep-going, $RUNS runs: scheduling steps and ptrace stops per run, CPU ms of cts-trace for all runs (median of $REPS)"
echo
echo "| program | mode | steps old | steps new | stops old | stops new | CPU ms old | CPU ms new |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for p in $progs ${extra:-}; do
	for m in sync break; do
		: >"$W/old" ; : >"$W/new"
		for r in $(seq "$REPS"); do
			cpu "$OLD" $m $p >>"$W/old"
			so=$(field "$W/c.json" steps) to=$(field "$W/c.json" stops)
			cpu "$NEW" $m $p >>"$W/new"
			sn=$(field "$W/c.json" steps) tn=$(field "$W/c.json" stops)
		done
		o=$(median <"$W/old") n=$(median <"$W/new")
		echo "| $p | $m | $(per_run "$so") | $(per_run "$sn") | $(per_run "$to") | $(per_run "$tn") |" \
		     "$(awk -v x="$o" 'BEGIN { printf "%.0f", x * 1000 }') |" \
		     "$(awk -v x="$n" 'BEGIN { printf "%.0f", x * 1000 }') |"
	done
done
fi

if [[ " $PARTS " == *" yield "* ]]; then
echo
echo "### Yield in break mode: random $YRUNS runs (races, bugs); dpor (runs, verdict)"
echo
echo "| program | races old | races new | bugs old | bugs new | dpor old | dpor new |"
echo "| --- | ---: | ---: | ---: | ---: | --- | --- |"
for p in ${YPROGS:-$progs}; do
	row="| $p"
	for b in "$OLD" "$NEW"; do
		"$b" -m break -s random --seed 1 -n "$YRUNS" --keep-going --races report -o "$W/o" --timeout 5 \
			--report "$W/r.json" -- "$W/$p" >"$W/out" 2>&1
		races=$(grep -c 'data race on' "$W/out")
		bugs=$(grep -c '"kind"' "$W/r.json")
		echo "$races $bugs" >>"$W/y.$p"
	done
	for b in "$OLD" "$NEW"; do
		"$b" -q -m break -s dpor -n 3000 --timeout 5 -o "$W/o" --report "$W/d.json" -- "$W/$p" \
			>/dev/null 2>&1
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
fi

if [[ " $PARTS " == *" corpus "* ]]; then
CRUNS=${CRUNS:-3}
. "$ROOT/tests/corpus/lib.sh"
corpus_input "$W/in.txt"
# ccpu BIN MODE CMD...: as cpu, on a corpus command line (10 s per run at most).
ccpu() {
	local b=$1 m=$2
	shift 2
	/usr/bin/time -f "%U %S" -o "$W/t" "$b" -q -m "$m" -s random --seed 1 -n "$CRUNS" \
		--timeout 10 --keep-going -o "$W/o" --report "$W/c.json" -- "$@" >/dev/null 2>&1
	tail -n 1 "$W/t" | awk '{ printf "%.3f\n", $1 + $2 }'
}
echo
echo "### Corpus: random --seed 1 --keep-going --timeout 10, $CRUNS runs: steps and stops per run, CPU ms of cts-trace for all runs (median of $REPS, old and new interleaved), inconclusive runs old/new"
echo
echo "| program | mode | steps old | steps new | stops old | stops new | CPU ms old | CPU ms new | inconcl. old/new |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for p in $CORPUS_NAMES; do
	cmd=$(corpus_cmd "$p" "$W/in.txt")
	for m in sync break; do
		: >"$W/old" ; : >"$W/new"
		for r in $(seq "$REPS"); do
			ccpu "$OLD" $m $cmd >>"$W/old"
			so=$(field "$W/c.json" steps) to=$(field "$W/c.json" stops)
			io=$(jq -r '.inconclusive.count // 0' "$W/c.json")
			ccpu "$NEW" $m $cmd >>"$W/new"
			sn=$(field "$W/c.json" steps) tn=$(field "$W/c.json" stops)
			in=$(jq -r '.inconclusive.count // 0' "$W/c.json")
		done
		o=$(median <"$W/old") n=$(median <"$W/new")
		echo "| $p | $m | $((so / CRUNS)) | $((sn / CRUNS)) | $((to / CRUNS)) | $((tn / CRUNS)) |" \
		     "$(awk -v x="$o" 'BEGIN { printf "%.0f", x * 1000 }') |" \
		     "$(awk -v x="$n" 'BEGIN { printf "%.0f", x * 1000 }') | $io/$in |"
	done
done
fi
