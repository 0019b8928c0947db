#!/bin/bash
# ^C early in a hardware attach (issue 28 item 7, D9): SIGINT to
# `cts-trace -p PID --watch var --watch-backend hardware` as soon as it has
# said each stage: "attached to process" (diagnosis and set-up still
# ahead), "controlling process" (control starting) and its first watch hit
# (control under way), twice each, on attach_spawn, which creates a thread
# at a time without end (clone events all along: a PTRACE_INTERRUPT the
# kernel drops at such a stop once held a seize 15 s and failed an idle
# check). Every time cts-trace exits 130, the documented status of an
# interrupt, within 10 s of the signal, having detached: the process runs
# on untraced, no thread stopped, DR7 clear in every thread; once its
# input ends it says every thread counted var. A thread detached with an
# int3 in its way, an armed debug register or a watchpoint's SIGTRAP
# still pending (the interrupt reported first: this test saw that one
# kill attach_spawn) would have died of SIGTRAP. The waits are for lines
# cts-trace prints, each bounded; no sleep.
# timeout: 240
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/e2e/attach_lib.sh"

out=$("$CTS" -m sync -n 1 --watch counter --watch-backend hardware -o o -- \
	"$PROG/watch_count" 10 2>&1)
if [ $? -eq 2 ] && printf '%s' "$out" | grep -q "debug registers do not trap"; then
	echo "# skipped: debug registers do not trap on this machine"
	skip_all "skipped: debug registers do not trap on this machine"
fi
STAGES="attached_to_process controlling_process watch_var:"
ROUNDS=2
plan $(($(count $STAGES) * ROUNDS * 4 + 2))

rm -f "$T/fifo" && mkfifo "$T/fifo"
"$PROG/attach_spawn" <"$T/fifo" >"$T/spawn.out" &
P=$!
bg="$bg $P"
exec 5>"$T/fifo"
for _ in $(seq 200); do [ "$(nthreads "$P")" -ge 2 ] && break; sleep 0.05; done

limit=$((10 * SLOW))
for stage in $STAGES; do
	line=${stage//_/ }
	for r in $(seq $ROUNDS); do
		what="SIGINT at \"$line\" ($r)"
		cts_bg -v -p "$P" --watch var --watch-backend hardware -o "o" 2>"$T/err"
		wait_line "$T/err" "$line"
		ok $? "$what: the line came"
		t0=$(date +%s%N)
		kill -INT "$C"
		for _ in $(seq $((limit * 20))); do kill -0 "$C" 2>/dev/null || break; sleep 0.05; done
		ms=$((($(date +%s%N) - t0) / 1000000))
		if kill -0 "$C" 2>/dev/null; then
			ok 1 "$what: cts-trace still running ${ms} ms after the signal"
			kill -INT "$C"
			wait "$C"
			ok 1 "$what: exit status (it had to be interrupted twice)"
		else
			ok 0 "$what: cts-trace gone ${ms} ms after the signal (limit ${limit} s)"
			wait "$C"
			is "$?" 130 "$what: exit 130 (interrupted)"
		fi
		st=$(for t in /proc/"$P"/task/*/stat; do sed 's/.*) \(.\).*/\1/' "$t" 2>/dev/null; done | tr -d '\nRSDZ')
		is "$(tracer_of "$P") ${st:-none}$(grep -c "detached from process $P" "$T/err")" "0 none1" \
			"$what: detached (said so), untraced, no thread stopped"
	done
done
# main and the reader, and a bump thread if one is there
dr7=$(dr7_all "$P")
is "$(printf '%s\n' $dr7 | sort -u | tr '\n' ' ')$(echo $dr7 | wc -w)" "0 $(echo $dr7 | wc -w)" \
	"DR7 clear in every thread ($dr7)"
exec 5>&-
wait "$P"
is "$? $(cat "$T/spawn.out")" "0 var counted every thread" "attach_spawn ends normally, var counted every thread"
done_testing
