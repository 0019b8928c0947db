#!/bin/sh
# benchmarks/speed.sh quick|full — the four speed goals of issue 9, as ratios
# with min–max over interleaved repetitions:
#   G1  break mode on compute-heavy threaded code (compute, par_sum) at the
#       native-size input N: wall time of `cts-trace -m break -n 1` / native
#       wall time, goal <= 10x. Break mode at N takes hours, so cts-trace runs
#       at inputs n and 2n and its time at N is extrapolated from the
#       difference (the visible steps grow linearly with the input); the
#       ratio measured at 2n is shown too (native start-up dominates it).
#   G2  break mode on sync-heavy code (sync_heavy): time per visible event in
#       break mode / in sync mode, goal <= 2x
#   G3  sync mode system calls of cts-trace per visible event on the common
#       path (mutex lock/unlock): marginal count between two input sizes of
#       sync_heavy (strace -c on cts-trace, not its children), goal <= 3
#   G4  schedules per second on the small two-thread programs (deadlock_ok,
#       bank3_ok, bounded_buffer_ok, counter_ok) / runs per second of a native
#       fork+exec+wait loop of the same program, sync and break, goal >= 1.0x
# Writes results/speed.md (results/quick/speed.md in quick mode): the table,
# which goals are met, the commands and the raw data.  SPEED_NOTE, if set, is
# added to the file (what changed since the previous measurement).  The
# previous table and what the file had under "## Earlier measurements" are
# kept there, below the new raw data.
# SPEED_GOALS: the goals to measure, e.g. SPEED_GOALS="G4" (default
# "G1 G2 G3 G4"); the others are left out of the table. SPEED_G4_PROGS: the
# G4 programs (default all four), e.g. SPEED_G4_PROGS=bounded_buffer_ok.
#   SPEED_GOALS=G4 sh benchmarks/speed.sh full    # G4 alone: ~2 minutes
SCRIPT=speed
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts
need_tool strace "counting cts-trace's system calls (G3)" strace
need_tool cc "building the native fork+exec loop" gcc

if [ "$BENCH_MODE" = quick ]; then
	REPS=3
	G1="compute 256 1048576
par_sum 8192 4194304"
	G2_ITERS=200
	G3_SMALL=100 G3_BIG=400
	G4_BUDGET=0.5
	LIMIT=60
else
	REPS=5
	G1="compute 1024 1048576
par_sum 65536 4194304"
	G2_ITERS=2000
	G3_SMALL=500 G3_BIG=4000
	G4_BUDGET=2
	LIMIT=150
fi
G4_PROGS=${SPEED_G4_PROGS:-deadlock_ok bank3_ok bounded_buffer_ok counter_ok}
GOALS=${SPEED_GOALS:-G1 G2 G3 G4}
for g in $GOALS; do
	case $g in G1|G2|G3|G4) ;; *) die "SPEED_GOALS: unknown goal $g (G1 G2 G3 G4)" ;; esac
done
goal() { case " $GOALS " in *" $1 "*) return 0 ;; esac; return 1; }
goal G1 || G1=""
G4_RUN=$G4_PROGS
goal G4 || G4_RUN=""
# one run, no per-run time limit short of the script's own (a traced run that
# hits it is an infinite ratio)
CTS_OPTS="-q -n 1 -s random --seed 1 --max-steps 1000000000 --timeout $((LIMIT - 5))"

src_of() {
	if [ -f "$PROGS/$1.c" ]; then echo "$PROGS/$1.c"; else echo "$ROOT/tests/programs/$1.c"; fi
}
for p in compute par_sum sync_heavy $G4_PROGS; do
	build "$(src_of "$p")" "$BIN/$p" || die "gcc failed on $(src_of "$p")"
done

# forkloop SECONDS PROG: runs/s of a native fork+exec+wait loop.
cat >"$SCRATCH/forkloop.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	double budget = atof(argv[1]), t0 = now(), t;
	long runs = 0;
	do {
		pid_t p = fork();
		if (p == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		int st;
		waitpid(p, &st, 0);
		runs++;
	} while ((t = now()) - t0 < budget);
	printf("%.3f\n", (double)runs / (t - t0));
	return 0;
}
EOF
cc -O2 -o "$SCRATCH/forkloop" "$SCRATCH/forkloop.c" || die "cannot build the fork loop"

DATA=$SCRATCH/data
: >"$DATA"
# wall CMD...: run it, print the wall seconds ("-" on a time-out).
wall() {
	t0=$(now)
	timeout -k 5 "$LIMIT" "$@" >/dev/null 2>"$SCRATCH/err"
	rc=$?
	t1=$(now)
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo -; else fsub "$t1" "$t0"; fi
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && log "  exit $rc: $* $(head -c 200 "$SCRATCH/err")"
}
R=$SCRATCH/r.json

log "mode $BENCH_MODE: $REPS interleaved repetitions"
rep=1
while [ $rep -le $REPS ]; do
	log "repetition $rep/$REPS"
	printf '%s\n' "$G1" | while read -r p n big; do
		[ -n "$p" ] || continue
		nat_big=$(wall "$BIN/$p" "$big")
		nat=$(wall "$BIN/$p" $((2 * n)))
		rm -f "$R"
		cts1=$(wall "$CTS" $CTS_OPTS -m break --report "$R" -o "$SCRATCH/out" "$BIN/$p" "$n")
		rm -f "$R"
		cts2=$(wall "$CTS" $CTS_OPTS -m break --report "$R" -o "$SCRATCH/out" "$BIN/$p" $((2 * n)))
		echo "G1 $p $n $rep $nat_big $nat $cts1 $cts2 $(json "$R" .steps) $(json "$R" .tracer.breakpoint_hits) $big" >>"$DATA"
	done
	for m in sync break; do
		goal G2 || break
		rm -f "$R"
		t=$(wall "$CTS" $CTS_OPTS -m $m --report "$R" -o "$SCRATCH/out" "$BIN/sync_heavy" "$G2_ITERS")
		echo "G2 sync_heavy $m $rep $t $(json "$R" .steps) $(json "$R" .tracer.breakpoint_hits)" >>"$DATA"
	done
	for p in $G4_RUN; do
		for m in sync break; do
			nat=$("$SCRATCH/forkloop" "$G4_BUDGET" "$BIN/$p")
			rm -f "$R"
			run_cts 120 -q -s random --seed "$rep" -m $m -n 0 -t "$G4_BUDGET" --keep-going \
				--report "$R" -o "$SCRATCH/out" "$BIN/$p" >/dev/null 2>&1
			rps=$(fdiv "$(json "$R" .runs)" "$(json "$R" .elapsed_seconds)")
			echo "G4 $p $m $rep $nat $rps $(json "$R" '.bugs | length')" >>"$DATA"
		done
	done
	rep=$((rep + 1))
done
# G3: exact counts, one run per size and mode (strace slows the run, not the count).
for m in sync break; do
	goal G3 || break
	for n in $G3_SMALL $G3_BIG; do
		rm -f "$R" "$SCRATCH/strace"
		timeout -k 5 "$LIMIT" strace -c -o "$SCRATCH/strace" "$CTS" $CTS_OPTS -m $m --report "$R" \
			-o "$SCRATCH/out" "$BIN/sync_heavy" "$n" >/dev/null 2>&1
		calls=$(awk '$NF == "total" { print $4 }' "$SCRATCH/strace" 2>/dev/null)
		byname=$(awk 'NF >= 5 && $NF != "total" && $NF != "syscall" && $1 !~ /^-/ { printf "%s=%s,", $NF, $4 }' "$SCRATCH/strace" 2>/dev/null)
		echo "G3 sync_heavy $m $n ${calls:--} $(json "$R" .steps) ${byname:--}" >>"$DATA"
	done
done

# ratio rows --------------------------------------------------------------
# g1 PROG N: ratios cts/native per repetition
# g1 PROG N measured|projected: per repetition, cts(2n) / native(2n), or
# (C1 + (N - n) * (C2 - C1) / n) / native(N), with C1, C2 the medians of
# cts(n) and cts(2n) over all repetitions (a per-repetition difference of
# two noisy times can even come out negative on a loaded machine)
g1() {
	c1=$(awk -v p="$1" -v n="$2" '$1 == "G1" && $2 == p && $3 == n { print $7 }' "$DATA" | stats | cut -d' ' -f1)
	c2=$(awk -v p="$1" -v n="$2" '$1 == "G1" && $2 == p && $3 == n { print $8 }' "$DATA" | stats | cut -d' ' -f1)
	awk -v p="$1" -v n="$2" -v k="$3" -v c1="$c1" -v c2="$c2" '$1 == "G1" && $2 == p && $3 == n && $5 != "-" && $6 != "-" && $5 > 0 && $6 > 0 {
	if (k == "measured") { if ($8 == "-") print "inf"; else printf "%.4f\n", $8 / $6; next }
	if (c1 == "-" || c2 == "-") { print "inf"; next }
	printf "%.4f\n", (c1 + ($11 - n) * (c2 - c1) / n) / $5 }' "$DATA"
}
fmt_ratio() { # "median min max n" -> "m× (lo–hi)"
	awk -v m="$1" -v lo="$2" -v hi="$3" 'BEGIN { if (m == "-") { print "-"; exit }
		printf "%.2f× (%.2f–%.2f)", m, lo, hi }'
}
verdict() { # VALUE OP LIMIT -> met / not met
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { if (v == "-" || v == "inf") { print "**not met**"; exit }
		ok = (op == "le") ? (v + 0 <= l + 0) : (v + 0 >= l + 0); print ok ? "met" : "**not met**" }'
}
{
	machine_header "Speed: the four goals of issue 9"
	printf 'Ratios are median (min–max) over %s interleaved repetitions; each ratio is computed within one repetition (native and traced run back to back), so load from other users of the machine hits both sides alike. ' "$REPS"
	printf 'A traced run that hits the %s s limit counts as an infinite ratio.\n\n' "$LIMIT"
	[ -n "${SPEED_NOTE:-}" ] && printf '%s\n\n' "$SPEED_NOTE"
	[ "$GOALS" != "G1 G2 G3 G4" ] && printf 'Goals measured in this run: %s (SPEED_GOALS); the others were not.\n\n' "$GOALS"
	printf '| goal | measurement | ratio | target | verdict |\n|---|---|---:|---:|---|\n'
	printf '%s\n' "$G1" | while read -r p n big; do
		[ -n "$p" ] || continue
		steps=$(awk -v p="$p" -v n="$n" '$1 == "G1" && $2 == p && $3 == n { print $9 }' "$DATA" | stats | cut -d' ' -f1)
		printf '| G1 break, compute-heavy | %s %s (measured; %s visible steps): cts-trace -m break -n 1 / native wall | %s | (info) | - |\n' \
			"$p" $((2 * n)) "$steps" "$(fmt_ratio $(g1 "$p" "$n" measured | stats))"
		set -- $(g1 "$p" "$n" projected | stats)
		printf '| G1 break, compute-heavy | %s %s (native size; cts-trace extrapolated from %s and %s) / native wall | %s | ≤ 10× | %s |\n' \
			"$p" "$big" "$n" $((2 * n)) "$(fmt_ratio "$@")" "$(verdict "$1" le 10)"
	done
	if goal G2; then
	set -- $(awk '$1 == "G2" { k = $4; if ($5 != "-" && $6 > 0) { if ($3 == "sync") s[k] = $5 / $6; else b[k] = $5 / $6 } }
		END { for (k in b) if (k in s) printf "%.4f\n", b[k] / s[k] }' "$DATA" | stats)
	printf '| G2 break vs sync, sync-heavy | sync_heavy %s: (break wall / steps) / (sync wall / steps) | %s | ≤ 2× | %s |\n' \
		"$G2_ITERS" "$(fmt_ratio "$@")" "$(verdict "$1" le 2)"
	fi
	for m in sync break; do
		goal G3 || break
		per=$(awk -v m="$m" -v a="$G3_SMALL" -v b="$G3_BIG" '$1 == "G3" && $3 == m { c[$4] = $5; s[$4] = $6 }
			END { if (c[a] == "-" || c[b] == "-" || s[b] == s[a]) print "-"; else printf "%.2f", (c[b] - c[a]) / (s[b] - s[a]) }' "$DATA")
		if [ $m = sync ]; then tgt="≤ 3" v=$(verdict "$per" le 3); else tgt="(info)" v="-"; fi
		printf '| G3 syscalls per event (%s) | sync_heavy %s vs %s iterations: Δ syscalls of cts-trace / Δ visible steps | %s | %s | %s |\n' \
			"$m" "$G3_SMALL" "$G3_BIG" "$per" "$tgt" "$v"
	done
	for p in $G4_RUN; do
		for m in sync break; do
			set -- $(awk -v p="$p" -v m="$m" '$1 == "G4" && $2 == p && $3 == m && $5 != "-" && $6 != "-" && $5 > 0 { printf "%.4f\n", $6 / $5 }' "$DATA" | stats)
			bugs=$(awk -v p="$p" -v m="$m" '$1 == "G4" && $2 == p && $3 == m && $7 != 0 && $7 != "-"' "$DATA" | wc -l)
			note=""
			[ "$bugs" -gt 0 ] && note=" (**$bugs runs reported a bug: false alarm**)"
			printf '| G4 schedules/s vs native loop | %s -m %s -s random -n 0 -t %s: runs/s / native fork+exec+wait runs/s%s | %s | ≥ 1.0× | %s |\n' \
				"$p" "$m" "$G4_BUDGET" "$note" "$(fmt_ratio "$@")" "$(verdict "$1" ge 1)"
		done
	done
	printf '\n## Commands\n\n```sh\n'
	printf '# G1: bin/PROG N and bin/PROG 2n   vs   cts-trace %s -m break bin/PROG n|2n\n' "$CTS_OPTS"
	printf '#     (PROG n N): %s\n' "$(printf '%s\n' "$G1" | tr '\n' ';')"
	printf '# G2: cts-trace %s -m sync|break bin/sync_heavy %s\n' "$CTS_OPTS" "$G2_ITERS"
	printf '# G3: strace -c cts-trace %s -m sync|break bin/sync_heavy %s|%s\n' "$CTS_OPTS" "$G3_SMALL" "$G3_BIG"
	printf '# G4: forkloop %s bin/PROG   vs   cts-trace -q -s random --seed REP -m sync|break -n 0 -t %s --keep-going bin/PROG\n' "$G4_BUDGET" "$G4_BUDGET"
	printf '# programs built with gcc %s from benchmarks/programs or tests/programs\n```\n\n' "$CFLAGS_BENCH"
	printf '## Raw data\n\n```\n'
	printf '# G1 prog n rep native_N_s native_2n_s cts_n_s cts_2n_s steps_2n bp_hits_2n N\n# G2 sync_heavy mode rep cts_s steps bp_hits\n'
	printf '# G3 sync_heavy mode n syscalls steps calls_by_name\n# G4 prog mode rep native_runs_per_s cts_runs_per_s bugs\n'
	cat "$DATA"
	printf '```\n'
	# earlier measurements: the previous table first, then what was kept before
	if [ -f "$RESULTS" ]; then
		printf '\n## Earlier measurements (kept for the per-trick before/after counts and the written reasons)\n\n'
		printf '### The previous run of speed.sh (moved here by the next one)\n\n'
		awk 'NR == 1 { next } /^## (Earlier measurements|Commands)/ { exit } { sub(/^#/, "###"); print }' "$RESULTS"
		awk 'on && /^## Commands/ { exit } on { print } /^## Earlier measurements/ { on = 1 }' "$RESULTS"
	fi
} >"$SCRATCH/table.md"
publish
cat "$RESULTS" | sed -n '/^| goal/,/^$/p' >&2
