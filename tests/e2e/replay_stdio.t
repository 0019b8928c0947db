#!/bin/bash
# timeout: 180
# A replay gives the program stdout and stderr of the kind its recorded run
# had (schedule key stdio): a search's runs write to /dev/null, a replay goes
# to a pipe or a terminal, and a program that seeks its streams only where it
# can (Python's start-up; tests/programs/stdio_kind) takes other steps there.
. "$(dirname "$0")/lib.sh"
plan 15

P=$PROG/stdio_kind
"$CTS" -q -m sync -s random --seed 1 -n 500 -o "$T/o" -- "$P" >/dev/null 2>&1
is $? 1 "stdio_kind: the deadlock is found"
S=$(ls "$T"/o/deadlock-*.sched 2>/dev/null | grep -v orig | head -n 1)
grep -qx 'stdio null null' "$S" 2>/dev/null
ok $? "its schedule records stdout and stderr on /dev/null"

# Into a pipe: the program writes to a file that answers like /dev/null.
out=$("$CTS" -q --replay "$S" 2>&1)
is $? 1 "replayed into a pipe: the deadlock again"
like "$out" "stdout seekable: yes" "the program saw a seekable stdout and its output is shown"
unlike "$out" "diverged|warning" "no divergence, no warning"
case "$out" in
"stdout seekable: yes"*"BUG (deadlock)"*) ok 0 "the output comes before the verdict" ;;
*) ok 1 "the output comes before the verdict" ;;
esac
"$CTS" -q --replay "$S" >"$T/file.out" 2>"$T/file.err"
is $? 1 "replayed into a file: the deadlock again"
grep -q "stdout seekable: yes" "$T/file.out"
ok $? "the output is in the file"
"$CTS" -q --replay "$S" >/dev/null 2>&1
is $? 1 "replayed onto /dev/null: the deadlock again"

# The premise: without the stdio line (an older schedule) a replay into a
# pipe gives the program a pipe, and it takes other steps.
grep -vx 'stdio null null' "$S" >"$T/old.sched"
out=$("$CTS" -q --replay "$T/old.sched" 2>&1)
is $? 2 "no stdio line, replayed into a pipe: the replay diverges (exit 2)"
like "$out" "replay diverged" "the divergence is said"

# Recorded with --output into a pipe; replayed into a file: no file can
# stand in for a pipe, so a warning says the replay may diverge.
"$CTS" -q -m sync -s random --seed 1 -n 500 --output -o "$T/p" -- "$P" 2>/dev/null | cat >/dev/null
S2=$(ls "$T"/p/deadlock-*.sched 2>/dev/null | grep -v orig | head -n 1)
grep -qx 'stdio pipe null' "$S2" 2>/dev/null
ok $? "recorded with --output, stdout into a pipe: stdio pipe null"
"$CTS" -q --replay "$S2" >"$T/p.out" 2>"$T/p.err"
grep -q "warning: the program's stdout was a pipe when the schedule was recorded and is a file now" \
	"$T/p.err"
ok $? "replayed into a file: a warning names both kinds"

# The twin: no bug, with stdout on /dev/null or a pipe.
"$CTS" -q -m sync -s random --seed 3 -n 200 -o "$T/k" -- "$PROG/stdio_kind_ok" >/dev/null 2>&1
is $? 0 "stdio_kind_ok: 200 random schedules, no bug"
out=$("$CTS" -q -m sync -s dfs -n 100 --output -o "$T/k2" -- "$PROG/stdio_kind_ok" 2>&1)
is $? 0 "stdio_kind_ok with --output into a pipe: no bug (\"$(printf '%s' "$out" | head -n 1)\")"
done_testing
