#!/bin/sh
# benchmarks/time_to_bug.sh quick|full — runs and seconds to the first bug on
# every bug program of benchmarks/programs (the ones with an _ok twin):
#   (a) native stress testing: run the binary in a loop (each run under a
#       timeout, so a deadlock counts as a failure) until it fails, at the
#       default input and at an amplified input where the program takes one;
#   (b) cts-trace, each strategy, 3 seeds (median), in the mode the bug needs;
#   (c) peer tools: valgrind helgrind and drd, and a ThreadSanitizer build, on
#       the buggy program and on its correct twin (reports on the twin are
#       false alarms), with their slowdown against a native run.
# Everything is bounded by timeouts (see the budgets below).
SCRIPT=time_to_bug
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts
need_tool valgrind "the helgrind and drd comparison" valgrind

STRATEGIES="random pct dfs dpor pcb idb"
SEEDS="1 2 3"
if [ "$BENCH_MODE" = quick ]; then
	# quick: two programs (one sync, one break) and one seed per strategy.
	BUGS="deadlock lost_update"
	SEEDS="1"
	STRESS_N=300 STRESS_T=1 STRESS_PT=2 STRESS_TRIALS=1
	CTS_T=2 TOOL_T=30 BASE_K=10 TWIN_N=20
else
	BUGS=$(cd "$PROGS" && ls *_ok.c | sed 's/_ok\.c$//' | tr '\n' ' ')
	STRESS_N=5000 STRESS_T=10 STRESS_PT=3 STRESS_TRIALS=3
	CTS_T=10 TOOL_T=60 BASE_K=20 TWIN_N=100
fi
# BENCH_PROGRAMS="deadlock dcl" restricts the run to some programs.
BUGS=${BENCH_PROGRAMS:-$BUGS}
for p in $BUGS; do
	[ -f "$PROGS/$p.c" ] && [ -f "$PROGS/${p}_ok.c" ] || die "no bug program $p (with twin ${p}_ok) in $PROGS"
done
[ -n "$BUGS" ] || die "no bug programs (with *_ok.c twins) in $PROGS"

mode_of() {
	m=$(sed -n 's/.*Minimal mode: *\([a-z]*\).*/\1/p' "$PROGS/$1.c" 2>/dev/null | head -n 1)
	case $m in
	sync | break | step) echo "$m" ;;
	*) die "cannot find 'Minimal mode:' in $PROGS/$1.c" ;;
	esac
}
# amplified input for the native stress loop (the programs' own usage lines);
# "-" where the program takes no argument.
amplified() {
	case $1 in
	bank3 | deadlock | lost_update) echo 100000 ;;
	bounded_buffer) echo 1000 ;;
	check_act | pool_shutdown | ws_deque) echo 64 ;;
	*) echo - ;;
	esac
}
# expected: the kind of bug each program's header describes ("Exposing
# schedule: ... -> deadlock" or "... assert fails").  Only a bug of this kind
# counts as found: anything else cts-trace reports first (a replay divergence,
# a deadlock where an assert was expected) is recorded as such.
expected() {
	case $1 in
	bank3 | deadlock | lost_wakeup | pool_shutdown) echo deadlock ;;
	*) echo assert ;;
	esac
}
opts_of() {
	case $1 in
	pcb | idb) echo "-s $1 --bound 1" ;;
	*) echo "-s $1" ;;
	esac
}

# ThreadSanitizer: needs libtsan; try to install it once (as root) if missing.
TSAN=yes
tsan_build() { build "$PROGS/$1.c" "$BIN/$1.tsan" -fsanitize=thread; }
first=$(echo $BUGS | cut -d' ' -f1)
if ! tsan_build "$first" 2>/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		log "gcc -fsanitize=thread failed; trying apt-get install -y libtsan2 once"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libtsan2 >/dev/null 2>&1
	fi
	tsan_build "$first" 2>/dev/null || TSAN="not available (gcc -fsanitize=thread fails: libtsan missing)"
fi
[ "$TSAN" = yes ] || log "ThreadSanitizer: $TSAN"

for p in $BUGS; do
	mode_of "$p" >/dev/null
	build_bench "$p"
	build_bench "${p}_ok"
	if [ "$TSAN" = yes ]; then
		tsan_build "$p" && tsan_build "${p}_ok" || die "gcc -fsanitize=thread failed on $p"
	fi
done

DATA=$SCRATCH/data
: >"$DATA"
nowns() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (a - b) / 1e9 }'; }
how() {
	case $1 in
	124 | 137) echo hang ;;
	134) echo abort ;;
	139) echo SIGSEGV ;;
	*) echo "exit$1" ;;
	esac
}

# stress BIN [ARGS]: run natively until a run fails; sets S_RUNS S_SECS S_HOW
# (S_HOW=none when STRESS_N runs or STRESS_T seconds passed without failure).
stress() {
	i=0
	t0=$(nowns)
	deadline=$(awk -v a="$t0" -v b="$STRESS_T" 'BEGIN { printf "%.0f", a + b * 1e9 }')
	S_HOW=none
	while [ $i -lt $STRESS_N ]; do
		i=$((i + 1))
		timeout -s KILL "$STRESS_PT" "$@" >/dev/null 2>&1
		rc=$?
		if [ $rc -ne 0 ]; then
			S_HOW=$(how $rc)
			break
		fi
		[ "$(nowns)" -gt "$deadline" ] && break
	done
	S_RUNS=$i S_SECS=$(secs "$(nowns)" "$t0")
}

# baseline BIN: mean wall seconds of one native run (BASE_K runs, under timeout
# like every other run here, failures included).
baseline() {
	t0=$(nowns)
	k=0
	while [ $k -lt $BASE_K ]; do
		timeout -s KILL "$STRESS_PT" "$@" >/dev/null 2>&1
		k=$((k + 1))
	done
	awk -v a="$(nowns)" -v b="$t0" -v k="$BASE_K" 'BEGIN { printf "%.5f", (a - b) / 1e9 / k }'
}

# cts_trial PROG STRATEGY SEED: one search for the first bug -> DATA line
# cts prog strategy seed status runs secs kind
cts_trial() {
	p=$1 s=$2 seed=$3 m=$(mode_of "$1") r=$SCRATCH/r.json
	rm -f "$r"
	run_cts $((CTS_T + 30)) -q $(opts_of "$s") -m "$m" -n 0 -t "$CTS_T" --seed "$seed" \
		--report "$r" -o "$SCRATCH/cts-out" "$BIN/$p" >/dev/null 2>&1
	rc=$?
	if [ ! -s "$r" ]; then
		echo "cts $p $s $seed error - - no-report(exit$rc)" >>"$DATA"
		return
	fi
	set -- $(json "$r" '"\(.bugs[0].kind // "-") \(.runs) \(.elapsed_seconds) \(.complete) \((.bugs[0].run // -1) + 1)"')
	kind=${1:--} runs=${2:--} el=${3:--} complete=${4:-false} brun=${5:--}
	want=$(expected "$p")
	if [ "$kind" != - ] && [ "$kind" != "$want" ]; then
		# cts-trace stopped at something other than the program's bug (a
		# replay divergence is a cts-trace problem; another kind is a false
		# alarm or a different failure): search again past it with
		# --keep-going and count the first bug of the expected kind, seconds
		# estimated in proportion to runs (marked ~ in the table).
		first_kind=$kind
		rm -f "$r"
		run_cts $((CTS_T + 30)) -q $(opts_of "$s") -m "$m" -n 0 -t "$CTS_T" --seed "$seed" \
			--keep-going --report "$r" -o "$SCRATCH/cts-out" "$BIN/$p" >/dev/null 2>&1
		line=$(jq -r --arg want "$want" '([.bugs[] | select(.kind == $want)] | sort_by(.run) | first) as $b
			| if $b == null then "none \(.runs) \(.elapsed_seconds) -"
			  else "found \($b.run + 1) \(.elapsed_seconds * ($b.run + 1) / .runs) \($b.kind)" end' "$r" 2>/dev/null)
		set -- ${line:-error - - no-report}
		echo "cts $p $s $seed $1 $2 $3 $4 first:$first_kind" >>"$DATA"
		return
	fi
	if [ "$kind" = - ]; then
		st=none
		[ "$complete" = true ] && st=exhausted
		echo "cts $p $s $seed $st $runs $el -" >>"$DATA"
	else
		echo "cts $p $s $seed found $brun $el $kind" >>"$DATA"
	fi
}

# peer TOOL PROG VARIANT(bug|twin): one run under helgrind, drd or tsan ->
# peer prog tool variant exit secs reports category
peer() {
	tool=$1 p=$2 v=$3 bin=$BIN/$2
	[ "$v" = twin ] && bin=$BIN/${2}_ok
	log=$SCRATCH/peer.log
	rm -f "$log"
	t0=$(nowns)
	case $tool in
	tsan)
		TSAN_OPTIONS="exitcode=66 halt_on_error=0" timeout -s KILL "$TOOL_T" "$bin.tsan" >/dev/null 2>"$log"
		rc=$?
		n=$(grep -c 'WARNING: ThreadSanitizer' "$log")
		cat=$(grep -m1 -o 'ThreadSanitizer: [a-z -]*' "$log" | sed 's/ThreadSanitizer: //; s/ *$//' | tr ' ' '_')
		;;
	*)
		timeout -s KILL "$TOOL_T" valgrind --tool="$tool" --error-exitcode=99 --log-file="$log" \
			"$bin" >/dev/null 2>&1
		rc=$?
		n=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
		# the first error header (not a stack frame: those are indented),
		# without pid, thread number and addresses
		cat=$(grep -v '^==[0-9]*==  \|Command:\|reduced accuracy\|Copyright\|Using Valgrind' "$log" |
			grep -m1 -i 'data race\|conflicting\|lock order\|not locked\|dubious\|is not a\|deadlock' |
			sed 's/^==[0-9]*== //; s/Thread #[0-9]*:* *//; s/0x[0-9A-Fa-f]*//g; s/"[^"]*"//g; s/  */ /g' |
			cut -c1-40 | sed 's/ *$//' | tr ' ' '_')
		;;
	esac
	secs=$(secs "$(nowns)" "$t0")
	echo "peer $p $tool $v $rc $secs ${n:--} ${cat:--}" >>"$DATA"
}

# twin_cts PROG: cts-trace random on the twin; bugs and race reports are false alarms.
twin_cts() {
	p=$1 m=$(mode_of "$1") r=$SCRATCH/r.json
	rm -f "$r"
	run_cts $((CTS_T + 30)) -s random -m "$m" -n "$TWIN_N" -t "$CTS_T" --keep-going \
		--report "$r" -o "$SCRATCH/cts-out" "$BIN/${p}_ok" >/dev/null 2>"$SCRATCH/twin.err"
	rc=$?
	races=$(grep -c 'data race' "$SCRATCH/twin.err")
	echo "twincts $p $rc $(json "$r" .runs) $(json "$r" .elapsed_seconds) $(json "$r" '[.bugs[].hits] | add // 0') $races" >>"$DATA"
}

log "mode $BENCH_MODE: $(echo $BUGS | wc -w) bug programs; stress <= $STRESS_N runs / ${STRESS_T}s x $STRESS_TRIALS," \
	"cts -t $CTS_T x 6 strategies x seeds $SEEDS, tools <= ${TOOL_T}s"
for p in $BUGS; do
	log "$p ($(mode_of "$p")): native baseline and stress"
	echo "base $p bug $(baseline "$BIN/$p")" >>"$DATA"
	echo "base $p twin $(baseline "$BIN/${p}_ok")" >>"$DATA"
	for input in default amplified; do
		arg=
		if [ $input = amplified ]; then
			arg=$(amplified "$p")
			[ "$arg" = - ] && continue
		fi
		trial=1
		while [ $trial -le $STRESS_TRIALS ]; do
			stress "$BIN/$p" $arg
			echo "stress $p $input ${arg:--} $trial $S_HOW $S_RUNS $S_SECS" >>"$DATA"
			# a bug not seen in the whole budget will not be seen by a retry either
			[ "$S_HOW" = none ] && break
			trial=$((trial + 1))
		done
	done
	log "$p: cts-trace strategies"
	for s in $STRATEGIES; do
		for seed in $SEEDS; do
			cts_trial "$p" "$s" "$seed"
		done
	done
	twin_cts "$p"
	log "$p: helgrind, drd, tsan"
	for tool in helgrind drd tsan; do
		[ "$tool" = tsan ] && [ "$TSAN" != yes ] && continue
		peer "$tool" "$p" bug
		peer "$tool" "$p" twin
	done
done

# ---- tables ----
# xfmt RATIO: 0.48 -> 0.5×, 53.2 -> 53×
xfmt() { [ "$1" = - ] && echo - || awk -v r="$1" 'BEGIN { printf (r < 10 ? "%.1f×" : "%.0f×"), r }'; }
field() { awk -v k="$1" -v p="$2" "\$1 == k && \$2 == p $3 { print \$$4 }" "$DATA"; }
{
	machine_header "Time to first bug: stress testing, cts-trace strategies, helgrind, drd, ThreadSanitizer"
	printf 'Programs: benchmarks/programs/*.c with an `_ok` twin, default input (every tool runs the same binary and input, except the amplified stress column). '
	printf 'cts-trace runs each program in the mode its bug needs ("Minimal mode" in its header).\n\n'

	printf '## (a) Native stress testing\n\n'
	printf 'Run the binary in a loop until a run fails (non-zero exit, signal, or killed by a %s s per-run timeout = hang), ' "$STRESS_PT"
	printf 'at most %s runs or %s s per trial; median (min–max) over up to %s trials (a trial that sees nothing in its whole budget ends the series). ' "$STRESS_N" "$STRESS_T" "$STRESS_TRIALS"
	printf 'The amplified input makes the racy section run many times per process (100000 iterations, or the largest allowed input), which is how one would stress-test in practice; cts-trace and the peer tools use the default input.\n\n'
	printf '| program | mode | default input: runs to failure | seconds | failure | amplified input | runs to failure | seconds | failure |\n'
	printf '|---|---|---:|---:|---|---:|---:|---:|---|\n'
	for p in $BUGS; do
		row="| $p | $(mode_of "$p") |"
		for input in default amplified; do
			if [ $input = amplified ]; then
				arg=$(amplified "$p")
				if [ "$arg" = - ]; then
					row="$row (no argument) | | | |"
					continue
				fi
				row="$row $arg |"
			fi
			found=$(awk -v p="$p" -v i="$input" '$1 == "stress" && $2 == p && $3 == i && $6 != "none"' "$DATA" | wc -l)
			trials=$(awk -v p="$p" -v i="$input" '$1 == "stress" && $2 == p && $3 == i' "$DATA" | wc -l)
			if [ "$found" -eq 0 ]; then
				set -- $(awk -v p="$p" -v i="$input" '$1 == "stress" && $2 == p && $3 == i { print $7, $8 }' "$DATA")
				row="$row not found in ${1:-?} runs | ${2:-?} s | — |"
			else
				set -- $(awk -v p="$p" -v i="$input" '$1 == "stress" && $2 == p && $3 == i && $6 != "none" { print $7 }' "$DATA" | stats)
				r=$(mmm %.0f "$1" "$2" "$3")
				set -- $(awk -v p="$p" -v i="$input" '$1 == "stress" && $2 == p && $3 == i && $6 != "none" { print $8 }' "$DATA" | stats)
				sc=$(mmm %.2f "$1" "$2" "$3")
				kinds=$(awk -v p="$p" -v i="$input" '$1 == "stress" && $2 == p && $3 == i && $6 != "none" { print $6 }' "$DATA" | sort -u | tr '\n' ' ')
				row="$row $r ($found/$trials trials) | $sc | $kinds|"
			fi
		done
		printf '%s\n' "$row"
	done

	printf '\n## (b) cts-trace: runs to the first bug, per strategy\n\n'
	printf 'Each cell: median runs (min–max) / median seconds over seeds %s (k/N when only k of the N seeds found it), with a budget of `-t %s` s per search; ' "$(echo $SEEDS | tr ' ' ',')" "$CTS_T"
	printf '"not found" = budget exhausted; "exhausted" = the bounded space was fully explored without the bug; ~ = cts-trace first reported something else (listed below the table) and the search was repeated with `--keep-going` to the first bug of the expected kind (seconds prorated). pcb and idb use `--bound 1`.\n\n'
	printf '| program | mode | expected bug |'
	for s in $STRATEGIES; do printf ' %s |' "$s"; done
	printf '\n|---|---|---|'
	for s in $STRATEGIES; do printf -- '---:|'; done
	printf '\n'
	for p in $BUGS; do
		printf '| %s | %s | %s |' "$p" "$(mode_of "$p")" "$(expected "$p")"
		for s in $STRATEGIES; do
			nf=$(awk -v p="$p" -v s="$s" '$1 == "cts" && $2 == p && $3 == s && $5 == "found"' "$DATA" | wc -l)
			nt=$(awk -v p="$p" -v s="$s" '$1 == "cts" && $2 == p && $3 == s' "$DATA" | wc -l)
			if [ "$nf" -eq 0 ]; then
				st=$(awk -v p="$p" -v s="$s" '$1 == "cts" && $2 == p && $3 == s { print $5 }' "$DATA" | sort -u | tr '\n' ' ')
				rs=$(awk -v p="$p" -v s="$s" '$1 == "cts" && $2 == p && $3 == s { print $6 }' "$DATA" | stats | cut -d' ' -f1)
				case $st in
				"exhausted ") printf ' exhausted (%s runs), not found |' "$rs" ;;
				"none ") printf ' not found (%s runs) |' "$rs" ;;
				*) printf ' %s|' "$st" ;;
				esac
				continue
			fi
			set -- $(awk -v p="$p" -v s="$s" '$1 == "cts" && $2 == p && $3 == s && $5 == "found" { print $6 }' "$DATA" | stats)
			r=$(mmm %.0f "$1" "$2" "$3")
			sec=$(awk -v p="$p" -v s="$s" '$1 == "cts" && $2 == p && $3 == s && $5 == "found" { print $7 }' "$DATA" | stats | cut -d' ' -f1)
			mark=
			awk -v p="$p" -v s="$s" '$1 == "cts" && $2 == p && $3 == s && $9 ~ /^first:/' "$DATA" | grep -q . && mark="~"
			part=
			[ "$nf" -lt "$nt" ] && part=" ($nf/$nt)"
			printf ' %s / %s%.2f s%s |' "$r" "$mark" "$sec" "$part"
		done
		printf '\n'
	done

	printf '\nReported before the expected bug (searches marked ~ or not found):\n\n'
	awk '$1 == "cts" && $9 ~ /^first:/ { sub(/^first:/, "", $9); printf "- %s, %s seed %s: first report `%s`; then %s\n", $2, $3, $4, $9, ($5 == "found" ? "expected bug at run " $6 : $5 " in " $6 " runs") ; n++ }
		END { if (!n) print "- nothing: every search stopped at the expected bug." }' "$DATA"
	printf '\n## (c) Peer tools vs cts-trace and stress testing\n\n'
	printf 'One run per tool per binary (default input), under a %s s timeout. ' "$TOOL_T"
	printf 'detected = the tool reported an error on the buggy program (helgrind/drd: valgrind ERROR SUMMARY > 0; tsan: a "WARNING: ThreadSanitizer" report), or the program itself failed under the tool (shown as "program failed"); '
	printf 'false alarm = any report (or failure) on the correct twin. '
	printf 'slowdown = wall time of one run under the tool / mean wall time of one native run of the same program (%s runs; both include process start-up and `timeout`). ' "$BASE_K"
	printf 'For cts-trace: detected = any seed of the `random` strategy found the bug (other strategies in table b); detected counts only a bug of the kind the program header describes; false alarm = bugs or data-race reports in %s random runs of the twin (`--keep-going`); slowdown = wall time per cts-trace run (one schedule) on the twin / native run of the twin. ' "$TWIN_N"
	printf 'Stress: detected within the default-input stress budget.\n\n'
	if [ "$TSAN" != yes ]; then
		printf 'ThreadSanitizer: %s.\n\n' "$TSAN"
	fi
	printf '| program | tool | detected (first report) | false alarm on twin | seconds (buggy run) | slowdown vs native (per run) |\n'
	printf '|---|---|---|---|---:|---:|\n'
	for p in $BUGS; do
		nat=$(field base "$p" '&& $3 == "bug"' 4)
		nat_twin=$(field base "$p" '&& $3 == "twin"' 4)
		# stress (default input)
		sf=$(awk -v p="$p" '$1 == "stress" && $2 == p && $3 == "default" && $6 != "none"' "$DATA" | wc -l)
		if [ "$sf" -gt 0 ]; then sd="yes ($(awk -v p="$p" '$1 == "stress" && $2 == p && $3 == "default" && $6 != "none" { print $6; exit }' "$DATA"))"; else sd=no; fi
		printf '| %s | native stress | %s | — | — | 1× |\n' "$p" "$sd"
		# cts-trace random
		rf=$(awk -v p="$p" '$1 == "cts" && $2 == p && $3 == "random" && $5 == "found"' "$DATA" | wc -l)
		rk=$(expected "$p")
		rsec=$(awk -v p="$p" '$1 == "cts" && $2 == p && $3 == "random" && $5 == "found" { print $7 }' "$DATA" | stats | cut -d' ' -f1)
		[ "$rf" -gt 0 ] && cd="yes, $rf/$(echo $SEEDS | wc -w) seeds ($rk)" || cd="no"
		set -- $(awk -v p="$p" '$1 == "twincts" && $2 == p { print $4, $5, $6, $7 }' "$DATA")
		tw="${3:-?} runs with a bug, ${4:-?} race reports in ${1:-?} runs"
		case "${3:-x}${4:-x}" in 00) tw="no ($tw)" ;; *) tw="**yes** ($tw)" ;; esac
		per=$(fdiv "${2:--}" "${1:--}")
		slow=$(fdiv "$per" "$nat_twin")
		slow=$(xfmt "$slow")
		[ "$rsec" = - ] || rsec=$(printf '%.2f (to bug)' "$rsec")
		printf '| %s | cts-trace -s random -m %s | %s | %s | %s | %s |\n' "$p" "$(mode_of "$p")" "$cd" "$tw" "$rsec" "$slow"
		for tool in helgrind drd tsan; do
			[ "$tool" = tsan ] && [ "$TSAN" != yes ] && { printf '| %s | tsan | not available | — | — | — |\n' "$p"; continue; }
			set -- $(awk -v p="$p" -v t="$tool" '$1 == "peer" && $2 == p && $3 == t && $4 == "bug" { print $5, $6, $7, $8 }' "$DATA")
			brc=$1 bsec=$2 bn=$3 bcat=$4
			set -- $(awk -v p="$p" -v t="$tool" '$1 == "peer" && $2 == p && $3 == t && $4 == "twin" { print $5, $6, $7, $8 }' "$DATA")
			trc=$1 tn=$3 tcat=$4
			ok_rc=0
			det=no
			if [ "$bn" != - ] && [ "$bn" -gt 0 ]; then
				det="yes: $bn ($(echo "$bcat" | tr '_' ' '))"
			elif [ "$brc" != 0 ] && [ "$brc" != 99 ] && [ "$brc" != 66 ]; then
				det="program failed ($(how "$brc"))"
			fi
			fa=no
			if [ "$tn" != - ] && [ "$tn" -gt 0 ]; then
				fa="**yes**: $tn ($(echo "$tcat" | tr '_' ' '))"
			elif [ "$trc" != 0 ] && [ "$trc" != 99 ] && [ "$trc" != 66 ]; then
				fa="**yes**: program failed ($(how "$trc"))"
			fi
			base=$nat
			[ "$tool" = tsan ] && label="tsan (gcc -fsanitize=thread)" || label="valgrind --tool=$tool"
			slow=$(fdiv "$bsec" "$base")
			slow=$(xfmt "$slow")
			printf '| %s | %s | %s | %s | %s | %s |\n' "$p" "$label" "$det" "$fa" "$bsec" "$slow"
		done
	done

	printf '\n## Summary: detected (false alarm on twin)\n\n'
	printf '| program | mode | stress default | stress amplified | cts-trace (any strategy) | helgrind | drd | tsan |\n'
	printf '|---|---|---|---|---|---|---|---|\n'
	for p in $BUGS; do
		s1=$(awk -v p="$p" '$1 == "stress" && $2 == p && $3 == "default" && $6 != "none"' "$DATA" | grep -q . && echo yes || echo no)
		if [ "$(amplified "$p")" = - ]; then s2="—"; else
			s2=$(awk -v p="$p" '$1 == "stress" && $2 == p && $3 == "amplified" && $6 != "none"' "$DATA" | grep -q . && echo yes || echo no)
		fi
		ns=$(awk -v p="$p" '$1 == "cts" && $2 == p && $5 == "found" { print $3 }' "$DATA" | sort -u | wc -l)
		set -- $(awk -v p="$p" '$1 == "twincts" && $2 == p { print $6, $7 }' "$DATA")
		cfa=""
		[ "${1:-0}" != 0 ] && cfa=" (FA: bug)"
		[ "${2:-0}" != 0 ] && cfa="$cfa (FA: $2 race reports)"
		row="| $p | $(mode_of "$p") | $s1 | $s2 | $([ "$ns" -gt 0 ] && echo "yes, $ns/6 strategies" || echo no)$cfa |"
		for tool in helgrind drd tsan; do
			if [ "$tool" = tsan ] && [ "$TSAN" != yes ]; then row="$row n/a |"; continue; fi
			set -- $(awk -v p="$p" -v t="$tool" '$1 == "peer" && $2 == p && $3 == t && $4 == "bug" { print $5, $7 }' "$DATA")
			d=no
			{ [ "${2:--}" != - ] && [ "$2" -gt 0 ]; } && d=yes
			{ [ "$d" = no ] && [ "$1" != 0 ] && [ "$1" != 99 ] && [ "$1" != 66 ]; } && d="failed run"
			set -- $(awk -v p="$p" -v t="$tool" '$1 == "peer" && $2 == p && $3 == t && $4 == "twin" { print $5, $7 }' "$DATA")
			f=""
			{ [ "${2:--}" != - ] && [ "$2" -gt 0 ]; } && f=" (FA)"
			row="$row $d$f |"
		done
		printf '%s\n' "$row"
	done

	printf '\n## Commands\n\n```sh\n'
	printf '# bin = benchmarks/work/bin; PROG in: %s\n' "$(echo $BUGS)"
	printf '# (a) stress, until failure, <= %s runs / %s s:\n' "$STRESS_N" "$STRESS_T"
	printf 'timeout -s KILL %s bin/PROG [AMPLIFIED_INPUT]\n' "$STRESS_PT"
	printf '# (b) per STRATEGY in random pct dfs dpor "pcb --bound 1" "idb --bound 1", SEED in %s:\n' "$SEEDS"
	printf './cts-trace -q -s STRATEGY -m MODE -n 0 -t %s --seed SEED --report R.json -o DIR bin/PROG\n' "$CTS_T"
	printf './cts-trace -s random -m MODE -n %s -t %s --keep-going --report R.json -o DIR bin/PROG_ok   # false alarms\n' "$TWIN_N" "$CTS_T"
	printf '# (c) on bin/PROG and bin/PROG_ok:\n'
	printf 'timeout -s KILL %s valgrind --tool=helgrind --error-exitcode=99 --log-file=LOG bin/PROG\n' "$TOOL_T"
	printf 'timeout -s KILL %s valgrind --tool=drd --error-exitcode=99 --log-file=LOG bin/PROG\n' "$TOOL_T"
	printf 'gcc %s -fsanitize=thread -o bin/PROG.tsan benchmarks/programs/PROG.c\n' "$CFLAGS_BENCH"
	printf 'TSAN_OPTIONS="exitcode=66 halt_on_error=0" timeout -s KILL %s bin/PROG.tsan\n' "$TOOL_T"
	printf '```\n\n## Raw data\n\n'
	printf 'base prog variant mean_s_per_native_run | stress prog input arg trial outcome runs secs | cts prog strategy seed status runs secs kind [note] | twincts prog exit runs secs bugs race_reports | peer prog tool variant exit secs reports first_report\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
