#!/bin/sh
# benchmarks/speed-syscalls.sh quick|full — exact per-run cost of cts-trace:
# its system calls (ptrace by request, wait4, memory reads and writes, /proc
# files) and ptrace stops per run, the marginal count between N1 and N2 runs
# of `cts-trace -q -s random --seed 1 -m MODE -n N` (strace on cts-trace
# only, not its children), so start-up cancels out. Counts do not depend on
# the machine's load, unlike times: this is the table to compare binaries on
# a shared machine. CTS_BEFORE=path/to/an/older/cts-trace adds its column.
# Also: step mode with and without LD_BIND_NOW (the cost of lazy PLT binding
# paid again in every run). Writes results/speed-syscalls.md
# (results/quick/speed-syscalls.md in quick mode).
SCRIPT=speed-syscalls
. "$(dirname "$0")/lib.sh"
bench_init "$@"
need_cts
need_tool strace "counting cts-trace's system calls" strace

if [ "$BENCH_MODE" = quick ]; then N1=20 N2=60; else N1=50 N2=150; fi
SPAN=$((N2 - N1))
BEFORE=${CTS_BEFORE:-}
if [ -n "$BEFORE" ]; then
	[ -x "$BEFORE" ] || die "CTS_BEFORE=$BEFORE is not executable"
	cp "$BEFORE" "$SCRATCH/cts-before" || die "cannot copy $BEFORE"
	BEFORE_ID="sha256 $(sha256sum "$BEFORE" | cut -c1-12)"
fi
PROGRAMS="bounded_buffer_ok counter_ok deadlock_ok bank3_ok lib_memset_ok lib_memcpy_ok"
src_of() {
	if [ -f "$PROGS/$1.c" ]; then echo "$PROGS/$1.c"; else echo "$ROOT/tests/programs/$1.c"; fi
}
for p in $PROGRAMS; do
	build "$(src_of "$p")" "$BIN/$p" || die "gcc failed on $(src_of "$p")"
done

# count BIN PROG MODE: "total ptrace wait4 vm_read vm_write proc_files stops
# steps_N2 REQ=n,..." per run (marginal over SPAN runs).
count() {
	for n in $N1 $N2; do
		rm -f "$SCRATCH/r$n.json"
		timeout -k 5 300 strace -qq -o "$SCRATCH/t$n" "$1" -q -s random --seed 1 -m "$3" -n "$n" \
			--report "$SCRATCH/r$n.json" -o "$SCRATCH/out" "$BIN/$2" >/dev/null 2>&1
	done
	s1=$(json "$SCRATCH/r$N1.json" .tracer.stops) s2=$(json "$SCRATCH/r$N2.json" .tracer.stops)
	st=$(json "$SCRATCH/r$N2.json" .steps)
	awk -v span="$SPAN" -v s1="$s1" -v s2="$s2" -v st="$st" '
	FNR == 1 { f++ }
	/^(---|\+\+\+)/ { next }
	{
		name = $0; sub(/\(.*/, "", name)
		d = (f == 1) ? -1 : 1
		c[name] += d
		if (name == "ptrace") { req = $0; sub(/^ptrace\(/, "", req); sub(/,.*/, "", req); sub(/^PTRACE_/, "", req); r[req] += d }
		if (name ~ /^(openat|close|pread64|pwrite64|read|fstat|newfstatat)$/) proc += d
	}
	END {
		tot = 0; for (k in c) tot += c[k]
		out = ""; for (k in r) if (r[k] / span >= 0.05) out = out sprintf("%s=%.2f,", k, r[k] / span)
		printf "%.2f %.2f %.2f %.2f %.2f %.2f %s %s %s\n", tot / span, c["ptrace"] / span,
			c["wait4"] / span, c["process_vm_readv"] / span, c["process_vm_writev"] / span,
			proc / span, (s1 == "-" || s2 == "-") ? "-" : sprintf("%.2f", (s2 - s1) / span), st,
			out == "" ? "-" : out
	}' "$SCRATCH/t$N1" "$SCRATCH/t$N2"
}

DATA=$SCRATCH/data
: >"$DATA"
for p in $PROGRAMS; do
	for m in break sync; do
		case $p in lib_*) [ $m = sync ] && continue ;; esac
		log "$p -m $m"
		echo "after $p $m $(count "$CTS" "$p" $m)" >>"$DATA"
		[ -n "$BEFORE" ] && echo "before $p $m $(count "$SCRATCH/cts-before" "$p" $m)" >>"$DATA"
	done
done
log "lazy binding: step mode with and without LD_BIND_NOW"
echo "lazy bounded_buffer_ok step $(count "$CTS" bounded_buffer_ok step)" >>"$DATA"
echo "bindnow bounded_buffer_ok step $(export LD_BIND_NOW=1; count "$CTS" bounded_buffer_ok step)" >>"$DATA"
echo "lazy bounded_buffer_ok break $(count "$CTS" bounded_buffer_ok break)" >>"$DATA"
echo "bindnow bounded_buffer_ok break $(export LD_BIND_NOW=1; count "$CTS" bounded_buffer_ok break)" >>"$DATA"

row() { awk -v w="$1" -v p="$2" -v m="$3" '$1 == w && $2 == p && $3 == m { print; exit }' "$DATA"; }
{
	machine_header "Speed: system calls and stops per run (exact counts)"
	printf 'Per run: the difference between %s and %s runs of `cts-trace -q -s random --seed 1 -m MODE -n N PROGRAM`, divided by %s (strace on cts-trace only; start-up cancels out). Counts are exact and do not depend on the load; steps (the visible operations of the %s runs) must be the same in both columns. ' "$N1" "$N2" "$SPAN" "$N2"
	[ -n "$BEFORE" ] && printf '*Before* is %s (%s), *after* is the cts-trace above.' "$BEFORE" "$BEFORE_ID"
	printf '\n\n'
	[ -n "${SPEED_NOTE:-}" ] && printf '%s\n\n' "$SPEED_NOTE"
	printf '| program | mode | system calls | ptrace | wait4 | process_vm_readv / writev | /proc files | stops | steps (%s runs) |\n' "$N2"
	printf '|---|---|---:|---:|---:|---:|---:|---:|---:|\n'
	for p in $PROGRAMS; do
		for m in break sync; do
			a=$(row after "$p" $m)
			[ -n "$a" ] || continue
			b=$(row before "$p" $m)
			# shellcheck disable=SC2086
			set -- $a
			if [ -n "$b" ]; then
				# shellcheck disable=SC2086
				set -- $a $b
				printf '| %s | %s | %s → **%s** | %s → %s | %s → %s | %s / %s → %s / %s | %s → %s | %s → %s | %s → %s |\n' \
					"$p" "$m" "${16}" "$4" "${17}" "$5" "${18}" "$6" "${19}" "${20}" "$7" "$8" \
					"${21}" "$9" "${22}" "${10}" "${23}" "${11}"
			else
				printf '| %s | %s | %s | %s | %s | %s / %s | %s | %s | %s |\n' \
					"$p" "$m" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "${11}"
			fi
		done
	done
	printf '\nptrace requests per run (bounded_buffer_ok, break):\n\n'
	[ -n "$BEFORE" ] && printf -- '- before: %s\n' "$(row before bounded_buffer_ok break | awk '{ print $NF }')"
	printf -- '- after: %s\n\n' "$(row after bounded_buffer_ok break | awk '{ print $NF }')"
	printf '## Lazy PLT binding, paid again in every run\n\n'
	printf 'Every run is forked from the fork server stopped at `main`, before any PLT slot is bound, so each run binds its slots again. With and without `LD_BIND_NOW=1` in the environment (bound at start-up, once, in the server; the steps must be equal), bounded_buffer_ok, the binary above:\n\n'
	printf '| mode | binding | system calls | ptrace | stops | steps (%s runs) |\n|---|---|---:|---:|---:|---:|\n' "$N2"
	for m in break step; do
		for w in lazy bindnow; do
			# shellcheck disable=SC2086
			set -- $(row $w bounded_buffer_ok $m)
			printf '| %s | %s | %s | %s | %s | %s |\n' "$m" "$w" "$4" "$5" "${10}" "${11}"
		done
	done
	printf '\n## Commands\n\n```sh\n'
	printf '[CTS_BEFORE=OLD/cts-trace] sh benchmarks/speed-syscalls.sh %s\n' "$BENCH_MODE"
	printf '# each count: strace -qq -o TRACE cts-trace -q -s random --seed 1 -m MODE -n %s|%s --report R PROGRAM\n' "$N1" "$N2"
	printf '# programs built with gcc %s from benchmarks/programs or tests/programs\n```\n\n' "$CFLAGS_BENCH"
	printf '## Raw data\n\n```\n# which program mode syscalls ptrace wait4 vm_readv vm_writev proc_files stops steps_%s ptrace_requests\n' "$N2"
	cat "$DATA"
	printf '```\n'
} >"$SCRATCH/table.md"
publish
