#!/bin/sh
# benchmarks/hapset.sh quick|full — HaPSet-guided search (seeds/000) against
# plain systematic and randomized search, in break mode (HaPSets need the
# memory accesses):
#   per program and strategy, a search stopping at the first bug within CTS_T
#   seconds: runs and seconds to the first bug, or "to" (time out) with the
#   runs done; HaPSet statements and pairs covered at the end; the same
#   search on the correct twin must come back clean.
# Strategies: hapset (10 random learning runs, then guided dpor), dpor and
# pcb2 with --guide hapset (continuous learning alone, as the paper's
# experiments), plain dpor and pcb2, pct, random. The randomized ones (hapset's
# learning, pct, random) run with SEEDS; the systematic ones are
# deterministic and run once.
# Programs: tests/programs/hs_{aget,pbzip2,pfscan} (shaped like the paper's
# aget, pbzip2 and pfscan bugs), benchmarks/programs bug programs, and
# benchmarks/programs/hapset/*_big.c (the same three bugs at sizes closer to
# the paper's: hundreds of visible operations per run).
SCRIPT=hapset
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts

TESTPROGS=$ROOT/tests/programs
STRATS="hapset dpor+hapset pcb2+hapset dpor pcb2 pct random"
if [ "$BENCH_MODE" = quick ]; then
	BUGS="hs_aget hs_pbzip2 hs_pfscan lost_update"
	SEEDS="1"
	CTS_T=20
else
	BUGS="hs_aget hs_pbzip2 hs_pfscan lost_update check_act deadlock publish aget_big pbzip2_big pfscan_big"
	SEEDS="1 2 3"
	CTS_T=20
fi
BUGS=${BENCH_PROGRAMS:-$BUGS}

src_of() {
	case $1 in
	hs_*) echo "$TESTPROGS/$1.c" ;;
	*_big | *_big_ok) echo "$PROGS/hapset/$1.c" ;;
	*) echo "$PROGS/$1.c" ;;
	esac
}
args_of() {
	case $1 in
	hapset) echo "-s hapset" ;;
	dpor+hapset) echo "-s dpor --guide hapset" ;;
	pcb2+hapset) echo "-s pcb --bound 2 --guide hapset" ;;
	dpor) echo "-s dpor" ;;
	pcb2) echo "-s pcb --bound 2" ;;
	*) echo "-s $1" ;;
	esac
}
seeds_of() {
	case $1 in
	hapset | pct | random) echo "$SEEDS" ;;
	*) echo 1 ;;
	esac
}
for p in $BUGS; do
	build "$(src_of "$p")" "$BIN/$p" || die "gcc failed on $p"
	build "$(src_of "${p}_ok")" "$BIN/${p}_ok" || die "gcc failed on ${p}_ok"
done

DATA=$SCRATCH/data
: >"$DATA"
# search PROG STRATEGY VARIANT SEEDS -> per seed "s prog strategy seed variant
#   found|none runs secs kind statements pairs complete exit"
on_search() {
	echo "s $cur_p $cur_s $1 $cur_v $2 $3 $4 $5 ${8:--} ${9:--} $6 $7" >>"$DATA"
}
search() {
	cur_p=$1 cur_s=$2 cur_v=$3 bin=$BIN/$1
	[ "$3" = twin ] && bin=$BIN/${1}_ok
	# shellcheck disable=SC2046
	first_bug_searches "$4" $((CTS_T + 30)) '"\(.hapset.statements // "-") \(.hapset.pairs // "-")"' \
		on_search "$bin" -q -m break $(args_of "$2") -n 0 -t "$CTS_T" -o "$SCRATCH/out"
}

log "mode $BENCH_MODE: $(echo $BUGS | wc -w) programs, seeds $SEEDS, $CTS_T s per search"
for p in $BUGS; do
	log "$p"
	for s in $STRATS; do
		search "$p" "$s" bug "$(seeds_of "$s")"
		search "$p" "$s" twin 1
	done
done

# ---- tables ----
{
	machine_header "HaPSet-guided search against dpor, pcb2, pct and random"
	printf 'The machine was loaded (other helpers building and testing on 2 cores): seconds\n'
	printf 'are wall time under that load; runs are exact. Coverage reached after N runs\n'
	printf 'per strategy: [coverage.md](coverage.md) (benchmarks/coverage.sh).\n\n'
	printf '## Runs and seconds to the first bug (break mode, %s s per search)\n\n' "$CTS_T"
	printf 'Each cell: runs to the first bug / seconds (median over the seeds that found it,\n'
	printf 'with found/seeds for the randomized strategies); "to (N)": no bug within the time,\n'
	printf 'N runs done; "done (N)": the search completed after N runs without the bug.\n'
	printf 'hapset counts its 10 learning runs. Last columns: HaPSet statements/pairs\n'
	printf 'covered at the end of the hapset search; the twins: every strategy clean?\n\n'
	printf '| program |'
	for s in $STRATS; do printf ' %s |' "$s"; done
	printf ' hapset coverage | twins clean |\n| --- |'
	for s in $STRATS; do printf ' --- |'; done
	printf ' --- | --- |\n'
	for p in $BUGS; do
		printf '| %s |' "$p"
		for s in $STRATS; do
			n=$(awk -v p="$p" -v s="$s" '$1 == "s" && $2 == p && $3 == s && $5 == "bug"' "$DATA" | wc -l)
			f=$(awk -v p="$p" -v s="$s" '$1 == "s" && $2 == p && $3 == s && $5 == "bug" && $6 == "found"' "$DATA" | wc -l)
			if [ "$f" -gt 0 ]; then
				r=$(awk -v p="$p" -v s="$s" '$1 == "s" && $2 == p && $3 == s && $5 == "bug" && $6 == "found" { print $7 }' "$DATA" | stats | cut -d' ' -f1)
				t=$(awk -v p="$p" -v s="$s" '$1 == "s" && $2 == p && $3 == s && $5 == "bug" && $6 == "found" { print $8 }' "$DATA" | stats | cut -d' ' -f1)
				if [ "$n" -gt 1 ]; then
					printf ' %s / %.1f s (%s/%s) |' "$r" "$t" "$f" "$n"
				else
					printf ' %s / %.1f s |' "$r" "$t"
				fi
			else
				set -- $(awk -v p="$p" -v s="$s" '$1 == "s" && $2 == p && $3 == s && $5 == "bug" { print $7, $12; exit }' "$DATA")
				if [ "${2:-}" = true ]; then printf ' done (%s) |' "$1"; else printf ' to (%s) |' "${1:-?}"; fi
			fi
		done
		cov=$(awk -v p="$p" '$1 == "s" && $2 == p && $3 == "hapset" && $5 == "bug" { print $10 "/" $11; exit }' "$DATA")
		bad=$(awk -v p="$p" '$1 == "s" && $2 == p && $5 == "twin" && ($6 != "none" || $13 != 0) { print $3 }' "$DATA" | tr '\n' ' ')
		printf ' %s | %s |\n' "$cov" "${bad:+NO: $bad}${bad:-yes}"
	done
	printf '\nRaw data (s program strategy seed variant found runs seconds kind statements pairs complete exit):\n\n```\n'
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
