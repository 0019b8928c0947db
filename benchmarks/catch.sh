#!/bin/bash
# benchmarks/catch.sh [CTS] — what --races catch (DataCollider-style, sync
# mode) costs and finds, against sync mode without it and against the
# happens-before detector in break mode (--races report); and how many
# watchpoint hits per second the access-breakpoint fallback delivers.
# Prints markdown on stdout. Every number comes from the JSON report
# (elapsed_seconds: wall time, so a loaded machine inflates it; races and
# bugs are counts). RUNS runs per configuration, random strategy, --seed 1.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CTS=${1:-$ROOT/cts-trace}
RUNS=${RUNS:-50} N=${N:-20000} REPS=${REPS:-3} PARTS=${PARTS:-traps table}
# PROGS: the programs of the table (default: every one with a bug or a twin;
# lock_counter, par_sum and pipeline are overhead programs whose runs outlast
# the 10 s run limit in sync mode already)
W=$(mktemp -d /tmp/cts-catch.XXXXXX)
trap 'rm -rf "$W"' EXIT
for f in "$ROOT"/benchmarks/programs/*.c; do
	gcc -g -O1 -pthread -w -o "$W/$(basename "$f" .c)" "$f" -lm || exit 1
done
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "# --races catch and watchpoint traps"
echo
echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs, load average at start $(cut -d' ' -f1-3 /proc/loadavg) (machine shared with other builds: times are inflated)"
echo "- cts-trace $("$CTS" --version | head -n 1), HEAD $(git -C "$ROOT" rev-parse --short HEAD)"
echo "- Command: \`RUNS=$RUNS N=$N bash benchmarks/catch.sh\`"
probe=$("$CTS" -m sync -n 1 --watch counter --watch-backend hardware -o "$W/o" -- \
	"$ROOT/tests/programs/watch_count" 10 2>&1)
if [ $? -eq 2 ]; then hw=no; else hw=yes; fi
echo "- Debug registers trap on this machine: $hw"
echo
case $PARTS in *traps*) ;; *) N=0 ;; esac
[ "$N" -gt 0 ] && {
echo "## Watchpoint hits per second (tests/programs/watch_count $N: $((2 * N + 1)) accesses)"
echo
echo "| backend | hits reported | seconds (median of $REPS) | hits/s |"
echo "| --- | --- | --- | --- |"
for b in breakpoints hardware; do
	if [ "$b" = hardware ] && [ "$hw" = no ]; then
		echo "| hardware | not measurable here: debug registers do not trap | - | - |"
		continue
	fi
	for r in $(seq "$REPS"); do
		"$CTS" -q -m sync -n 1 --watch counter --watch-backend "$b" --report "$W/w.json" \
			-o "$W/o" -- "$ROOT/tests/programs/watch_count" "$N" >/dev/null 2>&1
		j "$W/w.json" "d['elapsed_seconds']"
	done >"$W/times"
	hits=$(j "$W/w.json" "d['watch']['hits_total']")
	t=$(median <"$W/times")
	echo "| $b | $hits | $t | $(awk -v h="$hits" -v t="$t" 'BEGIN { printf "%.0f", h / t }') |"
done
}
echo
echo "## Cost and yield on benchmarks/programs ($RUNS runs each, random, --keep-going)"
echo
echo "races: distinct races reported; bugs: distinct bugs. sync = \`-m sync --races off\`,"
echo "catch = \`--races catch\` (sync mode, default sample of 64 sites, window 8),"
echo "break = \`-m break --races report\`. Catch backend: $([ "$hw" = yes ] && echo hardware || echo "access breakpoints (debug registers do not trap here)")."
echo
echo "| program | sync s | catch s | catch/sync | catch races | catch windows | break s | break races | sync bugs | catch bugs | break bugs |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
[ -n "${PROGS:-}" ] || PROGS=$(cd "$W" && ls | grep -v '\.' | grep -vx 'lock_counter\|par_sum\|pipeline')
case $PARTS in *table*) ;; *) exit 0 ;; esac
for p in $PROGS; do
	[ -x "$W/$p" ] || continue
	for c in sync catch break; do
		case $c in
		sync) o="-m sync --races off" ;;
		catch) o="--races catch" ;;
		break) o="-m break --races report" ;;
		esac
		timeout 600 "$CTS" -q $o -s random --seed 1 -n "$RUNS" --keep-going -o "$W/o" \
			--report "$W/$c.json" -- "$W/$p" >/dev/null 2>&1
	done
	s=$(j "$W/sync.json" "d['elapsed_seconds']")
	c=$(j "$W/catch.json" "d['elapsed_seconds']")
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$p" "$s" "$c" \
		"$(awk -v a="$c" -v b="$s" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')" \
		"$(j "$W/catch.json" "len(d['races'])")" "$(j "$W/catch.json" "d['catch']['windows']")" \
		"$(j "$W/break.json" "d['elapsed_seconds']")" "$(j "$W/break.json" "len(d['races'])")" \
		"$(j "$W/sync.json" "len(d['bugs'])")" "$(j "$W/catch.json" "len(d['bugs'])")" \
		"$(j "$W/break.json" "len(d['bugs'])")"
done
