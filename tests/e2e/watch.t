#!/bin/bash
# timeout: 300
# --watch on both backends and --races catch (DataCollider-style, sync mode).
# The access-breakpoint fallback is tested everywhere; the debug-register
# path only where the start-up probe sees a trap, and skipped, saying so,
# where it does not (some VMs accept DR7 but never deliver the trap).
. "$(dirname "$0")/lib.sh"

wl() { grep -n "WATCH-LINE: $1" "$TOP/tests/programs/watch.c" | cut -d: -f1; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
N=5000

# The four accesses of watch.c, each at its line with its kind; the report
# names the backend and lists the hits. $1: backend, $2: label.
watch_checks() {
	out=$("$CTS" -m sync -n 1 -v --watch watched --watch-backend "$1" --report "$T/$1.json" \
		-o "$T/w-$1" -- "$PROG/watch" 2>&1)
	is "$?" 0 "$2: clean run"
	like "$out" "watch backend: $1" "$2: -v names the backend"
	like "$out" "watch watched: thread 0 write at main.*\\(watch.c:$(wl main-write)\\) value 1" \
		"$2: main's write, exact line"
	like "$out" "watch watched: thread 1 read at a.*\\(watch.c:$(wl a-read)\\)" "$2: A's read"
	like "$out" "watch watched: thread 2 write at b.*\\(watch.c:$(wl b-write)\\) value 2" \
		"$2: B's write"
	like "$out" "watch watched: thread 0 read at main.*\\(watch.c:$(wl main-read)\\)" \
		"$2: main's read"
	is "$(printf '%s\n' "$out" | grep -c 'watch watched:')" 4 "$2: exactly 4 accesses"
	is "$(json "$T/$1.json" "d['watch_backend']")" "$1" "$2: report says watch_backend $1"
	is "$(json "$T/$1.json" "sorted(h['kind'] for h in d['watch']['hits'] if h['exact'])")" \
		"['read', 'read', 'write', 'write']" "$2: report lists 2 exact reads, 2 exact writes"
	# No access lost, also while the spin probe single-steps the long loop.
	out=$("$CTS" -m sync -n 1 --watch counter --watch-backend "$1" --report "$T/c-$1.json" \
		-o "$T/c-$1" -- "$PROG/watch_count" "$N" 2>/dev/null)
	is "$?" 0 "$2: watch_count clean"
	is "$(json "$T/c-$1.json" "d['watch']['hits_total']")" "$((2 * N + 1))" \
		"$2: all $((2 * N + 1)) accesses of a $N-times increment reported"
	# Every form of access, each hit once with its kind from the one table:
	# push reads var, pop writes it, a rep string instruction one hit per
	# element touching var, the call through var a read at the call (a debug
	# register traps at the callee: the call is found at its return address).
	out=$("$CTS" -m sync -n 1 --watch var --watch-backend "$1" -o "$T/f-$1" -- \
		"$PROG/watch_forms" 2>&1)
	is "$?" 0 "$2: watch_forms clean"
	is "$(printf '%s\n' "$out" |
		sed -n 's/.*watch var: thread 0 \([a-z]* [a-z]* [a-z_]*\).*/\1/p' | uniq -c |
		awk '{ printf "%s %s %s %s;", $1, $2, $3, $4 }')" \
		"1 read at c_pushpop;1 write at c_pushpop;1 rmw at c_rmw;1 atomic at c_lock;8 write at c_rep_store;1 write at c_rep_stosq;8 read at c_rep_load;1 write at c_set;1 read at c_call;" \
		"$2: push read, pop write, rmw, atomic, rep forms one hit per element, call"
}
WATCH_CHECKS=13
SAFE_TWINS="counter_ok publish_ok check_then_act_ok"
# watch_checks for both backends (skipped for hardware where it cannot run),
# 3 checks per twin, 4 for break mode on debug registers, 20 in line.
plan $((2 * WATCH_CHECKS + 3 * $(count $SAFE_TWINS) + 4 + 20))

watch_checks breakpoints "fallback"

# auto: the probe decides, and -v and the report agree.
out=$("$CTS" -m sync -n 1 -v --watch watched --report "$T/auto.json" -o "$T/auto" -- \
	"$PROG/watch" 2>&1)
like "$out" "watch backend: (hardware \\(debug registers trap on this machine\\)|breakpoints \\(debug registers do not trap on this machine\\))" \
	"auto: -v says which backend and why"
b=$(printf '%s\n' "$out" | sed -n 's/.*watch backend: \([a-z]*\).*/\1/p')
is "$(json "$T/auto.json" "d['watch_backend']")" "$b" "auto: report agrees with -v ($b)"

out=$("$CTS" -m sync -n 1 --watch watched --watch-backend hardware -o "$T/probe" -- \
	"$PROG/watch" 2>&1)
if [ $? -eq 2 ] && printf '%s' "$out" | grep -q "debug registers do not trap on this machine"; then
	ok 0 "--watch-backend hardware where traps never arrive: exit 2, says why"
	skip "$WATCH_CHECKS" "skipped: debug registers do not trap on this machine"
	traps=no
else
	ok 0 "debug registers trap on this machine: testing the hardware path"
	watch_checks hardware "hardware"
	traps=yes
fi

# Break mode with --watch-backend hardware: the debug registers, as asked
# (it used access breakpoints, saying so only with -v), or exit 2 where they
# do not trap (CTS_NO_DEBUG_REGISTERS makes this machine such a one).
hw_break() {
	"$CTS" -m break -n 1 -v --watch watched --watch-backend hardware --report "$T/bh.json" \
		-o "$T/bh" -- "$PROG/watch" 2>&1
}
out=$(CTS_NO_DEBUG_REGISTERS=1 hw_break)
is "$?" 2 "break mode, --watch-backend hardware where traps never arrive: exit 2"
like "$out" "^cts-trace: --watch-backend hardware: debug registers do not trap on this machine\$" \
	"break mode, --watch-backend hardware where traps never arrive: one line says why"
if [ "$traps" = yes ]; then
	out=$(hw_break)
	is "$?.$(json "$T/bh.json" "d['watch_backend']")" 0.hardware \
		"break mode, --watch-backend hardware: clean, the report says hardware"
	is "$(printf '%s\n' "$out" | grep -c 'watch backend: hardware\|watch watched: thread [0-2] \(read\|write\) at')" 5 \
		"break mode on debug registers: -v says so, the 4 accesses exact"
else
	skip 2 "skipped: debug registers do not trap on this machine"
fi

# --races catch: the lost update and the publication are caught in sync
# mode (no access breakpoints but the sampled ones), replayed; twins clean.
l1=$(grep -n '^[[:space:]]*tmp = counter;' "$PROG/counter.c" | cut -d: -f1)
l2=$(grep -n '^[[:space:]]*counter = tmp + 1;' "$PROG/counter.c" | cut -d: -f1)
out=$("$CTS" --races catch-fail -n 100 --report "$T/catch.json" -o "$T/catch" -- \
	"$PROG/counter" 2>&1)
is "$?" 1 "catch-fail/counter: the race is a bug (exit 1)"
like "$out" "data race on counter .*counter.c:($l1|$l2)\\) vs thread [12] (read|write) at inc\\+0x[0-9a-f]+ \\(counter.c:($l1|$l2)\\)" \
	"catch-fail/counter: both lines named"
like "$out" "mode sync" "catch-fail/counter: in sync mode"
r=$("$CTS" --replay "$T/catch/race-1.sched" 2>&1)
is "$?" 1 "catch-fail/counter: replay exits 1"
like "$r" "replay reproduced the bug" "catch-fail/counter: replay reproduces the race"
is "$(json "$T/catch.json" "len(d['catch']['caught'][0]['caught']['stack']) > 0 and len(d['catch']['caught'][0]['held']['stack']) > 0 and d['catch']['caught'][0]['reported']")" \
	"True" "catch-fail/counter: report has both stacks of the caught pair"
is "$(json "$T/catch.json" "d['catch']['backend']")" "$b" "catch: uses the probed backend ($b)"
out=$("$CTS" --races catch-fail --watch-backend breakpoints -n 100 --report "$T/cb.json" \
	-o "$T/cb" -- "$PROG/counter" 2>&1)
is "$?" 1 "catch-fail/counter on access breakpoints (everywhere): exit 1"
is "$(json "$T/cb.json" "d['catch']['backend']")" "breakpoints" "catch on access breakpoints: says so"
out=$("$CTS" --races catch-fail -n 100 -o "$T/pub" -- "$PROG/publish" 2>&1)
is "$?" 1 "catch-fail/publish: the race is a bug (exit 1)"
like "$out" "data race on ptr .*publish.c" "catch-fail/publish: race on ptr"
# watch.c's A/B race is intended (no assert fails): reported, not a bug.
out=$("$CTS" --races catch -n 100 -o "$T/rep" -- "$PROG/watch" 2>&1)
is "$?" 0 "catch/watch: --races catch reports a race without a bug (exit 0)"
like "$out" "data race on watched .*watch.c:($(wl a-read)|$(wl b-write))" "catch/watch: race reported"
# A thread already held at its own sampled write when another's window
# opens makes that write later: the program's store, caught on either
# backend, never an "untraced value change" (the fallback counted 7).
for be in breakpoints hardware; do
	if [ "$be" = hardware ] && [ "$traps" != yes ]; then
		skip 1 "skipped: debug registers do not trap on this machine"
		continue
	fi
	"$CTS" --races catch --watch-backend "$be" -n 50 --keep-going --report "$T/u-$be.json" \
		-o "$T/u-$be" -- "$PROG/watch" >/dev/null 2>&1
	is "$?.$(json "$T/u-$be.json" "d['catch']['untraced_value_changes'], len(d['races'])")" \
		"0.0 1" "catch/watch on $be: the race, no untraced value change"
done
for p in $SAFE_TWINS; do
	out=$("$CTS" --races catch-fail -n 100 --report "$T/$p.json" -o "$T/$p" -- "$PROG/$p" 2>&1)
	is "$?" 0 "catch-fail/$p: clean"
	if printf '%s' "$out" | grep -q "data race"; then ok 1 "$p: no race"; else ok 0 "$p: no race"; fi
	is "$(json "$T/$p.json" "d['catch']['windows'] > 0")" "True" "$p: windows were opened"
done
out=$("$CTS" -m break --races catch -n 1 -- "$PROG/counter" 2>&1)
is "$?" 2 "catch in break mode: usage error"
like "$out" "works in sync mode" "catch in break mode: says why"

done_testing
