#!/bin/bash
# Attach mode with --races and --watch: in a running attach_datarace the
# unsynchronized bumps of hits are reported (variable, both source lines,
# in stderr and the JSON report), --races fail makes it a bug (exit 1); its
# twin, the same traffic under a mutex, a raw futex lock and atomics, gives
# no race report over several attaches; --watch reports the accesses to a
# variable; attach_work's futex mailbox gives no sure race. After each session the process runs on detached, every thread
# alive, its own code and libc's text byte for byte as before (the int3s
# of the access breakpoints are gone), and its final output is correct.
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/e2e/attach_lib.sh"
plan 67

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# $1 reading from a fifo kept open on fd $2: $P is its pid.
start_prog() {
	rm -f "$T/fifo-$1" && mkfifo "$T/fifo-$1"
	"$PROG/$1" <"$T/fifo-$1" >"$T/$1.out" &
	P=$!
	bg="$bg $P"
	eval "exec $2>\"\$T/fifo-\$1\""
	for _ in $(seq 100); do [ "$(nthreads "$P")" -ge 3 ] && break; sleep 0.05; done
}

src="$TOP/tests/programs/attach_datarace.c"
la=$(grep -n 'hits++; /\* BUG' "$src" | cut -d: -f1)
lb=$(grep -n 'hits += 2; /\* BUG' "$src" | cut -d: -f1)

# ---- the racy one -------------------------------------------------------------
start_prog attach_datarace 5
before=$(text_md5 "$P")
out=$("$CTS" -p "$P" --races report --time 4 -o o --report "$T/r.json" 2>&1); rc=$?
is "$rc" 0 "--races report: exit 0"
like "$out" "data race on hits \(0x[0-9a-f]+\) \(8 bytes\): thread [12] rmw at worker_[ab]\+0x[0-9a-f]+ \(attach_datarace.c:($la|$lb)\) vs thread [12] rmw at worker_[ab]" \
	"--races report: the race on hits, said on stderr"
like "$out" "attach_datarace.c:$la" "--races report: worker_a's line ($la)"
like "$out" "attach_datarace.c:$lb" "--races report: worker_b's line ($lb)"
like "$(printf '%s\n' "$out" | grep -A1 "stack at its rmw:" | tail -1)" \
	"^    #0 worker_[ab]\+0x[0-9a-f]+ \(attach_datarace.c:($la|$lb)\)" "--races report: the stack of the second access"
is "$(json "$T/r.json" "[r['variable'] for r in d['races']].count('hits')")" 1 "report: one race on hits"
is "$(json "$T/r.json" "sorted(a['location'].split('(')[-1].rstrip(')') for r in d['races'] if r['variable'] == 'hits' for a in r['accesses'])")" \
	"['attach_datarace.c:$la', 'attach_datarace.c:$lb']" "report: both accesses' source lines"
is "$(json "$T/r.json" "d['races_mode'], d['attach']['replayable'], d['attach']['races_sure'] >= 1")" "report False True" \
	"report: races mode, no replay"
is "$(detached_alive "$P")" "3 0 " "--races report: detached, its threads all alive"
is "$(text_md5 "$P")" "$before" "--races report: its code and libc's text as before (no int3 left)"

out=$("$CTS" -p "$P" --races fail --time 20 -o o 2>&1); rc=$?
is "$rc" 1 "--races fail: exit 1"
like "$out" "BUG \(race\) in process $P .*data race on hits" "--races fail: the race is the bug"
like "$out" "#0 worker_[ab]\+0x[0-9a-f]+ \(attach_datarace.c:($la|$lb)\)" "--races fail: the stack at the second access"
like "$out" "schedule observed: .*attach-$P-" "--races fail: the observed schedule saved"
is "$(detached_alive "$P")" "3 0 " "--races fail: detached, its threads all alive"
is "$(text_md5 "$P")" "$before" "--races fail: no int3 left"
exec 5>&-
wait "$P"
is "$?" 0 "racy one: exits normally once its input ends"
is "$(cat "$T/attach_datarace.out")" "locked ok, futexed ok, atomics ok" "racy one: its locked traffic intact"

# ---- SIGINT and SIGTERM of cts-trace under --races: the same clean detach -------
for s in INT TERM; do
	start_prog attach_datarace_ok 6
	before=$(text_md5 "$P")
	cts_bg -p "$P" --races report -o "o-$s" 2>"$T/err-$s"
	wait_line "$T/err-$s" "controlling process"
	ok $? "SIG$s: under control"
	sleep 0.5
	kill -s "$s" "$C"
	wait "$C"
	is "$?" 130 "SIG$s: exit 130"
	like "$(cat "$T/err-$s")" "detached from process $P" "SIG$s: detached"
	is "$(detached_alive "$P") $(text_md5 "$P")" "3 0  $before" "SIG$s: threads alive, no int3 left"
	exec 6>&-
	wait "$P"
	is "$(cat "$T/attach_datarace_ok.out")" "locked ok, futexed ok, atomics ok, hits ok" "SIG$s: its output"
done

out=$("$CTS" -p 1 --races catch 2>&1); rc=$?
is "$rc" 2 "--races catch in attach mode: usage error"
like "$out" "--races catch cannot be used in attach mode" "--races catch: said so"

# ---- the twin: no report over several attaches -----------------------------------
start_prog attach_datarace_ok 6
before=$(text_md5 "$P")
for s in "random --seed 1" "pct --seed 2" "random --seed 3" "pct --seed 4"; do
	# shellcheck disable=SC2086
	out=$("$CTS" -p "$P" --races fail -s $s --time 2 -o o 2>&1); rc=$?
	is "$rc" 0 "twin, -s $s: exit 0"
	is "$(printf '%s\n' "$out" | grep -c 'data race')" 0 "twin, -s $s: no race report, sure or not"
	is "$(detached_alive "$P") $(text_md5 "$P")" "3 0  $before" "twin, -s $s: detached, threads alive, no int3 left"
done

# ---- --watch --------------------------------------------------------------------
lw=$(grep -n 'hits += bump' "$TOP/tests/programs/attach_datarace_ok.c" | cut -d: -f1)
# `hits += bump` is `add %rbx,hits(%rip)`: a read-modify-write, rmw on
# either backend. The backend is the start-up probe's choice (-v says it):
# debug registers where they trap, else access breakpoints.
out=$("$CTS" -p "$P" -v --watch hits --time 1 -o o --report "$T/w.json" 2>&1); rc=$?
is "$rc" 0 "--watch: exit 0"
like "$out" "watch hits: thread [12] rmw at traffic\+0x[0-9a-f]+ \(attach_datarace_ok.c:$lw\) value [0-9]+" \
	"--watch: the read-modify-writes, each with its line and new value"
b=$(printf '%s\n' "$out" | sed -n 's/.*watch backend: \(hardware\|breakpoints\) .*/\1/p')
is "$(json "$T/w.json" "d['watch']['backend'], d['watch']['hits_total'] > 0")" "${b:-none} True" \
	"--watch: report names the probed backend (${b:-none}) and counts the hits"
is "$(detached_alive "$P") $(text_md5 "$P")" "3 0  $before" "--watch: detached, threads alive, no int3 left"

out=$("$CTS" -p "$P" --watch nosuchsym --time 1 -o o 2>&1); rc=$?
is "$rc" 2 "--watch of no such symbol: exit 2"
like "$out" "--watch nosuchsym: no such symbol" "--watch of no such symbol: said so"
is "$(detached_alive "$P") $(text_md5 "$P")" "3 0  $before" "--watch of no such symbol: detached, text as before"

out=$("$CTS" -p "$P" --watch hits --watch-backend hardware --time 1 -o o 2>&1); rc=$?
if [ "$rc" -eq 2 ] && printf '%s' "$out" | grep -q "debug registers do not trap on this machine"; then
	ok 0 "--watch-backend hardware where traps never arrive: exit 2, says why"
	skip 1 "skipped: debug registers do not trap on this machine"
else
	is "$rc" 0 "--watch on debug registers: exit 0"
	like "$out" "watch hits: thread [12] rmw at traffic\+0x[0-9a-f]+ \(attach_datarace_ok.c:$lw\)" \
		"--watch on debug registers: the read-modify-writes, exact"
fi
is "$(detached_alive "$P") $(text_md5 "$P")" "3 0  $before" "hardware --watch: detached, threads alive, text as before"
exec 6>&-
wait "$P"
is "$?" 0 "twin: exits normally once its input ends"
is "$(cat "$T/attach_datarace_ok.out")" "locked ok, futexed ok, atomics ok, hits ok" "twin: every counter adds up"

# ---- attach_work: a raw futex mailbox on a plain word ------------------------------
# Its checker and consumer hand `box` over with plain loads and stores and
# futex calls: the calls order them (through the kernel), the word itself
# is two plain moves racing, which may be a C11 atomic: unsure, never a bug.
start_prog attach_work 7
before=$(text_md5 "$P")
out=$("$CTS" -p "$P" --races fail --time 2 -o o 2>&1); rc=$?
is "$rc" 0 "attach_work --races fail: exit 0"
is "$(printf '%s\n' "$out" | grep -c '^cts-trace: data race')" 0 "attach_work: no sure race"
like "$(printf '%s\n' "$out" | grep 'data race' || echo none)" "^(none|cts-trace: possible data race on box .*unsure)" \
	"attach_work: at most the unsure race on box"
is "$(nthreads "$P") $(tracer_of "$P") $(text_md5 "$P")" "4 0 $before" "attach_work: detached, threads alive, text as before"
exec 7>&-
wait "$P"
like "$(cat "$T/attach_work.out")" "^bad 0, last sum 2080, some rounds yes" "attach_work: its output unchanged"

# ---- past --max-threads -------------------------------------------------------------
# A process that keeps creating threads passes the limit: cts-trace says so
# and detaches. The threads created past it are kept stopped (run untraced,
# they would meet the int3s) and let go last, debug registers clear; the
# process lives on and counts every thread (it used to die of SIGTRAP).
start_prog attach_spawn 8
for w in "" "--watch var" "--watch var --watch-backend breakpoints"; do
	# shellcheck disable=SC2086
	out=$("$CTS" -p "$P" --max-threads 100 $w --time 60 -o o 2>&1); rc=$?
	like "$rc $(printf '%s\n' "$out" | grep -c 'than --max-threads: detaching\|detached from process')" \
		"^0 2$" "past --max-threads${w:+ with $w}: exit 0, says so, detaches"
	like "$(tracer_of "$P") $(state "$P")" "^0 [RS]$" "past --max-threads${w:+ with $w}: alive, untraced"
done
exec 8>&-
wait "$P"
is "$?" 0 "attach_spawn: exits normally once its input ends (not SIGTRAP)"
is "$(cat "$T/attach_spawn.out")" "var counted every thread" "attach_spawn: no thread lost"

done_testing
