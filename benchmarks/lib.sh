# benchmarks/lib.sh — helpers shared by the benchmark scripts (POSIX sh, sourced).
# A script sets SCRIPT=<name> and sources this file; then calls bench_init "$@".
#
# Environment:
#   CTS_TRACE   path of the cts-trace binary (default: <repo>/cts-trace)
#   BENCH_OUT   directory for result tables (default: benchmarks/results, or
#               benchmarks/results/quick in quick mode: git-ignored, so a
#               quick run never changes the tracked tree)
#   BENCH_WORK  build and scratch directory (default: benchmarks/work, gitignored)
#   BENCH_PROGRAMS  throughput.sh, time_to_bug.sh: only these bug programs
#               (e.g. "deadlock dcl"; default: quick set or all with an _ok twin)

set -u
export LC_ALL=C		# perf and printf: no thousands separators, '.' decimals

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
CTS=${CTS_TRACE:-$ROOT/cts-trace}
PROGS=$BENCH_DIR/programs
WORK=${BENCH_WORK:-$BENCH_DIR/work}
BIN=$WORK/bin
CFLAGS_BENCH="-g -O1 -pthread"

log() { printf '[%s %s] %s\n' "$SCRIPT" "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '%s: error: %s\n' "$SCRIPT" "$*" >&2; exit 2; }

# need_tool NAME WHAT: fail clearly when a required command is missing.
need_tool() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found in PATH; it is needed for $2 (Debian: apt-get install $3)"
}

# need_cts: check the cts-trace binary and run a private copy of it, so that a
# rebuild by someone else in the shared tree cannot change (or remove) the
# binary in the middle of a measurement.  CTS_ID identifies what was measured.
need_cts() {
	[ -e "$CTS" ] || die "cts-trace binary not found at $CTS: build it with 'make' in $ROOT (or set CTS_TRACE)"
	[ -x "$CTS" ] || die "$CTS is not executable"
	"$CTS" --version >/dev/null 2>&1 || die "$CTS --version failed: is it a working cts-trace build?"
	CTS_ORIG=$CTS
	cp "$CTS" "$SCRATCH/cts-trace" || die "cannot copy $CTS to $SCRATCH"
	CTS=$SCRATCH/cts-trace
	CTS_ID="sha256 $(sha256sum "$CTS" | cut -c1-12), built $(date -u -r "$CTS_ORIG" '+%Y-%m-%d %H:%M UTC')"
}

# bench_init MODE: parse quick|full, set RESULTS (the table file) and SCRATCH.
bench_init() {
	case "${1:-}" in
	quick | full) BENCH_MODE=$1 ;;
	*) printf 'usage: sh %s quick|full\n' "$0" >&2; exit 2 ;;
	esac
	if [ "$BENCH_MODE" = quick ]; then
		OUTDIR=${BENCH_OUT:-$BENCH_DIR/results/quick}
	else
		OUTDIR=${BENCH_OUT:-$BENCH_DIR/results}
	fi
	mkdir -p "$OUTDIR" "$BIN" || die "cannot create $OUTDIR or $BIN"
	RESULTS=$OUTDIR/$SCRIPT.md
	SCRATCH=$(mktemp -d "$WORK/$SCRIPT.XXXXXX") || die "mktemp failed in $WORK"
	LOAD_START=$(machine_load)
	trap 'rm -rf "$SCRATCH"' EXIT
	trap 'exit 130' INT TERM
	need_tool gcc "building the benchmark programs" gcc
	need_tool timeout "bounding every run" coreutils
	need_tool jq "reading cts-trace JSON reports" jq
	need_tool awk "arithmetic" mawk
}

# reps_runs QUICK_REPS QUICK_RUNS FULL_REPS FULL_RUNS: set REPS (repetitions)
# and RUNS (runs per cts-trace invocation) for the mode.
reps_runs() {
	if [ "$BENCH_MODE" = quick ]; then
		REPS=$1 RUNS=$2
	else
		REPS=$3 RUNS=$4
	fi
}

# build SRC OUT [EXTRA_CFLAGS...]: compile a benchmark program if out of date.
build() {
	src=$1 out=$2
	shift 2
	[ -f "$src" ] || die "benchmark source $src is missing"
	if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
		gcc $CFLAGS_BENCH "$@" -o "$out" "$src" 2>"$SCRATCH/gcc.err" ||
			{ cat "$SCRATCH/gcc.err" >&2; return 1; }
	fi
	return 0
}

# build_bench NAME: benchmarks/programs/NAME.c -> $BIN/NAME (dies on failure).
build_bench() {
	build "$PROGS/$1.c" "$BIN/$1" || die "gcc failed on $PROGS/$1.c"
}

now() { date +%s.%N; }
# fsub A B / fdiv A B: floating-point arithmetic through awk.
fsub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a - b }'; }
fdiv() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.6f", a / b }'; }

# stats: numbers on stdin, one per line ("-" lines ignored) -> "median min max n",
# or "- - - 0" when there are none.
stats() {
	grep -v '^-*$' | sort -g | awk '{ a[NR] = $1 }
		END {
			if (NR == 0) { print "- - - 0"; exit }
			m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			print m, a[1], a[NR], NR
		}'
}

# mmm FMT MEDIAN MIN MAX -> "m (min–max)" with printf format FMT for each number.
mmm() {
	[ "$2" = - ] && { printf -- '-'; return; }
	awk -v f="$1" -v m="$2" -v lo="$3" -v hi="$4" \
		'BEGIN { printf f " (" f "–" f ")", m, lo, hi }'
}

# hw_counters: "yes" when perf can count cycles and instructions, else "no".
hw_counters() {
	if ! command -v perf >/dev/null 2>&1; then
		echo no
		return
	fi
	o=$(perf stat -x, -e cycles,instructions -- true 2>&1 >/dev/null)
	if [ $? -ne 0 ] || printf '%s\n' "$o" | grep -q '<not supported>\|<not counted>\|not supported'; then
		echo no
	elif printf '%s\n' "$o" | grep -q ',cycles'; then
		echo yes
	else
		echo no
	fi
}

# cpu_busy: percent of the machine's CPU time not idle over one second
# (/proc/stat), "-" when unreadable.
cpu_busy() {
	cb_a=$(awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6; exit }' /proc/stat 2>/dev/null)
	sleep 1
	cb_b=$(awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6; exit }' /proc/stat 2>/dev/null)
	echo "$cb_a $cb_b" | awk 'NF == 4 && $3 > $1 { printf "%.0f\n", 100 * (($3 - $1) - ($4 - $2)) / ($3 - $1); next }
		{ print "-" }'
}

# others_running: processes running or runnable now outside this benchmark's
# session (its own shell and tools do not count).
others_running() {
	if command -v ps >/dev/null 2>&1; then
		or_sid=$(ps -o sid= -p $$ | tr -d ' ')
		ps -e -o stat=,sid= | awk -v s="$or_sid" '$1 ~ /^R/ && $2 != s { n++ } END { print n + 0 }'
	else
		awk '{ split($4, r, "/"); print r[1] - 1 }' /proc/loadavg
	fi
}

# machine_load: the load measured now, as "A B C N P": load averages over 1,
# 5 and 15 minutes, other processes running (others_running), percent of CPU
# time busy over one second (cpu_busy).
machine_load() {
	echo "$(cut -d' ' -f1-3 /proc/loadavg) $(others_running) $(cpu_busy)"
}

# load_text "A B C N P": machine_load's numbers in words.
load_text() {
	echo "$1" | awk '{ printf "load average %s %s %s (1, 5, 15 min), %s other processes running, CPUs %s%% busy over 1 s", $1, $2, $3, $4, $5 }'
}

# machine_header TITLE: the common head of every results file (to stdout).
# The machine is described from what is measured here (CPUs, virtualization,
# memory, the load when the script started and now), never assumed.
machine_header() {
	model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
	hw=$(hw_counters)
	virt=$(systemd-detect-virt 2>/dev/null) ||
		{ grep -qw hypervisor /proc/cpuinfo && virt="a hypervisor (cpuinfo flag)" || virt=none; }
	mem=$(awk '/^MemTotal:/ { t = $2 } /^MemAvailable:/ { a = $2 }
		END { printf "%.1f GiB memory (%.1f available)", t / 1048576, a / 1048576 }' /proc/meminfo)
	load_end=$(machine_load)
	printf '# %s\n\n' "$1"
	printf -- '- Date: %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf -- '- Mode: `%s` (`sh benchmarks/run-all.sh %s` or `sh benchmarks/%s.sh %s`)\n' \
		"$BENCH_MODE" "$BENCH_MODE" "$SCRIPT" "$BENCH_MODE"
	printf -- '- Machine: %s CPUs (nproc), %s, kernel %s, virtualization: %s, %s\n' \
		"$(nproc)" "${model:-unknown CPU}" "$(uname -r)" "$virt" "$mem"
	printf -- '- Load at start: %s\n' "$(load_text "${LOAD_START:-- - - - -}")"
	printf -- '- Load at end: %s\n' "$(load_text "$load_end")"
	if [ "$hw" = yes ]; then
		printf -- '- Hardware performance counters: yes (cycles, instructions counted)\n'
	else
		printf -- '- Hardware performance counters: **no** (`perf stat -e cycles` is not supported here); software counters only\n'
	fi
	printf -- '- cts-trace: %s (%s, %s); repository HEAD %s\n' "$("$CTS" --version 2>&1 | head -n 1)" \
		"${CTS_ORIG:-$CTS}" "${CTS_ID:-?}" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	printf -- '- Compiler: %s; programs built with `gcc %s`\n' "$(gcc --version | head -n 1)" "$CFLAGS_BENCH"
	printf -- '- Noise: %s\n\n' "$(noise_text "$(nproc)" "${LOAD_START:-}" "$load_end")"
}

# noise_text NPROC "START" "END": how far to trust the numbers, from the load
# measured at start and end: busy when another process was running, the
# 1-minute load reached half the CPUs or they were over 25% busy.
noise_text() {
	echo "$2 $3" | awk -v n="$1" 'NF == 10 {
		busy = ($4 + $9 > 0) || ($1 >= n / 2) || ($6 >= n / 2) || ($5 + 0 > 25) || ($10 + 0 > 25)
		if (busy) print "the machine was busy with other work (see the load lines): treat differences under ~20% as noise; medians and min–max ranges are given for that reason."
		else print "the machine was idle at start and end (see the load lines); the min–max ranges show the run-to-run noise."
		next }
		{ print "load not measured: read differences with the min–max ranges." }'
}

# run_cts LIMIT ARGS...: cts-trace under `timeout -k 5 LIMIT`.  Exit 126/127
# means the binary could not be executed: in a shared tree another engineer's
# `make` may be relinking it at that moment, so wait and try once more.
run_cts() {
	lim=$1
	shift
	timeout -k 5 "$lim" "$CTS" "$@"
	rc=$?
	if [ $rc -eq 126 ] || [ $rc -eq 127 ]; then
		sleep 3
		timeout -k 5 "$lim" "$CTS" "$@"
		rc=$?
	fi
	return $rc
}

# json FILE FILTER: one jq query on a cts-trace report ("-" when unreadable).
json() {
	jq -r "$2" "$1" 2>/dev/null || echo -
}

# verdict_of RC REPORT: how one cts-trace invocation ended: "clean" (exit 0),
# the first bug's kind (exit 1), or "exit-RC".
verdict_of() {
	case $1 in
	0) echo clean ;;
	1) json "$2" '.bugs[0].kind' ;;
	*) echo "exit-$1" ;;
	esac
}

# publish: move the finished table into place (a failed run leaves the old one).
publish() {
	mv "$SCRATCH/table.md" "$RESULTS" || die "cannot write $RESULTS"
	log "wrote $RESULTS"
}

# first_bug_searches SEEDS LIMIT EXTRA ON_RESULT PROGRAM ARGS...: for each
# seed of SEEDS, one search `cts-trace ARGS... --seed SEED --report R --
# PROGRAM` under run_cts LIMIT (ARGS give strategy, mode, budget and -o, and
# no -k: the search stops at the first bug); then ON_RESULT SEED FOUND RUNS SECS
# KIND COMPLETE EXIT [EXTRA...] with FOUND "found" or "none", RUNS the
# 1-based run of the first bug or the runs done without one, SECS the
# report's elapsed seconds, EXIT cts-trace's status, and EXTRA the fields of
# the jq string expression EXTRA on the report ("" for none). Fields are "-"
# where the report is missing.
first_bug_searches() {
	fb_seeds=$1 fb_lim=$2 fb_extra=$3 fb_cb=$4 fb_prog=$5
	shift 5
	for fb_seed in $fb_seeds; do
		rm -f "$SCRATCH/fb.json"
		run_cts "$fb_lim" "$@" --seed "$fb_seed" --report "$SCRATCH/fb.json" -- "$fb_prog" \
			>/dev/null 2>&1
		fb_rc=$?
		fb_line=$(json "$SCRATCH/fb.json" "(if (.bugs | length) > 0 then
			\"found \(.bugs[0].run + 1) \(.elapsed_seconds) \(.bugs[0].kind)\" else
			\"none \(.runs) \(.elapsed_seconds) -\" end) + \" \(.complete)\"${fb_extra:+ + \" \" + ($fb_extra)}")
		[ "$fb_line" = - ] && fb_line="- - - - -"
		read -r fb_f fb_r fb_t fb_k fb_c fb_x <<-FB
			$fb_line
		FB
		# shellcheck disable=SC2086
		"$fb_cb" "$fb_seed" "$fb_f" "$fb_r" "$fb_t" "$fb_k" "$fb_c" "$fb_rc" $fb_x
	done
}
