# Helpers for tests/e2e/classes.t and tests/e2e/corpus.t (sourced after
# tests/e2e/lib.sh) and for benchmarks/corpus.sh: one cts-trace run with its
# verdict in a few words, TAP checks that turn into TODO for the cases a test
# lists as known to fail, and the real-program corpus (commands and output
# checks).
# The sourcing script sets TOP (tests/e2e/lib.sh) or ROOT (benchmarks/lib.sh).
CORPUS=${TOP:-$ROOT}/tests/corpus

# Time limits scale by CTS_TEST_SLOW (tests/run-one: 3 for a sanitized
# cts-trace, 2-3 times slower): a run cut by --timeout is inconclusive, and a
# clean verdict needs every run to complete.
SLOW=${CTS_TEST_SLOW:-1}

# cts_run LIMIT ARGS...: cts-trace ARGS with a JSON report, under
# `timeout LIMIT` (scaled).  Sets RC, ERR (cts-trace's stderr), $T/stdout (the
# program's output with --output), SECS (wall time), SEEN (the verdict in a
# few words), RUNS_DONE, BUGS, KIND (the first bug's kind), INCONCLUSIVE (runs
# that ran out of steps or time without a bug, once the tool counts them) and
# RACE_LINES (the race reports).
cts_run() {
	local limit=$(($1 * SLOW))
	shift
	rm -f "$T/report.json"
	START=$(date +%s)
	ERR=$(timeout -k 5 "$limit" "$CTS" --report "$T/report.json" "$@" 2>&1 </dev/null >"$T/stdout")
	RC=$?
	SECS=$(($(date +%s) - START))
	RUNS_DONE=0 BUGS=0 KIND="" INCONCLUSIVE=0
	if [ -s "$T/report.json" ]; then
		# A run the search cut as redundant (a DPOR sleep set) was killed
		# before its end: it wrote no output to check.
		RUNS_DONE=$(jq -r '(.runs // 0) - (.summary.cut // 0)' "$T/report.json")
		BUGS=$(jq -r '.bugs | length' "$T/report.json")
		KIND=$(jq -r '.bugs[0].kind // ""' "$T/report.json")
		INCONCLUSIVE=$(jq -r '.inconclusive // 0 | if type == "array" then length
			elif type == "number" then . else 0 end' "$T/report.json")
	fi
	# The report's count, or at least the warning lines if it has none yet.
	[ "$INCONCLUSIVE" -gt 0 ] || INCONCLUSIVE=$(printf '%s\n' "$ERR" | grep -i 'inconclusive' |
		grep -cvi '[^0-9]0 inconclusive')
	RACE_LINES=$(printf '%s\n' "$ERR" | grep 'data race on ')
	case $RC in
	124 | 137) SEEN="cts-trace killed by timeout after ${limit}s" ;;
	0 | 1)
		SEEN=$(printf '%s\n' "$ERR" | grep -o 'BUG ([a-z-]*)[^:]*' | head -n 1)
		[ -n "$SEEN" ] || SEEN="exit $RC: $(printf '%s\n' "$ERR" | grep -v 'data race on ' |
			grep -m 1 .)"
		[ "$INCONCLUSIVE" -gt 0 ] && SEEN="$SEEN, $INCONCLUSIVE inconclusive runs"
		;;
	*) SEEN="exit $RC: $(printf '%s\n' "$ERR" | grep -v '^ ' | head -n 1)" ;;
	esac
	return 0
}

# clean: the last cts_run found no bug, and every run completed.
clean() {
	[ "$RC" -eq 0 ] && [ "$BUGS" -eq 0 ] && [ "$INCONCLUSIVE" -eq 0 ] && [ "$RUNS_DONE" -gt 0 ]
}

# races_on REGEX: how many race reports of the last cts_run name a variable
# matching REGEX ('.*': any race at all).
races_on() {
	printf '%s\n' "$RACE_LINES" | grep -cE "data race on ($1)[ +]"
}

# todo_reason NAME: the reason KNOWN_FAILING (set by the test) gives for
# NAME, empty if it is not listed.  One case a line: "NAME | reason".
todo_reason() {
	printf '%s\n' "${KNOWN_FAILING:-}" |
		awk -F'|' -v n="$1" '{ k = $1; gsub(/^[ \t]+|[ \t]+$/, "", k) }
			k == n { r = $2; sub(/^[ \t]+/, "", r); print r; exit }'
}

# check STATUS NAME DESCRIPTION: a TAP line that passes on STATUS 0.  A
# known-failing NAME is reported as TODO with its reason (prove lists it as
# "unexpectedly succeeded" once it passes: then remove it from the list).
check() {
	local st=$1 name=$2 why
	why=$(todo_reason "$name")
	_n=$((_n + 1))
	if [ -n "$why" ]; then
		[ "$st" -eq 0 ] && echo "ok $_n - $name: $3 # TODO $why" ||
			echo "not ok $_n - $name: $3 # TODO $why"
	elif [ "$st" -eq 0 ]; then
		echo "ok $_n - $name: $3"
	else
		echo "not ok $_n - $name: $3"
		_failed=$((_failed + 1))
	fi
	[ "$st" -eq 0 ] && return
	echo "#   seen: $SEEN (cts-trace ran ${SECS:-?} s)"
	printf '%s\n' "$ERR" | grep -v 'data race on ' | head -n 4 | sed 's/^/#   | /'
}

# --- the real-program corpus -------------------------------------------------

CORPUS_NAMES="pigz xz zstd pbzip2 lbzip2 7z cxx_queue omp_sum glib_pool python3"

# corpus_input FILE: the compressors' input, 3.8 KB of text, always the same.
corpus_input() {
	seq 1 120 | awk '{ printf "%d %d the quick brown fox %x\n", $1, $1 * $1, $1 * 7 }' >"$1"
}

# corpus_timeout NAME: cts-trace's --timeout for one run of NAME, seconds:
# its default, 100 times or more a native run here (python's start-up alone
# makes 6,000 steps in sync mode, zstd 30,000 in break mode), scaled.
corpus_timeout() {
	echo $((10 * SLOW))
}

# corpus_cmd NAME INPUT [MODE]: the command line that cts-trace runs (output to
# stdout). python3 in break mode does 5 iterations, not 50 (py_workers.py).
corpus_cmd() {
	case $1 in
	pigz) echo "/usr/bin/pigz -p 4 -c $2" ;;
	# 1 KiB blocks: several blocks, so several compressing threads, on a small input
	xz) echo "/usr/bin/xz -T4 --block-size=1KiB -c $2" ;;
	zstd) echo "/usr/bin/zstd -T4 -q -c $2" ;;
	pbzip2) echo "/usr/bin/pbzip2 -p4 -c $2" ;;
	lbzip2) echo "/usr/bin/lbzip2 -n 4 -c $2" ;;
	# p7zip's /usr/bin/7z is a script that execs this; bzip2 to stdout, 4 threads
	7z) echo "/usr/lib/p7zip/7z a -tbzip2 -mmt4 -so x.bz2 $2" ;;
	cxx_queue | omp_sum | glib_pool) echo "$CORPUS/$1" ;;
	python3) echo "/usr/bin/python3 -I $CORPUS/py_workers.py$([ "${3:-}" = break ] && echo " 5")" ;;
	esac
}

# corpus_output_ok NAME INPUT FILE RUNS [MODE]: FILE holds what RUNS runs of NAME
# wrote to stdout; each run's output must be right (compressed streams
# concatenate: decompressing FILE must give INPUT RUNS times).
corpus_output_ok() {
	local line="" i
	case $1 in
	pigz) gzip -dc <"$3" >"$3.out" 2>/dev/null ;;
	xz) xz -dc <"$3" >"$3.out" 2>/dev/null ;;
	zstd) zstd -dcq <"$3" >"$3.out" 2>/dev/null ;;
	pbzip2 | lbzip2 | 7z) bzip2 -dc <"$3" >"$3.out" 2>/dev/null ;;
	cxx_queue) line="sum 650 items 50" ;;
	omp_sum) line="sum 499500 threads 4" ;;
	glib_pool) line="total 2080 tasks 64" ;;
	python3) line="total $([ "${5:-}" = break ] && echo 60 || echo 5100) workers 4" ;;
	esac
	[ "$4" -gt 0 ] || return 1
	if [ -n "$line" ]; then
		[ "$(grep -cxF "$line" "$3")" -eq "$4" ] && [ "$(wc -l <"$3")" -eq "$4" ]
		return
	fi
	for i in $(seq "$4"); do cat "$2"; done | cmp -s - "$3.out"
}
