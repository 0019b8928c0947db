#!/bin/sh
# benchmarks/realworld.sh quick|full — cts-trace on multithreaded Debian
# programs beyond the corpus of tests/e2e/corpus.t, as a new user would try
# them (issue 8): GNU sort --parallel, lbzip2, pixz, plzip, ripgrep and
# fd-find (Rust: std's locks are raw futexes and atomics, libc is called
# through the GOT), p7zip and GraphicsMagick (OpenMP). Each runs in sync and
# break mode under random, pct and dpor, RUNS schedules per invocation
# (--races report in break mode), and every verdict, inconclusive count, race
# report and the output of every run (checked against the native output by
# --check: the program runs from a script that sends its stdout to a file of
# the run's, so no --output, which turns off break mode's learning) is
# recorded with the per-run time against native runs. A statically linked
# program must be refused with exit 2. Needs the packages (Debian: apt-get
# install lbzip2 pixz plzip ripgrep fd-find p7zip-full graphicsmagick
# busybox-static); a missing one is listed as skipped. REALWORLD_NAMES="sort fd"
# runs only those; REALWORLD_TIMEOUT=10 gives each run cts-trace's default
# --timeout instead of 60 s, REALWORLD_TEXT_BYTES the compressors' input
# size (default 300000), REALWORLD_SORT_LINES sort's (default 300000):
# issue 26's goal is 0 inconclusive runs at the default budget with 65536
# and 140000.
SCRIPT=realworld
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

reps_runs 1 2 3 3
RUN_TIMEOUT=${REALWORLD_TIMEOUT:-60}
NAMES=${REALWORLD_NAMES:-sort lbzip2 pixz plzip ripgrep fd 7z gm}

# Inputs: 300 KB of text for the compressors; 300,000 short lines for sort
# (GNU sort only starts threads for 2^17 lines or more); 8 small files for
# ripgrep; a tree of 120 empty files for fd.
D=$SCRATCH/in
mkdir -p "$D/files" "$D/tree/a/b" "$D/tree/c"
seq 1 20000 | awk '{ printf "%d %d the quick brown fox %x\n", ($1 * 7919) % 20011, $1 * $1, $1 * 7 }' |
	head -c "${REALWORLD_TEXT_BYTES:-300000}" >"$D/text.txt"
seq 1 "${REALWORLD_SORT_LINES:-300000}" | awk '{ print ($1 * 7919) % 300007 }' >"$D/lines.txt"
for i in $(seq 1 8); do head -c $((i * 400)) "$D/text.txt" >"$D/files/f$i.txt"; done
for i in $(seq 1 40); do : >"$D/tree/a/x$i.c"; : >"$D/tree/c/y$i.h"; : >"$D/tree/a/b/z$i.rs"; done

# cmd NAME: the command line (output to stdout), "" when not installed.
cmd() {
	case $1 in
	sort) echo "/usr/bin/sort --parallel=4 -S 64M $D/lines.txt" ;;
	lbzip2) echo "/usr/bin/lbzip2 -1 -n 4 -c $D/text.txt" ;;
	pixz) echo "/usr/bin/pixz -p 4 -i $D/text.txt" ;;
	plzip) echo "/usr/bin/plzip -n 4 -B 64KiB -c $D/text.txt" ;;
	ripgrep) echo "/usr/bin/rg -j4 fox $D/files" ;;
	fd) echo "/usr/bin/fdfind -j4 . $D/tree" ;;
	# /usr/bin/7z is a shell script that execs this
	7z) echo "/usr/lib/p7zip/7z a -tbzip2 -mmt4 -so x.bz2 $D/text.txt" ;;
	gm) echo "/usr/bin/gm convert -size 128x128 gradient:red-blue -blur 0x2 -resize 200% ppm:-" ;;
	esac
}

# check_cmd NAME: the --check command run after each run that exits, in the
# run's directory, where the script run-NAME sent the program's stdout to
# the file out: compressed output must decompress to the input, the rest
# must be the native output (ripgrep and fd print in a schedule-dependent
# order: compared sorted). A failure is a bug verdict ("check").
check_cmd() {
	case $1 in
	lbzip2 | 7z) echo "bzip2 -dc out | cmp -s - $D/text.txt" ;;
	pixz) echo "xz -dc out | cmp -s - $D/text.txt" ;;
	plzip) echo "lzip -dc out | cmp -s - $D/text.txt" ;;
	ripgrep | fd) echo "sort out | cmp -s - $SCRATCH/native-$1.sorted" ;;
	*) echo "cmp -s out $SCRATCH/native-$1" ;;
	esac
}

DATA=$SCRATCH/data
: >"$DATA"
# native NAME REP: one native run, appended as "name native - rep secs ..."
native() {
	local t0 t1 rc
	t0=$(now)
	OMP_NUM_THREADS=4 timeout -k 5 60 $(cmd "$1") >"$SCRATCH/native-$1" 2>/dev/null </dev/null
	rc=$?
	t1=$(now)
	sort "$SCRATCH/native-$1" >"$SCRATCH/native-$1.sorted"
	printf '#!/bin/sh\nexec %s >out\n' "$(cmd "$1")" >"$SCRATCH/run-$1"
	chmod +x "$SCRATCH/run-$1"
	echo "$1 native - $2 $(fsub "$t1" "$t0") - - - - $([ $rc -eq 0 ] && echo ok || echo "exit-$rc")" >>"$DATA"
}

# traced NAME MODE STRATEGY REP: one cts-trace invocation, appended as
# "name mode strategy rep secs_per_run runs inconclusive races output verdict".
traced() {
	local t0 t1 rc runs inc races out verdict races_opt=""
	[ "$2" = break ] && races_opt="--races report"
	rm -f "$SCRATCH/r.json"
	mkdir -p "$SCRATCH/work"
	t0=$(now)
	# shellcheck disable=SC2086
	(cd "$SCRATCH/work" && OMP_NUM_THREADS=4 run_cts $((RUNS * RUN_TIMEOUT + 120)) -m "$2" -s "$3" \
		--seed "$4" -n $RUNS --timeout $RUN_TIMEOUT --fail-on-exit --check "$(check_cmd "$1")" \
		$races_opt --report "$SCRATCH/r.json" -o "$SCRATCH/cts-out" -- "$SCRATCH/run-$1") \
		</dev/null >"$SCRATCH/out" 2>"$SCRATCH/err"
	rc=$?
	t1=$(now)
	# A run the search cut as redundant (a DPOR sleep set) wrote no output.
	runs=$(json "$SCRATCH/r.json" '(.runs // 0) - (.summary.cut // 0)')
	inc=$(json "$SCRATCH/r.json" '.inconclusive.count // 0')
	races=$(grep -c 'data race on ' "$SCRATCH/err")
	verdict=$(verdict_of $rc "$SCRATCH/r.json")
	# Every run that exited was checked (an inconclusive one was killed).
	out=-
	[ "$verdict" = check ] && out=WRONG
	[ "$rc" = 0 ] && out=ok
	if [ "$runs" != - ] && [ "$runs" -gt 0 ] 2>/dev/null; then
		echo "$1 $2 $3 $4 $(fdiv "$(fsub "$t1" "$t0")" "$runs") $runs $inc $races $out $verdict" >>"$DATA"
	else
		echo "$1 $2 $3 $4 - - - $races - $verdict" >>"$DATA"
	fi
	[ $rc -eq 0 ] && [ "$races" -eq 0 ] && [ "$inc" = 0 ] && [ "$out" != WRONG ] ||
		log "  $1 $2 $3 seed $4: $verdict, $inc inconclusive, $races races, output $out $(grep -m 1 -o 'BUG.*' "$SCRATCH/err" | cut -c1-100)"
	grep 'data race on ' "$SCRATCH/err" | sed "s/^cts-trace: /$1 $2 $3: /" | cut -c1-200 >>"$SCRATCH/races"
	grep -o 'inconclusive after [0-9]* steps: [^;(]*' "$SCRATCH/err" |
		sed "s/after [0-9]* steps/after N steps/; s/[0-9.]* s\$/S s/; s/^/$1 $2 $3: /" >>"$SCRATCH/incs"
}

: >"$SCRATCH/races"
: >"$SCRATCH/incs"
AVAIL=""
for p in $NAMES; do
	set -- $(cmd "$p")
	if [ -x "$1" ]; then AVAIL="$AVAIL $p"; else log "skipped $p: $1 not installed"; fi
done
log "mode $BENCH_MODE: $REPS repetitions, $RUNS runs per cts-trace invocation"
for rep in $(seq $REPS); do
	log "repetition $rep/$REPS"
	for p in $AVAIL; do
		native "$p" "$rep"
		for m in sync break; do
			for s in random pct dpor; do
				traced "$p" "$m" "$s" "$rep"
			done
		done
	done
done
# A statically linked program: refused, exit 2, one line.
STATIC=/bin/busybox
if [ -x "$STATIC" ] && file -L "$STATIC" 2>/dev/null | grep -q 'statically linked'; then
	run_cts 60 -- "$STATIC" true >/dev/null 2>"$SCRATCH/static.err"
	static_rc=$?
	static_line=$(head -n 1 "$SCRATCH/static.err" | cut -c1-160)
else
	static_rc=- static_line="skipped: no statically linked $STATIC (apt-get install busybox-static)"
fi

# cell NAME MODE: "clean 3/3" etc. over the strategies' invocations, with
# runs, inconclusive runs, race reports, wrong outputs and the median ms/run.
col() { awk -v p="$1" -v m="$2" -v s="$3" -v f="$4" '$1 == p && $2 == m && (s == "" || $3 == s) { print $f }' "$DATA"; }
sum() { awk '$1 != "-" { s += $1 } END { print s + 0 }'; }
verdicts() {
	col "$1" "$2" "$3" 10 | sort | uniq -c | awk '{ printf "%s%s %d", sep, $2, $1; sep = ", " }'
}

{
	machine_header "Real programs beyond the corpus: verdicts and per-run cost"
	printf 'Inputs: %s bytes of text for the compressors, %s lines for sort. ' "$(wc -c <"$D/text.txt")" "$(wc -l <"$D/lines.txt")"
	printf 'Each program runs natively (%s times) and under `cts-trace -m MODE -s STRATEGY --seed K -n %s --timeout %s --fail-on-exit --check CMD -- run-NAME` ' "$REPS" "$RUNS" "$RUN_TIMEOUT"
	printf '(break mode: `--races report`), K = 1..%s, `OMP_NUM_THREADS=4`. ' "$REPS"
	printf 'Every program here is correct: a bug verdict, a race report on lock-protected data or a wrong output is a defect of the tool. '
	printf 'verdicts: how the %s invocations per cell ended (clean = exit 0). runs: schedules run, inconclusive ones included (dpor may stop early: search complete). ' "$REPS"
	printf 'inc: runs inconclusive (step budget or --timeout). races: race reports. out: invocations with a run whose output differed from the native one: run-NAME is `exec COMMAND >out`, and CMD, run after each run that exits among its files, decompresses compressed output and compares it with the input, and compares the rest with the native output (ripgrep and fd sorted); a difference is a bug verdict (check). '
	printf 'ms/run: median over the invocations of wall time / runs (start-up included); ratio against the native median.\n\n'
	printf '| program | command | native ms |'
	for m in sync break; do for s in random pct dpor; do printf ' %s %s |' "$m" "$s"; done; done
	printf '\n|---|---|---:|---|---|---|---|---|---|\n'
	for p in $AVAIL; do
		set -- $(col "$p" native "" 5 | stats)
		nat=$1
		row="| $p | \`$(cmd "$p" | sed "s|$D/||g")\` | $(mmm %.0f "$(fdiv "$1" 0.001)" "$(fdiv "$2" 0.001)" "$(fdiv "$3" 0.001)")"
		for m in sync break; do
			for s in random pct dpor; do
				set -- $(col "$p" "$m" "$s" 5 | stats)
				ms=$1
				runs=$(col "$p" "$m" "$s" 6 | sum)
				inc=$(col "$p" "$m" "$s" 7 | sum)
				races=$(col "$p" "$m" "$s" 8 | sum)
				wrong=$(col "$p" "$m" "$s" 9 | grep -c WRONG)
				t=$(awk -v a="$ms" -v b="$nat" 'BEGIN { if (a == "-" || b + 0 == 0) print "-"; else printf "%.0f ms (%.0f×)", a * 1000, a / b }')
				row="$row | $(verdicts "$p" "$m" "$s"); runs $runs, inc $inc, races $races, out $wrong wrong; $t"
			done
		done
		echo "$row |"
	done
	printf '\nStatically linked `%s true`: exit %s: `%s`\n' "$STATIC" "$static_rc" "$static_line"
	printf '\n## Race reports (break mode)\n\n```\n'
	sort "$SCRATCH/races" | uniq -c | sort -rn | head -n 40
	printf '```\n\n## Why runs were inconclusive\n\n```\n'
	sort "$SCRATCH/incs" | uniq -c | sort -rn | head -n 40
	envs=""
	for v in REALWORLD_NAMES REALWORLD_TIMEOUT REALWORLD_TEXT_BYTES REALWORLD_SORT_LINES; do
		eval "val=\${$v:-}"
		[ -n "$val" ] && envs="$envs$v=$val "
	done
	printf '```\n\n## Commands\n\n```sh\nmake\n%ssh benchmarks/realworld.sh %s\n```\n\n' "$envs" "$BENCH_MODE"
	printf '## Raw data\n\nname mode strategy repetition seconds_per_run runs inconclusive races output verdict\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
