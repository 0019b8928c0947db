#!/bin/bash
# benchmarks/catch.sh [CTS] — what --races catch (DataCollider-style, sync
# mode) costs and finds, against sync mode without it and against the
# happens-before detector in break mode (--races report); how many
# watchpoint hits per second the access-breakpoint fallback delivers; and
# what one debug-register trap costs in attach mode against the raw floor.
# Prints markdown on stdout. Every number comes from the JSON report
# (elapsed_seconds: wall time, so a loaded machine inflates it; races and
# bugs are counts), except the attach part's. RUNS runs per configuration,
# random strategy, --seed 1.
#
# PARTS (default "traps attach table") picks the sections:
#   traps   launched mode: watch hits per second on each backend
#           (tests/programs/watch_count N), median of REPS
#   attach  attach mode, debug registers (issue 28 item 8): benchmarks/watch/
#           dr_store stores a watched word 1,000 times, then N_ATTACH times,
#           one store an iteration, timing those itself; `cts-trace -p PID
#           --watch var --watch-backend hardware` against benchmarks/watch/dr_floor, the
#           least a tracer does per trap (wait4, DR6 read and reset, the
#           registers, PTRACE_CONT), attached the same way to the same
#           program. microseconds per hit = dr_store's own time / stores;
#           ATTACH_REPS rounds, each measuring every tracer in turn
#           (CTS_BEFORE, if set, is a second cts-trace measured alongside:
#           a before column). With strace, one more run of each cts-trace
#           counts the tracing process's system calls per hit.
#   table   benchmarks/programs: sync, catch and break mode side by side
# Only stdout is written (no file of the tree): `make bench-quick` and
# run-all do not run it.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CTS=${1:-$ROOT/cts-trace}
RUNS=${RUNS:-50} N=${N:-20000} REPS=${REPS:-3} PARTS=${PARTS:-traps attach table}
N_ATTACH=${N_ATTACH:-20000} ATTACH_REPS=${ATTACH_REPS:-5} CTS_BEFORE=${CTS_BEFORE:-}
# the attach part's processes on one CPU (the last), as the floor of issue
# 28 was measured: a trap is then two context switches, not a wakeup on the
# other CPU, whose cost swings with the load there. "none": not pinned.
ATTACH_CPU=${ATTACH_CPU:-$(($(nproc) - 1))}
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
echo "- Machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1), kernel $(uname -r), virtualization: $(systemd-detect-virt 2>/dev/null || echo unknown)"
echo "- cts-trace $("$CTS" --version | head -n 1), HEAD $(git -C "$ROOT" rev-parse --short HEAD)${CTS_BEFORE:+; before: $CTS_BEFORE ($("$CTS_BEFORE" --version | head -n 1))}"
echo "- Command: \`${CTS_BEFORE:+CTS_BEFORE=$CTS_BEFORE }PARTS=\"$PARTS\" RUNS=$RUNS N=$N REPS=$REPS N_ATTACH=$N_ATTACH ATTACH_REPS=$ATTACH_REPS ATTACH_CPU=$ATTACH_CPU bash benchmarks/catch.sh\`"
probe=$("$CTS" -m sync -n 1 --watch counter --watch-backend hardware -o "$W/o" -- \
	"$ROOT/tests/programs/watch_count" 10 2>&1)
if [ $? -eq 2 ]; then hw=no; else hw=yes; fi
echo "- Debug registers trap on this machine: $hw"
echo
# attach_one TRACER: one measurement. TRACER is "floor", "sfloor" (the
# floor in a session of its own, as cts-trace's tracing process is) or a
# cts-trace; prints "US_PER_HIT HITS STORES CPU_US_PER_HIT" ("- - - -"
# when it failed; CPU "-" without perf). STRACE=FILE: the tracing
# process's system calls counted (strace -c) into FILE instead.
attach_one() {
	local d=$W/a.$$ p t rc hits tr=$1 pin=""
	[ "$ATTACH_CPU" = none ] || pin="taskset -c $ATTACH_CPU"
	rm -rf "$d" && mkdir -p "$d" && mkfifo "$d/go" && : >"$d/err"
	$pin "$W/dr_store" "$N_ATTACH" <"$d/go" >"$d/out" &
	p=$!
	exec 7>"$d/go"
	for _ in $(seq 400); do grep -q '^ready' "$d/out" && break; sleep 0.05; done
	local addr ready=armed
	addr=$(sed -n 's/^ready //p' "$d/out")
	if [ "$tr" = floor ]; then
		$pin "$W/dr_floor" "$p" "$addr" >"$d/err" 2>&1 &
	elif [ "$tr" = sfloor ]; then
		$pin setsid "$W/dr_floor" "$p" "$addr" >"$d/err" 2>&1 &
	else
		ready="controlling process"
		$pin "$tr" -v -p "$p" --watch var --watch-backend hardware --report "$d/r.json" \
			-o "$d/o" 2>"$d/err" &
	fi
	t=$!
	for _ in $(seq 400); do grep -q "$ready" "$d/err" && break; sleep 0.05; done
	# the process that traces: dr_floor, or cts-trace's tracing process
	local c=$t s=""
	[ "$ready" = armed ] || c=$(cat "/proc/$t/task/$t/children" 2>/dev/null | awk '{ print $NF }')
	if [ -n "${STRACE:-}" ]; then
		strace -c -p "$c" -o "$STRACE" 2>/dev/null &
		s=$!
		for _ in $(seq 100); do grep -q "^TracerPid:[[:space:]]*$s" "/proc/$c/status" 2>/dev/null && break; sleep 0.05; done
	elif [ "$perf" = yes ]; then
		# its CPU time from now to its end (perf stat -p ends with it)
		perf stat -x, -e task-clock -p "$c" -o "$d/cpu" 2>/dev/null &
		s=$!
		sleep 0.2
	fi
	printf x >&7
	exec 7>&-
	# dr_store ends by itself; 120 s at most, whatever happens
	for _ in $(seq 2400); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
	kill "$p" 2>/dev/null
	wait "$p"
	for _ in $(seq 200); do kill -0 "$t" 2>/dev/null || break; sleep 0.05; done
	kill "$t" 2>/dev/null
	wait "$t"
	rc=$?
	[ -n "$s" ] && wait "$s"
	if [ "$ready" = armed ]; then
		hits=$(sed -n 's/ traps$//p' "$d/err")
	else
		hits=$(j "$d/r.json" "d['watch']['hits_total']" 2>/dev/null)
	fi
	t=$(sed -n 's/.* stores in \([0-9.]*\) s .*/\1/p' "$d/out")
	local all
	all=$(sed -n 's/.* (\([0-9]*\) in all)$/\1/p' "$d/out")
	local cpu=-
	[ -s "$d/cpu" ] && cpu=$(awk -F, -v a="$all" '$3 == "task-clock" && a > 0 { printf "%.2f", $1 * 1000 / a }' "$d/cpu")
	if [ "$rc" -ne 0 ] || [ -z "$t" ] || [ -z "$hits" ]; then
		echo "- - - -"
	else
		awk -v t="$t" -v n="$N_ATTACH" -v h="$hits" -v a="$all" -v c="${cpu:--}" \
			'BEGIN { printf "%.2f %d %d %s\n", t * 1e6 / n, h, a, c }'
	fi
	rm -rf "$d"
}

# med_range: numbers on stdin -> "median (min–max)"
med_range() {
	sort -g | awk '{ a[NR] = $1 } END { if (!NR) { print "-"; exit }
		m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "%.2f (%.2f–%.2f)\n", m, a[1], a[NR] }'
}

# per_round K BASE FIELD: K's field FIELD over BASE's, round by round
per_round() {
	awk -v k="$1" -v b="$2" -v f="$3" 'NR == FNR { if ($2 == b) v[$1] = $f; next }
		$2 == k && $f != "-" && v[$1] > 0 { print $f / v[$1] }' "$W/attach.raw" "$W/attach.raw"
}

attach_part() {
	echo
	echo "## Attach mode: one debug-register trap against the raw floor"
	echo
	if [ "$hw" = no ]; then
		echo "Not measurable here: debug registers do not trap."
		return
	fi
	gcc -g -O1 -w -o "$W/dr_store" "$ROOT/benchmarks/watch/dr_store.c" &&
		gcc -g -O1 -w -o "$W/dr_floor" "$ROOT/benchmarks/watch/dr_floor.c" || return
	local tracers="floor sfloor" r k res
	perf=no
	[ "${ATTACH_PERF:-yes}" = no ] || { command -v perf >/dev/null 2>&1 &&
		perf stat -x, -e task-clock -o /dev/null true 2>/dev/null && perf=yes; }
	[ -n "$CTS_BEFORE" ] && tracers="$tracers before"
	tracers="$tracers cts"
	for r in $(seq "$ATTACH_REPS"); do
		for k in $tracers; do
			case $k in
			floor | sfloor) res=$(attach_one "$k") ;;
			before) res=$(attach_one "$CTS_BEFORE") ;;
			cts) res=$(attach_one "$CTS") ;;
			esac
			echo "$r $k $res"
		done
	done >"$W/attach.raw"
	echo "\`benchmarks/watch/dr_store $N_ATTACH\` stores a watched 8-byte word 1,000 times (a tracer's"
	echo "first hits, untimed), then $N_ATTACH times, one store an iteration, and times that loop"
	echo "itself; each tracer attaches to it by pid and watches the word (reads and writes) on"
	echo "debug registers. The floor,"
	echo "\`benchmarks/watch/dr_floor\`, does per trap a wait4, a DR6 read and reset"
	echo "(PEEKUSER, POKEUSER), the registers (GETREGS) and a PTRACE_CONT; it is measured twice: in"
	echo "the session of the program it traces, and in a session of its own (\`setsid\`), as"
	echo "cts-trace's tracing process is (docs/design.md, \"SIGKILL of cts-trace\"): with the"
	echo "kernel's autogroups, a session is a scheduling group, and on a loaded CPU each trap then"
	echo "waits for the other group's turn twice. $ATTACH_REPS rounds,"
	echo "each measuring every tracer in turn; the ratio is taken within a round. $([ "$ATTACH_CPU" = none ] &&
		echo "Not pinned." || echo "Every process on CPU $ATTACH_CPU (\`taskset\`).")"
	echo
	echo "The tracer's CPU time per hit (\`perf stat -e task-clock -p\` on the process that traces,"
	echo "from the start of the stores to its end, over every hit) depends less on the load than"
	echo "the wall time, which swings with what else runs on the CPU."
	echo
	echo "| tracer | µs per hit, median (min–max) | × the floor, median of rounds (min–max) | × the floor in its own session | tracer's CPU µs per hit, median (min–max) | × the floor's CPU | hits reported / stores |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	for k in $tracers; do
		case $k in
		floor) name="floor (dr_floor)" ;;
		sfloor) name="floor in its own session (setsid dr_floor)" ;;
		before) name="cts-trace before ($CTS_BEFORE)" ;;
		cts) name="cts-trace ($CTS)" ;;
		esac
		us=$(awk -v k="$k" '$2 == k && $3 != "-" { print $3 }' "$W/attach.raw" | med_range)
		ratio=$(per_round "$k" floor 3 | med_range)
		sratio=$(per_round "$k" sfloor 3 | med_range)
		hits=$(awk -v k="$k" '$2 == k { if ($3 == "-") bad++; else if ($4 != $5) off++; n++; h = $4 " / " $5 }
			END { if (bad) h = h ", " bad " failed"; if (off) h = h ", " off " rounds not all"; print h }' "$W/attach.raw")
		cpu=$(awk -v k="$k" '$2 == k && $6 != "-" && $6 != "" { print $6 }' "$W/attach.raw" | med_range)
		cratio=$(per_round "$k" floor 6 | med_range)
		echo "| $name | $us | $ratio | $sratio | $cpu | $cratio | $hits |"
	done
	if command -v strace >/dev/null 2>&1; then
		echo
		echo "System calls of the tracing process per hit (\`strace -c -p\`, one more run each; strace"
		echo "slows the tracer, so stops are more often ready at the first wait):"
		echo
		echo "| tracer | per hit | by call (0.05 a hit or more) |"
		echo "| --- | --- | --- |"
		for k in $tracers; do
			case $k in floor | sfloor) continue ;; esac
			case $k in before) b=$CTS_BEFORE ;; *) b=$CTS ;; esac
			STRACE=$W/strace.txt attach_one "$b" >/dev/null
			# rows: % time, seconds, usecs/call, calls, [errors,] syscall
			awk -v n="$((N_ATTACH + 1000))" -v k="$k" '/^ *[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+/ && $NF != "total" {
					tot += $4
					if ($4 / n >= 0.05)
						by = by sprintf("%s%s %.2f", by ? ", " : "", $NF, $4 / n)
				}
				END { printf "| %s | %.2f | %s |\n", k, tot / n, by }' "$W/strace.txt"
		done
	fi
	echo
	echo "Raw rounds (round, tracer, µs per hit, hits reported, stores in all, tracer's CPU µs per hit):"
	echo
	echo '```'
	cat "$W/attach.raw"
	echo '```'
}

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
case $PARTS in *attach*) attach_part ;; esac
case $PARTS in *table*) ;; *) exit 0 ;; esac
echo
echo "## Cost and yield on benchmarks/programs ($RUNS runs each, random, --keep-going)"
echo
echo "races: distinct races reported; bugs: distinct bugs. sync = \`-m sync --races off\`,"
echo "catch = \`--races catch\` (sync mode, default sample of 64 sites, window 8),"
echo "break = \`-m break --races report\`. Catch backend: $([ "$hw" = yes ] && echo hardware || echo "access breakpoints (debug registers do not trap here)")."
echo
echo "| program | sync s | catch s | catch/sync | catch races | catch windows | break s | break races | sync bugs | catch bugs | break bugs |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
[ -n "${PROGS:-}" ] || PROGS=$(cd "$W" && ls | grep -v '\.' | grep -vx 'lock_counter\|par_sum\|pipeline\|dr_store\|dr_floor')
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
