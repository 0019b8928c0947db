#!/bin/bash
# timeout: 300
# The command line: help, version, exit statuses, clear one-line errors for
# bad input, the JSON report, and nothing left running afterwards.
. "$(dirname "$0")/lib.sh"
plan 34

out=$("$CTS" --help 2>&1); rc=$?
is $rc 0 "--help exits 0"
like "$out" "Exit status" "--help documents exit statuses"
like "$out" "random, pct" "--help lists strategies"
out=$("$CTS" --version 2>&1)
is $? 0 "--version exits 0"
like "$out" "^cts-trace [0-9]" "--version prints a version"

out=$("$CTS" --frobnicate 2>&1)
is $? 2 "unknown option: exit 2"
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
like "$out" "not an ELF" "script: says not an ELF executable"
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

is "$(leftovers deadlock)" no "no traced process left behind"
done_testing
