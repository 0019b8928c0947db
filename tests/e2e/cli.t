#!/bin/bash
# timeout: 300
# The command line: help, version, exit statuses, clear one-line errors for
# bad input, the JSON report, and nothing left running afterwards.
. "$(dirname "$0")/lib.sh"
NUMBERS=("--timeout nan" "--time nan" "--timeout inf" "--time -1" "--timeout 1e400")
INTEGERS=("--depth -1" "--max-steps -5" "--bound -1" "--runs -1" "--seed ' 1'" "--depth 010x")
WATCH_SPECS=("no_such_symbol/no such symbol" "0x0/null page" "0xffffffffffffffff:8/aligned"
	     "0x601001:4/not aligned" "0x601004/not aligned" "watched:3/length must be 1, 2, 4 or 8"
	     "0x7ffffffff000:8/outside user space" ":4/no symbol or address"
	     "-8/not an address" " 4096/not an address" "+0x10/not an address"
	     "99999999999999999999999/not an address" "0x10000000000000000/not an address")
UNWRITABLE=("--out=" "--report=" "-o /dev/null/sub" "--report $T/no/such/dir/r.json" "--report $T")
# --break items that cannot be parsed (negative or overflowing numbers, the null page, spaces).
BAD_BREAKS=("counter_ok.c:-1/the line is not a decimal number"
	    "counter_ok.c:99999999999999999999/no such line number"
	    "inc+99999999999999999999/the offset is not a 64-bit number"
	    "0x10000000000000000/not a 64-bit hex address" "0x0/address in the null page"
	    "a b/no spaces in an item" "inc,counter_ok.c:0/no such line number")
# 2 checks in each of 10 combo calls, 2 per --watch spec, unwritable
# output and bad --break item, 88 in line.
plan $((88 + 10 * 2 + ${#NUMBERS[@]} + ${#INTEGERS[@]} + 2 * ${#WATCH_SPECS[@]} + 2 * ${#UNWRITABLE[@]} +
	2 * ${#BAD_BREAKS[@]}))

out=$("$CTS" --help 2>&1); rc=$?
is $rc 0 "--help exits 0"
like "$out" "Exit status" "--help documents exit statuses"
like "$out" "random, pct" "--help lists strategies"
out=$("$CTS" --version 2>&1)
is $? 0 "--version exits 0"
like "$out" "^cts-trace [0-9]" "--version prints a version"

out=$("$CTS" --frobnicate 2>&1)
is "$? $(printf '%s\n' "$out" | wc -l)" "2 1" "unknown option: exit 2, one line"
like "$out" "unknown option '--frobnicate' \(see cts-trace --help\)$" "unknown option: the hint on the same line"
out=$("$CTS" 2>&1)
is $? 2 "no program: exit 2"
like "$out" "no program given" "no program: says so"
out=$("$CTS" -s nosuch -- "$PROG/deadlock" 2>&1)
is $? 2 "unknown strategy: exit 2"
like "$out" "unknown strategy 'nosuch'" "unknown strategy: says so"
out=$("$CTS" -n abc -- "$PROG/deadlock" 2>&1)
is $? 2 "bad --runs: exit 2"
out=$("$CTS" -m fast -- "$PROG/deadlock" 2>&1)
is $? 2 "bad --mode: exit 2"

out=$("$CTS" -- "$T/missing" 2>&1)
is $? 2 "missing file: exit 2"
like "$out" "No such file" "missing file: says so"
cp "$PROG/deadlock" "$T/noexec" && chmod -x "$T/noexec"
out=$("$CTS" -- "$T/noexec" 2>&1)
is $? 2 "not executable: exit 2"
like "$out" "not executable" "not executable: says so"
printf '#!/bin/sh\necho hi\n' > "$T/script.sh" && chmod +x "$T/script.sh"
out=$("$CTS" -- "$T/script.sh" 2>&1)
is $? 2 "script: exit 2"
like "$out" "without exec.ing a program in its own process: nothing to test" "script that runs no program: says there is nothing to test"
cp "$PROG/deadlock" "$T/elf32" && printf '\001' | dd of="$T/elf32" bs=1 seek=4 conv=notrunc 2>/dev/null
out=$("$CTS" -- "$T/elf32" 2>&1)
is $? 2 "32-bit ELF: exit 2"
like "$out" "32-bit" "32-bit ELF: says so"
printf 'int main(void){return 0;}\n' > "$T/s.c"
if gcc -static -o "$T/static" "$T/s.c" 2>/dev/null; then
	out=$("$CTS" -- "$T/static" 2>&1)
	is $? 2 "static binary: exit 2"
	like "$out" "statically linked" "static binary: says so"
else
	ok 0 "static binary: exit 2 # skip no static libc"
	ok 0 "static binary: says so # skip no static libc"
fi

printf 'cts-schedule 1\nsteps 2\n0 0 start 0x0\n' > "$T/trunc.sched"
out=$("$CTS" --replay "$T/trunc.sched" -- "$PROG/deadlock" 2>&1)
is $? 2 "truncated schedule: exit 2"
like "$out" "truncated" "truncated schedule: says so"
printf 'garbage\n' > "$T/bad.sched"
out=$("$CTS" --replay "$T/bad.sched" -- "$PROG/deadlock" 2>&1)
is $? 2 "corrupt schedule: exit 2"
like "$out" "not a cts schedule" "corrupt schedule: says so"

# A clean program, a report, and a bug's report.
out=$("$CTS" -n 20 --report "$T/clean.json" -- "$PROG/deadlock_ok" 2>&1)
is $? 0 "clean program: exit 0"
like "$(cat "$T/clean.json")" '"bugs": \[\]' "clean report has no bugs"
out=$("$CTS" -n 500 -o "$T/out" --report "$T/bug.json" -- "$PROG/deadlock" 2>&1)
is $? 1 "buggy program: exit 1"
r=$(cat "$T/bug.json")
like "$r" '"kind": "deadlock"' "report: bug kind"
like "$r" '"replay": ".*--replay .*deadlock-1.sched"' "report: replay command"
like "$r" '"runs": [0-9]+' "report: runs"

# A schedule replayed against another program diverges, and says where.
out=$("$CTS" --replay "$T/out/deadlock-1.sched" -- "$PROG/check_then_act" 2>&1)
is $? 2 "replay on another program: exit 2"
like "$out" "replay diverged: step [0-9]+" "divergence names the step"

# ---- issue 17: every input and every exit path ----------------------------

# Numbers (14): NaN and infinity refused, 0 documented as "no limit", one line per error.
for a in "${NUMBERS[@]}"; do
	out=$("$CTS" $a -n 1 -- "$PROG/deadlock_ok" 2>&1)
	is $? 2 "$a: exit 2"
done
out=$("$CTS" --timeout 0 -n 2 -- "$PROG/deadlock_ok" 2>&1)
is $? 0 "--timeout 0 (no limit) is accepted"
like "$("$CTS" --help)" "--timeout SECONDS.*0 = no limit" "--help: --timeout 0 means no limit"
for a in "${INTEGERS[@]}"; do
	out=$(eval "\"\$CTS\" $a -- \"\$PROG/deadlock_ok\"" 2>&1)
	rc=$?
	is "$rc/$(printf '%s\n' "$out" | grep -c '^cts-trace:')" "2/1" "$a: exit 2 with one error line"
done

# Programs (13): a truncated ELF or a bogus entry point is not a valid program.
head -c 4000 "$PROG/deadlock" > "$T/truncated" && chmod +x "$T/truncated"
out=$("$CTS" -n 1 -- "$T/truncated" 2>&1)
is $? 2 "truncated ELF: exit 2"
like "$out" "not a valid program: truncated" "truncated ELF: says so"
cp "$PROG/deadlock" "$T/badentry"
printf '\000\000\000\020\000\000\000\000' | dd of="$T/badentry" bs=1 seek=24 conv=notrunc 2>/dev/null
out=$("$CTS" -n 1 -- "$T/badentry" 2>&1)
is $? 2 "bogus entry point: exit 2"
like "$out" "not a valid program: entry point 0x10000000" "bogus entry point: says so"

# --watch (13): resolved and checked against the debug-register rules before starting.
for w in "${WATCH_SPECS[@]}"; do
	spec=${w%%/*}
	out=$(timeout 60 "$CTS" -n 1 -m sync --watch "$spec" -- "$PROG/watch" 2>&1)
	is $? 2 "--watch $spec: exit 2"
	like "$out" "${w#*/}" "--watch $spec: says why"
done

# --break: an item that cannot be parsed is exit 2, one line, before anything runs.
for b in "${BAD_BREAKS[@]}"; do
	item=${b%%/*}
	out=$(timeout 60 "$CTS" -n 3 --break "$item" -- "$PROG/counter_ok" 2>&1)
	is "$? $(printf '%s\n' "$out" | wc -l)" "2 1" "--break '$item': exit 2, one line"
	like "$out" "${b#*/}" "--break '$item': says why"
done

# JSON inputs that are no files: the reason, not jansson's "(line -1)" or
# "'[' or '{' expected near end of file".
ln -s "$T/nowhere" "$T/dlink"
out=$("$CTS" -s racefuzzer --suspects-from "$T/dlink" -- "$PROG/counter_ok" 2>&1)
is "$? $(printf '%s\n' "$out" | wc -l)" "2 1" "--suspects-from a dangling symlink: exit 2, one line"
is "$out" "cts-trace: --suspects-from $T/dlink: No such file or directory" \
	"--suspects-from a dangling symlink: no '(line -1)'"
out=$("$CTS" -s racefuzzer --suspects-from "$T" -- "$PROG/counter_ok" 2>&1)
is "$? $out" "2 cts-trace: --suspects-from $T: is a directory" "--suspects-from a directory: says so"
out=$("$CTS" -s hapset --hapset-load "$T" -- "$PROG/counter_ok" 2>&1)
is "$? $out" "2 cts-trace: --hapset-load $T: is a directory" "--hapset-load a directory: says so"

# -q: a diverged replay is an error, said in its one line even so.
"$CTS" -q -n 500 -o "$T/qd" -- "$PROG/deadlock" 2>/dev/null
sed 's/^\([0-9][0-9]*\) 0 create/\1 1 create/' "$T/qd/deadlock-1.sched" >"$T/qd.sched"
out=$("$CTS" -q --replay "$T/qd.sched" 2>&1)
is "$? $(printf '%s\n' "$out" | wc -l)" "2 1" "-q, replay diverged: exit 2, one line"
like "$out" "^cts-trace: replay diverged: step [0-9]+" "-q, replay diverged: says so"

# Reports (4): never renamed over a device, FIFO or symlink; '-' is stdout; a full device fails.
ln -s /dev/full "$T/full"
out=$("$CTS" -n 2 --report "$T/full" -- "$PROG/deadlock_ok" 2>&1)
is $? 2 "--report to a full device: exit 2"
like "$out" "No space left on device" "--report to a full device: says so"
[ -L "$T/full" ] && [ -c /dev/full ]
ok $? "--report through a symlink to /dev/full: both left as they were"
echo '{}' > "$T/real.json" && ln -s real.json "$T/link.json"
"$CTS" -q -n 2 --report "$T/link.json" -- "$PROG/deadlock_ok" 2>/dev/null
[ -L "$T/link.json" ] && grep -q '"runs": 2' "$T/real.json"
ok $? "--report through a symlink: the link stays, its target gets the report"
mkfifo "$T/fifo"
exec 7<>"$T/fifo" # a reader from the start (read-write: opening it never blocks)
"$CTS" -q -n 2 --report "$T/fifo" -- "$PROG/deadlock_ok" 2>/dev/null
is $? 0 "--report to a FIFO: exit 0"
[ -p "$T/fifo" ] && python3 -c 'import fcntl, json, os
fcntl.fcntl(7, fcntl.F_SETFL, fcntl.fcntl(7, fcntl.F_GETFL) | os.O_NONBLOCK)
json.loads(os.read(7, 1 << 20))'
ok $? "--report to a FIFO: still a FIFO, the reader got valid JSON"
exec 7<&-
out=$("$CTS" -q -n 2 --report "$T/fifo" -- "$PROG/deadlock_ok" 2>&1)
is $? 2 "--report to a FIFO nobody reads: exit 2 at once"
out=$("$CTS" -q -n 2 --report - -- "$PROG/deadlock_ok" 2>/dev/null)
printf '%s' "$out" | python3 -c 'import json,sys; assert json.load(sys.stdin)["runs"] == 2'
ok $? "--report -: the JSON report on standard output"
echo kept > "$T/log"
"$CTS" -q -n 2 --report /dev/fd/1 -- "$PROG/deadlock_ok" >> "$T/log" 2>/dev/null
[ "$(head -n 1 "$T/log")" = kept ] && tail -n +2 "$T/log" | python3 -c 'import json,sys; json.load(sys.stdin)'
ok $? "--report /dev/fd/1 appending to a log: written to the descriptor, the log kept"

# Outputs that cannot be written are found before exploring (6): exit 2 at once.
for a in "${UNWRITABLE[@]}"; do
	out=$(timeout 60 "$CTS" $a -n 0 -t 600 -- "$PROG/deadlock_ok" 2>&1)
	rc=$?
	is "$rc" 2 "'$a': exit 2 before exploring"
	if printf '%s' "$out" | grep -q " runs, "; then ok 1 "'$a': nothing explored"; else ok 0 "'$a': nothing explored"; fi
done
"$CTS" -q -n 2 -o "$T/fresh/sub" -- "$PROG/deadlock_ok" 2>/dev/null
[ ! -e "$T/fresh" ]
ok $? "--out made for the check is removed again when no bug was saved"

# Schedule names (5): unique, never overwritten, across runs, programs and processes.
"$CTS" -q -n 500 -o "$T/same" -- "$PROG/deadlock" 2>/dev/null
cp "$T/same/deadlock-1.sched" "$T/first.sched"
"$CTS" -q -n 500 -o "$T/same" -- "$PROG/lost_wakeup" 2>/dev/null
cmp -s "$T/first.sched" "$T/same/deadlock-1.sched" && [ -s "$T/same/deadlock-2.sched" ]
ok $? "a second run into the same --out saves deadlock-2.sched, deadlock-1 unchanged"
"$CTS" -q -n 500 -o "$T/same" -- "$PROG/deadlock" 2>/dev/null &
"$CTS" -q -n 500 -o "$T/same" -- "$PROG/deadlock" 2>/dev/null
wait
is "$(ls "$T/same" | grep -c '^deadlock-[0-9]*\.sched$')" 4 "two processes at once: two more files, none lost"
out=$("$CTS" --replay "$T/same/deadlock-1.sched" 2>&1)
is $? 1 "the first schedule still replays its own program"

# Replay (10): the schedule records every option that changes a run.
out=$("$CTS" -m break --races fail -n 200 -o "$T/rf" -- "$PROG/counter" 2>&1)
is $? 1 "--races fail: the race is a bug"
cmd=$(printf '%s\n' "$out" | sed -n 's/^  replay: *//p' | head -n 1)
like "$(cat "$T/rf/race-1.sched" 2>/dev/null)" "races fail" "the schedule records 'races fail'"
out=$($cmd 2>&1)
is $? 1 "--races fail: the printed replay command reproduces the race"
like "$out" "replay reproduced the bug" "--races fail replay: no divergence"
out=$("$CTS" --races off --replay "$T/rf/race-1.sched" 2>&1)
like "$out" "warning: --races off on the command line overrides the schedule's fail" \
	"a command-line option that contradicts the schedule wins, with a warning"
out=$("$CTS" --fail-on-exit -s dfs -o "$T/fx" -- "$PROG/exit_status" 2>&1)
is $? 1 "--fail-on-exit: exit status 3 is a bug"
out=$("$CTS" --replay "$T/fx/exit-status-1.sched" 2>&1)
is $? 1 "--fail-on-exit is replayed from the schedule"

# Replay starts the program as it was started (9; issue 27 item 3): the
# path as given (a symlink: AT_EXECFN), argv[0], and says when the working
# directory, the program file or the environment differ. execfn_steps's run
# depends on the lengths of its AT_EXECFN and argv[0].
mkdir -p "$T/named/elsewhere" && ln -s "$PROG/execfn_steps" "$T/named/link" &&
	cp "$PROG/execfn_steps" "$T/named/copy"
out=$(cd "$T/named" && "$CTS" --races off -n 200 -o o -- ./link 2>&1)
is $? 1 "by a symlink: the lost update is found"
sf="$T/named/o/assert-1.sched"
like "$(cat "$sf" 2>/dev/null)" "exec \./link
argv0 \./link
cwd $T/named
binary size=[0-9]+ fnv1a=[0-9a-f]{16}
env count=[0-9]+ bytes=[0-9]+ fnv1a=[0-9a-f]{16}" \
	"the schedule records the exec path, argv[0], cwd, the binary and the environment"
cmd=$(printf '%s\n' "$out" | sed -n 's/^  replay: *//p' | head -n 1)
good=0
for i in 1 2 3; do
	r=$(cd "$T/named" && $cmd 2>&1)
	[ $? -eq 1 ] && ! printf '%s' "$r" | grep -q "warning" && good=$((good + 1))
done
is "$good" 3 "by a symlink: the printed replay command reproduces the bug 3/3, no warning"
r=$(cd "$T/named/elsewhere" && "$CTS" --replay ../o/assert-1.sched 2>&1)
like "$r" "warning: replaying in $T/named/elsewhere, but the schedule was recorded in $T/named" \
	"replay from another directory: a warning names both"
like "$r" "warning: \./link \(the path the schedule was recorded with\) is not here" \
	"replay from another directory: says the recorded path is not there"
out=$(cd "$T/named" && "$CTS" --races off -n 200 -o o2 -- ./copy 2>&1)
is $? 1 "a copy of the program: the bug is found"
cp "$PROG/execfn_steps_ok" "$T/named/copy"
r=$(cd "$T/named" && "$CTS" --replay o2/assert-1.sched 2>&1)
like "$r" "warning: $T/named/copy is not the program the schedule was recorded with" \
	"replay of a changed program file: a warning"
r=$(cd "$T/named" && env CTS_EXTRA_VARIABLE=1 "$CTS" --replay o/assert-1.sched 2>&1)
like "$r" "warning: the environment differs from the recorded one" \
	"replay in another environment: a warning"
grep -v -E '^(exec|argv0|cwd|binary|env) ' "$T/rf/race-1.sched" > "$T/old.sched"
"$CTS" --replay "$T/old.sched" >/dev/null 2>&1
is $? 1 "a schedule without the new keys (older files) still replays"

# Bounded reads (7): a device is refused before anything is read.
out=$(timeout 20 "$CTS" --replay /dev/zero 2>&1)
is $? 2 "--replay /dev/zero: exit 2 at once"
like "$out" "not a regular file" "--replay /dev/zero: says so"
out=$(timeout 20 "$CTS" --replay <(head -c 100000 /dev/zero) 2>&1)
is $? 2 "--replay of a pipe of NUL bytes: exit 2"
like "$out" "binary data" "--replay of a pipe of NUL bytes: says so"

# Report contents: invalid UTF-8 in the program path and arguments, and every race.
bad=$(printf 'prog\377name')
cp "$PROG/counter" "$T/$bad"
"$CTS" -q -m break --keep-going -n 30 -o "$T/u" --report "$T/u.json" -- "$T/$bad" "$(printf 'a\377\376b')" 2>/dev/null
python3 - "$T/u.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["program"].endswith("prog\ufffdname"), d["program"]
assert d["args"] == ["a\ufffd\ufffdb"], d["args"]
PY
ok $? "report with 0xff bytes in the path and argument parses; they become U+FFFD"
python3 - "$T/u.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["races_mode"] == "report"
races = d["races"]
assert races, "no races"
for r in races:
    assert r["variable"] == "counter", r
    assert len(r["accesses"]) == 2
    for a in r["accesses"]:
        assert a["op"] in ("read", "write") and "counter.c:" in a["location"], a
        assert a["thread"] in (1, 2) and a["pc"].startswith("0x")
    assert 1 <= r["runs"] <= d["runs"]
assert any(a["write"] and b["write"] for a, b in (r["accesses"] for r in races))
PY
ok $? "report lists every race: variable, both accesses with source lines, runs that saw it"

# Signals (15): a SIGTERM pending at the first instruction goes through cleanup, exit 130.
out=$(python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
os.kill(os.getpid(), signal.SIGTERM)
os.execv(sys.argv[1], sys.argv[1:])' "$CTS" -n 100 -- "$PROG/deadlock_ok" 2>&1)
is $? 130 "SIGTERM during start-up: exit 130"
like "$out" "interrupted" "SIGTERM during start-up: says so"

# Which options go with which session and strategy: one table (tracer/cli.c),
# one message shape, exit 2 before anything runs or is attached to.
combo() { # WANT-REGEX DESCRIPTION ARGS...
	local want=$1 what=$2
	shift 2
	out=$("$CTS" "$@" 2>&1)
	is "$? $(printf '%s\n' "$out" | wc -l)" "2 1" "$what: exit 2, one line"
	like "$out" "$want" "$what: says which and why"
}
combo "--break cannot be used with --jobs, --shard or --split-depth" "--break with --jobs" \
	--jobs 2 --break f -- "$PROG/deadlock_ok"
combo "--jobs, --shard and --split-depth go with -s random, pct, dfs, dpor, odpor, pcb, idb only, not with -s map" \
	"--shard with map" --shard 1/2 -s map -- "$PROG/deadlock_ok"
combo "--jobs, --shard and --split-depth cannot be used with --replay" "--split-depth with --replay" \
	--split-depth 2 --replay "$T/out/deadlock-1.sched"
combo "--instances goes with -s random, pct, dfs, dpor, odpor, pcb, idb only, not with -s racefuzzer" \
	"--instances with a fuzzer" -s racefuzzer --instances 2 -- "$PROG/deadlock_ok"
combo "--instances cannot be used with --split-depth \\(the instances are the work items" \
	"--instances with --split-depth" --instances 2 --jobs 2 --split-depth 3 -- "$PROG/deadlock_ok"
combo "--instance cannot be used with --jobs, --shard or --split-depth" "--instance with --shard" \
	--instance 1:0 --shard 1/2 -- "$PROG/deadlock_ok"
combo "--tries, --suspects and --suspects-from go with -s racefuzzer" "--tries with random" \
	--tries 3 -- "$PROG/deadlock_ok"
combo "--guide hapset goes with -s dpor, odpor, pcb, idb only, not with -s pct" "--guide with pct" \
	-s pct --guide hapset -- "$PROG/deadlock_ok"
combo "--state-match cannot be used in attach mode" "-p with --state-match" -p $$ --state-match petri
combo "-p \(attach mode\) goes with -s random, pct only, not with -s dpor" "-p with dpor" -p $$ -s dpor
"$CTS" -q -s dpor --jobs 2 -o "$T/jd" -- "$PROG/deadlock_ok" >/dev/null 2>&1
is $? 0 "a legal combination (dpor with --jobs) runs"

# atomfuzzer and racefuzzer look for suspects among plain accesses: sync mode
# would silently find none.
out=$("$CTS" -m sync -s atomfuzzer -- "$PROG/active_atom" 2>&1)
is $? 2 "-m sync -s atomfuzzer: exit 2"
like "$out" "^cts-trace: -s atomfuzzer finds its suspects among plain memory accesses, which -m sync does not see" \
	"-m sync -s atomfuzzer: says why"

is "$(leftovers deadlock)" no "no traced process left behind"
done_testing
